/* SPDX-License-Identifier: MIT */
/*
 * The PMI entry: the LVT performance-counter interrupt arrives on VEC_PMI (or as NMI). The
 * entry counts it, calls the PMI/DS service routine hook (filled by the trace drivers), then
 * re-arms LVTPC, whose mask bit the delivery set (SDM 18.6.3: "the ISR must clear the mask bit
 * in the performance counter LVT entry"), and sends EOI unless it came as NMI.
 */
#ifndef ARCH_X86_PMU_PMI_H
#define ARCH_X86_PMU_PMI_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/caps/pmi_ack.h"

struct trap_frame;
typedef void (*pmi_service_fn)(struct trap_frame *f);

void pmi_init(void); /* registers the vector handler on the boot CPU's shared IDT */
/* The running CPU's service routine (each CPU has its own; NULL: count only). */
void pmi_set_service_routine(pmi_service_fn fn);
/* The running CPU's LVTPC unmask moment (arch/x86/caps/pmi_ack.h): early unmasks before the
 * service routine; the entry always unmasks after it too (late, and harmless again). */
void pmi_set_ack(enum pmi_ack ack);
/* Called from the NMI path when PMIs are delivered as NMI. */
void pmi_entry(struct trap_frame *f, int from_nmi);
/* The NMI claim (cpu/trap.h): a PMI delivered as NMI (option pmi=nmi) goes to pmi_entry. */
bool pmi_nmi_claim(struct trap_frame *f);
uint64_t pmi_count(unsigned cpu_index);

#endif
