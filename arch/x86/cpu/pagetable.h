/* SPDX-License-Identifier: MIT */
/*
 * 4-level page tables (SDM Vol. 3A 4.5, Tables 4-14 to 4-20): building and walking. Pure: the
 * caller supplies table allocation and physical-to-virtual translation, so the same code runs
 * in the kernel (identity map) and in host unit tests (host memory).
 */
#ifndef ARCH_X86_CPU_PAGETABLE_H
#define ARCH_X86_CPU_PAGETABLE_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/bits.h"

/* Paging-structure entry bits (SDM Vol. 3A 4.5, Table 4-19 for a 4-KByte page). */
#define PTE_P	     BIT(0) /* present */
#define PTE_RW	     BIT(1) /* writable */
#define PTE_US	     BIT(2) /* user accessible */
#define PTE_PWT	     BIT(3) /* with PCD: PAT entry 3 = UC under the power-on PAT (SDM 11.12.4) */
#define PTE_PCD	     BIT(4)
#define PTE_A	     BIT(5)
#define PTE_D	     BIT(6)
#define PTE_PS	     BIT(7) /* in a PDPTE/PDE: maps a 1 GiB/2 MiB page */
#define PTE_G	     BIT(8)
#define PTE_NX	     BIT(63) /* execute-disable, valid only with IA32_EFER.NXE */
#define PTE_ADDR     GENMASK(51, 12)
#define PTE_UNCACHED (PTE_PCD | PTE_PWT)

#define PAGE_4K	   0x1000ull
#define PAGE_2M	   0x200000ull
#define PAGE_1G	   0x40000000ull
#define PT_ENTRIES 512

struct pt_ops {
	uint64_t (*alloc_table)(void *ctx);		 /* a zeroed 4 KiB table, or 0 */
	void *(*phys_to_virt)(void *ctx, uint64_t phys); /* where the CPU's tables are visible */
	void *ctx;
};

enum pt_result {
	PT_OK = 0,
	PT_ERR_ALIGN = -1,    /* va or pa not aligned to the page size, or an unknown size */
	PT_ERR_NOMEM = -2,    /* alloc_table failed */
	PT_ERR_CONFLICT = -3, /* already mapped, or a large page where a table is needed */
};

/* Map one page of `size` (PAGE_4K, PAGE_2M or PAGE_1G) at va -> pa with leaf flags. */
enum pt_result pt_map(const struct pt_ops *ops, uint64_t root, uint64_t va, uint64_t pa,
		      uint64_t size, uint64_t flags);
/* Translate va; on success fills pa, the leaf's flags (without the address) and page size. */
bool pt_translate(const struct pt_ops *ops, uint64_t root, uint64_t va, uint64_t *pa,
		  uint64_t *flags, uint64_t *size);
/* Replace the flags of the existing 4 KiB leaf of va, keeping its address. */
bool pt_set_flags_4k(const struct pt_ops *ops, uint64_t root, uint64_t va, uint64_t flags);
/* Remove the 4 KiB mapping of va (it must exist as a 4 KiB leaf). */
bool pt_unmap_4k(const struct pt_ops *ops, uint64_t root, uint64_t va);

#endif
