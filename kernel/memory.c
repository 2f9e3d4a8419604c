/* SPDX-License-Identifier: MIT */
#include "kernel/memory.h"
#include "kernel/arch_cpu.h"
#include "kernel/console.h"
#include "lib/bits.h"
#include "lib/string.h"

static struct pmm allocator;

struct pmm *memory_allocator(void)
{
	return &allocator;
}

/* The bitmap goes in the first usable range above low memory that holds it. */
static uint64_t place_bitmap(const struct memmap *mm, uint64_t bytes)
{
	uint64_t pages = ALIGN_UP(bytes, PAGE_SIZE) / PAGE_SIZE;
	for (size_t i = 0; i < mm->count; i++) {
		const struct boot_mem_range *r = &mm->ranges[i];
		if (r->type != BOOT_MEM_USABLE || r->phys < LOW_MEMORY_RESERVED)
			continue;
		if (r->pages >= pages)
			return r->phys;
	}
	return 0;
}

bool memory_init(const struct memmap *mm)
{
	struct memmap_summary s;
	memmap_summarize(mm, &s);
	uint64_t npages = s.usable_top / PAGE_SIZE;
	uint64_t bytes = pmm_bitmap_bytes(npages);
	uint64_t bitmap_phys = place_bitmap(mm, bytes);
	if (npages == 0 || bitmap_phys == 0) {
		kprintf("error: memory map has no usable range above 1 MiB for the page bitmap "
			"(%lu bytes)\n",
			bytes);
		return false;
	}
	pmm_init(&allocator, arch_phys_to_virt(bitmap_phys), npages);
	for (size_t i = 0; i < mm->count; i++)
		if (mm->ranges[i].type == BOOT_MEM_USABLE)
			pmm_release_range(&allocator, mm->ranges[i].phys, mm->ranges[i].pages);
	pmm_reserve_range(&allocator, 0, LOW_MEMORY_RESERVED / PAGE_SIZE);
	pmm_reserve_range(&allocator, bitmap_phys, ALIGN_UP(bytes, PAGE_SIZE) / PAGE_SIZE);
	return true;
}

uint64_t page_alloc(uint64_t pages)
{
	return page_alloc_below(pages, 0);
}

void *page_alloc_virt(uint64_t bytes)
{
	uint64_t pa = page_alloc((bytes + PAGE_SIZE - 1) / PAGE_SIZE);
	return pa ? arch_phys_to_virt(pa) : NULL;
}

uint64_t page_alloc_below(uint64_t pages, uint64_t limit)
{
	uint64_t phys = pmm_alloc(&allocator, pages, 1, limit);
	if (phys == PMM_NO_PAGE)
		return 0;
	memset(arch_phys_to_virt(phys), 0, pages * PAGE_SIZE);
	return phys;
}

uint64_t page_alloc_uncleared(uint64_t pages)
{
	uint64_t phys = pmm_alloc(&allocator, pages, 1, 0);
	return phys == PMM_NO_PAGE ? 0 : phys;
}

bool page_free(uint64_t phys, uint64_t pages)
{
	return pmm_free(&allocator, phys, pages);
}
