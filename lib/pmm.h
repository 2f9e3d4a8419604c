/* SPDX-License-Identifier: MIT */
/*
 * Physical page allocator: one bit per 4 KiB page over [0, npages * 4 KiB), 1 = in use.
 * Everything starts in use; the caller frees what the memory map says is usable, then
 * reserves what it keeps (the bitmap itself, low memory). Pure: builds on the host.
 */
#ifndef LIB_PMM_H
#define LIB_PMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMM_PAGE_SIZE 4096ull
#define PMM_NO_PAGE   UINT64_MAX

struct pmm {
	uint64_t *bitmap; /* npages bits, rounded up to 64 */
	uint64_t npages;
	uint64_t free_pages;
	uint64_t next_hint; /* page index where the next search starts */
};

/* Bytes of bitmap needed to cover `npages`. */
size_t pmm_bitmap_bytes(uint64_t npages);
void pmm_init(struct pmm *p, uint64_t *bitmap, uint64_t npages);
/* Mark [phys, phys + pages*4K) free / in use; parts beyond npages are ignored. Returns the
 * number of pages whose state changed. */
uint64_t pmm_release_range(struct pmm *p, uint64_t phys, uint64_t pages);
uint64_t pmm_reserve_range(struct pmm *p, uint64_t phys, uint64_t pages);
/* Contiguous allocation of `pages`, aligned to `align_pages` (a power of two), entirely below
 * `limit` (bytes; 0 = no limit). Returns the physical address or PMM_NO_PAGE. */
uint64_t pmm_alloc(struct pmm *p, uint64_t pages, uint64_t align_pages, uint64_t limit);
/* Free an allocation; returns false (and changes nothing) if any page was already free. */
bool pmm_free(struct pmm *p, uint64_t phys, uint64_t pages);
bool pmm_page_in_use(const struct pmm *p, uint64_t phys);
/* The longest run of free pages, in pages (what one contiguous allocation can get at most). */
uint64_t pmm_largest_run(const struct pmm *p);

#endif
