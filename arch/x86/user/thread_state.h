/* SPDX-License-Identifier: MIT */
/*
 * What a Linux program's threads share between the system calls' stepped side (linux_thread.c,
 * in .text.workload) and the kernel's side that waits, places threads and sends IPIs
 * (thread_host.c, never stepped: reached by INT VEC_LINUX_THREAD from the system call, an
 * interrupt gate, which clears TF: SDM Vol. 3A 6.12.1.2).
 */
#ifndef ARCH_X86_USER_THREAD_STATE_H
#define ARCH_X86_USER_THREAD_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/spinlock.h"
#include "arch/x86/user/linux_thread.h"

/* A CPU's thread: free (a host waits), given (the host has not started it yet), running (in
 * its run, ring 3 or a system call), or gone (it left its run; the host has not freed it). */
enum thread_state { THREAD_FREE, THREAD_GIVEN, THREAD_RUNNING, THREAD_GONE };

struct thread_slot {
	volatile uint32_t state; /* enum thread_state */
	uint32_t tid;		 /* 0: none (a run without linux_threads_open: tid 1) */
	uint64_t clear_tid;	 /* CLONE_CHILD_CLEARTID / set_tid_address: 0 written, woken */
	uint64_t fs_base;	 /* CLONE_SETTLS's, or the parent's */
	struct linux_thread_regs regs;
	/* A futex wait: the word's address (0: not waiting), the bitset, woken by a wake. */
	volatile uint64_t wait_addr;
	uint32_t wait_bitset;
	volatile uint8_t woken;
	bool host;		   /* this CPU may take a thread of the open process */
	uint64_t waits, wait_tsc;  /* its waits in the kernel, and the TSC cycles they took */
	volatile uint64_t tlb_ack; /* the last shootdown this CPU carried out */
};

struct linux_process {
	volatile bool open;   /* between linux_threads_open and _close */
	volatile bool closed; /* the hosts wait for no more threads */
	unsigned main_cpu;
	volatile uint32_t live;	   /* threads in their runs, the main thread's included */
	volatile uint32_t blocked; /* of them, waiting with no timeout (futex, exit) */
	uint32_t next_tid;
	unsigned made, refused, cpus;
	volatile bool ending; /* exit_group, a fault, the watchdog, a deadlock: all threads leave */
	uint64_t end_status;
	unsigned end_cpu;	 /* where the end came from (a fault's or the watchdog's details) */
	struct spinlock lock;	 /* the slots' waits, live and blocked, the ending */
	volatile uint32_t calls; /* the system calls' lock (linux_process_lock), stepped */
	volatile uint64_t tlb_gen; /* shootdowns asked for */
};

extern struct thread_slot thread_slots[MAX_CPUS];
extern struct linux_process linux_proc;

/* What the stepped side asks of the kernel's side (thread_trap, INT VEC_LINUX_THREAD with RDI
 * pointing at it; the answer in RAX). The stepped side has checked every user pointer. */
enum thread_op {
	THREAD_OP_CLONE,
	THREAD_OP_FUTEX_WAIT,
	THREAD_OP_FUTEX_WAKE,
	THREAD_OP_FUTEX_REQUEUE,
	THREAD_OP_EXIT,
	THREAD_OP_EXIT_GROUP,
	THREAD_OP_SHOOTDOWN,
	THREAD_OP_LOCK,
};
#define THREAD_NO_TIMEOUT (~0ull)
struct thread_request {
	enum thread_op op;
	/* clone: its flags, the child's stack, parent_tid, child_tid, tls; the parent's
	 * registers as SYSCALL left them (struct linux_call) */
	uint64_t flags, stack, ptid, ctid, tls;
	const void *call;
	/* futex: the word (and the requeue's second), its expected value, the bitset, how many
	 * to wake (and to requeue), the relative timeout in ns */
	uint64_t addr, addr2, n, n2, timeout_ns;
	uint32_t val, bitset;
	bool cmp; /* FUTEX_CMP_REQUEUE: *addr must still hold val */
	/* exit, exit_group */
	uint64_t status;
};

/* A new thread's vector registers (thread_vector.c): a page for CPU cpu's copies (before a
 * run, for each CPU that may take a thread); the running CPU's registers saved for the thread
 * that CPU `child` starts (at clone, on the parent's CPU). */
void thread_vector_prepare(unsigned cpu);
void thread_vector_save(unsigned child);

/* The kernel's side of a request (thread_host.c), from the INT's handler. */
uint64_t thread_serve(struct thread_request *r);

#endif
