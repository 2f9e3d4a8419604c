/* SPDX-License-Identifier: MIT */
#include "arch/x86/pmu/pmi.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/cpu/vectors.h"

static pmi_service_fn service_routine[MAX_CPUS];
static enum pmi_ack ack_moment[MAX_CPUS]; /* PMI_ACK_EARLY (0) until a session says */
static volatile uint64_t pmis[MAX_CPUS];

void pmi_set_service_routine(pmi_service_fn fn)
{
	service_routine[this_cpu()->index] = fn;
}

void pmi_set_ack(enum pmi_ack ack)
{
	ack_moment[this_cpu()->index] = ack;
}

void pmi_entry(struct trap_frame *f, int from_nmi)
{
	unsigned cpu = this_cpu()->index;
	pmis[cpu]++;
	if (ack_moment[cpu] == PMI_ACK_EARLY)
		lapic_unmask_pmi();
	if (service_routine[cpu])
		service_routine[cpu](f);
	lapic_unmask_pmi();
	if (!from_nmi)
		lapic_eoi(); /* NMI delivery needs no EOI (SDM 10.8.5) */
}

static void pmi_vector_handler(struct trap_frame *f)
{
	pmi_entry(f, 0);
}

void pmi_init(void)
{
	irq_register(VEC_PMI, pmi_vector_handler);
}

uint64_t pmi_count(unsigned cpu_index)
{
	return cpu_index < MAX_CPUS ? pmis[cpu_index] : 0;
}

bool pmi_nmi_claim(struct trap_frame *f)
{
	if (!lapic_pmi_as_nmi())
		return false;
	pmi_entry(f, 1);
	return true;
}
