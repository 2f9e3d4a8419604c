/* SPDX-License-Identifier: MIT */
#include "lib/pmm.h"
#include "lib/bits.h"

#define BITS_PER_WORD 64

static bool bit_test(const struct pmm *p, uint64_t i)
{
	return p->bitmap[i / BITS_PER_WORD] & BIT(i % BITS_PER_WORD);
}

static void bit_set(struct pmm *p, uint64_t i)
{
	p->bitmap[i / BITS_PER_WORD] |= BIT(i % BITS_PER_WORD);
}

static void bit_clear(struct pmm *p, uint64_t i)
{
	p->bitmap[i / BITS_PER_WORD] &= ~BIT(i % BITS_PER_WORD);
}

size_t pmm_bitmap_bytes(uint64_t npages)
{
	return (size_t)((npages + BITS_PER_WORD - 1) / BITS_PER_WORD * sizeof(uint64_t));
}

void pmm_init(struct pmm *p, uint64_t *bitmap, uint64_t npages)
{
	p->bitmap = bitmap;
	p->npages = npages;
	p->free_pages = 0;
	p->next_hint = 0;
	size_t words = pmm_bitmap_bytes(npages) / sizeof(uint64_t);
	for (size_t w = 0; w < words; w++)
		bitmap[w] = ~UINT64_C(0);
}

/* Clip [phys, phys + pages) to the bitmap; returns false when nothing is left. */
static bool clip(const struct pmm *p, uint64_t phys, uint64_t pages, uint64_t *first,
		 uint64_t *last)
{
	uint64_t start = phys / PMM_PAGE_SIZE;
	if (pages == 0 || start >= p->npages)
		return false;
	*first = start;
	*last = (pages > p->npages - start) ? p->npages : start + pages;
	return true;
}

uint64_t pmm_release_range(struct pmm *p, uint64_t phys, uint64_t pages)
{
	uint64_t first, last, changed = 0;
	if (!clip(p, phys, pages, &first, &last))
		return 0;
	for (uint64_t i = first; i < last; i++) {
		if (bit_test(p, i)) {
			bit_clear(p, i);
			changed++;
		}
	}
	p->free_pages += changed;
	if (first < p->next_hint)
		p->next_hint = first;
	return changed;
}

uint64_t pmm_reserve_range(struct pmm *p, uint64_t phys, uint64_t pages)
{
	uint64_t first, last, changed = 0;
	if (!clip(p, phys, pages, &first, &last))
		return 0;
	for (uint64_t i = first; i < last; i++) {
		if (!bit_test(p, i)) {
			bit_set(p, i);
			changed++;
		}
	}
	p->free_pages -= changed;
	return changed;
}

/* First-fit search of [from, to) for `pages` free pages at an aligned start. */
static uint64_t search(const struct pmm *p, uint64_t from, uint64_t to, uint64_t pages,
		       uint64_t align)
{
	uint64_t i = ALIGN_UP(from, align);
	while (i + pages <= to) {
		uint64_t run = 0;
		while (run < pages && !bit_test(p, i + run))
			run++;
		if (run == pages)
			return i;
		i = ALIGN_UP(i + run + 1, align); /* skip past the used page */
	}
	return PMM_NO_PAGE;
}

uint64_t pmm_alloc(struct pmm *p, uint64_t pages, uint64_t align_pages, uint64_t limit)
{
	if (pages == 0 || pages > p->free_pages || align_pages == 0 ||
	    (align_pages & (align_pages - 1)))
		return PMM_NO_PAGE;
	uint64_t end = p->npages;
	if (limit && limit / PMM_PAGE_SIZE < end)
		end = limit / PMM_PAGE_SIZE;
	uint64_t hint = p->next_hint < end ? p->next_hint : 0;
	uint64_t at = search(p, hint, end, pages, align_pages);
	if (at == PMM_NO_PAGE && hint != 0)
		at = search(p, 0, end, pages, align_pages); /* wrap: earlier frees may fit */
	if (at == PMM_NO_PAGE)
		return PMM_NO_PAGE;
	for (uint64_t i = at; i < at + pages; i++)
		bit_set(p, i);
	p->free_pages -= pages;
	p->next_hint = at + pages;
	return at * PMM_PAGE_SIZE;
}

bool pmm_free(struct pmm *p, uint64_t phys, uint64_t pages)
{
	uint64_t first = phys / PMM_PAGE_SIZE;
	if (phys % PMM_PAGE_SIZE || pages == 0 || first >= p->npages || pages > p->npages - first)
		return false;
	for (uint64_t i = first; i < first + pages; i++)
		if (!bit_test(p, i))
			return false; /* double free or never allocated: refuse the whole call */
	pmm_release_range(p, phys, pages);
	return true;
}

bool pmm_page_in_use(const struct pmm *p, uint64_t phys)
{
	uint64_t i = phys / PMM_PAGE_SIZE;
	return i >= p->npages || bit_test(p, i);
}

uint64_t pmm_largest_run(const struct pmm *p)
{
	uint64_t best = 0, run = 0;
	for (uint64_t i = 0; i < p->npages; i++) {
		if (!(i % 64) && i + 64 <= p->npages && p->bitmap[i / 64] == ~0ull) {
			run = 0; /* 64 pages in use at once */
			i += 63;
			continue;
		}
		run = bit_test(p, i) ? 0 : run + 1;
		if (run > best)
			best = run;
	}
	return best;
}
