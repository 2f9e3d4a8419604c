/* SPDX-License-Identifier: MIT */
/*
 * Builds the loader's hand-off page tables (see early_paging.h). Only 2 MiB leaves: a PML4,
 * PDPTs and page directories, no page tables. Intermediate entries are present + writable so
 * the leaf decides; no entry has the user or NX bit.
 */
#include "boot/early_paging.h"
#include "kernel/boot_info.h"

#define PML4_SHIFT 39
#define PDPT_SHIFT 30
#define PD_SHIFT   21
#define INDEX_MASK (EP_ENTRIES - 1)

#define TABLE_FLAGS (EP_PTE_PRESENT | EP_PTE_WRITABLE)
#define LEAF_FLAGS  (EP_PTE_PRESENT | EP_PTE_WRITABLE | EP_PTE_LARGE)

static const char *const messages[EP_STATUS_COUNT] = {
    [EP_OK] = "ok",
    [EP_ERR_LIMIT] = "identity limit is zero, not 2 MiB aligned or above 128 TiB",
    [EP_ERR_KERNEL] = "kernel mapping is unaligned, empty, wrapping or not in the upper half",
    [EP_ERR_NO_MEMORY] = "out of memory for page tables",
    [EP_ERR_ALREADY_MAPPED] = "an address was mapped twice (overlapping layout)",
};

const char *early_paging_strerror(enum early_paging_status status)
{
	if ((unsigned)status >= EP_STATUS_COUNT)
		return "unknown page-table status";
	return messages[status];
}

uint64_t early_paging_identity_limit(uint64_t highest_end)
{
	if (highest_end < EP_IDENTITY_MIN)
		highest_end = EP_IDENTITY_MIN;
	if (highest_end > EP_IDENTITY_MAX)
		return EP_IDENTITY_MAX;
	return ALIGN_UP(highest_end, EP_PD_SPAN);
}

static uint64_t kernel_mapped_size(const struct early_paging_layout *l)
{
	return ALIGN_UP(l->kernel_size, EP_LARGE_PAGE);
}

static enum early_paging_status check_layout(const struct early_paging_layout *l)
{
	if (l->identity_limit == 0 || !IS_ALIGNED(l->identity_limit, EP_LARGE_PAGE) ||
	    l->identity_limit > EP_IDENTITY_MAX)
		return EP_ERR_LIMIT;
	if (l->kernel_size == 0 || l->kernel_size > UINT64_MAX - EP_LARGE_PAGE ||
	    !IS_ALIGNED(l->kernel_virt, EP_LARGE_PAGE) ||
	    !IS_ALIGNED(l->kernel_phys, EP_LARGE_PAGE) || l->kernel_virt < EP_UPPER_HALF)
		return EP_ERR_KERNEL;
	uint64_t size = kernel_mapped_size(l);
	/* Last virtual and physical bytes must not wrap past 2^64 - 1. */
	if (size - 1 > UINT64_MAX - l->kernel_virt || size - 1 > UINT64_MAX - l->kernel_phys)
		return EP_ERR_KERNEL;
	/* The physical end must fit the entries' address field (52-bit physical addresses). */
	if (l->kernel_phys + (size - 1) > (EP_PTE_ADDR_MASK | (EP_PAGE_SIZE - 1)))
		return EP_ERR_KERNEL;
	return EP_OK;
}

/* Number of aligned regions of size span that [first, last] touches (inclusive bounds). */
static uint64_t regions(uint64_t first, uint64_t last, uint64_t span)
{
	return (ALIGN_DOWN(last, span) - ALIGN_DOWN(first, span)) / span + 1;
}

