/* SPDX-License-Identifier: MIT */
/*
 * Self-tests of the capability report on the running machine: every online CPU has a record,
 * taken on that CPU; conclusions never claim a facility whose CPUID gate is clear (under QEMU
 * TCG every MSR reads 0 and never faults, so only CPUID may decide); a CPU that claims BTS or
 * PEBS has the DS area's 64-bit layout.
 */
#include "kernel/selftest.h"
#include "kernel/arch_cpu.h"
#include "arch/x86/caps/report.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/cpu/percpu.h"

static volatile uint32_t apic_seen_in_leaf1[MAX_CPUS];

static void initial_apic_id(void *arg)
{
	(void)arg;
	const struct trace_caps *c = caps_of_cpu(this_cpu()->index);
	/* CPUID.01H:EBX[31:24] is the initial APIC ID of the CPU that executed CPUID. */
	apic_seen_in_leaf1[this_cpu()->index] = c ? c->raw.leaf_01.ebx >> 24 : UINT32_MAX;
}

SELFTEST(caps)
{
	unsigned n = arch_cpu_count();
	bool all = true;
	for (unsigned i = 0; i < n; i++)
		all &= caps_of_cpu(i) != NULL;
	report(all, "every online CPU (%u) has a capability record", n);

	arch_run_on_all(initial_apic_id, NULL);
	bool own = true;
	for (unsigned i = 0; i < n && all; i++)
		own &= apic_seen_in_leaf1[i] == (arch_cpu_apic_id(i) & 0xff);
	report(own, "each record was taken on its own CPU (CPUID.01H:EBX[31:24] = its APIC ID)");

	bool gated = true, layout = true;
	for (unsigned i = 0; i < n && all; i++) {
		const struct trace_caps *c = caps_of_cpu(i);
		if (!c->ds)
			gated &= c->bts.kind == TC_BTS_NO && c->pebs.kind == TC_PEBS_NO;
		if (!c->pdcm)
			gated &= c->lbr.kind != TC_LBR_LEGACY && c->pebs.kind == TC_PEBS_NO;
		if (c->bts.kind != TC_BTS_NO || c->pebs.kind != TC_PEBS_NO)
			layout &= c->dtes64;
		if (c->lbr.kind == TC_LBR_NONE)
			gated &= c->lbr.reason[0] != 0;
	}
	report(gated, "no facility is claimed without its CPUID gate, and every 'no' has a reason");
	report(layout, "BTS or PEBS is only claimed with the 64-bit DS layout (DTES64)");
}
