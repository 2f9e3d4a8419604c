/* SPDX-License-Identifier: MIT */
/*
 * The loader's 4-level page tables for the hand-off (contract in kernel/boot_info.h): an
 * identity map of [0, identity_limit) and the kernel span at its link address, both with
 * 2 MiB pages, present + writable, executable (no NX bit), default (write-back) caching.
 * Pure: tables come from a caller's allocator whose pages are addressed by their own pointer
 * value (true under UEFI's identity mapping, and for host unit tests walking the tables).
 */
#ifndef BOOT_EARLY_PAGING_H
#define BOOT_EARLY_PAGING_H

#include <stddef.h>
#include <stdint.h>

#include "lib/bits.h"

#define EP_PAGE_SIZE  4096ull
#define EP_LARGE_PAGE (2ull << 20)   /* one PD entry with PS set */
#define EP_PD_SPAN    (1ull << 30)   /* one page directory: 512 x 2 MiB */
#define EP_PDPT_SPAN  (512ull << 30) /* one PDPT: 512 x 1 GiB */
#define EP_ENTRIES    512u

/* Page-table entry bits (Intel SDM Vol. 3A, 4.5). */
#define EP_PTE_PRESENT	 BIT(0)
#define EP_PTE_WRITABLE	 BIT(1)
#define EP_PTE_USER	 BIT(2)
#define EP_PTE_LARGE	 BIT(7) /* in a PD entry: maps a 2 MiB page */
#define EP_PTE_NX	 BIT(63)
#define EP_PTE_ADDR_MASK GENMASK(51, 12)

/* The identity map never goes below 4 GiB (MMIO and firmware live there). */
#define EP_IDENTITY_MIN (4ull << 30)
/* The identity map must stay in the lower canonical half of 48-bit addresses. */
#define EP_IDENTITY_MAX (1ull << 47)
/* The kernel must lie in the upper canonical half. */
#define EP_UPPER_HALF 0xffff800000000000ull

struct early_paging_layout {
	uint64_t identity_limit; /* a multiple of 2 MiB, at most EP_IDENTITY_MAX */
	uint64_t kernel_virt;	 /* 2 MiB aligned, in the upper half */
	uint64_t kernel_phys;	 /* 2 MiB aligned */
	uint64_t kernel_size;	 /* bytes, > 0; mapped rounded up to 2 MiB */
};

enum early_paging_status {
	EP_OK = 0,
	EP_ERR_LIMIT,	  /* identity_limit not 2 MiB aligned, zero, or above EP_IDENTITY_MAX */
	EP_ERR_KERNEL,	  /* kernel addresses unaligned, not upper half, empty, or wrapping */
	EP_ERR_NO_MEMORY, /* the allocator returned NULL or a misaligned page */
	EP_ERR_ALREADY_MAPPED, /* two mappings for one address: a layout bug */
	EP_STATUS_COUNT
};

/* Returns one zeroed, 4 KiB aligned page, or NULL. */
typedef void *(*early_paging_alloc_fn)(void *ctx);

/*
 * max(EP_IDENTITY_MIN, highest_end) rounded up to 1 GiB, clamped to EP_IDENTITY_MAX (memory
 * above 128 TiB cannot be identity-mapped by 4-level tables; the loader warns about it).
 */
uint64_t early_paging_identity_limit(uint64_t highest_end);

/* How many table pages early_paging_build takes for a layout; 0 if the layout is invalid. */
size_t early_paging_pages_needed(const struct early_paging_layout *l);

/* Builds the tables; *pml4 is the page to load into CR3. */
enum early_paging_status early_paging_build(const struct early_paging_layout *l,
					    early_paging_alloc_fn alloc, void *ctx,
					    uint64_t **pml4);

const char *early_paging_strerror(enum early_paging_status status);

#endif
