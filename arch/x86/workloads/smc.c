/* SPDX-License-Identifier: MIT */
/*
 * The self-modifying workload's set-up (arch/x86/workloads/smc.S): kernel text is mapped
 * read-only (CR0.WP), so the workload writes its own code through the identity mapping of the
 * same physical page (the kernel image is physically contiguous); before every run the JE
 * and the MOV are put back.
 */
#include "arch/x86/cpu/paging.h"
#include "arch/x86/workloads/workloads.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_workloads.h"

#define SMC_JE	0x74
#define SMC_MOV 0xc6 /* MOV Eb,Ib */

extern const char smc_jcc[], smc_self[];
volatile uint8_t *smc_alias; /* read by smc.S */

void arch_smc_workload_reset(void)
{
	uint64_t pa, flags, size;
	if (!paging_translate((uint64_t)smc_jcc, &pa, &flags, &size))
		return; /* never: the kernel's text is mapped */
	smc_alias = arch_phys_to_virt(pa);
	*smc_alias = SMC_JE;
	smc_alias[smc_self - smc_jcc] = SMC_MOV;
}

extern const char smc_end[];

/* From smc.S: the JE (its first run) and the JNZ each taken once, then the RET. */
void arch_smc_workload_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_smc_workload, smc_end);
	s->instructions = 20;
	s->taken[WL_COND] = 2;
	s->taken[WL_RET] = 1;
}
