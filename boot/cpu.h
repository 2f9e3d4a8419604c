/* SPDX-License-Identifier: MIT */
/* The x86 helpers the loader uses: the kernel's own inline wrappers, plus two loader facts. */
#ifndef BOOT_CPU_H
#define BOOT_CPU_H

#include "arch/x86/cpu/cpu.h"

#define CR4_LA57 BIT(12) /* 5-level paging: our 4-level tables would be misread */

static inline int cpu_under_hypervisor(void)
{
	return (cpuid(1, 0).ecx & CPUID_1_ECX_HYPERVISOR) != 0;
}

#endif
