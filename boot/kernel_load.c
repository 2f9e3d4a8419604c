/* SPDX-License-Identifier: MIT */
/*
 * Loading the kernel ELF embedded by boot/payload.S: validate it (lib/elf.c), allocate
 * EfiLoaderData pages for its span at a 2 MiB-aligned physical base (so 2 MiB pages can map
 * it), zero the span, copy the segments, and record base, size, entry and build id.
 *
 * The allocation is ALIGN_UP(span, 2 MiB) + 2 MiB so that the aligned base and every 2 MiB
 * page of the kernel mapping lie inside it; the unused head and tail stay allocated (at most
 * 2 MiB of loader memory), which is simpler than relying on partial FreePages.
 */
#include "lib/elf.h"
#include "boot/loader.h"
#include "lib/bits.h"

#define KERNEL_ALIGN (2 * MIB) /* the loader maps the kernel with 2 MiB pages */

/* boot/payload.S */
extern const uint8_t kernel_payload_start[] __attribute__((visibility("hidden")));
extern const uint8_t kernel_payload_end[] __attribute__((visibility("hidden")));

static EFI_STATUS reject(const struct elf_image *img, enum elf_status es, uint64_t size)
{
	Print(L"" LOADER_TAG "error: the embedded kernel (%ld bytes) is not a loadable kernel "
	      "ELF: %a",
	      size, elf_strerror(es));
	if (img->bad_phdr >= 0)
		Print(L" (program header %d)", img->bad_phdr);
	Print(L"\n");
	return EFI_LOAD_ERROR;
}

EFI_STATUS loader_load_kernel(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	uint64_t size = (uint64_t)(kernel_payload_end - kernel_payload_start);
	struct elf_image img;
	enum elf_status es = elf_validate(kernel_payload_start, size, KERNEL_VIRT_BASE, &img);
	if (es != ELF_OK)
		return reject(&img, es, size);

	const uint8_t *id;
	uint32_t id_len;
	es = elf_find_build_id(&img, sizeof(bi->build_id), &id, &id_len);
	if (es != ELF_OK)
		return reject(&img, es, size);
	CopyMem(bi->build_id, (void *)id, id_len);
	bi->build_id_len = id_len;
	if (id_len == 0)
		Print(L"" LOADER_TAG "note: the kernel has no GNU build id\n");

	uint64_t mapped = ALIGN_UP(img.span, KERNEL_ALIGN);
	EFI_PHYSICAL_ADDRESS addr = 0;
	EFI_STATUS st = loader_alloc_pages(PAGES(mapped + KERNEL_ALIGN), &addr);
	if (EFI_ERROR(st)) {
		Print(L"" LOADER_TAG "error: cannot allocate %ld KiB for the kernel image\n",
		      (mapped + KERNEL_ALIGN) >> 10);
		return st;
	}
	uint64_t base = ALIGN_UP(addr, KERNEL_ALIGN);
	elf_load_segments(&img, (void *)(UINTN)base);

	bi->kernel_phys_base = base;
	bi->kernel_virt_base = KERNEL_VIRT_BASE;
	bi->kernel_size = img.span;
	ld->kernel_entry = img.entry;
	return EFI_SUCCESS;
}
