// UNIT-SOURCES: boot/early_paging.c
/*
 * The loader's hand-off page tables (boot/early_paging.c), built in host memory (a table's
 * "physical address" is its host address) and walked here by an independent 4-level walker:
 * identity and kernel translations, leaf and table flags, nothing mapped beyond the limit or
 * the kernel span, exactly early_paging_pages_needed() pages used, and every layout error.
 */
#include "tests/unit/unit.h"
#include <stdlib.h>
#include <string.h>
#include "boot/early_paging.h"
#include "kernel/boot_info.h"

#define GIB	   (1ull << 30)
#define MIB	   (1ull << 20)
#define MAX_PAGES  4096
#define PHYS_MASK  0x000ffffffffff000ull
#define LARGE_MASK (EP_LARGE_PAGE - 1)

static void *pages[MAX_PAGES];
static int npages, fail_after = -1;

static void *alloc_page(void *ctx)
{
	(void)ctx;
	if (npages == MAX_PAGES || fail_after == 0)
		return NULL;
	if (fail_after > 0)
		fail_after--;
	void *p = aligned_alloc(EP_PAGE_SIZE, EP_PAGE_SIZE);
	memset(p, 0, EP_PAGE_SIZE);
	pages[npages++] = p;
	return p;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < npages; i++)
		free(pages[i]);
	npages = 0;
	fail_after = -1;
	return 0;
}

static const uint64_t *next(uint64_t entry)
{
	return (const uint64_t *)(uintptr_t)(entry & PHYS_MASK);
}

/* Walks virt; returns 1 and the physical address and leaf entry if mapped by a 2 MiB page. */
static int translate(const uint64_t *pml4, uint64_t virt, uint64_t *phys, uint64_t *leaf)
{
	uint64_t e4 = pml4[(virt >> 39) & 511];
	if (!(e4 & EP_PTE_PRESENT))
		return 0;
	assert_int_equal(e4 & ~PHYS_MASK, EP_PTE_PRESENT | EP_PTE_WRITABLE); /* no US, NX, PS */
	uint64_t e3 = next(e4)[(virt >> 30) & 511];
	if (!(e3 & EP_PTE_PRESENT))
		return 0;
	assert_int_equal(e3 & ~PHYS_MASK, EP_PTE_PRESENT | EP_PTE_WRITABLE); /* no 1 GiB pages */
	uint64_t e2 = next(e3)[(virt >> 21) & 511];
	if (!(e2 & EP_PTE_PRESENT))
		return 0;
	*leaf = e2;
	*phys = (e2 & PHYS_MASK & ~LARGE_MASK) + (virt & LARGE_MASK);
	return 1;
}

static void expect_mapped(const uint64_t *pml4, uint64_t virt, uint64_t want)
{
	uint64_t phys, leaf;
	assert_true(translate(pml4, virt, &phys, &leaf));
	assert_int_equal(phys, want);
	assert_int_equal(leaf & ~(PHYS_MASK & ~LARGE_MASK),
			 EP_PTE_PRESENT | EP_PTE_WRITABLE | EP_PTE_LARGE);
	assert_false(leaf & (EP_PTE_NX | EP_PTE_USER));
}

static void expect_unmapped(const uint64_t *pml4, uint64_t virt)
{
	uint64_t phys, leaf;
	assert_false(translate(pml4, virt, &phys, &leaf));
}

/* Counts present 2 MiB leaves over the whole address space. */
static uint64_t count_leaves(const uint64_t *pml4)
{
	uint64_t n = 0;
	for (int a = 0; a < 512; a++) {
		if (!(pml4[a] & EP_PTE_PRESENT))
			continue;
		for (int b = 0; b < 512; b++) {
			uint64_t e3 = next(pml4[a])[b];
			if (!(e3 & EP_PTE_PRESENT))
				continue;
			for (int c = 0; c < 512; c++)
				n += (next(e3)[c] & EP_PTE_PRESENT) != 0;
		}
	}
	return n;
}

static uint64_t *build_ok(const struct early_paging_layout *l)
{
	uint64_t *pml4;
	assert_int_equal(early_paging_build(l, alloc_page, NULL, &pml4), EP_OK);
	assert_non_null(pml4);
	assert_int_equal(npages, early_paging_pages_needed(l));
	return pml4;
}

