/* SPDX-License-Identifier: MIT */
/*
 * trace_caps_collect(): the only impure part of the capability record. Executes CPUID and the
 * two capability RDMSRs on the calling CPU, each MSR behind the CPUID bit that says it exists
 * (arch/x86/caps/caps.h). These are read-only capability MSRs read once at probe time, so they use
 * cpu.h's rdmsr() directly rather than the PMU MSR accessor (arch/x86/pmu/access.c) that
 * drivers use.
 */
#include "arch/x86/caps/caps.h"
#include "arch/x86/cpu/cpu.h"
#include "lib/string.h"

#define BITS_PER_BYTE 8

static struct cpuid_leaf_regs read_leaf(uint32_t n)
{
	struct cpuid_regs r = cpuid(n, 0);
	return (struct cpuid_leaf_regs){r.eax, r.ebx, r.ecx, r.edx};
}

static void put_reg(char *dst, uint32_t reg)
{
	for (unsigned i = 0; i < sizeof(reg); i++)
		dst[i] = (char)(reg >> (BITS_PER_BYTE * i));
}

void trace_caps_collect(struct cpu_snapshot *s)
{
	struct cpuid_regs v = cpuid(CPUID_LEAF_VENDOR, 0);
	uint32_t max = v.eax;

	memset(s, 0, sizeof(*s));
	s->max_basic_leaf = max;
	/* The vendor string is EBX, EDX, ECX in that order (SDM Vol. 2A CPUID leaf 0). */
	put_reg(s->vendor, v.ebx);
	put_reg(s->vendor + sizeof(uint32_t), v.edx);
	put_reg(s->vendor + 2 * sizeof(uint32_t), v.ecx);
	s->vendor[CPUID_VENDOR_LEN] = '\0';

	/* Never past the maximum: Intel would answer with the highest leaf's data. */
	if (max >= CPUID_LEAF_VERSION)
		s->leaf_01 = read_leaf(CPUID_LEAF_VERSION);
	if (max >= CPUID_LEAF_EXT_FEAT)
		s->leaf_07 = read_leaf(CPUID_LEAF_EXT_FEAT); /* sub-leaf 0 */
	if (max >= CPUID_LEAF_PERFMON)
		s->leaf_0a = read_leaf(CPUID_LEAF_PERFMON);
	if (max >= CPUID_LEAF_HYBRID)
		s->leaf_1a = read_leaf(CPUID_LEAF_HYBRID);
	if (max >= CPUID_LEAF_ARCH_LBR)
		s->leaf_1c = read_leaf(CPUID_LEAF_ARCH_LBR);

	if (s->leaf_01.ecx & C01_ECX_HYPERVISOR) {
		/* The hypervisor's signature: EBX, ECX, EDX (Linux arch/x86/kernel/kvm.c). */
		struct cpuid_regs h = cpuid(CPUID_LEAF_HV_VENDOR, 0);
		put_reg(s->hv_vendor, h.ebx);
		put_reg(s->hv_vendor + sizeof(uint32_t), h.ecx);
		put_reg(s->hv_vendor + 2 * sizeof(uint32_t), h.edx);
		s->hv_vendor[CPUID_VENDOR_LEN] = '\0';
	}

	/* Decide from CPUID, never from whether RDMSR faults (QEMU TCG never faults). */
	if (s->leaf_01.ecx & C01_ECX_PDCM) {
		s->has_perf_capabilities = true;
		s->perf_capabilities = rdmsr(MSR_IA32_PERF_CAPABILITIES);
	}
	if (s->leaf_01.edx & C01_EDX_DS) {
		s->has_misc_enable = true;
		s->misc_enable = rdmsr(MSR_IA32_MISC_ENABLE);
	}
}
