/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own GDT and 64-bit TSS (SDM Vol. 3A 3.4.5 segment descriptors, 7.7 task
 * management in 64-bit mode, Figure 7-11 64-bit TSS format). The TSS carries the interrupt
 * stack table: NMI, #DF and #MC get stacks of their own so that a fault on a broken kernel
 * stack still reaches a handler that can print and end the run.
 */
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/cpu.h"
#include "lib/bits.h"

/* Code/data descriptor bits (SDM Vol. 3A 3.4.5, Figure 3-8). */
#define DESC_ACCESSED  BIT(40)
#define DESC_RW	       BIT(41) /* data: writable; code: readable */
#define DESC_CODE      BIT(43)
#define DESC_S	       BIT(44) /* code/data (not system) */
#define DESC_DPL(n)    FIELD_PREP(GENMASK(46, 45), (n))
#define DESC_P	       BIT(47)
#define DESC_L	       BIT(53) /* 64-bit code segment */
#define DESC_DB	       BIT(54) /* code: default operand/address size 32 bits (D) */
#define SEL_TI	       BIT(2)  /* a selector's table indicator: the LDT */
#define DESC_G	       BIT(55)
#define DESC_LIMIT_MAX (GENMASK(15, 0) | GENMASK(51, 48))

#define DESC_KERNEL_CODE                                                                           \
	(DESC_LIMIT_MAX | DESC_ACCESSED | DESC_RW | DESC_CODE | DESC_S | DESC_P | DESC_L | DESC_G)
/* D/B set as Linux sets it (__KERNEL_DS): ignored in 64-bit mode, a 32-bit stack (ESP) for
 * code in compatibility mode with SS = this selector (SDM Vol. 3A 3.4.5, "D/B ... stack
 * segment"). */
#define DESC_KERNEL_DATA                                                                           \
	(DESC_LIMIT_MAX | DESC_ACCESSED | DESC_RW | DESC_S | DESC_P | DESC_DB | DESC_G)
#define DESC_KERNEL_CODE32                                                                         \
	(DESC_LIMIT_MAX | DESC_ACCESSED | DESC_RW | DESC_CODE | DESC_S | DESC_P | DESC_DB | DESC_G)
#define DESC_USER_CODE (DESC_KERNEL_CODE | DESC_DPL(3))
#define DESC_USER_DATA (DESC_KERNEL_DATA | DESC_DPL(3))

/* 64-bit TSS descriptor type 1001b "available 64-bit TSS" (SDM Vol. 3A Table 3-2). */
#define DESC_TYPE_TSS64_AVAILABLE FIELD_PREP(GENMASK(43, 40), 0x9)

struct gdt_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* The boot CPU's tables and stacks; APs get theirs from arch/x86/smp/smp.c. */
static struct cpu_desc_tables bsp_tables;
static uint8_t bsp_ist_stacks[IST_COUNT][IST_STACK_SIZE] __attribute__((aligned(16)));
/* Ring-0 stack for transitions from ring 3; ring 3 arrives with a later issue. */
static uint8_t bsp_rsp0_stack[IST_STACK_SIZE] __attribute__((aligned(16)));

static void gdt_set_tss(uint64_t *gdt, unsigned slot, const struct tss64 *t)
{
	uint64_t base = (uint64_t)t;
	uint64_t limit = sizeof(*t) - 1;
	gdt[slot] = FIELD_PREP(GENMASK(15, 0), limit) | FIELD_PREP(GENMASK(39, 16), base) |
		    DESC_TYPE_TSS64_AVAILABLE | DESC_P | FIELD_PREP(GENMASK(63, 56), base >> 24);
	gdt[slot + 1] = base >> 32; /* upper half: base[63:32] */
}

void gdt_init(void)
{
	uint64_t ist_tops[IST_COUNT];
	for (unsigned i = 0; i < IST_COUNT; i++)
		ist_tops[i] = (uint64_t)&bsp_ist_stacks[i][IST_STACK_SIZE];
	gdt_init_cpu(&bsp_tables, ist_tops, (uint64_t)&bsp_rsp0_stack[IST_STACK_SIZE]);
}

void gdt_init_cpu(struct cpu_desc_tables *t, const uint64_t ist_tops[IST_COUNT], uint64_t rsp0)
{
	uint64_t *gdt = t->gdt;
	gdt[GDT_NULL] = 0;
	gdt[SEL_KERNEL_CODE >> 3] = DESC_KERNEL_CODE;
	gdt[SEL_KERNEL_DATA >> 3] = DESC_KERNEL_DATA;
	gdt[SEL_USER_DATA >> 3] = DESC_USER_DATA;
	gdt[SEL_USER_CODE >> 3] = DESC_USER_CODE;
	gdt[SEL_KERNEL_CODE32 >> 3] = DESC_KERNEL_CODE32;

	for (unsigned i = 0; i < IST_COUNT; i++)
		t->tss.ist[i] = ist_tops[i];
	t->tss.rsp[0] = rsp0;
	t->tss.iomap_base = sizeof(t->tss); /* no I/O permission bitmap */
	gdt_set_tss(gdt, SEL_TSS >> 3, &t->tss);

	struct gdt_pointer gp = {.limit = sizeof(t->gdt) - 1, .base = (uint64_t)gdt};
	__asm__ volatile("lgdt %0\n\t"
			 /* reload CS with a far return, then the data segments */
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w2, %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "movw %%ax, %%ss\n\t"
			 "xorl %%eax, %%eax\n\t"
			 "movw %%ax, %%fs\n\t"
			 "movw %%ax, %%gs\n\t"
			 "ltr %w3"
			 :
			 : "m"(gp), "i"(SEL_KERNEL_CODE), "r"(SEL_KERNEL_DATA), "r"(SEL_TSS)
			 : "rax", "memory");
}

/*
 * The mode the code segment `cs` runs its code in (SDM Vol. 3A 3.4.5: its descriptor's L and D
 * flags; IA-32e mode: L = 1 is 64-bit mode, else compatibility mode with D's default size).
 * The kernel's two code selectors are 64-bit; any other is looked up in this CPU's GDT (this
 * kernel has no LDT: a selector with TI set, or past the GDT's limit, is taken as 64-bit, the
 * CPU would not have loaded it).
 */
enum x86_mode cpu_code_mode(uint64_t cs)
{
	if (cs == SEL_KERNEL_CODE || cs == SEL_USER_CODE)
		return X86_MODE_64;
	struct gdt_pointer gp;
	__asm__ volatile("sgdt %0" : "=m"(gp));
	unsigned slot = (unsigned)(cs >> 3) & 0x1fff;
	if ((cs & SEL_TI) || slot * sizeof(uint64_t) + sizeof(uint64_t) - 1 > gp.limit)
		return X86_MODE_64;
	uint64_t d = ((const uint64_t *)gp.base)[slot];
	return x86_mode_of_cs(d & DESC_L, d & DESC_DB);
}
