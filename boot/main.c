/* SPDX-License-Identifier: MIT */
/*
 * efi_main: the baretrace UEFI loader. Collects what the kernel needs into a struct boot_info
 * (kernel/boot_info.h), loads the embedded kernel ELF, builds the hand-off page tables, exits
 * boot services and jumps to the kernel in the state the contract describes. Every step that
 * can fail names what failed (boot/fatal.c ends the run; it never hangs).
 */
#include "boot/cpu.h"
#include "boot/loader.h"
#include "boot/text.h"

#define UEFI_MAJOR(rev) ((rev) >> 16)
#define UEFI_MINOR(rev) ((rev)&0xffff)
#define HZ_PER_MHZ	1000000

static EFI_STATUS alloc_boot_info(struct loader *ld, uint64_t tsc_entry)
{
	EFI_PHYSICAL_ADDRESS addr;
	EFI_STATUS st = loader_alloc_pages(PAGES(sizeof(struct boot_info)), &addr);
	if (EFI_ERROR(st))
		return st;
	ld->bi = (struct boot_info *)(UINTN)addr;
	SetMem(ld->bi, sizeof(*ld->bi), 0);
	ld->bi->tsc_loader_entry = tsc_entry;
	ld->bi->loader_image_base = (uint64_t)(UINTN)ld->loaded_image->ImageBase;
	return EFI_SUCCESS;
}

/* The firmware may run with 5-level paging; a PML4 in CR3 would then be read as a PML5. */
static EFI_STATUS check_paging_mode(void)
{
	if (!(read_cr4() & CR4_LA57))
		return EFI_SUCCESS;
	Print(L"" LOADER_TAG "error: the firmware runs with 5-level paging (CR4.LA57); "
	      "this loader and kernel use 4-level tables\n");
	return EFI_UNSUPPORTED;
}

static void print_summary(const struct loader *ld)
{
	const struct boot_info *bi = ld->bi;
	/* The size only where there is a file to speak of (absent and unreadable ones have none).
	 */
	if (bi->config_status == BOOT_CONFIG_ABSENT || bi->config_status == BOOT_CONFIG_READ_ERROR)
		Print(L"" LOADER_TAG "%a: %a", BOOT_CONFIG_PATH + 1,
		      config_status_name(bi->config_status));
	else
		Print(L"" LOADER_TAG "%a: %a (%ld bytes)", BOOT_CONFIG_PATH + 1,
		      config_status_name(bi->config_status), ld->config_file_bytes);
	Print(L"; load options: '%a'; RSDP 0x%lx (ACPI %d.0 GUID); AP trampoline 0x%lx; TSC ~%ld "
	      "MHz\n",
	      bi->options, bi->acpi_rsdp, bi->acpi_revision, bi->trampoline_phys,
	      bi->tsc_hz / HZ_PER_MHZ);
	Print(L"" LOADER_TAG "kernel %ld KiB at phys 0x%lx, entry 0x%lx; identity map to 0x%lx "
	      "(%ld table pages); exiting boot services\n",
	      bi->kernel_size >> 10, bi->kernel_phys_base, ld->kernel_entry, bi->identity_limit,
	      (UINT64)ld->table_pages);
}

/*
 * The jump. Interrupts off, CR3 = our PML4, RDI = boot_info, jump to the ELF entry. This code
 * runs from the loader image, and the stack is the firmware's; both lie in RAM, which the new
 * tables identity-map, so the instructions after the CR3 load and the jump still work. The
 * kernel sets its own stack first thing and never returns.
 */
static __attribute__((noreturn)) void jump_to_kernel(uint64_t *pml4, uint64_t entry,
						     struct boot_info *bi)
{
	__asm__ volatile("cli\n\t"
			 "mov %0, %%cr3\n\t"
			 "jmp *%1"
			 :
			 : "r"((uint64_t)(UINTN)pml4), "r"(entry), "D"(bi)
			 : "memory");
	__builtin_unreachable();
}

static __attribute__((noreturn)) void hand_off(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	bi->magic = BOOT_INFO_MAGIC;
	bi->version = BOOT_INFO_VERSION;
	bi->size = sizeof(*bi);
	bi->tsc_handoff = rdtsc();
	jump_to_kernel(ld->pml4, ld->kernel_entry, bi);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	uint64_t tsc_entry = rdtsc();
	struct loader ld = {.image = image};
	EFI_STATUS st;

	InitializeLib(image, systab);
	st = BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&ld.loaded_image);
	Print(L"" LOADER_TAG "firmware %s rev 0x%x, UEFI %d.%d, loader image at 0x%lx\n",
	      ST->FirmwareVendor ? ST->FirmwareVendor : L"(unknown)", ST->FirmwareRevision,
	      UEFI_MAJOR(ST->Hdr.Revision), UEFI_MINOR(ST->Hdr.Revision),
	      EFI_ERROR(st) ? 0 : (UINT64)(UINTN)ld.loaded_image->ImageBase);
	if (EFI_ERROR(st))
		return loader_fail(&ld, st, "getting the loaded-image protocol");
	st = alloc_boot_info(&ld, tsc_entry);
	if (EFI_ERROR(st))
		return loader_fail(&ld, st, "allocating boot_info");

	loader_read_options(&ld);
	loader_boot_device(&ld);
	loader_read_config(&ld);
	loader_read_program(&ld);
	loader_read_data(&ld);
	loader_find_rsdp(ld.bi);
	loader_find_framebuffer(ld.bi);
	loader_firmware_vendor(ld.bi);
	loader_measure_tsc(ld.bi);
	loader_reserve_trampoline(ld.bi);

	st = check_paging_mode();
	if (EFI_ERROR(st))
		return loader_fail(&ld, st, "checking the paging mode");
	st = loader_load_kernel(&ld);
	if (EFI_ERROR(st))
		return loader_fail(&ld, st, "loading the kernel");
	st = loader_prepare_memory_map(&ld);
	if (EFI_ERROR(st))
		return loader_fail(&ld, st, "reading the memory map");
	st = loader_build_page_tables(&ld);
	if (EFI_ERROR(st))
		return loader_fail(&ld, st, "building the page tables");

	print_summary(&ld); /* the last print: from here on the map must stay as read */
	st = loader_exit_boot_services(&ld);
	if (EFI_ERROR(st))
		return loader_fail(&ld, st, "exiting boot services");
	hand_off(&ld);
}
