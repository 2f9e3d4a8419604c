/* SPDX-License-Identifier: MIT */
/*
 * The IDT: 64-bit interrupt gates for the 32 exception vectors (SDM Vol. 3A 6.14.1, Figure
 * 6-8). NMI, #DF and #MC run on IST stacks (arch/x86/cpu/desc.h). Later issues add the PMI and
 * IPI vectors through idt_set_gate().
 */
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/idt.h"
#include "arch/x86/cpu/trap.h"
#include "lib/bits.h"

/* Gate type 1110b: 64-bit interrupt gate (IF cleared on entry) (SDM Vol. 3A Table 3-2). */
#define GATE_TYPE_INTERRUPT 0xe
#define GATE_PRESENT	    BIT(7)
#define GATE_DPL(n)	    ((n) << 5)

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;	   /* bits 2:0 */
	uint8_t type_attr; /* type, DPL, P */
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct idt_gate) == 16, "64-bit IDT gate is 16 bytes");

struct idt_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static struct idt_gate idt[IDT_VECTORS] __attribute__((aligned(16)));

void idt_set_gate(unsigned vector, uint64_t handler, unsigned ist, unsigned dpl)
{
	struct idt_gate *g = &idt[vector];
	g->offset_low = handler & 0xffff;
	g->selector = SEL_KERNEL_CODE;
	g->ist = ist & 0x7;
	g->type_attr = GATE_TYPE_INTERRUPT | GATE_DPL(dpl) | GATE_PRESENT;
	g->offset_mid = (handler >> 16) & 0xffff;
	g->offset_high = (uint32_t)(handler >> 32);
	g->reserved = 0;
}

uint64_t idt_gate_target(unsigned vector)
{
	const struct idt_gate *g = &idt[vector % IDT_VECTORS];
	return (uint64_t)g->offset_high << 32 | (uint64_t)g->offset_mid << 16 | g->offset_low;
}

static unsigned exception_ist(unsigned vector)
{
	switch (vector) {
	case VEC_NMI:
		return IST_NMI;
	case VEC_DF:
		return IST_DOUBLE_FAULT;
	case VEC_MC:
		return IST_MACHINE_CHECK;
	case VEC_DB:
		return IST_DEBUG; /* the single-step engine's trap: never on the stepped stack */
	default:
		return IST_NONE;
	}
}

void idt_init(void)
{
	for (unsigned v = 0; v < IDT_VECTORS; v++)
		idt_set_gate(v, trap_stub_table[v], exception_ist(v), 0);
	/* #BP may be raised from ring 3 by INT3 once user workloads exist. */
	idt_set_gate(VEC_BP, trap_stub_table[VEC_BP], IST_NONE, 3);
	idt_load();
}

void idt_load(void)
{
	struct idt_pointer ip = {.limit = sizeof(idt) - 1, .base = (uint64_t)idt};
	__asm__ volatile("lidt %0" : : "m"(ip));
}
