/* SPDX-License-Identifier: MIT */
#include "arch/x86/caps/report.h"
#include "arch/x86/cpu/percpu.h"
#include "kernel/arch_cpu.h"
#include "kernel/console.h"
#include "lib/string.h"

static struct cpu_snapshot snapshots[MAX_CPUS];
static struct trace_caps caps[MAX_CPUS];
static bool collected[MAX_CPUS];

static void collect_here(void *arg)
{
	(void)arg;
	unsigned i = arch_cpu_index();
	trace_caps_collect(&snapshots[i]);
	collected[i] = true;
}

const struct trace_caps *caps_of_cpu(unsigned index)
{
	return index < MAX_CPUS && collected[index] ? &caps[index] : NULL;
}

void caps_report_all(void)
{
	static char text[TRACE_CAPS_TEXT_MAX], prev[TRACE_CAPS_TEXT_MAX],
	    probe[TRACE_CAPS_TEXT_MAX];
	unsigned n = arch_cpu_count(), prev_cpu = 0;
	arch_run_on_all(collect_here, NULL);
	kprintf("trace capabilities (decided from CPUID; capability MSRs read only where CPUID "
		"says they exist):\n");
	prev[0] = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!collected[i]) {
			kprintf("  cpu %u: no snapshot (the cross-call did not finish)\n", i);
			continue;
		}
		trace_caps_decode(&snapshots[i], &caps[i]);
		/* Group CPUs whose table is the same but for the header (cpu, APIC ID). */
		trace_caps_format_table(&caps[i], 0, 0, probe, sizeof(probe));
		if (i > 0 && strcmp(probe, prev) == 0) {
			kprintf("  cpu %u (APIC ID %u): same as cpu %u\n", i, arch_cpu_apic_id(i),
				prev_cpu);
			continue;
		}
		memcpy(prev, probe, sizeof(prev));
		prev_cpu = i;
		trace_caps_format_table(&caps[i], i, arch_cpu_apic_id(i), text, sizeof(text));
		kputs(text);
	}
	for (unsigned i = 0; i < n; i++) {
		if (!collected[i])
			continue;
		trace_caps_format_json(&caps[i], i, arch_cpu_apic_id(i), text, sizeof(text));
		kprintf("caps-json: %s\n", text);
	}
}
