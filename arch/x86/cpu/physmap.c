/* SPDX-License-Identifier: MIT */
/*
 * Address translation and the timestamp, below everything that uses them (the page
 * allocator in kernel/memory.c, paging, the DS area): this file calls nothing.
 */
#include "arch/x86/cpu/cpu.h"
#include "kernel/arch_cpu.h"
#include "kernel/boot_info.h"

void *arch_phys_to_virt(uint64_t phys)
{
	/* the direct map: the loader's tables have it, and paging_init's (kernel/boot_info.h) */
	return (void *)(KERNEL_DIRECT_BASE + phys);
}

uint64_t arch_timestamp(void)
{
	return rdtsc();
}
