/* SPDX-License-Identifier: MIT */
/* Segment selectors, IST slots and the descriptor-table set-up entry points. */
#ifndef ARCH_X86_CPU_DESC_H
#define ARCH_X86_CPU_DESC_H

#include <stdint.h>
#include "lib/x86_decode.h"

/* GDT layout (order fixed by SYSRET: user data must sit 8 below user code 64). */
#define GDT_NULL	0
#define SEL_KERNEL_CODE 0x08
#define SEL_KERNEL_DATA 0x10
#define SEL_USER_DATA	(0x18 | 3)
#define SEL_USER_CODE	(0x20 | 3)
#define SEL_TSS		0x28 /* 16-byte system descriptor: slots 5 and 6 */
/* Ring 0 code in compatibility mode (L = 0, D = 1): the 32-bit workload (workloads/compat.S) */
#define SEL_KERNEL_CODE32 0x38

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
#define GDT_ENTRIES    8

/* 64-bit TSS (SDM Vol. 3A 7.7, Figure 7-11). */
struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct tss64) == 104, "64-bit TSS is 104 bytes (SDM Figure 7-11)");
_Static_assert(__builtin_offsetof(struct tss64, rsp) == 4, "RSP0 at offset 4");
_Static_assert(__builtin_offsetof(struct tss64, ist) == 36, "IST1 at offset 36");
_Static_assert(__builtin_offsetof(struct tss64, iomap_base) == 102, "I/O map base at 102");

/* One CPU's GDT and TSS: each CPU needs its own (loading TR marks the TSS descriptor busy). */
struct cpu_desc_tables {
	uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(16)));
	struct tss64 tss __attribute__((aligned(16)));
};

/* The boot CPU's tables and IST stacks (static). */
void gdt_init(void);
/* Fill and load t (GDT, TSS with the given IST stack tops and RSP0), reload the segments. */
void gdt_init_cpu(struct cpu_desc_tables *t, const uint64_t ist_tops[IST_COUNT], uint64_t rsp0);
void idt_init(void);
/* The mode code runs in under code segment selector cs (its descriptor's L and D flags). */
enum x86_mode cpu_code_mode(uint64_t cs);

#endif
