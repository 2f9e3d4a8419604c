/* SPDX-License-Identifier: MIT */
/*
 * The hand-off page tables, built by boot/early_paging.c in EfiLoaderData pages (one
 * allocation of exactly the pages it needs). The identity map covers [0, identity_limit) with
 * identity_limit = max(4 GiB, end of the highest memory-map range) rounded up to 1 GiB, taken
 * from the map read just before (later allocations only split existing ranges).
 */
#include "boot/early_paging.h"
#include "boot/loader.h"
#include "boot/mmap_convert.h"

struct page_pool {
	uint8_t *next;
	size_t left;
};

static void *pool_alloc(void *ctx)
{
	struct page_pool *pool = ctx;
	if (pool->left == 0)
		return NULL;
	void *page = pool->next;
	pool->next += PAGE_SIZE;
	pool->left--;
	SetMem(page, PAGE_SIZE, 0);
	return page;
}

EFI_STATUS loader_build_page_tables(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	uint64_t highest = mmap_highest_end(ld->map, ld->map_size, ld->desc_size);
	uint64_t limit = early_paging_identity_limit(highest);
	if (highest > limit)
		Print(L"" LOADER_TAG
		      "warning: memory above 0x%lx (up to 0x%lx) is not identity-mapped\n",
		      limit, highest);
	struct early_paging_layout layout = {
	    .identity_limit = limit,
	    .kernel_virt = KERNEL_VIRT_BASE,
	    .kernel_phys = bi->kernel_phys_base,
	    .kernel_size = bi->kernel_size,
	};

	struct page_pool pool = {NULL, early_paging_pages_needed(&layout)};
	if (pool.left) {
		EFI_PHYSICAL_ADDRESS addr;
		EFI_STATUS st = loader_alloc_pages(pool.left, &addr);
		if (EFI_ERROR(st)) {
			Print(L"" LOADER_TAG "error: cannot allocate %ld pages for page tables\n",
			      (UINT64)pool.left);
			return st;
		}
		pool.next = (uint8_t *)(UINTN)addr;
	}
	ld->table_pages = pool.left;
	enum early_paging_status es = early_paging_build(&layout, pool_alloc, &pool, &ld->pml4);
	if (es != EP_OK) {
		Print(L"" LOADER_TAG
		      "error: page tables (identity to 0x%lx, kernel 0x%lx -> 0x%lx, "
		      "%ld KiB): %a\n",
		      limit, layout.kernel_virt, layout.kernel_phys, layout.kernel_size >> 10,
		      early_paging_strerror(es));
		return EFI_LOAD_ERROR;
	}
	bi->identity_limit = limit;
	return EFI_SUCCESS;
}