static void identity_limit_rounding(void **state)
{
	(void)state;
	assert_int_equal(early_paging_identity_limit(0), 4 * GIB);
	assert_int_equal(early_paging_identity_limit(0x1f800000), 4 * GIB);
	assert_int_equal(early_paging_identity_limit(4 * GIB), 4 * GIB);
	assert_int_equal(early_paging_identity_limit(4 * GIB + 1), 5 * GIB);
	assert_int_equal(early_paging_identity_limit(5 * GIB), 5 * GIB);
	assert_int_equal(early_paging_identity_limit(0x2080000000ull + 0x1000), 0x20c0000000ull);
	assert_int_equal(early_paging_identity_limit(EP_IDENTITY_MAX), EP_IDENTITY_MAX);
	assert_int_equal(early_paging_identity_limit(UINT64_MAX), EP_IDENTITY_MAX);
}

static void maps_identity_and_kernel(void **state)
{
	(void)state;
	const uint64_t kphys = 0x1dc00000, ksize = 3 * MIB + 0x1000;
	struct early_paging_layout l = {4 * GIB, KERNEL_VIRT_BASE, kphys, ksize};
	assert_int_equal(early_paging_pages_needed(&l), 1 + 2 * (1 + 4) + 1 + 1);
	uint64_t *pml4 = build_ok(&l);

	expect_mapped(pml4, 0, 0);
	expect_mapped(pml4, 0x9e123, 0x9e123);
	expect_mapped(pml4, 0x1deaf000, 0x1deaf000);
	expect_mapped(pml4, 0xffc00000, 0xffc00000);
	expect_mapped(pml4, 4 * GIB - 1, 4 * GIB - 1);
	expect_unmapped(pml4, 4 * GIB);
	expect_unmapped(pml4, 4 * GIB + EP_LARGE_PAGE);
	expect_unmapped(pml4, 1ull << 40);
	expect_unmapped(pml4, 0xffff800000000000ull);
	/* the direct map: the same memory at KERNEL_DIRECT_BASE, no further */
	expect_mapped(pml4, KERNEL_DIRECT_BASE, 0);
	expect_mapped(pml4, KERNEL_DIRECT_BASE + 0x1deaf000, 0x1deaf000);
	expect_mapped(pml4, KERNEL_DIRECT_BASE + 4 * GIB - 1, 4 * GIB - 1);
	expect_unmapped(pml4, KERNEL_DIRECT_BASE + 4 * GIB);
	expect_unmapped(pml4, KERNEL_DIRECT_BASE - 1);

	expect_mapped(pml4, KERNEL_VIRT_BASE, kphys);
	expect_mapped(pml4, KERNEL_VIRT_BASE + 0x1234, kphys + 0x1234);
	expect_mapped(pml4, KERNEL_VIRT_BASE + ksize - 1, kphys + ksize - 1);
	/* whole 2 MiB pages: the span is mapped rounded up to 4 MiB, no further */
	expect_mapped(pml4, KERNEL_VIRT_BASE + 4 * MIB - 1, kphys + 4 * MIB - 1);
	expect_unmapped(pml4, KERNEL_VIRT_BASE + 4 * MIB);
	expect_unmapped(pml4, KERNEL_VIRT_BASE - 1);
	expect_unmapped(pml4, UINT64_MAX);

	assert_int_equal(count_leaves(pml4), 2 * (4 * GIB / EP_LARGE_PAGE) + 2);
}

static void large_identity_crosses_pdpts(void **state)
{
	(void)state;
	const uint64_t limit = 600 * GIB;
	struct early_paging_layout l = {limit, KERNEL_VIRT_BASE, 8 * MIB, 2 * MIB};
	assert_int_equal(early_paging_pages_needed(&l), 1 + 2 * (2 + 600) + 1 + 1);
	uint64_t *pml4 = build_ok(&l);
	expect_mapped(pml4, 512 * GIB - 1, 512 * GIB - 1);
	expect_mapped(pml4, 512 * GIB, 512 * GIB);
	expect_mapped(pml4, limit - 0x10, limit - 0x10);
	expect_unmapped(pml4, limit);
	expect_mapped(pml4, KERNEL_DIRECT_BASE + 512 * GIB, 512 * GIB);
	expect_unmapped(pml4, KERNEL_DIRECT_BASE + limit);
	expect_mapped(pml4, KERNEL_VIRT_BASE + 5, 8 * MIB + 5);
	assert_int_equal(count_leaves(pml4), 2 * (limit / EP_LARGE_PAGE) + 1);
}

