/* SPDX-License-Identifier: MIT */
/*
 * Local APIC driver (SDM Vol. 3A chapter 10, "Advanced Programmable Interrupt Controller";
 * chapter 11 in 2023+ editions). One read/write pair hides xAPIC MMIO versus x2APIC MSRs, the
 * way littlekernel's lapic.c does.
 */
#include "arch/x86/smp/lapic.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/vectors.h"
#include "kernel/arch_cpu.h"

#define XAPIC_ICR_SPINS	    1000000 /* bound on waiting for the ICR delivery status */
#define APIC_TPR_ACCEPT_ALL 0

static bool x2apic;
static volatile uint32_t *xapic_mmio;
static bool pmi_nmi;

void lapic_choose_mode(uint64_t madt_lapic_base)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);
	/* Firmware may hand over in x2APIC mode already (required with APIC IDs >= 255); leaving
	 * it needs a full disable (SDM 10.12.5), so stay in it. */
	x2apic = (base & APIC_BASE_X2APIC_EXTD) || (cpuid(1, 0).ecx & C01_ECX_X2APIC);
	uint64_t phys = base & APIC_BASE_ADDRESS_MASK;
	if (!phys)
		phys = madt_lapic_base;
	xapic_mmio = arch_phys_to_virt(phys); /* direct map: holes are uncached */
}

bool lapic_x2apic_mode(void)
{
	return x2apic;
}

const char *lapic_mode_name(void)
{
	return x2apic ? "x2APIC" : "xAPIC";
}

uint32_t lapic_read(enum apic_reg reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(apic_x2apic_msr(reg));
	return xapic_mmio[reg / sizeof(uint32_t)];
}

void lapic_write(enum apic_reg reg, uint32_t v)
{
	if (x2apic)
		wrmsr(apic_x2apic_msr(reg), v);
	else
		xapic_mmio[reg / sizeof(uint32_t)] = v;
}

uint32_t lapic_id(void)
{
	return apic_id_from_reg(x2apic, lapic_read(APIC_ID));
}

void lapic_eoi(void)
{
	lapic_write(APIC_EOI, 0);
}

static uint32_t pmi_lvt(void)
{
	if (pmi_nmi)
		return (uint32_t)FIELD_PREP(APIC_LVT_DELIVERY_MODE, APIC_LVT_DELIVERY_NMI);
	return (uint32_t)FIELD_PREP(APIC_LVT_VECTOR, VEC_PMI);
}

void lapic_init_cpu(bool pmi_as_nmi)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE) | APIC_BASE_GLOBAL_EN;
	if (x2apic)
		base |= APIC_BASE_X2APIC_EXTD; /* EN first or together with EXTD (SDM 10.12.1) */
	wrmsr(MSR_IA32_APIC_BASE, base);
	pmi_nmi = pmi_as_nmi;

	lapic_write(APIC_TPR, APIC_TPR_ACCEPT_ALL);
	lapic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	lapic_write(APIC_LVT_THERMAL, APIC_LVT_MASKED);
	lapic_write(APIC_LVT_LINT0, APIC_LVT_MASKED);
	lapic_write(APIC_LVT_LINT1, APIC_LVT_MASKED);
	lapic_write(APIC_LVT_ERROR, VEC_APIC_ERROR);
	lapic_write(APIC_LVT_PMC, pmi_lvt());
	/* Writing ESR before reading it latches the current errors (SDM 10.5.3). */
	lapic_write(APIC_ESR, 0);
	(void)lapic_read(APIC_ESR);
	lapic_write(APIC_SVR, APIC_SVR_ENABLE | VEC_APIC_SPURIOUS);
	lapic_eoi();
}

bool lapic_pmi_as_nmi(void)
{
	return pmi_nmi;
}

void lapic_unmask_pmi(void)
{
	lapic_write(APIC_LVT_PMC, pmi_lvt());
}

bool lapic_send_ipi(uint32_t dest, enum apic_delivery mode, uint8_t vector,
		    enum apic_shorthand shorthand)
{
	uint64_t icr;
	if (!apic_icr_compose(x2apic, dest, mode, vector, shorthand, &icr))
		return false;
	if (x2apic) {
		wrmsr(apic_x2apic_msr(APIC_ICR_LOW), icr); /* one 64-bit write sends it */
		return true;
	}
	lapic_write(APIC_ICR_HIGH, (uint32_t)(icr >> 32));
	lapic_write(APIC_ICR_LOW, (uint32_t)icr); /* the low write sends */
	for (unsigned i = 0; i < XAPIC_ICR_SPINS; i++) {
		if (!(lapic_read(APIC_ICR_LOW) & APIC_ICR_DELIVERY_STATUS))
			return true;
		cpu_pause();
	}
	return false;
}
