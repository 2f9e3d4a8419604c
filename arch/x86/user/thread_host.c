/* SPDX-License-Identifier: MIT */
/*
 * The kernel's side of a Linux program's threads, never stepped: the system calls' stepped
 * side (linux_thread.c) reaches it by INT VEC_LINUX_THREAD, whose interrupt gate clears TF (SDM
 * Vol. 3A 6.12.1.2), so that a futex wait halts instead of stepping a wait loop, and the trace
 * shows the wait as what it is: the INT's delivery, then its IRET when the thread goes on.
 *
 * Threads go to CPUs the session runner left waiting (hosts, arch/x86/session/threads.c): clone
 * gives the lowest free one the child's registers and wakes it with an IPI (VEC_LINUX_IPI); no
 * free CPU: -EAGAIN, as Linux answers a clone over RLIMIT_NPROC (pthread_create returns EAGAIN),
 * counted and said after the run. The same IPI wakes a futex waiter, ends a thread in ring 3 when
 * the process ends, and asks for a TLB shootdown (SDM Vol. 3A 4.10.5: a processor that changes
 * a paging-structure entry others may have cached must have them invalidate it, here by
 * reloading CR3). A thread in ring 0 when the process ends leaves at its system call's end
 * (linux_thread_check_end).
 *
 * Every thread waiting with no timeout (futex, or the main thread's exit waiting for the others)
 * is a deadlock: the process ends with USER_STATUS_DEADLOCK and says which threads wait where.
 */
#include "arch/x86/user/thread_state.h"
#include "arch/x86/user/run.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/cpu/vectors.h"
#include "arch/x86/hw/msr.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/smp/timer.h"
#include "arch/x86/user/linux_abi.h"
#include "lib/fmt.h"
#include "kernel/console.h"
#include "kernel/arch_user.h"
#include "lib/string.h"

#define ERR(e)		 ((uint64_t) - (int64_t)(e))
#define NS_PER_US	 1000ull
#define WAIT_BACKSTOP_US 1000 /* a wait in hlt looks again at least this often */
#define MAIN_TID	 1    /* the main thread's id, the process's too (getpid) */
#define FIRST_TID	 2    /* Linux gives a new thread the next free pid: here 2, 3, ... */

struct thread_slot thread_slots[MAX_CPUS];
struct linux_process linux_proc;
/* Per CPU: the wait it is in counts toward a deadlock (no timeout). */
static bool counted_blocked[MAX_CPUS];

static unsigned here_index(void)
{
	return this_cpu()->index;
}

static void ipi(unsigned cpu)
{
	if (cpu < percpu_count && cpu != here_index())
		lapic_send_ipi(percpu_by_index[cpu]->apic_id, APIC_DM_FIXED, VEC_LINUX_IPI,
			       APIC_DEST_NONE);
}

/* Every other CPU with a thread given or running: woken (and, ending, out of ring 3). */
static void kick_others(void)
{
	for (unsigned c = 0; c < percpu_count; c++)
		if (thread_slots[c].state == THREAD_GIVEN ||
		    thread_slots[c].state == THREAD_RUNNING)
			ipi(c);
}

/* With linux_proc.lock held: the process ends with status (the first reason holds). */
static void end_locked(uint64_t status)
{
	if (!linux_proc.ending) {
		linux_proc.end_status = status;
		linux_proc.end_cpu = here_index();
		__atomic_store_n(&linux_proc.ending, true, __ATOMIC_RELEASE);
	}
}

void linux_process_abort(uint64_t status)
{
	if (!linux_proc.open)
		return;
	uint64_t flags = spin_lock_irqsave(&linux_proc.lock);
	end_locked(status);
	spin_unlock_irqrestore(&linux_proc.lock, flags);
	kick_others();
}

bool linux_process_ended_elsewhere(unsigned *cpu)
{
	*cpu = linux_proc.end_cpu;
	return linux_proc.open && linux_proc.ending && linux_proc.end_cpu != here_index();
}

bool linux_thread_waiting(void)
{
	return linux_proc.open && counted_blocked[here_index()];
}

void linux_thread_waits(uint64_t *n, uint64_t *us)
{
	const struct thread_slot *s = &thread_slots[here_index()];
	*n = s->waits;
	*us = tsc_to_us(s->wait_tsc);
}

