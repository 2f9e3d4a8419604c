/* SPDX-License-Identifier: MIT */
/* Physical memory for the kernel: the page allocator over the firmware memory map. */
#ifndef KERNEL_MEMORY_H
#define KERNEL_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/memmap.h"
#include "lib/pmm.h"

#define LOW_MEMORY_RESERVED 0x100000ull /* below 1 MiB: BIOS areas, the AP trampoline page */

/* Set up the allocator; false (with a message printed) if no usable memory can hold it. */
bool memory_init(const struct memmap *mm);
/* Zeroed, contiguous, 4 KiB-aligned pages; returns the physical address or 0. */
uint64_t page_alloc(uint64_t pages);
/* Zeroed pages enough for `bytes`, as the kernel reaches them (arch_phys_to_virt), or NULL. */
void *page_alloc_virt(uint64_t bytes);
/* The same, entirely below `limit` (bytes). */
uint64_t page_alloc_below(uint64_t pages, uint64_t limit);
/* Contiguous pages left as they are: for memory written before it is read (a record store of
 * hundreds of MiB, which clearing would cost seconds under emulation); 0 when none. */
uint64_t page_alloc_uncleared(uint64_t pages);
bool page_free(uint64_t phys, uint64_t pages);
struct pmm *memory_allocator(void);

#endif
