/* SPDX-License-Identifier: MIT */
/*
 * Address translation and the timestamp, below everything that uses them (the page
 * allocator in kernel/memory.c, paging, the DS area): this file calls nothing.
 */
#include "arch/x86/cpu/cpu.h"
#include "kernel/arch_cpu.h"

void *arch_phys_to_virt(uint64_t phys)
{
	return (void *)phys; /* identity map (arch/x86/cpu/paging.c) */
}

uint64_t arch_timestamp(void)
{
	return rdtsc();
}