uint32_t linux_thread_tid(void)
{
	uint32_t tid = thread_slots[here_index()].tid;
	return tid ? tid : MAIN_TID;
}

/* With the lock held: every thread in its run waits with no timeout. Said after the run
 * (linux_threads_close), and the end. */
static char deadlock_why[256];

static void deadlock_check_locked(void)
{
	if (linux_proc.ending || linux_proc.blocked < linux_proc.live)
		return;
	size_t at =
	    (size_t)fmt_snprintf(deadlock_why, sizeof(deadlock_why),
				 "all %u threads wait and none can wake another:", linux_proc.live);
	for (unsigned c = 0; c < percpu_count && at < sizeof(deadlock_why); c++) {
		const struct thread_slot *s = &thread_slots[c];
		if (s->state != THREAD_RUNNING || !counted_blocked[c])
			continue;
		unsigned tid = s->tid ? s->tid : MAIN_TID;
		if (s->wait_addr)
			at += (size_t)fmt_snprintf(deadlock_why + at, sizeof(deadlock_why) - at,
						   " tid %u (cpu %u) in a futex wait on %#lx;", tid,
						   c, (unsigned long)s->wait_addr);
		else
			at += (size_t)fmt_snprintf(
			    deadlock_why + at, sizeof(deadlock_why) - at,
			    " tid %u (cpu %u) in exit, waiting for the others;", tid, c);
	}
	end_locked(USER_STATUS_DEADLOCK);
}

/* Halt until cond(arg) holds, the process ends, or deadline (TSC; 0: none) passes; interrupts
 * on meanwhile (IPIs wake it; a shootdown is served). A condition no IPI announces (poll: the
 * shootdown's acknowledgements), or a deadline, is looked at again after a PAUSE instead. True
 * when cond held. */
static bool wait_for(bool (*cond)(uint64_t), uint64_t arg, uint64_t deadline, bool poll)
{
	struct thread_slot *s = &thread_slots[here_index()];
	uint64_t t0 = rdtsc();
	s->waits++;
	for (;;) {
		cpu_cli();
		bool held = cond(arg);
		if (held || __atomic_load_n(&linux_proc.ending, __ATOMIC_ACQUIRE) ||
		    (deadline && rdtsc() >= deadline)) {
			s->wait_tsc += rdtsc() - t0;
			return held;
		}
		if (deadline || poll) { /* no timer for it: look again */
			__asm__ volatile("sti; pause" ::: "memory");
			continue;
		}
		/* the local APIC timer as a backstop: the condition is looked at again at least
		 * every WAIT_BACKSTOP_US even if the IPI announcing it never came (the watchdog's
		 * handler, which takes the timer, re-arms it for its own deadline) */
		timer_oneshot_us(WAIT_BACKSTOP_US);
		__asm__ volatile("sti; hlt" ::: "memory"); /* STI's shadow: no lost wake-up */
	}
}

static bool slot_woken(uint64_t cpu)
{
	return thread_slots[cpu].woken;
}

static bool hosts_free(uint64_t unused)
{
	(void)unused;
	for (unsigned c = 0; c < percpu_count; c++)
		if (c != linux_proc.main_cpu && thread_slots[c].state != THREAD_FREE)
			return false;
	return true;
}

static bool only_main_left(uint64_t unused)
{
	(void)unused;
	return linux_proc.live <= 1;
}

static uint32_t user_u32(uint64_t va)
{
	user_access_begin();
	uint32_t v = *(const volatile uint32_t *)va;
	user_access_end();
	return v;
}

static void put_user_u32(uint64_t va, uint32_t v)
{
	user_access_begin();
	*(volatile uint32_t *)va = v;
	user_access_end();
}

/* ---- clone ------------------------------------------------------------------------------ */

