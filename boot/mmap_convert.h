/* SPDX-License-Identifier: MIT */
/*
 * Conversion of the UEFI memory map into the kernel's struct boot_mem_range entries. Pure: the
 * descriptor layout and memory type numbers are the UEFI specification's (2.10, 7.2), spelled
 * out here so this file needs no efi.h (gnu-efi 3.0.15 also lacks EfiPersistentMemory).
 */
#ifndef BOOT_MMAP_CONVERT_H
#define BOOT_MMAP_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/boot_info.h"

#define EFI_MMAP_PAGE_SIZE 4096ull

/* EFI_MEMORY_TYPE values. */
enum efi_mem_type {
	EFI_MT_RESERVED = 0,
	EFI_MT_LOADER_CODE = 1,
	EFI_MT_LOADER_DATA = 2,
	EFI_MT_BOOT_SERVICES_CODE = 3,
	EFI_MT_BOOT_SERVICES_DATA = 4,
	EFI_MT_RUNTIME_SERVICES_CODE = 5,
	EFI_MT_RUNTIME_SERVICES_DATA = 6,
	EFI_MT_CONVENTIONAL = 7,
	EFI_MT_UNUSABLE = 8,
	EFI_MT_ACPI_RECLAIM = 9,
	EFI_MT_ACPI_NVS = 10,
	EFI_MT_MMIO = 11,
	EFI_MT_MMIO_PORT_SPACE = 12,
	EFI_MT_PAL_CODE = 13,
	EFI_MT_PERSISTENT = 14,
};

/* EFI_MEMORY_DESCRIPTOR (version 1). The firmware's stride is DescriptorSize, not sizeof. */
struct efi_mem_desc {
	uint32_t type;
	uint32_t pad;
	uint64_t phys_start;
	uint64_t virt_start;
	uint64_t pages;
	uint64_t attr;
};
_Static_assert(sizeof(struct efi_mem_desc) == 40, "EFI_MEMORY_DESCRIPTOR layout");

/* The enum boot_mem_type for an EFI memory type (unknown types are BOOT_MEM_RESERVED). */
uint32_t mmap_boot_type(uint32_t efi_type);

/*
 * Converts the descriptors in map[0..map_size) (stride desc_size) into out[0..cap), one entry
 * per descriptor, in firmware order. Returns the number of entries written; *total (if not
 * NULL) receives the number of descriptors, so total > return value means out was too small.
 * A desc_size below sizeof(struct efi_mem_desc) yields 0 entries.
 */
size_t mmap_convert(const void *map, size_t map_size, size_t desc_size, struct boot_mem_range *out,
		    size_t cap, size_t *total);

/* Sorts ranges by start address (stable insertion sort: maps are short, nearly sorted). */
void mmap_sort(struct boot_mem_range *r, size_t n);

/* The end of the highest range of any type (saturating at 2^64 - 1 for nonsense sizes). */
uint64_t mmap_highest_end(const void *map, size_t map_size, size_t desc_size);

/* Free memory (EfiConventionalMemory) of a map: in all, the largest descriptor, and the highest
 * address at which `bytes` fit inside one descriptor starting at a multiple of `align` (a power
 * of two), or 0 where they fit nowhere (page 0 is never offered). */
struct mmap_fit {
	uint64_t free_bytes;
	uint64_t largest_bytes;
	uint64_t addr;
};
void mmap_fit_aligned(const void *map, size_t map_size, size_t desc_size, uint64_t bytes,
		      uint64_t align, struct mmap_fit *fit);

#endif
