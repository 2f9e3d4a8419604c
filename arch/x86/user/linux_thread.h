/* SPDX-License-Identifier: MIT */
/*
 * A Linux program's threads (linux_thread.c): clone and clone3 with the thread flags put a new
 * thread on a CPU of its own, which the session runner left waiting for one (a host,
 * arch/x86/session/threads.c); futex, exit, exit_group, tgkill and the TLB shootdown its memory
 * calls need while other threads run. One process, one address space: the threads share the
 * main thread's struct user_run (heap, mmap arena, descriptors, output).
 */
#ifndef ARCH_X86_USER_LINUX_THREAD_H
#define ARCH_X86_USER_LINUX_THREAD_H

/* struct linux_thread_regs' offsets, for entry.S's linux_thread_enter (asserted below). */
#define LTR_RIP	   0
#define LTR_RSP	   8
#define LTR_RFLAGS 16
#define LTR_RAX	   24
#define LTR_RBX	   32
#define LTR_RCX	   40
#define LTR_RDX	   48
#define LTR_RSI	   56
#define LTR_RDI	   64
#define LTR_RBP	   72
#define LTR_R8	   80
#define LTR_R9	   88
#define LTR_R10	   96
#define LTR_R11	   104
#define LTR_R12	   112
#define LTR_R13	   120
#define LTR_R14	   128
#define LTR_R15	   136

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/cpu/percpu.h"

/* A new thread's registers as clone(2) leaves them in the child (arch/x86/kernel/process.c
 * copy_thread: the parent's, RAX 0, RSP the new stack): where ring 3 starts it. */
struct linux_thread_regs {
	uint64_t rip, rsp, rflags;
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10, r11, r12, r13, r14, r15;
};
_Static_assert(__builtin_offsetof(struct linux_thread_regs, rsp) == LTR_RSP, "");
_Static_assert(__builtin_offsetof(struct linux_thread_regs, rflags) == LTR_RFLAGS, "");
_Static_assert(__builtin_offsetof(struct linux_thread_regs, rax) == LTR_RAX, "");
_Static_assert(__builtin_offsetof(struct linux_thread_regs, rdi) == LTR_RDI, "");
_Static_assert(__builtin_offsetof(struct linux_thread_regs, r8) == LTR_R8, "");
_Static_assert(__builtin_offsetof(struct linux_thread_regs, r15) == LTR_R15, "");
_Static_assert(sizeof(struct linux_thread_regs) == LTR_R15 + 8, "");

/* entry.S: ring 3 as the thread r describes (every register from r, interrupts on); returns the
 * status its exit gives, or the kernel's (USER_STATUS_ENDED | ...) when it was ended. */
uint64_t linux_thread_enter(const struct linux_thread_regs *r);

/* The session runner's side (arch/x86/session/threads.c), none of it stepped. */

/* On the CPU about to run the main thread, before each run (native and traced): a new process
 * whose threads may go to the CPUs host[] names (threads_of their count). */
void linux_threads_open(const bool host[MAX_CPUS]);
/* CPU cpu will not wait for threads after all (the runner could not start it there): clone
 * gives it none. */
void linux_thread_no_host(unsigned cpu);
/* On a host: wait, halted, until a thread is given to this CPU (true, its tid in *tid) or the
 * process has ended (false). */
bool linux_thread_wait(uint32_t *tid);
/* On a host, around the thread's run: its ring 3 state (system call entry, FS base, vector
 * registers), and after it, the CPU free for the next thread. */
void linux_thread_begin(void);
void linux_thread_end(void);
/* The thread's run (in .text.workload: stepped and traced as the workload is). */
uint64_t linux_thread_workload(uint64_t arg);
/* On the main thread's CPU after its run: the process over (every host told so); how many
 * threads it made, and the clones refused for want of a CPU. */
struct linux_threads_summary {
	unsigned made, refused;
	unsigned cpus;	      /* CPUs that could take threads, the main thread's included */
	const char *deadlock; /* NULL, or which threads waited where when none could go on */
};
void linux_threads_close(struct linux_threads_summary *s);
/* After a CPU showed no progress: the open process's threads, where each one is (said). */
void linux_threads_say(void);
/* Whether linux_threads_open began a process that linux_threads_close has not ended. */
bool linux_threads_opened(void);

/* The session's side, from arch/x86/user/run.c: a run on this CPU ended by the kernel (a
 * fault, the watchdog) ends the whole process: every other thread is told to end. */
void linux_process_abort(uint64_t status);
/* On a host: the vector state its thread starts with (the parent's at clone), or NULL. */
const void *linux_thread_vector_state(void);
/* Whether another CPU's thread ended the process (exit_group, a fault, the watchdog): *cpu. */
bool linux_process_ended_elsewhere(unsigned *cpu);
/* Whether this CPU's thread waits in the kernel (a futex wait, the main thread's exit). */
bool linux_thread_waiting(void);
/* This CPU's thread's waits in the kernel so far (futex, exit, the system calls' lock, a
 * shootdown's acknowledgements), and the time they took. */
void linux_thread_waits(uint64_t *n, uint64_t *us);
/* The tid of the thread this CPU runs now (1: the main thread, or no thread). */
uint32_t linux_thread_tid(void);

/* The system calls' side (linux.c, stepped). */
struct user_run;
struct linux_call;
/* The calls that concern threads (clone, clone3, futex, exit, exit_group, tgkill, gettid,
 * set_tid_address, sched_yield, sched_getaffinity), or ~0 when nr is none of them. */
uint64_t linux_thread_syscall(struct user_run *u, const struct linux_call *c);
/* The process's run (the main thread's struct user_run) for a system call on this CPU. */
struct user_run *linux_process_run(void);
/* After a call that changed the program's page tables: the other CPUs running its threads
 * flush their TLBs (SDM Vol. 3A 4.10.5, "Propagation of Paging-Structure Changes to Multiple
 * Processors"). */
void linux_tlb_shootdown(void);
/* Around the calls on the process's shared state while other threads run. */
void linux_process_lock(void);
void linux_process_unlock(void);
/* At the end of every system call: the process is ending (exit_group, a fault or the watchdog
 * in another thread): this thread leaves its run. */
void linux_thread_check_end(void);
#endif /* __ASSEMBLER__ */
#endif
