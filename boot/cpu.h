/* SPDX-License-Identifier: MIT */
/* The x86 helpers the loader uses: the kernel's own inline wrappers, plus two loader facts. */
#ifndef BOOT_CPU_H
#define BOOT_CPU_H

#include "arch/x86/cpu/cpu.h"

static inline int cpu_under_hypervisor(void)
{
	return (cpuid(1, 0).ecx & C01_ECX_HYPERVISOR) != 0;
}

#endif