static uint64_t clone_thread(const struct thread_request *r)
{
	const struct linux_call *p = r->call;
	uint64_t flags = spin_lock_irqsave(&linux_proc.lock);
	unsigned cpu = MAX_CPUS;
	for (unsigned c = 0; c < percpu_count && cpu == MAX_CPUS; c++)
		if (thread_slots[c].host && thread_slots[c].state == THREAD_FREE)
			cpu = c;
	if (!linux_proc.open || cpu == MAX_CPUS || linux_proc.ending) {
		linux_proc.refused++;
		spin_unlock_irqrestore(&linux_proc.lock, flags);
		return ERR(LNX_EAGAIN);
	}
	struct thread_slot *s = &thread_slots[cpu];
	uint32_t tid = linux_proc.next_tid++;
	s->tid = tid;
	s->regs = (struct linux_thread_regs){
	    .rip = p->rcx,
	    .rsp = r->stack ? r->stack : p->rsp,
	    .rflags = p->r11,
	    .rax = 0,
	    .rbx = p->rbx,
	    .rcx = p->rcx,
	    .rdx = p->a[2],
	    .rsi = p->a[1],
	    .rdi = p->a[0],
	    .rbp = p->rbp,
	    .r8 = p->a[4],
	    .r9 = p->a[5],
	    .r10 = p->a[3],
	    .r11 = p->r11,
	    .r12 = p->r12,
	    .r13 = p->r13,
	    .r14 = p->r14,
	    .r15 = p->r15,
	};
	s->fs_base = r->flags & LNX_CLONE_SETTLS ? r->tls : rdmsr(MSR_FS_BASE);
	thread_vector_save(cpu);
	s->clear_tid = r->flags & LNX_CLONE_CHILD_CLEARTID ? r->ctid : 0;
	s->wait_addr = 0;
	s->woken = 0;
	s->waits = s->wait_tsc = 0; /* its own, not an earlier thread's on this CPU */
	linux_proc.live++;
	linux_proc.made++;
	spin_unlock_irqrestore(&linux_proc.lock, flags);
	/* copy_process: the parent's and the child's tid words before either runs on */
	if (r->flags & LNX_CLONE_PARENT_SETTID)
		put_user_u32(r->ptid, tid);
	if (r->flags & LNX_CLONE_CHILD_SETTID)
		put_user_u32(r->ctid, tid);
	__atomic_store_n(&s->state, THREAD_GIVEN, __ATOMIC_RELEASE);
	ipi(cpu);
	return tid;
}

/* ---- futex ------------------------------------------------------------------------------ */

/* With the lock held: wake up to n waiters on addr whose bitset meets bitset; how many. */
static uint64_t wake_locked(uint64_t addr, uint64_t n, uint32_t bitset)
{
	uint64_t woken = 0;
	for (unsigned c = 0; c < percpu_count && woken < n; c++) {
		struct thread_slot *s = &thread_slots[c];
		if (s->wait_addr != addr || !(s->wait_bitset & bitset))
			continue;
		s->wait_addr = 0;
		s->woken = 1;
		if (counted_blocked[c]) {
			counted_blocked[c] = false;
			linux_proc.blocked--;
		}
		ipi(c);
		woken++;
	}
	return woken;
}

static uint64_t futex_wait(const struct thread_request *r)
{
	unsigned me = here_index();
	struct thread_slot *s = &thread_slots[me];
	uint64_t flags = spin_lock_irqsave(&linux_proc.lock);
	if (user_u32(r->addr) != r->val) { /* futex_wait_setup: the value moved on */
		spin_unlock_irqrestore(&linux_proc.lock, flags);
		return ERR(LNX_EAGAIN);
	}
	s->woken = 0;
	s->wait_bitset = r->bitset;
	s->wait_addr = r->addr;
	bool forever = r->timeout_ns == THREAD_NO_TIMEOUT;
	if (forever) {
		counted_blocked[me] = true;
		linux_proc.blocked++;
		deadlock_check_locked();
	}
	spin_unlock_irqrestore(&linux_proc.lock, flags);
	if (linux_proc.ending)
		kick_others();
	uint64_t deadline = 0;
	if (!forever)
		deadline = tsc_deadline(r->timeout_ns / NS_PER_US) + 1;
	bool woken = wait_for(slot_woken, me, deadline, false);
	flags = spin_lock_irqsave(&linux_proc.lock);
	woken = s->woken; /* a wake may have come after the deadline */
	s->wait_addr = 0;
	if (counted_blocked[me]) {
		counted_blocked[me] = false;
		linux_proc.blocked--;
	}
	spin_unlock_irqrestore(&linux_proc.lock, flags);
	return woken ? 0 : linux_proc.ending ? ERR(LNX_EAGAIN) : ERR(LNX_ETIMEDOUT);
}

