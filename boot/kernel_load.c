/* SPDX-License-Identifier: MIT */
/*
 * Loading the kernel ELF embedded by boot/payload.S: validate it (lib/elf.c), allocate
 * EfiLoaderData pages for its span at a 2 MiB-aligned physical base (so 2 MiB pages can map
 * it), zero the span, copy the segments, and record base, size, entry and build id.
 *
 * The kernel's pages (ALIGN_UP(span, 2 MiB)) are allocated at the highest 2 MiB boundary where
 * they fit inside one free range of the firmware's memory map (AllocateAddress, UEFI 2.10 7.2);
 * should that fail, ALIGN_UP(span, 2 MiB) + 2 MiB anywhere (AllocateAnyPages), whose aligned
 * part holds them. When neither works the machine is short of memory: the error says what the
 * kernel needs and what the firmware has free (the largest free range and the sum).
 */
#include "lib/elf.h"
#include "boot/loader.h"
#include "boot/mmap_convert.h"
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

/* The firmware's memory map now, in pages of its own (freed by the caller: *pages). */
static EFI_STATUS current_map(EFI_MEMORY_DESCRIPTOR **map, UINTN *size, UINTN *desc_size,
			      UINTN *pages)
{
	UINTN key;
	UINT32 version;
	*size = 0;
	*map = NULL;
	*pages = 0;
	EFI_STATUS st = BS->GetMemoryMap(size, NULL, &key, desc_size, &version);
	if (st != EFI_BUFFER_TOO_SMALL)
		return EFI_ERROR(st) ? st : EFI_LOAD_ERROR;
	/* the buffer's own pages may split a range: room for a few more descriptors */
	*pages = PAGES(*size + 8 * *desc_size);
	EFI_PHYSICAL_ADDRESS buf;
	st = loader_alloc_pages(*pages, &buf);
	if (EFI_ERROR(st))
		return st;
	*map = (EFI_MEMORY_DESCRIPTOR *)(UINTN)buf;
	*size = *pages * PAGE_SIZE;
	st = BS->GetMemoryMap(size, *map, &key, desc_size, &version);
	if (EFI_ERROR(st))
		BS->FreePages(buf, *pages);
	return st;
}

/* `bytes` (a multiple of KERNEL_ALIGN) at a KERNEL_ALIGN boundary: *base. */
static EFI_STATUS alloc_kernel_pages(uint64_t bytes, uint64_t *base)
{
	EFI_MEMORY_DESCRIPTOR *map;
	UINTN size, desc_size, map_pages;
	struct mmap_fit fit = {0, 0, 0};
	EFI_STATUS st = current_map(&map, &size, &desc_size, &map_pages);
	if (!EFI_ERROR(st)) {
		mmap_fit_aligned(map, size, desc_size, bytes, KERNEL_ALIGN, &fit);
		BS->FreePages((EFI_PHYSICAL_ADDRESS)(UINTN)map, map_pages);
	}
	EFI_PHYSICAL_ADDRESS addr = fit.addr;
	if (addr &&
	    !EFI_ERROR(BS->AllocatePages(AllocateAddress, EfiLoaderData, PAGES(bytes), &addr))) {
		*base = addr;
		return EFI_SUCCESS;
	}
	st = loader_alloc_pages(PAGES(bytes + KERNEL_ALIGN), &addr);
	if (!EFI_ERROR(st)) {
		*base = ALIGN_UP(addr, KERNEL_ALIGN);
		return EFI_SUCCESS;
	}
	Print(L"" LOADER_TAG "error: the kernel image needs %ld KiB of memory in one piece at a "
	      "2 MiB boundary; the firmware has %ld KiB free, the largest free piece %ld KiB: "
	      "give the machine more memory\n",
	      bytes >> 10, fit.free_bytes >> 10, fit.largest_bytes >> 10);
	return st;
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

	uint64_t mapped = ALIGN_UP(img.span, KERNEL_ALIGN), base;
	EFI_STATUS st = alloc_kernel_pages(mapped, &base);
	if (EFI_ERROR(st))
		return st;
	elf_load_segments(&img, (void *)(UINTN)base);

	bi->kernel_phys_base = base;
	bi->kernel_virt_base = KERNEL_VIRT_BASE;
	bi->kernel_size = img.span;
	ld->kernel_entry = img.entry;
	return EFI_SUCCESS;
}