size_t early_paging_pages_needed(const struct early_paging_layout *l)
{
	if (check_layout(l) != EP_OK)
		return 0; /* early_paging_build will name the problem */
	uint64_t last_identity = l->identity_limit - 1;
	uint64_t kfirst = l->kernel_virt, klast = l->kernel_virt + kernel_mapped_size(l) - 1;
	/*
	 * The identity map is in the lower half, the direct map (KERNEL_DIRECT_BASE, 512 GiB
	 * aligned, so the same count of tables) and the kernel in the upper half, in separate
	 * PML4 slots: each needs its own PDPTs and page directories.
	 */
	uint64_t n = 1;					  /* PML4 */
	n += 2 * regions(0, last_identity, EP_PDPT_SPAN); /* identity and direct PDPTs */
	n += 2 * regions(0, last_identity, EP_PD_SPAN);	  /* identity and direct PDs */
	n += regions(kfirst, klast, EP_PDPT_SPAN);	  /* kernel PDPTs */
	n += regions(kfirst, klast, EP_PD_SPAN);	  /* kernel PDs */
	return (size_t)n;
}

static unsigned index_of(uint64_t virt, unsigned shift)
{
	return (unsigned)(virt >> shift) & INDEX_MASK;
}

static uint64_t *table_at(uint64_t entry)
{
	return (uint64_t *)(uintptr_t)(entry & EP_PTE_ADDR_MASK);
}

/* The next-level table an entry points to, allocated on first use. */
static uint64_t *next_table(uint64_t *entry, early_paging_alloc_fn alloc, void *ctx)
{
	if (*entry & EP_PTE_PRESENT)
		return table_at(*entry);
	uint64_t *t = alloc(ctx);
	if (!t || !IS_ALIGNED((uintptr_t)t, EP_PAGE_SIZE))
		return NULL;
	*entry = (uint64_t)(uintptr_t)t | TABLE_FLAGS;
	return t;
}

static enum early_paging_status map_large(uint64_t *pml4, uint64_t virt, uint64_t phys,
					  early_paging_alloc_fn alloc, void *ctx)
{
	uint64_t *pdpt = next_table(&pml4[index_of(virt, PML4_SHIFT)], alloc, ctx);
	if (!pdpt)
		return EP_ERR_NO_MEMORY;
	uint64_t *pd = next_table(&pdpt[index_of(virt, PDPT_SHIFT)], alloc, ctx);
	if (!pd)
		return EP_ERR_NO_MEMORY;
	uint64_t *leaf = &pd[index_of(virt, PD_SHIFT)];
	if (*leaf & EP_PTE_PRESENT)
		return EP_ERR_ALREADY_MAPPED;
	*leaf = phys | LEAF_FLAGS;
	return EP_OK;
}

/* Maps [virt, virt + size) to [phys, ...) with 2 MiB pages; size is a multiple of 2 MiB. */
static enum early_paging_status map_range(uint64_t *pml4, uint64_t virt, uint64_t phys,
					  uint64_t size, early_paging_alloc_fn alloc, void *ctx)
{
	for (uint64_t off = 0; off < size; off += EP_LARGE_PAGE) {
		enum early_paging_status st = map_large(pml4, virt + off, phys + off, alloc, ctx);
		if (st != EP_OK)
			return st;
	}
	return EP_OK;
}

enum early_paging_status early_paging_build(const struct early_paging_layout *l,
					    early_paging_alloc_fn alloc, void *ctx, uint64_t **pml4)
{
	*pml4 = NULL;
	enum early_paging_status st = check_layout(l);
	if (st != EP_OK)
		return st;
	uint64_t *root = alloc(ctx);
	if (!root || !IS_ALIGNED((uintptr_t)root, EP_PAGE_SIZE))
		return EP_ERR_NO_MEMORY;
	st = map_range(root, 0, 0, l->identity_limit, alloc, ctx);
	if (st == EP_OK)
		st = map_range(root, KERNEL_DIRECT_BASE, 0, l->identity_limit, alloc, ctx);
	if (st == EP_OK)
		st = map_range(root, l->kernel_virt, l->kernel_phys, kernel_mapped_size(l), alloc,
			       ctx);
	if (st == EP_OK)
		*pml4 = root;
	return st;
}