static uint64_t futex_wake(const struct thread_request *r)
{
	uint64_t flags = spin_lock_irqsave(&linux_proc.lock);
	uint64_t n = wake_locked(r->addr, r->n, r->bitset);
	spin_unlock_irqrestore(&linux_proc.lock, flags);
	return n;
}

/* FUTEX_REQUEUE and FUTEX_CMP_REQUEUE: wake n, move up to n2 of the rest to addr2. */
static uint64_t futex_requeue(const struct thread_request *r)
{
	uint64_t flags = spin_lock_irqsave(&linux_proc.lock);
	if (r->cmp && user_u32(r->addr) != r->val) {
		spin_unlock_irqrestore(&linux_proc.lock, flags);
		return ERR(LNX_EAGAIN);
	}
	uint64_t woken = wake_locked(r->addr, r->n, ~0u), moved = 0;
	for (unsigned c = 0; c < percpu_count && moved < r->n2; c++)
		if (thread_slots[c].wait_addr == r->addr) {
			thread_slots[c].wait_addr = r->addr2;
			moved++;
		}
	spin_unlock_irqrestore(&linux_proc.lock, flags);
	return r->cmp ? woken + moved : woken;
}

/* ---- exit, exit_group, shootdown -------------------------------------------------------- */

/* A thread's exit (not the group's). The main thread with others still running waits for them
 * (Linux's group leader stays until the last thread has gone: kernel/exit.c); any other
 * thread's CLONE_CHILD_CLEARTID word gets 0 and one waiter is woken (kernel/fork.c
 * mm_release: pthread_join waits there). */
static uint64_t thread_exit(void)
{
	unsigned me = here_index();
	struct thread_slot *s = &thread_slots[me];
	if (me == linux_proc.main_cpu) {
		uint64_t flags = spin_lock_irqsave(&linux_proc.lock);
		bool others = linux_proc.live > 1;
		if (others) {
			counted_blocked[me] = true;
			linux_proc.blocked++;
			deadlock_check_locked();
		}
		spin_unlock_irqrestore(&linux_proc.lock, flags);
		if (others) {
			wait_for(only_main_left, 0, 0, false);
			flags = spin_lock_irqsave(&linux_proc.lock);
			if (counted_blocked[me]) {
				counted_blocked[me] = false;
				linux_proc.blocked--;
			}
			spin_unlock_irqrestore(&linux_proc.lock, flags);
		}
		return 0;
	}
	if (s->clear_tid) {
		put_user_u32(s->clear_tid, 0);
		struct thread_request w = {.addr = s->clear_tid, .n = 1, .bitset = ~0u};
		futex_wake(&w);
	}
	uint64_t flags = spin_lock_irqsave(&linux_proc.lock);
	s->state = THREAD_GONE;
	linux_proc.live--;
	deadlock_check_locked(); /* the ones left may all be waiting */
	spin_unlock_irqrestore(&linux_proc.lock, flags);
	ipi(linux_proc.main_cpu); /* a main thread waiting in exit looks again */
	if (linux_proc.ending)
		kick_others();
	return 0;
}

static uint64_t exit_group(uint64_t status)
{
	linux_process_abort(status);
	return 0;
}

/* The system calls' lock, held by another thread: waited for here (whatever else happens: its
 * holder always lets it go at its call's end), counted as a wait. */
static void lock_calls(void)
{
	struct thread_slot *s = &thread_slots[here_index()];
	uint64_t t0 = rdtsc();
	s->waits++;
	while (__atomic_exchange_n(&linux_proc.calls, 1, __ATOMIC_ACQUIRE))
		__asm__ volatile("sti; pause; cli" ::: "memory");
	s->wait_tsc += rdtsc() - t0;
}
/* A shootdown's IPI is sent again to a CPU that has not acknowledged it after this long: a
 * safeguard, the acknowledgement is what counts (SDM Vol. 3A 4.10.5 leaves the protocol to
 * software). */
#define SHOOTDOWN_RESEND_PER_S 10000 /* every 100 us */
static uint64_t shot_resend_tsc[MAX_CPUS];

