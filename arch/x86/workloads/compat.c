/* SPDX-License-Identifier: MIT */
/*
 * The compatibility-mode workload's memory (arch/x86/workloads/compat.S): its 32-bit code runs
 * at COMPAT_VA, below 4 GiB, an alias of the kernel text page compat_page (read-only,
 * executable, supervisor), with a data page at COMPAT_DATA and a stack below COMPAT_STACK_TOP
 * (read+write, not executable). The lower half is a Linux program's (kernel/program.h): the
 * pages are mapped before each run and taken away after it, and a run finding the addresses
 * taken by something else does not start (its result, 0, fails the session).
 */
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/workloads/workloads.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_workloads.h"
#include "kernel/memory.h"

/* compat.S's constants */
#define COMPAT_VA	   0xc0000000ull
#define COMPAT_STACK_PAGES 4
#define COMPAT_PAGES	   (2 + COMPAT_STACK_PAGES) /* code, data, stack */
_Static_assert(SEL_KERNEL_CODE == 0x08 && SEL_KERNEL_DATA == 0x10 && SEL_KERNEL_CODE32 == 0x38,
	       "compat.S's selectors");

extern const char compat_page[];
uint64_t compat_run(uint64_t n);

static uint64_t data_pa;  /* data page and stack, contiguous: allocated once */
static bool compat_ready; /* mapped by the reset for this run */

/* The physical page the workload maps at page i of its range (0: the code), or 0. */
static uint64_t own_pa(unsigned i)
{
	uint64_t pa, flags, size;
	if (i)
		return data_pa ? data_pa + (i - 1) * PAGE_4K : 0;
	return paging_translate((uint64_t)compat_page, &pa, &flags, &size) ? pa : 0;
}

/* Page i mapped as the workload needs it: false when another mapping holds its address. */
static bool map_page(unsigned i)
{
	uint64_t va = COMPAT_VA + i * PAGE_4K, pa, flags, size;
	if (paging_translate(va, &pa, &flags, &size))
		return pa == own_pa(i);
	return i ? paging_map_kernel_4k(va, own_pa(i), true)
		 : paging_map_kernel_text_4k(va, own_pa(i));
}

/* Idempotent: a run may be reset twice (kernel/sstrace.c). */
void arch_compat_workload_reset(void)
{
	compat_ready = false;
	if (!data_pa)
		data_pa = page_alloc(COMPAT_PAGES - 1);
	if (!data_pa || !own_pa(0))
		return;
	for (unsigned i = 0; i < COMPAT_PAGES; i++)
		if (!map_page(i))
			return; /* a program's page is there: the run does not start */
	*(volatile uint32_t *)arch_phys_to_virt(data_pa) = 1; /* the dword the loads read */
	compat_ready = true;
}

/* The workload's own mappings taken away (the lower half is a Linux program's). */
void arch_compat_workload_done(workload_print_fn print)
{
	uint64_t pa, flags, size;
	(void)print;
	for (unsigned i = 0; i < COMPAT_PAGES; i++)
		if (paging_translate(COMPAT_VA + i * PAGE_4K, &pa, &flags, &size) &&
		    pa == own_pa(i))
			paging_unmap_kernel_4k(COMPAT_VA + i * PAGE_4K);
	compat_ready = false;
}

WORKLOAD_SECTION uint64_t arch_compat_workload(uint64_t n)
{
	return compat_ready ? compat_run(n) : 0;
}
