/* SPDX-License-Identifier: MIT */
/*
 * Self-tests of the multiprocessor bring-up: every CPU is online with its own APIC ID, GS area,
 * descriptor tables and guarded stack; cross-CPU calls run exactly once on the right CPU; the
 * timers agree.
 */
#include "kernel/selftest.h"
#include "kernel/arch_cpu.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/desc.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/smp/smp.h"
#include "arch/x86/smp/timer.h"
#include "arch/x86/cpu/vectors.h"

struct call_record {
	volatile unsigned runs[MAX_CPUS];
	volatile uint32_t apic_seen[MAX_CPUS];
	volatile unsigned index_seen[MAX_CPUS];
	volatile uint64_t gdt_base[MAX_CPUS];
	volatile uint16_t tr[MAX_CPUS];
};

static struct call_record rec;

static void record_call(void *arg)
{
	unsigned target = (unsigned)(uintptr_t)arg;
	struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} gdtr;
	uint16_t tr;
	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	__asm__ volatile("str %0" : "=r"(tr));
	__atomic_fetch_add(&rec.runs[target], 1, __ATOMIC_RELAXED);
	rec.apic_seen[target] = lapic_id();
	rec.index_seen[target] = this_cpu()->index;
	rec.gdt_base[target] = gdtr.base;
	rec.tr[target] = tr;
}

static void record_self(void *arg)
{
	(void)arg;
	record_call((void *)(uintptr_t)this_cpu()->index);
}

SELFTEST(smp)
{
	unsigned n = arch_cpu_count();
	report_info("%u CPU(s) online, %s", n, lapic_mode_name());
	bool ids_distinct = true;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			ids_distinct &= arch_cpu_apic_id(i) != arch_cpu_apic_id(j);
	report(ids_distinct, "the %u online CPUs have distinct APIC IDs", n);

	__builtin_memset((void *)&rec, 0, sizeof(rec));
	bool all_ok = true;
	for (unsigned i = 0; i < n; i++)
		all_ok &= arch_run_on_cpu(i, record_call, (void *)(uintptr_t)i);
	report(all_ok, "a call to each CPU in turn completes");
	bool right = true;
	for (unsigned i = 0; i < n; i++)
		right &= rec.runs[i] == 1 && rec.index_seen[i] == i &&
			 rec.apic_seen[i] == arch_cpu_apic_id(i);
	report(right, "each ran exactly once, on the CPU asked for (index and APIC ID match)");
	bool own_tables = true;
	for (unsigned i = 0; i < n; i++) {
		own_tables &= rec.tr[i] == SEL_TSS;
		for (unsigned j = i + 1; j < n; j++)
			own_tables &= rec.gdt_base[i] != rec.gdt_base[j];
	}
	report(own_tables, "every CPU runs on its own GDT and TSS");

	__builtin_memset((void *)&rec, 0, sizeof(rec));
	unsigned done = arch_run_on_all(record_self, NULL);
	bool once = done == n;
	for (unsigned i = 0; i < n; i++)
		once &= rec.runs[i] == 1 && rec.apic_seen[i] == arch_cpu_apic_id(i);
	report(once, "a call on all CPUs runs once on each (%u of %u finished)", done, n);
	__builtin_memset((void *)&rec, 0, sizeof(rec));
	done = arch_run_on_aps(record_self, NULL);
	once = done == n - 1 && rec.runs[0] == 0;
	for (unsigned i = 1; i < n; i++)
		once &= rec.runs[i] == 1 && rec.apic_seen[i] == arch_cpu_apic_id(i);
	report(once, "a call on all APs runs once on each AP and not on the caller (%u of %u)",
	       done, n - 1);
	report(!arch_run_on_cpu(n, record_call, NULL), "a call to a CPU that does not exist fails");

	bool guarded = true;
	for (unsigned i = 1; i < n; i++) {
		uint64_t top = percpu_by_index[i]->stack_top, pa, flags, size;
		guarded &= paging_translate(top - 8, &pa, &flags, &size) && (flags & PTE_NX);
		guarded &= !paging_translate(top - KSTACK_SIZE - 8, &pa, &flags, &size);
	}
	report(guarded, "AP stacks are mapped non-executable with an unmapped guard page below");
}

SELFTEST(timers)
{
	const struct timer_info *t = timer_info();
	report(t->tsc_hz >= 100000000ull, "TSC rate %lu kHz from %s", t->tsc_hz / 1000,
	       t->tsc_source);
	if (t->tsc_hz_pit && t->tsc_hz_loader) {
		uint64_t a = t->tsc_hz_pit, b = t->tsc_hz_loader;
		uint64_t diff = a > b ? a - b : b - a;
		report(diff * 10 < b,
		       "PIT (%lu kHz) and loader (%lu kHz) TSC rates agree within 10%%", a / 1000,
		       b / 1000);
	} else {
		report_skip("no trusted PIT measurement (uncertainty %lu ppm) to compare with the "
			    "loader's",
			    t->pit_uncertainty_ppm);
	}
	report(t->apic_timer_hz > 0, "APIC timer runs (%lu kHz)", t->apic_timer_hz / 1000);
	/* The shortest of three: a vCPU descheduled on a loaded host only lengthens a wait. */
	uint64_t us = UINT64_MAX;
	for (unsigned i = 0; i < 3; i++) {
		uint64_t start = rdtsc();
		udelay(1000);
		uint64_t took = tsc_to_us(rdtsc() - start);
		us = took < us ? took : us;
	}
	report(us >= 1000 && us < 5000, "udelay(1000) waits about 1 ms by the TSC (%lu us)", us);
}
