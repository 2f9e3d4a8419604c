/* SPDX-License-Identifier: MIT */
#ifndef ARCH_X86_SMP_SMP_H
#define ARCH_X86_SMP_SMP_H

#include <stdbool.h>
#include <stdint.h>

struct acpi_madt_info;

/* Kernel virtual window for per-CPU stacks, each below an unmapped guard page. */
#define KSTACKS_BASE	      0xffffffff00000000ull
#define KSTACK_SIZE	      16384
#define KSTACK_SLOT_SIZE      0x40000ull /* per CPU: 6 stacks of guard + 16 KiB */
#define AP_START_TIMEOUT_US   1000000	 /* per CPU; TCG with many vCPUs can be slow */
#define CROSS_CALL_TIMEOUT_US 2000000

struct smp_report {
	unsigned listed;  /* processors in the MADT */
	unsigned enabled; /* ... usable at boot */
	unsigned online;  /* now running, boot CPU included */
	unsigned failed;  /* enabled but did not answer INIT-SIPI-SIPI */
	uint64_t bringup_us;
	uint64_t init_us; /* INIT to every AP and the 10 ms wait */
};

/* Bring up every enabled AP of the MADT, one after the other, each with a timeout; a CPU that
 * does not answer is reported by APIC ID and skipped. */
/* Cross-CPU calls with their own time-out (trace sessions single-step long workloads). */
bool smp_run_on_cpu_within(unsigned index, void (*fn)(void *), void *arg, uint64_t timeout_us);
/* The same call in parts: posted to CPU `index` (not this one), *seq naming it; whether it
 * has finished; waiting for it until the TSC reaches `deadline` (tsc_deadline). */
bool smp_call_post(unsigned index, void (*fn)(void *), void *arg, uint64_t *seq);
bool smp_call_finished(unsigned index, uint64_t seq);
bool smp_call_wait(unsigned index, uint64_t seq, uint64_t deadline);

void smp_init(uint64_t trampoline_phys, const struct acpi_madt_info *madt, bool pmi_as_nmi,
	      struct smp_report *r);

#endif