static bool shot_down(uint64_t gen)
{
	bool done = true;
	uint64_t now = rdtsc(), *last = &shot_resend_tsc[here_index()];
	bool resend = now - *last > timer_info()->tsc_hz / SHOOTDOWN_RESEND_PER_S;
	for (unsigned c = 0; c < percpu_count; c++)
		if (c != here_index() && thread_slots[c].state == THREAD_RUNNING &&
		    __atomic_load_n(&thread_slots[c].tlb_ack, __ATOMIC_ACQUIRE) < gen) {
			done = false;
			if (resend)
				ipi(c);
		}
	if (!done && resend)
		*last = now;
	return done;
}

static uint64_t shootdown(void)
{
	uint64_t gen = __atomic_add_fetch(&linux_proc.tlb_gen, 1, __ATOMIC_ACQ_REL);
	thread_slots[here_index()].tlb_ack = gen; /* this CPU flushed what it changed */
	shot_resend_tsc[here_index()] = rdtsc();
	for (unsigned c = 0; c < percpu_count; c++)
		if (thread_slots[c].state == THREAD_RUNNING)
			ipi(c);
	wait_for(shot_down, gen, 0, true);
	return 0;
}

uint64_t thread_serve(struct thread_request *r)
{
	switch (r->op) {
	case THREAD_OP_CLONE:
		return clone_thread(r);
	case THREAD_OP_FUTEX_WAIT:
		return futex_wait(r);
	case THREAD_OP_FUTEX_WAKE:
		return futex_wake(r);
	case THREAD_OP_FUTEX_REQUEUE:
		return futex_requeue(r);
	case THREAD_OP_EXIT:
		return thread_exit();
	case THREAD_OP_EXIT_GROUP:
		return exit_group(r->status);
	case THREAD_OP_SHOOTDOWN:
		return shootdown();
	case THREAD_OP_LOCK: /* the system calls' lock, held by another thread: waited for here */
		lock_calls();
		return 0;
	}
	return ERR(LNX_ENOSYS);
}

/* INT VEC_LINUX_THREAD from the stepped side (RDI: the request; RAX: the answer). */
static void thread_trap(struct trap_frame *f)
{
	f->rax = thread_serve((struct thread_request *)f->rdi);
}

/* VEC_LINUX_IPI: a wake-up, a shootdown, or the process's end reaching a thread in ring 3. */
static void thread_ipi(struct trap_frame *f)
{
	lapic_eoi();
	struct thread_slot *s = &thread_slots[here_index()];
	uint64_t gen = __atomic_load_n(&linux_proc.tlb_gen, __ATOMIC_ACQUIRE);
	if (s->tlb_ack < gen) {
		tlb_flush_nonglobal();
		__atomic_store_n(&s->tlb_ack, gen, __ATOMIC_RELEASE);
	}
	if (linux_proc.ending && s->state == THREAD_RUNNING && (f->cs & 3) == 3)
		user_run_leave(f, here_index() == linux_proc.main_cpu ? linux_proc.end_status : 0);
}

/* ---- the session runner's side ---------------------------------------------------------- */

void linux_threads_open(const bool host[MAX_CPUS])
{
	unsigned me = here_index();
	memset(thread_slots, 0, sizeof(thread_slots));
	memset(counted_blocked, 0, sizeof(counted_blocked));
	deadlock_why[0] = 0;
	uint64_t gen = linux_proc.tlb_gen;
	memset(&linux_proc, 0, sizeof(linux_proc));
	linux_proc.tlb_gen = gen;
	linux_proc.main_cpu = me;
	linux_proc.next_tid = FIRST_TID;
	linux_proc.live = 1;
	linux_proc.cpus = 1;
	for (unsigned c = 0; c < percpu_count; c++) {
		thread_slots[c].tlb_ack = gen;
		thread_slots[c].host = host[c] && c != me;
		if (thread_slots[c].host)
			thread_vector_prepare(c);
		linux_proc.cpus += thread_slots[c].host;
	}
	thread_slots[me].tid = MAIN_TID;
	thread_slots[me].state = THREAD_RUNNING;
	__atomic_store_n(&linux_proc.open, true, __ATOMIC_RELEASE);
}

void linux_thread_no_host(unsigned cpu)
{
	uint64_t flags = spin_lock_irqsave(&linux_proc.lock);
	if (cpu < MAX_CPUS && thread_slots[cpu].host) {
		thread_slots[cpu].host = false;
		linux_proc.cpus--;
	}
	spin_unlock_irqrestore(&linux_proc.lock, flags);
}

