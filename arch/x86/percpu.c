/* SPDX-License-Identifier: MIT */
#include "arch/x86/percpu.h"
#include "arch/x86/cpu.h"

struct percpu *percpu_by_index[MAX_CPUS];
unsigned percpu_count;

void percpu_install(struct percpu *p)
{
	p->self = p;
	wrmsr(MSR_GS_BASE, (uint64_t)p);
}

struct percpu *percpu_current(void)
{
	if (rdmsr(MSR_GS_BASE) == 0)
		return 0;
	return this_cpu();
}
