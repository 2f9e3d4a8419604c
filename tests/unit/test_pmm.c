// UNIT-SOURCES: lib/pmm.c
/* The physical page allocator against a simple reference: a bool per page. */
#include "tests/unit/unit.h"
#include <stdlib.h>
#include <string.h>
#include "lib/pmm.h"

#define NPAGES 1000 /* deliberately not a multiple of 64 */
static uint64_t bitmap[(NPAGES + 63) / 64];

static void setup(struct pmm *p)
{
	pmm_init(p, bitmap, NPAGES);
}

static void starts_all_in_use_then_releases(void **state)
{
	(void)state;
	struct pmm p;
	setup(&p);
	assert_int_equal(pmm_bitmap_bytes(NPAGES), sizeof(bitmap));
	assert_int_equal(p.free_pages, 0);
	assert_int_equal(pmm_alloc(&p, 1, 1, 0), PMM_NO_PAGE);
	assert_int_equal(pmm_release_range(&p, 0x10000, 10), 10);
	assert_int_equal(pmm_release_range(&p, 0x10000, 10), 0); /* already free */
	assert_int_equal(p.free_pages, 10);
	/* Ranges beyond the bitmap are clipped, not written. */
	assert_int_equal(pmm_release_range(&p, (NPAGES - 2) * PMM_PAGE_SIZE, 100), 2);
	assert_int_equal(pmm_release_range(&p, NPAGES * PMM_PAGE_SIZE, 5), 0);
	assert_int_equal(p.free_pages, 12);
}

static void alloc_is_contiguous_aligned_and_limited(void **state)
{
	(void)state;
	struct pmm p;
	setup(&p);
	pmm_release_range(&p, 0, NPAGES);
	pmm_reserve_range(&p, 3 * PMM_PAGE_SIZE, 1); /* a hole at page 3 */
	uint64_t a = pmm_alloc(&p, 4, 1, 0);
	assert_int_equal(a, 4 * PMM_PAGE_SIZE); /* pages 0-2 are too short a run */
	uint64_t b = pmm_alloc(&p, 2, 16, 0);
	assert_int_equal(b % (16 * PMM_PAGE_SIZE), 0);
	assert_int_equal(b, 16 * PMM_PAGE_SIZE);
	/* Limit: the whole allocation must end at or below it. */
	assert_int_equal(pmm_alloc(&p, 8, 1, 10 * PMM_PAGE_SIZE), PMM_NO_PAGE);
	uint64_t c = pmm_alloc(&p, 3, 1, 10 * PMM_PAGE_SIZE);
	assert_true(c != PMM_NO_PAGE && c + 3 * PMM_PAGE_SIZE <= 10 * PMM_PAGE_SIZE);
	/* Bad requests. */
	assert_int_equal(pmm_alloc(&p, 0, 1, 0), PMM_NO_PAGE);
	assert_int_equal(pmm_alloc(&p, 1, 3, 0), PMM_NO_PAGE); /* alignment not a power of 2 */
	assert_int_equal(pmm_alloc(&p, NPAGES, 1, 0), PMM_NO_PAGE);
}

static void free_refuses_double_and_foreign(void **state)
{
	(void)state;
	struct pmm p;
	setup(&p);
	pmm_release_range(&p, 0, NPAGES);
	uint64_t before = p.free_pages;
	uint64_t a = pmm_alloc(&p, 5, 1, 0);
	assert_true(pmm_free(&p, a, 5));
	assert_int_equal(p.free_pages, before);
	assert_false(pmm_free(&p, a, 5));			     /* double free */
	assert_false(pmm_free(&p, a + 1, 1));			     /* unaligned */
	assert_false(pmm_free(&p, (NPAGES - 1) * PMM_PAGE_SIZE, 2)); /* runs off the end */
	a = pmm_alloc(&p, 2, 1, 0);
	assert_false(pmm_free(&p, a, 3)); /* partly free: refused whole */
	assert_true(pmm_page_in_use(&p, a) && pmm_page_in_use(&p, a + PMM_PAGE_SIZE));
	assert_true(pmm_page_in_use(&p, NPAGES * PMM_PAGE_SIZE)); /* outside = in use */
}

/* Random alloc/free sequence against a reference model. */
static void random_sequence_matches_reference(void **state)
{
	(void)state;
	struct pmm p;
	bool used[NPAGES];
	struct {
		uint64_t phys, pages;
	} live[200];
	size_t nlive = 0;
	setup(&p);
	pmm_release_range(&p, 0, NPAGES);
	memset(used, 0, sizeof(used));
	srand(12345);
	for (int step = 0; step < 20000; step++) {
		if (nlive < 200 && (rand() % 3 != 0 || nlive == 0)) {
			uint64_t pages = 1 + (uint64_t)(rand() % 8);
			uint64_t align = UINT64_C(1) << (rand() % 3);
			uint64_t phys = pmm_alloc(&p, pages, align, 0);
			if (phys == PMM_NO_PAGE)
				continue;
			assert_int_equal(phys % (align * PMM_PAGE_SIZE), 0);
			for (uint64_t i = 0; i < pages; i++) {
				assert_false(used[phys / PMM_PAGE_SIZE + i]);
				used[phys / PMM_PAGE_SIZE + i] = true;
			}
			live[nlive].phys = phys;
			live[nlive++].pages = pages;
		} else {
			size_t k = (size_t)rand() % nlive;
			assert_true(pmm_free(&p, live[k].phys, live[k].pages));
			for (uint64_t i = 0; i < live[k].pages; i++)
				used[live[k].phys / PMM_PAGE_SIZE + i] = false;
			live[k] = live[--nlive];
		}
		uint64_t free_ref = 0, run = 0, longest = 0;
		for (int i = 0; i < NPAGES; i++) {
			free_ref += !used[i];
			run = used[i] ? 0 : run + 1;
			longest = run > longest ? run : longest;
		}
		assert_int_equal(p.free_pages, free_ref);
		if (step % 97 == 0) /* the longest free run, by the reference */
			assert_int_equal(pmm_largest_run(&p), longest);
	}
	for (int i = 0; i < NPAGES; i++)
		assert_int_equal(pmm_page_in_use(&p, (uint64_t)i * PMM_PAGE_SIZE), used[i]);
}

/* Runs across whole 64-page words and at the bitmap's ragged end (NPAGES is no multiple of
 * 64). */
static void largest_run(void **state)
{
	(void)state;
	struct pmm p;
	setup(&p);
	assert_int_equal(pmm_largest_run(&p), 0);
	pmm_release_range(&p, 10 * PMM_PAGE_SIZE, 5);
	assert_int_equal(pmm_largest_run(&p), 5);
	pmm_release_range(&p, 100 * PMM_PAGE_SIZE, 300);
	assert_int_equal(pmm_largest_run(&p), 300);
	pmm_release_range(&p, 990 * PMM_PAGE_SIZE, 10);
	assert_int_equal(pmm_largest_run(&p), 300);
	pmm_release_range(&p, 400 * PMM_PAGE_SIZE, 590); /* joins 100..399 to 400..999 */
	assert_int_equal(pmm_largest_run(&p), 900);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(largest_run),
    cmocka_unit_test(starts_all_in_use_then_releases),
    cmocka_unit_test(alloc_is_contiguous_aligned_and_limited),
    cmocka_unit_test(free_refuses_double_and_foreign),
    cmocka_unit_test(random_sequence_matches_reference),
};
UNIT_MAIN(tests)
