/* SPDX-License-Identifier: MIT */
/*
 * A test-and-set lock held with interrupts off, for the few structures two CPUs touch at once
 * (a CPU's trace output, arch/x86/session/output.c, which the CPU and the live drainer write).
 */
#ifndef ARCH_X86_CPU_SPINLOCK_H
#define ARCH_X86_CPU_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/hw/cpu_regs.h"

struct spinlock {
	volatile uint32_t held;
};

static inline uint64_t spin_lock_irqsave(struct spinlock *l)
{
	uint64_t flags = read_rflags();
	cpu_cli();
	while (__atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->held, __ATOMIC_RELAXED))
			cpu_pause();
	return flags;
}

/* The lock if it is free (interrupts off, *flags to restore), else false at once. */
static inline bool spin_trylock_irqsave(struct spinlock *l, uint64_t *flags)
{
	*flags = read_rflags();
	cpu_cli();
	if (!__atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE))
		return true;
	if (*flags & RFLAGS_IF)
		__asm__ volatile("sti" ::: "memory");
	return false;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, uint64_t flags)
{
	__atomic_store_n(&l->held, 0, __ATOMIC_RELEASE);
	if (flags & RFLAGS_IF)
		__asm__ volatile("sti" ::: "memory");
}

#endif
