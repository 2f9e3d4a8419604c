/* SPDX-License-Identifier: MIT */
/*
 * A Linux program's thread calls, their stepped side (in .text.workload, like every system
 * call: traced as the workload is): the arguments read and checked here, then what must wait,
 * place a thread or reach another CPU goes to thread_host.c by INT VEC_LINUX_THREAD (an
 * interrupt gate: not stepped; the trace shows the INT and its IRET).
 *
 * clone (kernel/fork.c): only a thread, as glibc's and musl's pthread_create make one
 * (CLONE_VM | CLONE_THREAD | CLONE_SIGHAND, with CLONE_FS, CLONE_FILES, CLONE_SYSVSEM,
 * CLONE_SETTLS, CLONE_PARENT_SETTID, CLONE_CHILD_SETTID, CLONE_CHILD_CLEARTID as asked); clone3
 * (glibc 2.34 and later try it first) reads struct clone_args; a new process (fork, vfork, a
 * clone without CLONE_THREAD) stays unsupported, named in the run's report.
 */
#include "arch/x86/user/thread_state.h"
#include "arch/x86/user/run.h"
#include "arch/x86/user/linux_abi.h"
#include "arch/x86/user/linux_files.h"
#include "arch/x86/user/linux_mm.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/cpu/vectors.h"
#include "kernel/arch_workloads.h"

#define ERR(e)	     ((uint64_t) - (int64_t)(e))
#define NOT_MINE     (~0ull)
#define NS_PER_S     1000000000ull
#define THREAD_FLAGS (LNX_CLONE_VM | LNX_CLONE_THREAD | LNX_CLONE_SIGHAND)
/* the flags a thread may add (kernel/fork.c copy_process refuses CLONE_THREAD without
 * CLONE_SIGHAND, CLONE_SIGHAND without CLONE_VM); CLONE_DETACHED is ignored there too */
#define THREAD_MAY                                                                                 \
	(THREAD_FLAGS | LNX_CLONE_FS | LNX_CLONE_FILES | LNX_CLONE_SYSVSEM | LNX_CLONE_SETTLS |    \
	 LNX_CLONE_PARENT_SETTID | LNX_CLONE_CHILD_SETTID | LNX_CLONE_CHILD_CLEARTID |             \
	 LNX_CLONE_DETACHED)
#define EXIT_SIGNAL_MASK 0xff /* clone's low byte: the signal to the parent (none for threads) */
#define SIGNAL_EXIT_BASE 128  /* a shell's status for a process killed by signal N: 128 + N */
#define SIGNAL_MAX	 64

WORKLOAD_SECTION static uint64_t thread_trap(struct thread_request *r)
{
	uint64_t ret;
	__asm__ volatile("int %[v]" : "=a"(ret) : [v] "i"(VEC_LINUX_THREAD), "D"(r) : "memory");
	return ret;
}

WORKLOAD_SECTION static struct thread_slot *slot_here(void)
{
	return &thread_slots[this_cpu()->index];
}

WORKLOAD_SECTION struct user_run *linux_process_run(void)
{
	unsigned cpu = this_cpu()->index;
	return &user_runs[linux_proc.open ? linux_proc.main_cpu : cpu];
}

/* The system calls' lock while threads run: one at a time on the process's state (its heap,
 * mmap arena, descriptors, output ring). Interrupts are off in a system call (IA32_FMASK), so
 * a holder is never interrupted; a thread that finds it held waits in thread_host.c, not in a
 * stepped loop (a wait shows in the trace as the INT and its IRET). */
static bool lock_held[MAX_CPUS];

WORKLOAD_SECTION void linux_process_lock(void)
{
	unsigned cpu = this_cpu()->index;
	if (__atomic_load_n(&linux_proc.live, __ATOMIC_ACQUIRE) <= 1)
		return; /* one thread: nobody to share with (a clone runs in no locked call) */
	if (__atomic_exchange_n(&linux_proc.calls, 1, __ATOMIC_ACQUIRE)) {
		struct thread_request r = {.op = THREAD_OP_LOCK}; /* waited for unstepped */
		thread_trap(&r);
	}
	lock_held[cpu] = true;
}

WORKLOAD_SECTION void linux_process_unlock(void)
{
	unsigned cpu = this_cpu()->index;
	if (!lock_held[cpu])
		return;
	lock_held[cpu] = false;
	__atomic_store_n(&linux_proc.calls, 0, __ATOMIC_RELEASE);
}

WORKLOAD_SECTION void linux_tlb_shootdown(void)
{
	if (__atomic_load_n(&linux_proc.live, __ATOMIC_ACQUIRE) <= 1)
		return;
	struct thread_request r = {.op = THREAD_OP_SHOOTDOWN};
	thread_trap(&r);
}

/* This CPU's run ends at the system call's end (entry.S looks at linux_exit_now). */
WORKLOAD_SECTION static void leave(uint64_t status)
{
	struct percpu *p = this_cpu();
	p->linux_exit_status = status;
	p->linux_exit_now = 1;
}