static void kernel_across_a_gib_boundary(void **state)
{
	(void)state;
	/* 1 GiB + 4 MiB of kernel from KERNEL_VIRT_BASE: two page directories in the kernel PDPT */
	const uint64_t ksize = GIB + 4 * MIB, kphys = 2 * GIB;
	struct early_paging_layout l = {4 * GIB, KERNEL_VIRT_BASE, kphys, ksize};
	assert_int_equal(early_paging_pages_needed(&l), 1 + 2 * (1 + 4) + 1 + 2);
	uint64_t *pml4 = build_ok(&l);
	expect_mapped(pml4, KERNEL_VIRT_BASE + GIB + 0x300000, kphys + GIB + 0x300000);
	expect_unmapped(pml4, KERNEL_VIRT_BASE + ksize);
	/* the kernel may reach the very top of the address space */
	teardown(NULL);
	struct early_paging_layout top = {4 * GIB, 0xffffffffffe00000ull, kphys, 0x1000};
	pml4 = build_ok(&top);
	expect_mapped(pml4, UINT64_MAX, kphys + EP_LARGE_PAGE - 1);
}

static void layout_errors(void **state)
{
	(void)state;
	uint64_t *pml4 = (uint64_t *)1;
	const struct {
		struct early_paging_layout l;
		enum early_paging_status want;
	} cases[] = {
	    {{0, KERNEL_VIRT_BASE, 0, 4096}, EP_ERR_LIMIT},
	    {{4 * GIB + 0x1000, KERNEL_VIRT_BASE, 0, 4096}, EP_ERR_LIMIT},
	    {{EP_IDENTITY_MAX + 2 * MIB, KERNEL_VIRT_BASE, 0, 4096}, EP_ERR_LIMIT},
	    {{4 * GIB, KERNEL_VIRT_BASE + 0x1000, 0, 4096}, EP_ERR_KERNEL},
	    {{4 * GIB, KERNEL_VIRT_BASE, 0x1000, 4096}, EP_ERR_KERNEL},
	    {{4 * GIB, KERNEL_VIRT_BASE, 0, 0}, EP_ERR_KERNEL},
	    {{4 * GIB, 0x40000000, 0, 4096}, EP_ERR_KERNEL},
	    {{4 * GIB, 0xffffffffffe00000ull, 0, 4 * MIB}, EP_ERR_KERNEL},
	    {{4 * GIB, KERNEL_VIRT_BASE, 0xffffffffffe00000ull, 4096}, EP_ERR_KERNEL},
	    {{4 * GIB, KERNEL_VIRT_BASE, 1ull << 52, 4096}, EP_ERR_KERNEL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(early_paging_build(&cases[i].l, alloc_page, NULL, &pml4),
				 cases[i].want);
		assert_null(pml4);
		assert_int_equal(early_paging_pages_needed(&cases[i].l), 0);
		assert_int_equal(npages, 0); /* rejected before allocating */
	}
}

static void allocation_failure_at_every_step(void **state)
{
	(void)state;
	struct early_paging_layout l = {4 * GIB, KERNEL_VIRT_BASE, 0x1dc00000, 3 * MIB};
	size_t need = early_paging_pages_needed(&l);
	for (size_t k = 0; k < need; k++) {
		uint64_t *pml4;
		fail_after = (int)k;
		assert_int_equal(early_paging_build(&l, alloc_page, NULL, &pml4), EP_ERR_NO_MEMORY);
		assert_null(pml4);
		teardown(NULL);
	}
}

static void *misaligned_page(void *ctx)
{
	static _Alignas(4096) uint8_t buf[2 * 4096];
	(void)ctx;
	return buf + 8;
}

static void misaligned_allocator_is_refused(void **state)
{
	(void)state;
	struct early_paging_layout l = {4 * GIB, KERNEL_VIRT_BASE, 0, 4096};
	uint64_t *pml4;
	assert_int_equal(early_paging_build(&l, misaligned_page, NULL, &pml4), EP_ERR_NO_MEMORY);
}

static void messages_are_distinct(void **state)
{
	(void)state;
	for (int a = 0; a < EP_STATUS_COUNT; a++) {
		assert_non_null(early_paging_strerror(a));
		for (int b = 0; b < a; b++)
			assert_string_not_equal(early_paging_strerror(a), early_paging_strerror(b));
	}
	assert_non_null(early_paging_strerror(EP_STATUS_COUNT));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(identity_limit_rounding),
    cmocka_unit_test_teardown(maps_identity_and_kernel, teardown),
    cmocka_unit_test_teardown(large_identity_crosses_pdpts, teardown),
    cmocka_unit_test_teardown(kernel_across_a_gib_boundary, teardown),
    cmocka_unit_test_teardown(layout_errors, teardown),
    cmocka_unit_test_teardown(allocation_failure_at_every_step, teardown),
    cmocka_unit_test(misaligned_allocator_is_refused),
    cmocka_unit_test(messages_are_distinct),
};
UNIT_MAIN(tests)
