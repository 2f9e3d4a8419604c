/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU state, reached through GS (IA32_GS_BASE points at the CPU's struct percpu, whose
 * first field points at itself so `mov %gs:0` yields it).
 */
#ifndef ARCH_X86_CPU_PERCPU_H
#define ARCH_X86_CPU_PERCPU_H

/* struct percpu's fields that arch/x86/user/entry.S reads through GS (asserted below). */
#define PERCPU_USER_KERNEL_RSP	 8
#define PERCPU_USER_RSP		 16
#define PERCPU_LINUX_EXIT_STATUS 24
#define PERCPU_LINUX_EXIT_NOW	 32

#ifndef __ASSEMBLER__

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/cpu/desc.h"

#define MAX_CPUS 256

struct exception_catch;

struct percpu {
	struct percpu *self; /* must stay first: this_cpu() reads %gs:0 */
	/* A user program's run on this CPU (arch/x86/user/entry.S reads them through GS, at the
	 * PERCPU_* offsets below): the kernel stack arch_user_enter left, the program's RSP across
	 * a system call, and exit/exit_group's status and flag (entry.S then leaves the run). */
	uint64_t user_kernel_rsp;
	uint64_t user_rsp;
	uint64_t linux_exit_status;
	uint8_t linux_exit_now;
	unsigned index; /* 0 = the boot CPU, then in MADT order */
	uint32_t apic_id;
	uint32_t acpi_uid;
	volatile bool online;
	uint64_t stack_top; /* kernel stack (APs: mapped with a guard page below) */
	uint64_t tsc_online;
	uint64_t start_cycles; /* STARTUP IPI sent -> online, as the boot CPU saw it */
	struct exception_catch *active_catch; /* arch/x86/cpu/exceptions.c */
	/* Trap handlers may touch user pages (SMAP: STAC first), besides traps from ring 3: the
	 * single-step engine says so while the instruction it will report next is ring 3's. */
	bool user_access_in_traps;
	/* Cross-CPU calls (arch/x86/smp/smp.c): the caller fills fn/arg, then bumps call_seq; the
	 * target runs fn(arg) and copies call_seq into call_done. */
	void (*volatile call_fn)(void *);
	void *volatile call_arg;
	volatile uint64_t call_seq, call_done;
	uint64_t calls_run;
	struct cpu_desc_tables desc;
};

_Static_assert(__builtin_offsetof(struct percpu, user_kernel_rsp) == PERCPU_USER_KERNEL_RSP, "");
_Static_assert(__builtin_offsetof(struct percpu, user_rsp) == PERCPU_USER_RSP, "");
_Static_assert(__builtin_offsetof(struct percpu, linux_exit_status) == PERCPU_LINUX_EXIT_STATUS,
	       "");
_Static_assert(__builtin_offsetof(struct percpu, linux_exit_now) == PERCPU_LINUX_EXIT_NOW, "");

/* The running CPU's area; only valid after percpu_install() (see percpu_current()). */
static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

/* Make p the running CPU's per-CPU area (writes IA32_GS_BASE). */
void percpu_install(struct percpu *p);
/* this_cpu(), or NULL this early in boot (exception paths use it; inline: the single-step
 * engine asks on every trap). */
extern volatile bool percpu_ready;
static inline struct percpu *percpu_current(void)
{
	return percpu_ready ? this_cpu() : 0;
}
extern struct percpu *percpu_by_index[MAX_CPUS];
extern unsigned percpu_count;

/* A pointer to this CPU's slot of a static array (&array[this_cpu()->index]) the compiler no
 * longer knows the origin of (as Linux's OPTIMIZER_HIDE_VAR): it then keeps the pointer in a
 * register rather than computing the address again at each use, instructions QEMU's TCG runs
 * one by one on every single-step trap. */
#define PERCPU_SLOT_OPAQUE(p) __asm__("" : "+r"(p))

#endif /* __ASSEMBLER__ */
#endif
