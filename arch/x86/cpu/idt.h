/* SPDX-License-Identifier: MIT */
#ifndef ARCH_X86_CPU_IDT_H
#define ARCH_X86_CPU_IDT_H

#include <stdint.h>

#define IDT_VECTORS 256

/* Install a 64-bit interrupt gate for `vector` (ist 0 = current stack, dpl 0 or 3). */
void idt_set_gate(unsigned vector, uint64_t handler, unsigned ist, unsigned dpl);
/* Where delivery through `vector`'s gate goes: the offset the gate holds (SDM Vol. 3A 6.14.1). */
uint64_t idt_gate_target(unsigned vector);
/* Load this CPU's IDTR with the shared table (APs call it too). */
void idt_load(void);

#endif
