/* SPDX-License-Identifier: MIT */
/*
 * Local APIC, xAPIC or x2APIC behind one accessor (register map in arch/x86/hw/apic_regs.h,
 * private to lapic.c's users). The boot CPU picks the mode once; every CPU then uses it.
 */
#ifndef ARCH_X86_SMP_LAPIC_H
#define ARCH_X86_SMP_LAPIC_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/hw/apic_regs.h"

/* Choose the mode (x2APIC when CPUID.01H:ECX[21] says so, or the firmware already enabled it)
 * and the xAPIC base. Called once on the boot CPU. */
void lapic_choose_mode(uint64_t madt_lapic_base);
bool lapic_x2apic_mode(void);
const char *lapic_mode_name(void);

/* Per CPU: enable the local APIC in the chosen mode, spurious and error vectors, LVTs masked,
 * LVTPC programmed to the PMI vector (or NMI delivery when pmi_as_nmi). */
void lapic_init_cpu(bool pmi_as_nmi);
uint32_t lapic_id(void);
void lapic_eoi(void);
uint32_t lapic_read(enum apic_reg reg);
void lapic_write(enum apic_reg reg, uint32_t v);
/* Send an IPI; false if dest does not fit the mode or the xAPIC never accepted it. */
bool lapic_send_ipi(uint32_t dest, enum apic_delivery mode, uint8_t vector,
		    enum apic_shorthand shorthand);
/* Re-arm LVTPC after a PMI: delivery sets its mask bit (SDM 18.6.3, "the ISR must clear the
 * mask bit in the performance counter LVT entry"). */
void lapic_unmask_pmi(void);
bool lapic_pmi_as_nmi(void);

#endif
