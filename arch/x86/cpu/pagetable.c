/* SPDX-License-Identifier: MIT */
#include "arch/x86/cpu/pagetable.h"

/* Intermediate entries grant everything; the leaf decides (SDM Vol. 3A 4.6: the effective
 * rights are the most restrictive along the walk). */
#define PTE_TABLE_FLAGS (PTE_P | PTE_RW | PTE_US)
#define LEVELS		4

static unsigned index_at(uint64_t va, int level) /* level 4 = PML4 ... 1 = PT */
{
	return (unsigned)((va >> (12 + 9 * (level - 1))) & (PT_ENTRIES - 1));
}

static uint64_t *table(const struct pt_ops *ops, uint64_t phys)
{
	return ops->phys_to_virt(ops->ctx, phys);
}

static int leaf_level(uint64_t size)
{
	switch (size) {
	case PAGE_4K:
		return 1;
	case PAGE_2M:
		return 2;
	case PAGE_1G:
		return 3;
	default:
		return 0;
	}
}

enum pt_result pt_map(const struct pt_ops *ops, uint64_t root, uint64_t va, uint64_t pa,
		      uint64_t size, uint64_t flags)
{
	int leaf = leaf_level(size);
	if (!leaf || !IS_ALIGNED(va, size) || !IS_ALIGNED(pa, size))
		return PT_ERR_ALIGN;
	uint64_t tphys = root;
	for (int level = LEVELS; level > leaf; level--) {
		uint64_t *e = &table(ops, tphys)[index_at(va, level)];
		if (!(*e & PTE_P)) {
			uint64_t t = ops->alloc_table(ops->ctx);
			if (!t)
				return PT_ERR_NOMEM;
			*e = t | PTE_TABLE_FLAGS;
		} else if (*e & PTE_PS) {
			return PT_ERR_CONFLICT;
		}
		tphys = *e & PTE_ADDR;
	}
	uint64_t *e = &table(ops, tphys)[index_at(va, leaf)];
	if (*e & PTE_P)
		return PT_ERR_CONFLICT;
	*e = pa | flags | PTE_P | (leaf > 1 ? PTE_PS : 0);
	return PT_OK;
}

static uint64_t *walk_to_leaf(const struct pt_ops *ops, uint64_t root, uint64_t va, int *level)
{
	uint64_t tphys = root;
	for (int l = LEVELS; l >= 1; l--) {
		uint64_t *e = &table(ops, tphys)[index_at(va, l)];
		if (!(*e & PTE_P))
			return 0;
		if (l == 1 || (l <= 3 && (*e & PTE_PS))) {
			*level = l;
			return e;
		}
		tphys = *e & PTE_ADDR;
	}
	return 0;
}

bool pt_translate(const struct pt_ops *ops, uint64_t root, uint64_t va, uint64_t *pa,
		  uint64_t *flags, uint64_t *size)
{
	int level;
	uint64_t *e = walk_to_leaf(ops, root, va, &level);
	if (!e)
		return false;
	uint64_t page = PAGE_4K << (9 * (level - 1));
	*size = page;
	*flags = *e & ~PTE_ADDR;
	*pa = (*e & PTE_ADDR & ~(page - 1)) | (va & (page - 1));
	return true;
}

bool pt_unmap_4k(const struct pt_ops *ops, uint64_t root, uint64_t va)
{
	int level;
	uint64_t *e = walk_to_leaf(ops, root, va, &level);
	if (!e || level != 1)
		return false;
	*e = 0;
	return true;
}

bool pt_set_flags_4k(const struct pt_ops *ops, uint64_t root, uint64_t va, uint64_t flags)
{
	int level;
	uint64_t *e = walk_to_leaf(ops, root, va, &level);
	if (!e || level != 1)
		return false;
	*e = (*e & PTE_ADDR) | flags | PTE_P;
	return true;
}
