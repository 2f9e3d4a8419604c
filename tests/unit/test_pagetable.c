// UNIT-SOURCES: arch/x86/cpu/pagetable.c
/* 4-level page-table building and walking, with host memory standing in for physical. */
#include "tests/unit/unit.h"
#include <stdlib.h>
#include <string.h>
#include "arch/x86/cpu/pagetable.h"

#define MAX_TABLES 64
static uint64_t *tables[MAX_TABLES];
static int ntables, fail_after = -1;

static uint64_t alloc_table(void *ctx)
{
	(void)ctx;
	if (ntables == MAX_TABLES || fail_after == 0)
		return 0;
	if (fail_after > 0)
		fail_after--;
	uint64_t *t = aligned_alloc(4096, 4096);
	memset(t, 0, 4096);
	tables[ntables++] = t;
	return (uint64_t)(uintptr_t)t; /* "physical" = host address, 4 KiB aligned */
}

static void *phys_to_virt(void *ctx, uint64_t phys)
{
	(void)ctx;
	return (void *)(uintptr_t)phys;
}

static const struct pt_ops ops = {alloc_table, phys_to_virt, NULL};

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < ntables; i++)
		free(tables[i]);
	ntables = 0;
	fail_after = -1;
	return 0;
}

static void maps_and_translates_each_size(void **state)
{
	(void)state;
	uint64_t root = alloc_table(NULL), pa, flags, size;
	const uint64_t kva = 0xffffffff80000000ull;
	assert_int_equal(pt_map(&ops, root, kva, 0x1234000, PAGE_4K, PTE_RW | PTE_NX), PT_OK);
	assert_int_equal(pt_map(&ops, root, 0x200000, 0x200000, PAGE_2M, PTE_PCD | PTE_PWT), PT_OK);
	assert_int_equal(pt_map(&ops, root, 0x80000000ull, 0x80000000ull, PAGE_1G, 0), PT_OK);

	assert_true(pt_translate(&ops, root, kva + 0x567, &pa, &flags, &size));
	assert_int_equal(pa, 0x1234567);
	assert_int_equal(size, PAGE_4K);
	assert_true((flags & (PTE_P | PTE_RW | PTE_NX)) == (PTE_P | PTE_RW | PTE_NX));
	assert_false(flags & PTE_PS);

	assert_true(pt_translate(&ops, root, 0x3fffff, &pa, &flags, &size));
	assert_int_equal(pa, 0x3fffff);
	assert_int_equal(size, PAGE_2M);
	assert_true(flags & PTE_PS);
	assert_int_equal(flags & (PTE_PCD | PTE_PWT), PTE_PCD | PTE_PWT);

	assert_true(pt_translate(&ops, root, 0xbfffffffull, &pa, &flags, &size));
	assert_int_equal(pa, 0xbfffffffull);
	assert_int_equal(size, PAGE_1G);

	assert_false(pt_translate(&ops, root, kva + 0x1000, &pa, &flags, &size));
	assert_false(pt_translate(&ops, root, 0x400000, &pa, &flags, &size));
	/* Kernel address: PML4 slot 511, PDPT slot 510 (the -mcmodel=kernel window). */
	uint64_t *pml4 = (uint64_t *)(uintptr_t)root;
	assert_true(pml4[511] & PTE_P);
	uint64_t *pdpt = (uint64_t *)(uintptr_t)(pml4[511] & PTE_ADDR);
	assert_true(pdpt[510] & PTE_P);
	/* Intermediate entries are permissive: present, writable, user. */
	assert_int_equal(pml4[511] & (PTE_P | PTE_RW | PTE_US), PTE_P | PTE_RW | PTE_US);
}

static void rejects_misalignment_conflicts_and_oom(void **state)
{
	(void)state;
	uint64_t root = alloc_table(NULL);
	assert_int_equal(pt_map(&ops, root, 0x1000, 0x1001, PAGE_4K, 0), PT_ERR_ALIGN);
	assert_int_equal(pt_map(&ops, root, 0x201000, 0x200000, PAGE_2M, 0), PT_ERR_ALIGN);
	assert_int_equal(pt_map(&ops, root, 0x1000, 0x1000, 12345, 0), PT_ERR_ALIGN);
	assert_int_equal(pt_map(&ops, root, 0x200000, 0x200000, PAGE_2M, 0), PT_OK);
	/* A 4K page inside an existing 2M page, and the same 2M page again: conflicts. */
	assert_int_equal(pt_map(&ops, root, 0x201000, 0x5000, PAGE_4K, 0), PT_ERR_CONFLICT);
	assert_int_equal(pt_map(&ops, root, 0x200000, 0x200000, PAGE_2M, 0), PT_ERR_CONFLICT);
	fail_after = 0;
	assert_int_equal(pt_map(&ops, root, 0x7f0000000000ull, 0, PAGE_4K, 0), PT_ERR_NOMEM);
}

static void unmap_removes_only_that_page(void **state)
{
	(void)state;
	uint64_t root = alloc_table(NULL), pa, flags, size;
	for (uint64_t va = 0; va < 4 * PAGE_4K; va += PAGE_4K)
		assert_int_equal(pt_map(&ops, root, va, va + 0x100000, PAGE_4K, PTE_RW), PT_OK);
	assert_true(pt_unmap_4k(&ops, root, PAGE_4K));
	assert_false(pt_unmap_4k(&ops, root, PAGE_4K)); /* already gone */
	assert_false(pt_translate(&ops, root, PAGE_4K + 8, &pa, &flags, &size));
	assert_true(pt_translate(&ops, root, 2 * PAGE_4K, &pa, &flags, &size));
	assert_int_equal(pa, 2 * PAGE_4K + 0x100000);
	assert_int_equal(pt_map(&ops, root, 0x400000, 0x400000, PAGE_2M, 0), PT_OK);
	assert_false(pt_unmap_4k(&ops, root, 0x400000)); /* a 2M leaf is not a 4K page */
}

static void set_flags_keeps_the_address(void **state)
{
	(void)state;
	uint64_t root = alloc_table(NULL), pa, flags, size;
	assert_int_equal(pt_map(&ops, root, 0x9e000, 0x9e000, PAGE_4K, PTE_RW | PTE_NX), PT_OK);
	assert_true(pt_set_flags_4k(&ops, root, 0x9e000, 0)); /* read + execute */
	assert_true(pt_translate(&ops, root, 0x9e010, &pa, &flags, &size));
	assert_int_equal(pa, 0x9e010);
	assert_int_equal(flags & (PTE_P | PTE_RW | PTE_NX), PTE_P);
	assert_true(pt_set_flags_4k(&ops, root, 0x9e000, PTE_RW | PTE_NX));
	assert_true(pt_translate(&ops, root, 0x9e000, &pa, &flags, &size));
	assert_int_equal(flags & (PTE_P | PTE_RW | PTE_NX), PTE_P | PTE_RW | PTE_NX);
	assert_false(pt_set_flags_4k(&ops, root, 0x200000, 0)); /* nothing mapped there */
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_teardown(maps_and_translates_each_size, teardown),
    cmocka_unit_test_teardown(rejects_misalignment_conflicts_and_oom, teardown),
    cmocka_unit_test_teardown(unmap_removes_only_that_page, teardown),
    cmocka_unit_test_teardown(set_flags_keeps_the_address, teardown),
};
UNIT_MAIN(tests)
