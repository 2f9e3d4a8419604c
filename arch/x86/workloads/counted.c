/* SPDX-License-Identifier: MIT */
/* The counted-loop workload's pages and result (arch/x86/workloads/counted.S). */
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/workloads/workloads.h"
#include "kernel/memory.h"

#define COUNTED_WINDOW 0x00007f0000200000ull /* counted.S's */
#define WINDOW_PAGES   19

static uint64_t window_pa[WINDOW_PAGES];

bool arch_wl_counted_fixup(struct trap_frame *f)
{
	uint64_t va = ALIGN_DOWN(read_cr2(), PAGE_4K);
	if (f->vector != VEC_PF || (f->error_code & PF_ERR_PRESENT) || va < COUNTED_WINDOW ||
	    va >= COUNTED_WINDOW + WINDOW_PAGES * PAGE_4K)
		return false;
	uint64_t *pa = &window_pa[(va - COUNTED_WINDOW) / PAGE_4K];
	if (!*pa)
		*pa = page_alloc(1);
	return *pa && paging_map_kernel_4k(va, *pa, true);
}

void arch_wl_counted_reset(void)
{
	uint64_t pa, flags, size;
	for (unsigned i = 0; i < WINDOW_PAGES; i++)
		if (paging_translate(COUNTED_WINDOW + i * PAGE_4K, &pa, &flags, &size))
			paging_unmap_kernel_4k(COUNTED_WINDOW + i * PAGE_4K);
}

uint64_t arch_wl_counted_result(uint64_t n)
{
	return n * n + (n + 2) / 3 + 408;
}