WORKLOAD_SECTION void linux_thread_check_end(void)
{
	if (!__atomic_load_n(&linux_proc.ending, __ATOMIC_ACQUIRE) || this_cpu()->linux_exit_now)
		return;
	bool main = this_cpu()->index == linux_proc.main_cpu;
	leave(main ? linux_proc.end_status : 0);
}

WORKLOAD_SECTION static uint64_t sys_clone(struct user_run *u, const struct linux_call *c,
					   uint64_t flags, uint64_t stack, uint64_t ptid,
					   uint64_t ctid, uint64_t tls)
{
	if ((flags & THREAD_FLAGS) != THREAD_FLAGS || (flags & ~(THREAD_MAY | EXIT_SIGNAL_MASK)))
		return NOT_MINE; /* a new process, or flags a thread does not take: unsupported */
	if ((flags & LNX_CLONE_PARENT_SETTID) && !linux_writable(u, ptid, 4))
		return ERR(LNX_EFAULT);
	if ((flags & (LNX_CLONE_CHILD_SETTID | LNX_CLONE_CHILD_CLEARTID)) &&
	    !linux_writable(u, ctid, 4))
		return ERR(LNX_EFAULT);
	struct thread_request r = {.op = THREAD_OP_CLONE,
				   .flags = flags,
				   .stack = stack,
				   .ptid = ptid,
				   .ctid = ctid,
				   .tls = tls,
				   .call = c};
	return thread_trap(&r);
}

/* clone3(struct clone_args *, size): the fields up to tls (CLONE_ARGS_SIZE_VER0); a larger
 * struct's further fields (set_tid, cgroup) must be zero. */
WORKLOAD_SECTION static uint64_t sys_clone3(struct user_run *u, const struct linux_call *c)
{
	uint64_t a = c->a[0], size = c->a[1];
	if (size < LNX_CLONE_ARGS_SIZE_VER0 || size > LNX_PAGE)
		return ERR(LNX_EINVAL);
	if (!linux_readable(u, a, size))
		return ERR(LNX_EFAULT);
	for (uint64_t off = LNX_CLONE_ARGS_SIZE_VER0; off + 8 <= size; off += 8)
		if (linux_get_u64(a + off))
			return ERR(LNX_EINVAL);
	uint64_t flags = linux_get_u64(a + LNX_CLONE_ARG_FLAGS * 8);
	uint64_t stack = linux_get_u64(a + LNX_CLONE_ARG_STACK * 8);
	uint64_t size_of_stack = linux_get_u64(a + LNX_CLONE_ARG_STACK_SIZE * 8);
	if (!stack != !size_of_stack)
		return ERR(LNX_EINVAL);
	return sys_clone(u, c, flags, stack ? stack + size_of_stack : 0,
			 linux_get_u64(a + LNX_CLONE_ARG_PARENT_TID * 8),
			 linux_get_u64(a + LNX_CLONE_ARG_CHILD_TID * 8),
			 linux_get_u64(a + LNX_CLONE_ARG_TLS * 8));
}

/* The relative timeout of a futex wait in ns: FUTEX_WAIT's is relative, FUTEX_WAIT_BITSET's
 * absolute on the clock (CLOCK_MONOTONIC, or CLOCK_REALTIME: the same clock here). */
WORKLOAD_SECTION static uint64_t timeout_of(struct user_run *u, uint64_t ts, bool absolute,
					    uint64_t *ns)
{
	*ns = THREAD_NO_TIMEOUT;
	if (!ts)
		return 0;
	if (!linux_readable(u, ts, 16))
		return ERR(LNX_EFAULT);
	uint64_t s = linux_get_u64(ts), n = linux_get_u64(ts + 8);
	if ((int64_t)s < 0 || n >= NS_PER_S)
		return ERR(LNX_EINVAL);
	uint64_t want = s * NS_PER_S + n, now = absolute ? linux_ns_now(u) : 0;
	*ns = want > now ? want - now : 0;
	return 0;
}

