/* SPDX-License-Identifier: MIT */
/*
 * Deliberate exceptions (option `fault`, and self-tests through arch_catch_exception): each
 * exercises the exception path end to end, from the IDT to the register dump and exit status.
 */
#include "kernel/arch_cpu.h"
#include "arch/x86/cpu/cpu.h"

static void trigger_pf(void)
{
	/* Page 0 is left unmapped by arch/x86/cpu/paging.c to catch NULL dereferences. */
	volatile uint64_t *volatile null_page = (volatile uint64_t *)0x8;
	*null_page = 0xbad;
}

/*
 * Runs the boot stack into its unmapped guard page: the #PF cannot push its frame there, so
 * the CPU raises #DF, which arrives on its own IST stack (arch/x86/cpu/desc.h) and is reported.
 */
static uint64_t recurse_forever(uint64_t depth)
{
	volatile uint8_t frame[512];
	if (depth == UINT64_MAX)
		return 0; /* never: keeps the recursion finite in the compiler's eyes */
	frame[0] = (uint8_t)depth;
	return recurse_forever(depth + 1) + frame[0];
}

void arch_trigger_fault(enum fault_kind kind)
{
	switch (kind) {
	case FAULT_NONE:
		return;
	case FAULT_PF:
		trigger_pf();
		return;
	case FAULT_UD:
		__asm__ volatile("ud2");
		return;
	case FAULT_GP:
		/* A non-canonical address: #GP. (TCG does not fault on non-canonical FS/GS base
		 * writes, see qemu-ovmf-facts.md, so a memory access is used instead.) */
		(void)*(volatile uint64_t *)0x8000000000000000ull;
		return;
	case FAULT_DE: {
		volatile uint32_t zero = 0;
		uint32_t q;
		__asm__ volatile("divl %2" : "=a"(q) : "a"(1), "r"(zero), "d"(0));
		(void)q;
		return;
	}
	case FAULT_BP:
		__asm__ volatile("int3");
		return;
	case FAULT_STACK:
		recurse_forever(0);
		return;
	}
}
