/* SPDX-License-Identifier: MIT */
/*
 * The hand-off contract between the UEFI loader (boot/) and the kernel. Versioned: the kernel
 * refuses a boot_info whose magic or version it does not know, naming both.
 *
 * Contract at kernel entry (boot/ guarantees it, kernel/ and arch/x86/cpu/entry.S rely on it):
 *  - 64-bit long mode, CPL 0, interrupts disabled, boot services exited;
 *  - CR3 holds the loader's tables: an identity map of [0, identity_limit) with 2 MiB pages,
 *    writable and executable, the same memory again at KERNEL_DIRECT_BASE (the direct map),
 *    and the kernel's PT_LOAD segments mapped at their link addresses
 *    (KERNEL_VIRT_BASE + x -> kernel_phys_base + x);
 *  - RDI = physical (= identity-mapped) address of struct boot_info; the kernel sets its own stack;
 *  - the kernel image's bss is zeroed.
 * All pointers in this structure are physical addresses. The kernel reaches them through the
 * direct map (arch_phys_to_virt) from its first instruction: its own tables (paging_init) drop
 * the identity map, so the lower half belongs to the user program (kernel/program.h).
 */
#ifndef KERNEL_BOOT_INFO_H
#define KERNEL_BOOT_INFO_H

#include <stdint.h>

#define BOOT_INFO_MAGIC	  0x4f464e4954425442ull /* "BTBTINFO" little-endian */
#define BOOT_INFO_VERSION 3 /* 2: the user program (program_*); 3: its data files (data[]) */

/* Where linker.ld places the kernel (the top 2 GiB, for -mcmodel=kernel). */
#define KERNEL_VIRT_BASE 0xffffffff80000000ull
/* The direct map of physical memory [0, identity_limit): the address Linux uses for it
 * (page_offset_base without KASLR, Linux Documentation/arch/x86/x86_64/mm.rst), 512 GiB
 * aligned (one PML4 slot of its own per 512 GiB). */
#define KERNEL_DIRECT_BASE 0xffff888000000000ull

#define BOOT_OPTIONS_MAX      1024 /* bytes of UEFI load options, as ASCII, NUL included */
#define BOOT_CONFIG_MAX	      8192 /* bytes of the config file, NUL included */
#define BOOT_CONFIG_PATH      "\\baretrace.cfg" /* on the volume the loader was read from */
#define BOOT_BUILD_ID_MAX     32
#define BOOT_PROGRAM_OPTION   "program"	    /* the option naming it, read by loader and kernel */
#define BOOT_PROGRAM_PATH_MAX 256	    /* its value: a path on the boot volume */
#define BOOT_PROGRAM_MAX      (64ull << 20) /* bytes of a user program file */
#define BOOT_DATA_DIR	      "\\data"	    /* the program's files (scripts/run --file) */
#define BOOT_DATA_MAX	      16	    /* files of BOOT_DATA_DIR the loader reads */
#define BOOT_DATA_NAME_MAX    64	    /* bytes of a file's name (UTF-8), NUL included */
/* The last line of every run, loader and kernel alike: this, then PASS, FAIL, SKIP or
 * BAD-INPUT. scripts/run believes QEMU's exit code only when the serial log ends with it. */
#define RUN_MARKER	   "run finished: "
#define BOOT_FW_VENDOR_MAX 64
#define BOOT_USB_DEPTH_MAX 9 /* a root port and up to seven hubs (USB 2.0 4.1.1: five) */

/* Normalised memory types; efi_type keeps the firmware's own for reports. */
enum boot_mem_type {
	BOOT_MEM_USABLE = 1,	   /* conventional and boot-services memory: free for the kernel */
	BOOT_MEM_LOADER = 2,	   /* loader code/data: boot_info, tables, kernel image; keep */
	BOOT_MEM_RESERVED = 3,	   /* reserved, runtime services, unusable, anything unknown */
	BOOT_MEM_ACPI_RECLAIM = 4, /* ACPI tables; reusable once parsed */
	BOOT_MEM_ACPI_NVS = 5,	   /* firmware NVS: never touch */
	BOOT_MEM_MMIO = 6,	   /* memory-mapped I/O ranges the firmware reported */
	BOOT_MEM_PERSISTENT = 7,   /* NVDIMM-style persistent memory: not used */
	BOOT_MEM_BAD = 8,	   /* EfiUnusableMemory: errors detected */
};

struct boot_mem_range {
	uint64_t phys;	   /* start, 4 KiB aligned */
	uint64_t pages;	   /* number of 4 KiB pages */
	uint64_t attr;	   /* EFI_MEMORY_* attribute bits as the firmware gave them */
	uint32_t type;	   /* enum boot_mem_type */
	uint32_t efi_type; /* EFI_MEMORY_TYPE */
};
_Static_assert(sizeof(struct boot_mem_range) == 32, "boot_mem_range layout");

struct boot_framebuffer {
	uint64_t base; /* 0 when the loader found no GOP */
	uint64_t size;
	uint32_t width, height, pixels_per_scanline;
	uint32_t pixel_format; /* EFI_GRAPHICS_PIXEL_FORMAT */
};