bool linux_thread_wait(uint32_t *tid)
{
	unsigned me = here_index();
	for (;;) {
		cpu_cli();
		if (thread_slots[me].state == THREAD_GIVEN && linux_proc.ending) {
			uint64_t flags = spin_lock_irqsave(&linux_proc.lock); /* never started */
			linux_proc.live--;
			thread_slots[me].state = THREAD_FREE;
			spin_unlock_irqrestore(&linux_proc.lock, flags);
			continue;
		}
		if (thread_slots[me].state == THREAD_GIVEN) {
			*tid = thread_slots[me].tid;
			return true;
		}
		if (__atomic_load_n(&linux_proc.closed, __ATOMIC_ACQUIRE))
			return false;
		if (linux_proc.made) /* as in wait_for, once the process has threads */
			timer_oneshot_us(WAIT_BACKSTOP_US);
		__asm__ volatile("sti; hlt" ::: "memory");
	}
}

void linux_thread_begin(void)
{
	struct thread_slot *s = &thread_slots[here_index()];
	user_thread_run_begin(s->fs_base, linux_thread_vector_state());
	__atomic_store_n(&s->state, THREAD_RUNNING, __ATOMIC_RELEASE);
}

void linux_thread_end(void)
{
	struct thread_slot *s = &thread_slots[here_index()];
	user_thread_run_end();
	uint64_t flags = spin_lock_irqsave(&linux_proc.lock);
	if (s->state == THREAD_RUNNING) { /* ended by the kernel, not by its exit */
		linux_proc.live--;
		deadlock_check_locked();
	}
	s->state = THREAD_FREE;
	spin_unlock_irqrestore(&linux_proc.lock, flags);
	ipi(linux_proc.main_cpu);
	if (linux_proc.ending)
		kick_others();
}

bool linux_threads_opened(void)
{
	return linux_proc.open;
}

void linux_threads_close(struct linux_threads_summary *sum)
{
	if (!linux_proc.open) {
		*sum = (struct linux_threads_summary){0, 0, 1, NULL};
		return;
	}
	/* Threads still running when the main thread's run ended (it was ended by the kernel, or
	 * detached threads outlived exit): they end now. */
	linux_process_abort(0);
	thread_slots[linux_proc.main_cpu].state = THREAD_GONE;
	__atomic_store_n(&linux_proc.closed, true, __ATOMIC_RELEASE);
	for (unsigned c = 0; c < percpu_count; c++)
		if (thread_slots[c].host)
			ipi(c);
	/* each host's session goes on to its end (its records, its report) before it frees the
	 * CPU: waited for here, interrupts on, while the runner's drainer writes them out */
	uint64_t rflags = read_rflags();
	while (!hosts_free(0))
		__asm__ volatile("sti; pause; cli" ::: "memory");
	if (rflags & RFLAGS_IF)
		__asm__ volatile("sti" ::: "memory");
	*sum = (struct linux_threads_summary){linux_proc.made, linux_proc.refused, linux_proc.cpus,
					      deadlock_why[0] ? deadlock_why : NULL};
	__atomic_store_n(&linux_proc.open, false, __ATOMIC_RELEASE);
}

void linux_threads_say(void)
{
	if (!linux_proc.open)
		return;
	kprintf("note: program: its threads: main cpu %u, %u running, %u waiting with no timeout, "
		"ending %u\n",
		linux_proc.main_cpu, linux_proc.live, linux_proc.blocked, linux_proc.ending);
	for (unsigned c = 0; c < percpu_count; c++)
		if (thread_slots[c].state != THREAD_FREE)
			kprintf("note: program: cpu %u: tid %u, state %u, futex wait on %#lx, %lu "
				"waits, "
				"TLB shootdown %lu of %lu done\n",
				c, thread_slots[c].tid ? thread_slots[c].tid : MAIN_TID,
				thread_slots[c].state, (unsigned long)thread_slots[c].wait_addr,
				(unsigned long)thread_slots[c].waits,
				(unsigned long)thread_slots[c].tlb_ack,
				(unsigned long)linux_proc.tlb_gen);
}

void linux_threads_init(void)
{
	irq_register(VEC_LINUX_THREAD, thread_trap);
	irq_register(VEC_LINUX_IPI, thread_ipi);
}
