/* SPDX-License-Identifier: MIT */
/*
 * What the loader collects from the firmware for boot_info: load options, the ACPI RSDP, the
 * GOP framebuffer, the firmware vendor and revision, the TSC rate, and one page below 1 MiB
 * for the later AP trampoline. None of these is fatal: a missing item is recorded as 0 and,
 * where the kernel may care, a note is printed.
 */
#include "boot/cpu.h"
#include "boot/loader.h"
#include "boot/text.h"

/* TSC rate: count TSC ticks across a firmware Stall() of this length. */
#define TSC_CALIBRATION_US     1000
#define TSC_CALIBRATION_ROUNDS 25
#define US_PER_S	       1000000ull

/*
 * The AP trampoline page. AllocateMaxAddress takes the highest address the allocation may
 * touch, so the page ends at or below 0x9f000 (OVMF gives 0x9e000): clear of the EBDA, which
 * sits below 0xa0000 (usually at 0x9fc00) on PC firmware.
 */
#define TRAMPOLINE_MAX_ADDR 0x9f000ull
#define LOW_MEMORY_LIMIT    0x100000ull /* 1 MiB: real-mode reachable */

/* boot_info.acpi_revision: which configuration-table GUID gave the RSDP. */
#define RSDP_VIA_ACPI20_GUID 2
#define RSDP_VIA_ACPI10_GUID 1

static EFI_GUID acpi20_guid = ACPI_20_TABLE_GUID;
static EFI_GUID acpi10_guid = ACPI_TABLE_GUID;
static EFI_GUID gop_guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;

void loader_read_options(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	EFI_LOADED_IMAGE *li = ld->loaded_image;
	/* Started by the UEFI shell: LoadOptions is the command line, program name first. */
	void *shell_params = NULL;
	int from_shell =
	    !EFI_ERROR(BS->HandleProtocol(ld->image, &ShellParametersProtocolGuid, &shell_params));
	struct load_options_result r = load_options_to_ascii(
	    li->LoadOptions, li->LoadOptionsSize, from_shell, bi->options, sizeof(bi->options));
	bi->options_truncated = (uint32_t)r.truncated;
	switch (r.status) {
	case LOAD_OPTIONS_OK:
		break;
	case LOAD_OPTIONS_ODD_SIZE:
		Print(L"" LOADER_TAG "note: ignoring load options: %d bytes is not UCS-2 text\n",
		      li->LoadOptionsSize);
		return;
	case LOAD_OPTIONS_NOT_TEXT:
		Print(L"" LOADER_TAG "note: ignoring %d bytes of load options: not text "
		      "(unit 0x%04x at byte %ld; boot entries may carry binary data)\n",
		      li->LoadOptionsSize, r.bad_unit, (UINT64)r.bad_offset);
		return;
	}
	if (bi->options_truncated)
		Print(L"" LOADER_TAG "note: load options truncated to %d bytes\n",
		      (int)sizeof(bi->options) - 1);
}

void loader_find_rsdp(struct boot_info *bi)
{
	bi->acpi_rsdp = 0;
	bi->acpi_revision = 0;
	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];
		if (CompareGuid(&t->VendorGuid, &acpi20_guid) == 0) {
			bi->acpi_rsdp = (uint64_t)(UINTN)t->VendorTable;
			bi->acpi_revision = RSDP_VIA_ACPI20_GUID;
			return; /* preferred: stop here */
		}
		if (CompareGuid(&t->VendorGuid, &acpi10_guid) == 0 && bi->acpi_revision == 0) {
			bi->acpi_rsdp = (uint64_t)(UINTN)t->VendorTable;
			bi->acpi_revision = RSDP_VIA_ACPI10_GUID;
		}
	}
	if (!bi->acpi_rsdp)
		Print(L"" LOADER_TAG "note: no ACPI RSDP in the configuration table\n");
}

void loader_find_framebuffer(struct boot_info *bi)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	SetMem(&bi->fb, sizeof(bi->fb), 0);
	if (EFI_ERROR(BS->LocateProtocol(&gop_guid, NULL, (void **)&gop)) || !gop || !gop->Mode ||
	    !gop->Mode->Info)
		return; /* no GOP (e.g. QEMU -nographic -nodefaults): fb stays zero */
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info = gop->Mode->Info;
	if (info->PixelFormat == PixelBltOnly)
		return; /* no linear framebuffer to hand over */
	bi->fb.base = gop->Mode->FrameBufferBase;
	bi->fb.size = gop->Mode->FrameBufferSize;
	bi->fb.width = info->HorizontalResolution;
	bi->fb.height = info->VerticalResolution;
	bi->fb.pixels_per_scanline = info->PixelsPerScanLine;
	bi->fb.pixel_format = (uint32_t)info->PixelFormat;
}

void loader_firmware_vendor(struct boot_info *bi)
{
	bi->fw_revision = ST->FirmwareRevision;
	bi->fw_vendor[0] = '\0';
	if (ST->FirmwareVendor)
		ucs2_to_ascii(bi->fw_vendor, sizeof(bi->fw_vendor), ST->FirmwareVendor, SIZE_MAX,
			      NULL);
}

/*
 * An estimate: TSC ticks across Stall(1 ms), scaled to 1 s, the smallest of
 * TSC_CALIBRATION_ROUNDS. Stall() waits at least the time asked (OVMF polls the ACPI PM timer)
 * plus call overhead, and anything that delays us (a descheduled vCPU on a loaded host) only
 * lengthens a round, so the minimum is the best estimate; many short rounds make it likely that
 * one ran undisturbed (three rounds of 20 ms each ran 17 % long on a loaded host, 25 of 1 ms
 * within 0.2 %). It still runs slightly high: under QEMU/TCG 0.03-0.2 % above the kernel's PIT
 * calibration. Enough for boot timing, not a clock.
 */
void loader_measure_tsc(struct boot_info *bi)
{
	uint64_t best = UINT64_MAX;
	for (unsigned round = 0; round < TSC_CALIBRATION_ROUNDS; round++) {
		uint64_t t0 = rdtsc();
		EFI_STATUS st = BS->Stall(TSC_CALIBRATION_US);
		uint64_t t1 = rdtsc();
		if (EFI_ERROR(st)) {
			loader_warn("Stall() for the TSC calibration", st);
			bi->tsc_hz = 0;
			return;
		}
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	bi->tsc_hz = best * (US_PER_S / TSC_CALIBRATION_US);
}

void loader_reserve_trampoline(struct boot_info *bi)
{
	EFI_PHYSICAL_ADDRESS addr = TRAMPOLINE_MAX_ADDR;
	EFI_STATUS st = BS->AllocatePages(AllocateMaxAddress, EfiLoaderData, 1, &addr);
	if (EFI_ERROR(st) || addr >= LOW_MEMORY_LIMIT) {
		bi->trampoline_phys = 0;
		loader_warn("no free page below 1 MiB for the AP trampoline (trampoline_phys = 0)",
			    EFI_ERROR(st) ? st : EFI_OUT_OF_RESOURCES);
		return;
	}
	bi->trampoline_phys = addr;
}