/* A file of BOOT_DATA_DIR, read whole into EfiLoaderData pages (a Linux program opens it as
 * /data/NAME, read-only). */
struct boot_data_file {
	uint64_t phys, size;
	char name[BOOT_DATA_NAME_MAX];
};
_Static_assert(sizeof(struct boot_data_file) == 80, "boot_data_file layout");

struct boot_info {
	uint64_t magic;	  /* BOOT_INFO_MAGIC */
	uint32_t version; /* BOOT_INFO_VERSION */
	uint32_t size;	  /* sizeof(struct boot_info) as the loader knew it */

	/* Memory map after the final GetMemoryMap (the one ExitBootServices accepted). */
	uint64_t mmap; /* struct boot_mem_range[mmap_count] */
	uint32_t mmap_count;
	uint32_t
	    exit_boot_services_tries; /* how many GetMemoryMap/ExitBootServices rounds it took */

	uint64_t acpi_rsdp;	/* 0 if none */
	uint32_t acpi_revision; /* 2 when found through the ACPI 2.0 GUID, 1 for the 1.0 GUID */
	uint32_t reserved0;

	uint64_t trampoline_phys; /* one 4 KiB page below 1 MiB for the AP trampoline; 0 if none */

	uint64_t kernel_phys_base; /* physical address of KERNEL_VIRT_BASE */
	uint64_t kernel_virt_base; /* KERNEL_VIRT_BASE, repeated for the dump headers */
	uint64_t kernel_size;	   /* bytes reserved for the image, bss included */
	uint64_t identity_limit;   /* the loader identity-mapped [0, identity_limit) */
	uint64_t loader_image_base;
	uint32_t build_id_len;
	uint8_t build_id[BOOT_BUILD_ID_MAX]; /* GNU build id of the kernel ELF */
	uint32_t reserved1;

	struct boot_framebuffer fb;

	/* Loader entry, and just before the jump to the kernel; tsc_hz measured against Stall(). */
	uint64_t tsc_loader_entry;
	uint64_t tsc_handoff;
	uint64_t tsc_hz;

	uint32_t fw_revision;
	char fw_vendor[BOOT_FW_VENDOR_MAX]; /* ASCII of the firmware vendor string */

	/* Options as text. The kernel parses both; load options override the file. */
	uint32_t options_truncated; /* 1 if the load options did not fit */
	char options[BOOT_OPTIONS_MAX];
	int32_t config_status; /* enum boot_config_status */
	uint32_t config_len;
	char config[BOOT_CONFIG_MAX];

	/* The user program named by option `program` (version 2), read from the boot volume
	 * into EfiLoaderData pages; program_phys 0 unless program_status is OK. */
	int32_t program_status; /* enum boot_program_status */
	uint32_t reserved2;
	uint64_t program_phys, program_size;
	char program_path[BOOT_PROGRAM_PATH_MAX]; /* as the option gave it */

	/* Version 3: the files of BOOT_DATA_DIR (when there is a program); those left out
	 * (more than BOOT_DATA_MAX, a name too long, larger than BOOT_PROGRAM_MAX, unreadable)
	 * are counted in data_skipped, named by the loader. */
	uint32_t data_count, data_skipped;
	struct boot_data_file data[BOOT_DATA_MAX];

	/* The device the loader was read from, from its device path (UEFI 2.10 10.3): on USB,
	 * the PCI device and function of the host controller (the last PCI node before the
	 * first USB node) and the USB port numbers from the root hub down (each node's "USB
	 * Parent Port Number", 0-based, 10.3.4.5). Appended without a version change: the
	 * kernel reads it only when `size` covers it. */
	uint32_t boot_dev_kind; /* enum boot_dev_kind */
	uint8_t boot_pci_dev, boot_pci_fn;
	uint8_t boot_usb_depth;
	uint8_t boot_usb_ports[BOOT_USB_DEPTH_MAX];
};

enum boot_dev_kind {
	BOOT_DEV_UNKNOWN = 0, /* no device path */
	BOOT_DEV_USB = 1,
	BOOT_DEV_OTHER = 2, /* a disk on SATA, NVMe, virtio, ... (no USB node) */
};

enum boot_config_status {
	BOOT_CONFIG_OK = 0,
	BOOT_CONFIG_ABSENT = 1, /* no file: not an error */
	BOOT_CONFIG_TOO_LARGE =
	    2, /* the file exceeds BOOT_CONFIG_MAX - 1 bytes: kernel rejects it */
	BOOT_CONFIG_READ_ERROR = 3,
	BOOT_CONFIG_NOT_TEXT = 4, /* contains NUL bytes */
};

enum boot_program_status {
	BOOT_PROGRAM_NONE = 0,	     /* no `program` option */
	BOOT_PROGRAM_OK = 1,	     /* read: program_phys, program_size */
	BOOT_PROGRAM_ABSENT = 2,     /* no such file on the boot volume */
	BOOT_PROGRAM_TOO_LARGE = 3,  /* more than BOOT_PROGRAM_MAX bytes */
	BOOT_PROGRAM_READ_ERROR = 4, /* a directory, or the firmware failed to read it */
	BOOT_PROGRAM_BAD_OPTION =
	    5, /* the loader could not read the option (the kernel says why) */
};

#endif
