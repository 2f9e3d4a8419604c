/* SPDX-License-Identifier: MIT */
/* UEFI memory map -> struct boot_mem_range (see mmap_convert.h). */
#include "boot/mmap_convert.h"

uint32_t mmap_boot_type(uint32_t efi_type)
{
	switch (efi_type) {
	case EFI_MT_CONVENTIONAL:
	case EFI_MT_BOOT_SERVICES_CODE:
	case EFI_MT_BOOT_SERVICES_DATA:
		return BOOT_MEM_USABLE;
	case EFI_MT_LOADER_CODE:
	case EFI_MT_LOADER_DATA:
		return BOOT_MEM_LOADER;
	case EFI_MT_ACPI_RECLAIM:
		return BOOT_MEM_ACPI_RECLAIM;
	case EFI_MT_ACPI_NVS:
		return BOOT_MEM_ACPI_NVS;
	case EFI_MT_MMIO:
	case EFI_MT_MMIO_PORT_SPACE:
		return BOOT_MEM_MMIO;
	case EFI_MT_PERSISTENT:
		return BOOT_MEM_PERSISTENT;
	case EFI_MT_UNUSABLE:
		return BOOT_MEM_BAD;
	default: /* reserved, runtime services, PAL code, and types we do not know */
		return BOOT_MEM_RESERVED;
	}
}

static size_t desc_count(size_t map_size, size_t desc_size)
{
	if (desc_size < sizeof(struct efi_mem_desc))
		return 0;
	return map_size / desc_size;
}

/* Copies descriptor i out (the stride need not keep 8-byte alignment). */
static void read_desc(const void *map, size_t desc_size, size_t i, struct efi_mem_desc *d)
{
	__builtin_memcpy(d, (const uint8_t *)map + i * desc_size, sizeof(*d));
}

size_t mmap_convert(const void *map, size_t map_size, size_t desc_size, struct boot_mem_range *out,
		    size_t cap, size_t *total)
{
	size_t n = desc_count(map_size, desc_size);
	if (total)
		*total = n;
	if (n > cap)
		n = cap;
	for (size_t i = 0; i < n; i++) {
		struct efi_mem_desc d;
		read_desc(map, desc_size, i, &d);
		out[i].phys = d.phys_start;
		out[i].pages = d.pages;
		out[i].attr = d.attr;
		out[i].type = mmap_boot_type(d.type);
		out[i].efi_type = d.type;
	}
	return n;
}

void mmap_sort(struct boot_mem_range *r, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct boot_mem_range key = r[i];
		size_t j = i;
		for (; j > 0 && r[j - 1].phys > key.phys; j--)
			r[j] = r[j - 1];
		r[j] = key;
	}
}

uint64_t mmap_highest_end(const void *map, size_t map_size, size_t desc_size)
{
	uint64_t highest = 0;
	size_t n = desc_count(map_size, desc_size);
	for (size_t i = 0; i < n; i++) {
		struct efi_mem_desc d;
		read_desc(map, desc_size, i, &d);
		uint64_t end = UINT64_MAX;
		if (d.pages <= (UINT64_MAX - d.phys_start) / EFI_MMAP_PAGE_SIZE)
			end = d.phys_start + d.pages * EFI_MMAP_PAGE_SIZE;
		if (end > highest)
			highest = end;
	}
	return highest;
}

void mmap_fit_aligned(const void *map, size_t map_size, size_t desc_size, uint64_t bytes,
		      uint64_t align, struct mmap_fit *fit)
{
	fit->free_bytes = fit->largest_bytes = fit->addr = 0;
	size_t n = desc_count(map_size, desc_size);
	for (size_t i = 0; i < n; i++) {
		struct efi_mem_desc d;
		read_desc(map, desc_size, i, &d);
		if (d.type != EFI_MT_CONVENTIONAL ||
		    d.pages > (UINT64_MAX - d.phys_start) / EFI_MMAP_PAGE_SIZE)
			continue;
		uint64_t size = d.pages * EFI_MMAP_PAGE_SIZE, end = d.phys_start + size;
		fit->free_bytes += size;
		if (size > fit->largest_bytes)
			fit->largest_bytes = size;
		if (size < bytes)
			continue;
		/* the highest aligned place in this range: low memory stays for what needs it */
		uint64_t at = (end - bytes) & ~(align - 1);
		if (at >= d.phys_start && at > fit->addr)
			fit->addr = at;
	}
}
