/* SPDX-License-Identifier: MIT */
/* Segment selectors, IST slots and the descriptor-table set-up entry points. */
#ifndef ARCH_X86_DESC_H
#define ARCH_X86_DESC_H

#include <stdint.h>

/* GDT layout (order fixed by SYSRET: user data must sit 8 below user code 64). */
#define GDT_NULL	0
#define SEL_KERNEL_CODE 0x08
#define SEL_KERNEL_DATA 0x10
#define SEL_USER_DATA	(0x18 | 3)
#define SEL_USER_CODE	(0x20 | 3)
#define SEL_TSS		0x28 /* 16-byte system descriptor: slots 5 and 6 */

/* Interrupt stack table slots (SDM Vol. 3A 6.14.5); 0 means "no IST". */
enum ist_slot {
	IST_NONE = 0,
	IST_NMI = 1,
	IST_DOUBLE_FAULT = 2,
	IST_MACHINE_CHECK = 3,
	IST_DEBUG = 4, /* reserved for the single-step engine's #DB */
	IST_COUNT = 4,
};

#define IST_STACK_SIZE 16384

void gdt_init(void);
void idt_init(void);

#endif
