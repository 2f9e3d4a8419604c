/* SPDX-License-Identifier: MIT */
/*
 * Self-tests of the PMI entry: each CPU's LVTPC targets the PMI vector, and the PMI entry
 * counts a PMI-vector interrupt once and re-arms LVTPC (clears the mask delivery sets).
 */
#include "kernel/selftest.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/vectors.h"
#include "arch/x86/pmu/pmi.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/smp/smp.h"
#include "arch/x86/smp/timer.h"
#include "kernel/arch_cpu.h"

struct pmi_check {
	volatile uint32_t lvt_before[MAX_CPUS];
	volatile uint32_t lvt_after[MAX_CPUS];
	volatile uint64_t pmis_seen[MAX_CPUS];
};
static struct pmi_check pmi_rec;

/* Simulate a delivered PMI: mask LVTPC as delivery does, then raise the PMI vector on this
 * CPU; the entry must count it and clear the mask. */
static void check_pmi(void *arg)
{
	(void)arg;
	unsigned i = this_cpu()->index;
	pmi_rec.lvt_before[i] = lapic_read(APIC_LVT_PMC);
	uint64_t before = pmi_count(i);
	lapic_write(APIC_LVT_PMC, pmi_rec.lvt_before[i] | APIC_LVT_MASKED);
	lapic_send_ipi(0, APIC_DM_FIXED, VEC_PMI, APIC_DEST_SELF);
	uint64_t end = rdtsc() + timer_info()->tsc_hz / 10;
	__asm__ volatile("sti");
	while (pmi_count(i) == before && (int64_t)(rdtsc() - end) < 0)
		cpu_pause();
	__asm__ volatile("cli");
	pmi_rec.pmis_seen[i] = pmi_count(i) - before;
	pmi_rec.lvt_after[i] = lapic_read(APIC_LVT_PMC);
}

SELFTEST(pmi)
{
	if (lapic_pmi_as_nmi()) {
		report_skip("pmi=nmi: the vector path is not in use");
		return;
	}
	unsigned n = arch_cpu_count();
	unsigned done = arch_run_on_all(check_pmi, NULL);
	bool vec = done == n, ran = done == n, rearmed = done == n;
	for (unsigned i = 0; i < n; i++) {
		vec &= pmi_rec.lvt_before[i] == VEC_PMI; /* fixed delivery, unmasked */
		ran &= pmi_rec.pmis_seen[i] == 1;
		rearmed &= !(pmi_rec.lvt_after[i] & APIC_LVT_MASKED) &&
			   (pmi_rec.lvt_after[i] & APIC_LVT_VECTOR) == VEC_PMI;
	}
	report(vec, "LVTPC on every CPU is vector %#x, fixed delivery, unmasked", VEC_PMI);
	report(ran, "a PMI-vector interrupt reaches the PMI entry exactly once on every CPU");
	report(rearmed, "the PMI entry clears the LVTPC mask bit that delivery sets");
}
