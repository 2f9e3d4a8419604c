/* SPDX-License-Identifier: MIT */
/*
 * Local APIC register map and ICR composition, pure so that the x2APIC side is host-tested
 * against the SDM's tables even though QEMU 7.2's TCG does not emulate x2APIC.
 * Sources: SDM Vol. 3A 10.4.1 Table 10-1 "Local APIC Register Address Map" (xAPIC MMIO offsets)
 * and 10.12.1.2 Table 10-6 "Local APIC Register Address Map Supported by x2APIC" (chapter 11
 * and Tables 11-1 / 11-6 in 2023+ editions).
 */
#ifndef ARCH_X86_HW_APIC_REGS_H
#define ARCH_X86_HW_APIC_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/hw/msr.h"
#include "lib/bits.h"

/* xAPIC MMIO offsets (Table 10-1). */
enum apic_reg {
	APIC_ID = 0x020,
	APIC_VERSION = 0x030,
	APIC_TPR = 0x080,
	APIC_EOI = 0x0b0,
	APIC_LDR = 0x0d0,
	APIC_SVR = 0x0f0,
	APIC_ESR = 0x280,
	APIC_ICR_LOW = 0x300,
	APIC_ICR_HIGH = 0x310, /* xAPIC only: x2APIC has one 64-bit ICR */
	APIC_LVT_TIMER = 0x320,
	APIC_LVT_THERMAL = 0x330,
	APIC_LVT_PMC = 0x340, /* performance monitoring counters: the PMI */
	APIC_LVT_LINT0 = 0x350,
	APIC_LVT_LINT1 = 0x360,
	APIC_LVT_ERROR = 0x370,
	APIC_TIMER_INITIAL = 0x380,
	APIC_TIMER_CURRENT = 0x390,
	APIC_TIMER_DIVIDE = 0x3e0,
};

/* x2APIC: MSR 800H + offset / 16 (SDM 10.12.1.2); 0 when the register has no MSR. */
uint32_t apic_x2apic_msr(enum apic_reg reg);

/* IA32_APIC_BASE (MSR 1BH, SDM 10.4.4 Figure 10-5). */
#define APIC_BASE_BSP	       BIT(8)
#define APIC_BASE_X2APIC_EXTD  BIT(10)
#define APIC_BASE_GLOBAL_EN    BIT(11)
#define APIC_BASE_ADDRESS_MASK GENMASK(51, 12)

/* Spurious-interrupt vector register (10.9). */
#define APIC_SVR_ENABLE BIT(8)

/* LVT entries (10.5.1, Figure 10-8). */
#define APIC_LVT_VECTOR		GENMASK(7, 0)
#define APIC_LVT_DELIVERY_MODE	GENMASK(10, 8)
#define APIC_LVT_DELIVERY_FIXED 0x0
#define APIC_LVT_DELIVERY_NMI	0x4
#define APIC_LVT_MASKED		BIT(16)

/* ICR (10.6.1, Figure 10-12; x2APIC 10.12.9 Figure 10-28). */
#define APIC_ICR_VECTOR		 GENMASK(7, 0)
#define APIC_ICR_DELIVERY_MODE	 GENMASK(10, 8)
#define APIC_ICR_DELIVERY_STATUS BIT(12) /* xAPIC only: send pending */
#define APIC_ICR_LEVEL_ASSERT	 BIT(14)
#define APIC_ICR_TRIGGER_LEVEL	 BIT(15)
#define APIC_ICR_SHORTHAND	 GENMASK(19, 18)
#define APIC_ICR_XAPIC_DEST	 GENMASK(63, 56) /* 8-bit destination in ICR_HIGH[31:24] */
#define APIC_ICR_X2APIC_DEST	 GENMASK(63, 32) /* 32-bit destination */

enum apic_delivery {
	APIC_DM_FIXED = 0x0,
	APIC_DM_NMI = 0x4,
	APIC_DM_INIT = 0x5,
	APIC_DM_STARTUP = 0x6,
};

enum apic_shorthand {
	APIC_DEST_NONE = 0,
	APIC_DEST_SELF = 1,
	APIC_DEST_ALL = 2,
	APIC_DEST_ALL_BUT_SELF = 3,
};

/*
 * The 64-bit ICR value for an IPI: for xAPIC the caller writes bits 63:32 to ICR_HIGH and then
 * bits 31:0 to ICR_LOW (the low write sends); for x2APIC it writes all 64 bits to MSR 830H.
 * Returns false if `dest` does not fit the mode's destination field (8 bits for xAPIC).
 */
bool apic_icr_compose(bool x2apic, uint32_t dest, enum apic_delivery mode, uint8_t vector,
		      enum apic_shorthand shorthand, uint64_t *icr);
/* The APIC ID from the ID register value: bits 31:24 in xAPIC, all 32 bits in x2APIC. */
uint32_t apic_id_from_reg(bool x2apic, uint32_t id_reg);

#endif
