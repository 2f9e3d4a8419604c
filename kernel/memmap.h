/* SPDX-License-Identifier: MIT */
/* The firmware memory map as the kernel sees it: summaries and cacheability classes. Pure. */
#ifndef KERNEL_MEMMAP_H
#define KERNEL_MEMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/boot_info.h"

#define PAGE_SIZE ((uint64_t)4096)

struct memmap {
	const struct boot_mem_range *ranges;
	size_t count;
};

struct memmap_summary {
	uint64_t pages_by_type[BOOT_MEM_BAD + 1]; /* indexed by enum boot_mem_type */
	uint64_t ranges_by_type[BOOT_MEM_BAD + 1];
	uint64_t usable_top;	/* end of the highest usable range */
	uint64_t highest_end;	/* end of the highest range of any type */
	uint64_t unknown_types; /* ranges whose type is outside enum boot_mem_type */
};

void memmap_summarize(const struct memmap *mm, struct memmap_summary *s);
const char *memmap_type_name(uint32_t type);

/* How [phys, phys+len) should be mapped: all write-back RAM, all uncached device, or mixed. */
enum memmap_class { MEMMAP_RAM, MEMMAP_DEVICE, MEMMAP_MIXED };
enum memmap_class memmap_classify(const struct memmap *mm, uint64_t phys, uint64_t len);
/* Types mapped write-back; everything else, and holes, is mapped uncached. */
bool memmap_type_is_ram(uint32_t type);

#endif
