/* SPDX-License-Identifier: MIT */
/*
 * State and steps of the UEFI loader (gnu-efi). efi_main (boot/main.c) runs the steps in
 * order; each returns an EFI_STATUS and, on failure, has already said what failed in detail.
 * Everything the kernel reads after ExitBootServices is allocated as EfiLoaderData pages, so it
 * shows as BOOT_MEM_LOADER in the memory map and survives the firmware.
 */
#ifndef BOOT_LOADER_H
#define BOOT_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include <efi.h>
#include <efilib.h>

#include "kernel/boot_info.h"

#define LOADER_TAG "baretrace loader: "
#define PAGE_SIZE  4096ull
#define MIB	   (1ull << 20)

/* Bytes -> whole 4 KiB pages. */
#define PAGES(bytes) (((bytes) + PAGE_SIZE - 1) / PAGE_SIZE)

struct loader {
	EFI_HANDLE image;
	EFI_LOADED_IMAGE *loaded_image;
	struct boot_info *bi;
	uint64_t config_file_bytes; /* the config file's size, whether or not it was kept */

	/* Kernel image (boot/kernel_load.c). */
	uint64_t kernel_entry;
	/* Hand-off page tables (boot/tables.c). */
	uint64_t *pml4;
	size_t table_pages;

	/* Memory map (boot/exit_boot.c): buffer for the EFI map, and the converted ranges. */
	EFI_MEMORY_DESCRIPTOR *map;
	UINTN map_capacity; /* bytes */
	UINTN map_size, map_key, desc_size;
	UINT32 desc_version;
	struct boot_mem_range *ranges;
	size_t ranges_capacity; /* entries */

	/* After the first ExitBootServices attempt nothing may print or allocate. */
	int boot_services_gone;
};

/* boot/fatal.c: report a fatal error and end the run (see the file's comment). */
EFI_STATUS loader_fail(const struct loader *ld, EFI_STATUS status, const char *what);
/* After ExitBootServices was attempted: raw COM1 message, then QEMU exit or reset. */
__attribute__((noreturn)) void loader_fail_late(const struct loader *ld, EFI_STATUS status,
						const char *what);
void loader_warn(const char *what, EFI_STATUS status);

/* boot/firmware_info.c: options, RSDP, GOP, vendor, TSC rate, trampoline page. */
void loader_read_options(struct loader *ld);
void loader_find_rsdp(struct boot_info *bi);
void loader_find_framebuffer(struct boot_info *bi);
void loader_firmware_vendor(struct boot_info *bi);
void loader_measure_tsc(struct boot_info *bi);
void loader_reserve_trampoline(struct boot_info *bi);
/* boot/boot_device.c: the boot device's PCI function and USB ports, for the kernel's stick. */
void loader_boot_device(struct loader *ld);

/* boot/volume.c: files on the boot volume. The root directory (EFI_UNSUPPORTED when the boot
 * device has no file system); an open file's size (EFI_INVALID_PARAMETER for a directory,
 * EFI_DEVICE_ERROR when its information cannot be read); exactly `size` bytes of it
 * (EFI_END_OF_FILE when it is shorter); and the words for such a failure of sizing or reading. */
EFI_STATUS loader_open_root(const struct loader *ld, EFI_FILE_HANDLE *root);
EFI_STATUS loader_file_size(EFI_FILE_HANDLE file, UINT64 *size);
EFI_STATUS loader_read_exact(EFI_FILE_HANDLE file, void *dst, UINT64 size);
const char *loader_file_problem(EFI_STATUS st, bool sizing);

/* boot/config_file.c */
void loader_read_config(struct loader *ld);
/* boot/program_file.c: option `program`, read from the boot volume (after the config). */
void loader_read_program(struct loader *ld);
/* boot/data_files.c: the program's files, BOOT_DATA_DIR (after the program). */
void loader_read_data(struct loader *ld);

/* boot/kernel_load.c */
EFI_STATUS loader_load_kernel(struct loader *ld);

/* boot/exit_boot.c */
EFI_STATUS loader_prepare_memory_map(struct loader *ld);
EFI_STATUS loader_exit_boot_services(struct loader *ld);

/* boot/tables.c */
EFI_STATUS loader_build_page_tables(struct loader *ld);

/* EfiLoaderData pages anywhere; *addr receives the physical (= usable) address. */
EFI_STATUS loader_alloc_pages(UINTN pages, EFI_PHYSICAL_ADDRESS *addr);

#endif
