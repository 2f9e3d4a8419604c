/* SPDX-License-Identifier: MIT */
/* The architecture half of bring-up: the folders wired together, the CPUs brought up. */
#include "kernel/arch_console.h"
#include "kernel/arch_cpu.h"
#include "kernel/console.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/exit.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/smp/acpi.h"
#include "arch/x86/caps/report.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/pmu/pmi.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/session/session.h"
#include "arch/x86/step/singlestep.h"
#include "arch/x86/workloads/faults.h"
#include "arch/x86/smp/pit_rate.h"
#include "arch/x86/smp/smp.h"
#include "arch/x86/smp/timer.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/user/run.h"
#include "kernel/boot_info.h"

#define XAPIC_DEFAULT_BASE_PHYS 0xfee00000ull /* SDM 10.4.1 */

static struct percpu bsp_percpu;

/* cpu/ calls up only through these (cpu/trap.h, cpu/exit.h): set once, before any workload. */
static void wire_hooks(void)
{
	ss_install_entry(); /* #DB: the engine's entry first, trap dispatch for the rest */
	trap_set_claim(TRAP_CLAIM_FIXUP, workload_fault_fixup);
	trap_set_claim(TRAP_CLAIM_NMI, pmi_nmi_claim);
	trap_add_observer(pmu_trap_observer);	 /* first the engine and the model ... */
	trap_add_observer(trace_note_exception); /* ... then the session's exception record */
	trap_add_resume_observer(
	    ss_note_resume); /* a handler that resumes the workload elsewhere */
	user_run_init();     /* ring 3 exceptions end the run; the watchdog's timer */
	exit_set_screen_probe(arch_screen_active); /* screen.hold: the exit asks the console */
}

void arch_early_init(void)
{
	gdt_init();
	idt_init();
	bsp_percpu.index = 0;
	percpu_by_index[0] = &bsp_percpu;
	percpu_count = 1;
	percpu_install(&bsp_percpu);
	wire_hooks();
}

bool arch_init(const struct boot_info *bi, const struct memmap *mm)
{
	if (!paging_init(bi, mm)) {
		kprintf("error: out of memory building the kernel page tables\n");
		return false;
	}
	return usermode_init(bi->kernel_phys_base, user_syscall_entry, user_code_page);
}

static void print_cpu_table(void)
{
	for (unsigned i = 0; i < percpu_count; i++) {
		struct percpu *p = percpu_by_index[i];
		if (i == 0)
			kprintf("  cpu %u: APIC ID %u (boot CPU)\n", i, p->apic_id);
		else
			kprintf("  cpu %u: APIC ID %u, ACPI UID %u, STARTUP IPI to online %lu us\n",
				i, p->apic_id, p->acpi_uid, tsc_to_us(p->start_cycles));
	}
}

void arch_smp_init(const struct boot_info *bi, bool pmi_as_nmi)
{
	static struct acpi_madt_info madt;
	char err[200];
	bool have_madt = acpi_read_madt(bi->acpi_rsdp, acpi_map_kernel, &madt, err, sizeof(err));
	if (have_madt) {
		unsigned enabled = 0;
		for (unsigned i = 0; i < madt.ncpus; i++)
			enabled += madt.cpus[i].enabled;
		kprintf("acpi: MADT lists %u processors (%u enabled%s), local APIC at %#lx, %u I/O "
			"APIC(s)\n",
			madt.ncpus + madt.dropped, enabled, madt.dropped ? ", some dropped" : "",
			madt.lapic_base, madt.ioapics);
	} else {
		kprintf("%s; carrying on with the boot CPU alone\n", err);
	}
	lapic_choose_mode(have_madt ? madt.lapic_base : XAPIC_DEFAULT_BASE_PHYS);
	lapic_init_cpu(pmi_as_nmi);
	pmi_init();
	timer_calibrate(bi->tsc_hz);
	timer_calibrate_apic();
	const struct timer_info *t = timer_info();
	kprintf("timer: TSC %lu kHz (from %s; PIT %lu kHz ", t->tsc_hz / 1000, t->tsc_source,
		(t->tsc_hz_pit ? t->tsc_hz_pit : t->tsc_hz_pit_rejected) / 1000);
	if (t->pit_uncertainty_ppm >= PIT_UNCERTAINTY_WHOLE)
		kprintf("rejected: its reads too far apart to count the counter's turns");
	else
		kprintf("+-%lu ppm%s", t->pit_uncertainty_ppm, t->tsc_hz_pit ? "" : " rejected");
	if (t->pit_attempts > 1)
		kprintf(", best of %u measurements", t->pit_attempts);
	kprintf(", loader %lu kHz); APIC timer %lu kHz\n", t->tsc_hz_loader / 1000,
		t->apic_timer_hz / 1000);
	kprintf("apic: %s mode%s; PMI on %s\n", lapic_mode_name(),
		lapic_x2apic_mode() ? "" : " (CPUID.01H:ECX[21] x2APIC is clear)",
		pmi_as_nmi ? "NMI" : "vector 0xf0");

	struct smp_report r;
	smp_init(bi->trampoline_phys, have_madt ? &madt : 0, pmi_as_nmi, &r);
	kprintf("smp: %u of %u enabled CPUs online (%u failed) in %lu us (INIT phase %lu us)\n",
		r.online, have_madt ? r.enabled : 1, r.failed, r.bringup_us, r.init_us);
	print_cpu_table();
	ss_blocks_prepare(arch_cpu_count());
	if (!pmu_backends_prepare(arch_cpu_count()))
		kprintf("error: out of memory for the CPUs' PMU state: only the boot CPU traces\n");
	caps_report_all();
}