WORKLOAD_SECTION static uint64_t sys_futex(struct user_run *u, const struct linux_call *c)
{
	const uint64_t *a = c->a;
	unsigned cmd = a[1] & LNX_FUTEX_CMD;
	struct thread_request r = {.addr = a[0], .val = (uint32_t)a[2], .bitset = ~0u};
	if (a[0] & 3) /* a futex word is 4-byte aligned (kernel/futex/core.c get_futex_key) */
		return ERR(LNX_EINVAL);
	if (!linux_readable(u, a[0], 4))
		return ERR(LNX_EFAULT);
	switch (cmd) {
	case LNX_FUTEX_WAIT_BITSET:
	case LNX_FUTEX_WAIT: {
		bool bits = cmd == LNX_FUTEX_WAIT_BITSET;
		if (bits && !(r.bitset = (uint32_t)a[5]))
			return ERR(LNX_EINVAL);
		uint64_t e = timeout_of(u, a[3], bits, &r.timeout_ns);
		if (e)
			return e;
		r.op = THREAD_OP_FUTEX_WAIT;
		return thread_trap(&r);
	}
	case LNX_FUTEX_WAKE_BITSET:
	case LNX_FUTEX_WAKE:
		if (cmd == LNX_FUTEX_WAKE_BITSET && !(r.bitset = (uint32_t)a[5]))
			return ERR(LNX_EINVAL);
		r.op = THREAD_OP_FUTEX_WAKE;
		r.n = (uint32_t)a[2];
		return thread_trap(&r);
	case LNX_FUTEX_CMP_REQUEUE:
	case LNX_FUTEX_REQUEUE:
		if ((a[4] & 3) || !linux_readable(u, a[4], 4))
			return ERR(LNX_EFAULT);
		r.op = THREAD_OP_FUTEX_REQUEUE;
		r.n = (uint32_t)a[2];
		r.n2 = (uint32_t)a[3]; /* val2, passed where the timeout goes */
		r.addr2 = a[4];
		r.cmp = cmd == LNX_FUTEX_CMP_REQUEUE;
		r.val = (uint32_t)a[5];
		return thread_trap(&r);
	default:
		return NOT_MINE; /* FUTEX_WAKE_OP, the PI futexes: unsupported, counted */
	}
}

/* exit: this thread only; exit_group: every thread. Linux's status is the low byte. */
WORKLOAD_SECTION static uint64_t sys_exit(uint64_t status, bool group)
{
	struct thread_request r = {.op = group ? THREAD_OP_EXIT_GROUP : THREAD_OP_EXIT,
				   .status = status & 0xff};
	thread_trap(&r);
	leave(status & 0xff);
	return 0;
}

/* tgkill on the program itself: signal 0 asks whether the thread is there; any other ends the
 * process as the signal's default action would (signal(7): Term or Core), with a shell's status
 * 128 + N: no handler is ever run (rt_sigaction installs none). */
WORKLOAD_SECTION static uint64_t sys_tgkill(uint64_t tgid, uint64_t tid, uint64_t sig)
{
	if (sig > SIGNAL_MAX)
		return ERR(LNX_EINVAL);
	bool there = false;
	for (unsigned c = 0; c < MAX_CPUS && !there; c++)
		there = thread_slots[c].tid == tid && thread_slots[c].state == THREAD_RUNNING;
	if (tgid != 1 || !(there || tid == 1))
		return ERR(LNX_ESRCH);
	if (sig)
		sys_exit(SIGNAL_EXIT_BASE + sig, true);
	return 0;
}

/* The CPUs the program may run on: the main thread's and those that may take its threads. */
WORKLOAD_SECTION static uint64_t sys_getaffinity(struct user_run *u, uint64_t size, uint64_t mask)
{
	if (size < 8 || (size & 7))
		return ERR(LNX_EINVAL);
	if (!linux_writable(u, mask, 8))
		return ERR(LNX_EFAULT);
	unsigned n = linux_proc.open ? linux_proc.cpus : 1;
	uint64_t bits = n >= 64 ? ~0ull : (1ull << n) - 1;
	linux_copy_out(mask, &bits, sizeof(bits));
	return 8;
}

WORKLOAD_SECTION uint64_t linux_thread_syscall(struct user_run *u, const struct linux_call *c)
{
	const uint64_t *a = c->a;
	switch (c->nr) {
	case LNX_getpid:
		return 1;
	case LNX_gettid:
		return slot_here()->tid ? slot_here()->tid : 1;
	case LNX_set_tid_address:
		slot_here()->clear_tid = a[0] && linux_writable(u, a[0], 4) ? a[0] : 0;
		return slot_here()->tid ? slot_here()->tid : 1;
	case LNX_set_robust_list: /* the list is walked at a thread's death: none dies holding */
	case LNX_sched_yield:	  /* each thread has a CPU of its own */
		return 0;
	case LNX_sched_getaffinity:
		return sys_getaffinity(u, a[1], a[2]);
	case LNX_clone:
		/* x86-64: clone(flags, stack, parent_tid, child_tid, tls) */
		return sys_clone(u, c, a[0], a[1], a[2], a[3], a[4]);
	case LNX_clone3:
		return sys_clone3(u, c);
	case LNX_futex:
		return sys_futex(u, c);
	case LNX_exit:
		return sys_exit(a[0], false);
	case LNX_exit_group:
		return sys_exit(a[0], true);
	case LNX_tgkill:
		return sys_tgkill(a[0], a[1], a[2]);
	default:
		return NOT_MINE;
	}
}

/* A thread's run; its result is 0 whatever its exit said: the process's status is the main
 * thread's run's (exit_group's, or a fault's in any thread), and a thread's fault is said by its
 * session (arch/x86/session/threads.c). */
WORKLOAD_SECTION uint64_t linux_thread_workload(uint64_t arg)
{
	(void)arg;
	linux_thread_enter(&slot_here()->regs);
	return 0;
}
