/* SPDX-License-Identifier: MIT */
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/cpu.h"

struct percpu *percpu_by_index[MAX_CPUS];
unsigned percpu_count;
/* Set once the boot CPU has its area. An AP installs its own before it enables anything that
 * can fault (arch/x86/smp/smp.c ap_main), so the exception path may then trust GS without an RDMSR
 * on every trap (the single-step engine takes one per instruction). */
volatile bool percpu_ready;

void percpu_install(struct percpu *p)
{
	p->self = p;
	wrmsr(MSR_GS_BASE, (uint64_t)p);
	percpu_ready = true;
}
