/* SPDX-License-Identifier: MIT */
/*
 * A user program's run: set up before it (output, region of interest, the memory its system
 * calls may name, the watchdog), ended by SYS_EXIT, by an exception in ring 3 (the fault claim)
 * or by the watchdog, and read after it. Ending a run early rewrites the interrupted ring 3
 * frame so that the IRETQ of the trap lands on entry.S's user_abort in ring 0, on the kernel
 * stack arch_user_enter left: the kernel never returns to the faulting instruction, and the
 * single-step engine follows the move like any handler's (its resume observer).
 */
#include "arch/x86/user/run.h"
#include "arch/x86/user/roundtrip.h"
#include "arch/x86/user/linux_files.h"
#include "arch/x86/user/linux_thread.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/cpu/vectors.h"
#include "arch/x86/hw/msr.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/smp/timer.h"
#include "lib/string.h"
#include "kernel/arch_user.h"
#include "kernel/arch_workloads.h"

#define WATCHDOG_RETRY_US 1000		 /* fired in ring 0 (a system call): look again */
#define USER_RIP_MASK	  GENMASK(47, 0) /* the RIP bits a fault status carries */
#define USER_VECTOR_SHIFT 48

struct user_run user_runs[MAX_CPUS];
void (*user_progress_beat)(uint64_t seconds);

/* The local APIC timer for the earlier of the watchdog's deadline and the next progress beat
 * (a long wait takes several one-shots: timer_oneshot_us's count saturates). */
static void arm(const struct user_run *u, uint64_t now)
{
	uint64_t at = u->deadline_tsc;
	if (u->beat_tsc && (!at || u->beat_tsc < at))
		at = u->beat_tsc;
	if (at)
		timer_oneshot_us(at > now ? tsc_to_us(at - now) : 0);
}

static struct user_run *here(void)
{
	return &user_runs[this_cpu()->index];
}

/* x87, SSE and AVX as a new process gets them (Linux's fpstate_init_user: the init state,
 * FCW 0x37F, MXCSR 0x1F80): XRSTOR with every XSTATE_BV bit clear puts each component in its
 * initial configuration (SDM Vol. 1 13.8.1) while MXCSR comes from the area; without XSAVE,
 * FXRSTOR of an area holding just FCW and MXCSR. The kernel never touches them after this
 * (-mgeneral-regs-only), so ring 3 starts with exactly this. */
#define FCW_INIT   0x37f
#define MXCSR_INIT 0x1f80
static _Alignas(64) uint8_t init_fpu[512 + 64]; /* legacy area and XSAVE header */

static void vector_state_init(void)
{
	uint16_t fcw = FCW_INIT;
	uint32_t mxcsr = MXCSR_INIT;
	memcpy(init_fpu, &fcw, sizeof(fcw));	      /* FXSAVE layout: FCW at 0 */
	memcpy(init_fpu + 24, &mxcsr, sizeof(mxcsr)); /* MXCSR at 24 */
	if (usermode_xcr0)
		__asm__ volatile("xrstor64 %0" : : "m"(init_fpu), "a"(~0u), "d"(~0u));
	else
		__asm__ volatile("fxrstor64 %0" : : "m"(init_fpu));
}

/* The Linux ABI's parts of a run: its system call entry, memory, output, FS base. */
static void linux_begin(struct user_run *u, const struct user_run_params *p)
{
	u->brk_lo = u->brk = u->brk_top = p->heap_lo;
	u->brk_hi = p->heap_hi;
	u->mmap_lo = u->mmap_next = p->mmap_lo;
	u->mmap_hi = p->mmap_hi;
	u->mdwe = 0;		     /* Linux's default: mappings may be writable and executable */
	u->rand_state = p->seed | 1; /* xorshift: never 0 */
	u->files = p->files;
	u->nfiles = p->nfiles;
	u->stdin_file = p->stdin_file;
	u->exe = p->exe;
	u->img = p->img;
	u->stack_lo = p->stack_lo;
	u->stack_hi = p->stack_hi;
	u->nx = paging_nx_enabled() ? PTE_NX : 0;
	u->slept_ns = 0;
	linux_fds_init(u);
	this_cpu()->linux_exit_now = 0;
	this_cpu()->linux_exit_status = 0;
	wrmsr(MSR_FS_BASE, 0);
	wrmsr(MSR_LSTAR,
	      p->linux_abi ? (uint64_t)linux_syscall_entry : (uint64_t)user_syscall_entry);
}

void arch_user_run_begin(const struct user_run_params *p)
{
	struct user_run *u = here();
	u->out = p->out ? p->out : u->out_buf;
	u->out_room = p->out ? p->out_room : USER_OUTPUT_BYTES;
	linux_begin(u, p);
	vector_state_init();
	u->tsc_hz = timer_info()->tsc_hz;
	u->active = true;
	u->roi_marks = p->roi_marks;
	u->roi_function = p->roi_function;
	u->roi_pending = USER_ROI_NONE;
	u->roi_now = NULL;
	/* out_head and out_tail run on from run to run, never reset: each run's end takes all its
	 * output (tail = head), and a drainer on another CPU may be reading this CPU's ring while
	 * the next run begins: a reset under it would make it read a tail past the head. */
	u->out_pos[0] = u->out_pos[1] = u->out_dropped[0] = u->out_dropped[1] = 0;
	memset(&u->end, 0, sizeof(u->end));
	u->nrange = 0;
	for (unsigned i = 0; p->img && i < p->img->n && u->nrange < USER_MAX_RANGES - 1; i++)
		u->range[u->nrange++] = (struct user_range){
		    p->img->seg[i].vaddr, p->img->seg[i].vaddr + p->img->seg[i].memsz};
	if (p->stack_hi > p->stack_lo)
		u->range[u->nrange++] = (struct user_range){p->stack_lo, p->stack_hi};
	u->start_tsc = rdtsc();
	u->deadline_tsc = p->watchdog_ms ? u->start_tsc + p->watchdog_ms * (u->tsc_hz / 1000) : 0;
	u->beat_tsc = user_progress_beat ? u->start_tsc + USER_BEAT_S * u->tsc_hz : 0;
	arm(u, u->start_tsc);
}

/* The watchdog and the progress beat off. */
static void disarm(struct user_run *u)
{
	if (u->deadline_tsc || u->beat_tsc) {
		u->deadline_tsc = u->beat_tsc = 0;
		timer_oneshot_stop();
	}
}

void (*user_output_taker)(workload_print_fn print);

void arch_user_output(workload_print_fn print)
{
	struct user_run *u = here();
	if (user_output_taker) {
		user_output_taker(print);
		return;
	}
	uint64_t left = u->out_head - u->out_tail;
	u->out_tail = u->out_head;
	if (print && left)
		print("incomplete: program: cpu=%u: %lu bytes of its output ring were not taken "
		      "(no trace session ran it)\n",
		      this_cpu()->index, left);
}

void arch_user_run_end(struct user_run_end *e)
{
	struct user_run *u = here();
	unsigned from;
	if (u->end.kind == USER_END_EXIT && linux_process_ended_elsewhere(&from) &&
	    user_runs[from].end.kind != USER_END_EXIT) {
		/* another thread's fault or the watchdog there ended the process: said as such */
		const struct user_run_end *src = &user_runs[from].end;
		u->end.kind = src->kind;
		u->end.vector = src->vector;
		u->end.error_code = src->error_code;
		u->end.rip = src->rip;
		u->end.cr2 = src->cr2;
		u->end.has_cr2 = src->has_cr2;
		u->end.elapsed_us = tsc_to_us(rdtsc() - u->start_tsc);
	}
	u->active = false;
	disarm(u);
	if (u->end.kind == USER_END_EXIT)
		u->end.elapsed_us = tsc_to_us(rdtsc() - u->start_tsc);
	u->end.cpu = this_cpu()->index;
	u->end.output_dropped = u->out_dropped[0] + u->out_dropped[1];
	u->end.output_room = u->out_room;
	u->end.heap_used_hi = u->brk_top;
	u->end.mmap_used_hi = u->mmap_next;
	wrmsr(MSR_LSTAR, (uint64_t)user_syscall_entry);
	*e = u->end;
}

/* End the run that frame f interrupted in ring 3: back to ring 0 at user_abort with `status`. */
static void end_run(struct trap_frame *f, enum user_end_kind kind, uint64_t cr2, uint64_t status)
{
	struct user_run *u = here();
	u->end.kind = kind;
	u->end.vector = (uint32_t)f->vector;
	u->end.error_code = f->error_code;
	u->end.rip = f->rip;
	u->end.cr2 = cr2;
	u->end.has_cr2 = f->vector == VEC_PF && kind == USER_END_FAULT;
	u->end.elapsed_us = tsc_to_us(rdtsc() - u->start_tsc);
	disarm(u);
	if (kind != USER_END_EXIT)
		linux_process_abort(status); /* the other threads end with it */
	f->rip = (uint64_t)user_abort;
	f->cs = SEL_KERNEL_CODE;
	f->ss = SEL_KERNEL_DATA;
	f->rsp = this_cpu()->user_kernel_rsp;
	f->rdi = status;
	/* Interrupts off as after SYSCALL, and TF clear: the program's own TF (a program that
	 * steps itself) is not the kernel's; the single-step engine sets its own again on the
	 * way back (ss_note_resume), as after any handler. */
	f->rflags = RFLAGS_FIXED1;
}

void user_run_leave(struct trap_frame *f, uint64_t status)
{
	end_run(f, USER_END_EXIT, 0, status);
}

void user_thread_run_begin(uint64_t fs_base, const void *vector_state)
{
	struct user_run *u = here();
	memset(&u->end, 0, sizeof(u->end));
	u->start_tsc = rdtsc();
	u->deadline_tsc = u->beat_tsc = 0;
	u->active = true;
	this_cpu()->linux_exit_now = 0;
	this_cpu()->linux_exit_status = 0;
	if (!vector_state)
		vector_state_init();
	else if (usermode_xcr0)
		__asm__ volatile("xrstor64 %0"
				 :
				 : "m"(*(const uint8_t(*)[512 + 64]) vector_state),
				   "a"((uint32_t)usermode_xcr0),
				   "d"((uint32_t)(usermode_xcr0 >> 32))
				 : "memory");
	else
		__asm__ volatile("fxrstor64 %0"
				 :
				 : "m"(*(const uint8_t(*)[512])vector_state)
				 : "memory");
	/* this CPU's TLB may hold the last run's translations (the program's memory was put back
	 * between runs on the main thread's CPU alone): flushed before the thread's first access */
	tlb_flush_nonglobal();
	wrmsr(MSR_FS_BASE, fs_base);
	wrmsr(MSR_LSTAR, (uint64_t)linux_syscall_entry);
}

void user_thread_end_of(struct user_run_end *e)
{
	*e = here()->end;
}

void user_thread_run_end(void)
{
	struct user_run *u = here();
	u->active = false;
	if (u->end.kind == USER_END_EXIT)
		u->end.elapsed_us = tsc_to_us(rdtsc() - u->start_tsc);
	u->end.cpu = this_cpu()->index;
	wrmsr(MSR_LSTAR, (uint64_t)user_syscall_entry);
}

/* TRAP_CLAIM_USER: every exception in ring 3 (but NMI and #MC, which are not the program's)
 * ends the run; only arch_user_enter reaches ring 3, so its kernel stack is there to go to. */
static bool user_fault_claim(struct trap_frame *f)
{
	uint64_t cr2 = f->vector == VEC_PF ? read_cr2() : 0;
	end_run(f, USER_END_FAULT, cr2,
		USER_STATUS_ENDED | f->vector << USER_VECTOR_SHIFT | (f->rip & USER_RIP_MASK));
	return true;
}

/* The local APIC timer: the watchdog's deadline or a progress beat. Either waits for ring 3
 * (in ring 0, the kernel's side of a system call, which always ends, look again shortly): the
 * watchdog then ends the run, the beat says how long it has gone on; else arm again. */
static void user_watchdog_irq(struct trap_frame *f)
{
	struct user_run *u = here();
	lapic_eoi();
	if (!u->deadline_tsc && !u->beat_tsc)
		return; /* disarmed after this one was on its way */
	uint64_t now = rdtsc();
	bool stop = u->deadline_tsc && now >= u->deadline_tsc;
	bool beat = u->beat_tsc && now >= u->beat_tsc;
	if (stop && (f->cs & 3) != 3 && linux_thread_waiting()) {
		/* a thread waiting in the kernel (a futex, the main thread's exit): the process
		 * ends from here, the wait returns and the thread leaves at its system call's end
		 */
		u->end.kind = USER_END_WATCHDOG;
		u->end.rip = f->rip;
		u->end.elapsed_us = tsc_to_us(now - u->start_tsc);
		disarm(u);
		linux_process_abort(USER_STATUS_WATCHDOG);
		return;
	}
	if ((stop || beat) && (f->cs & 3) != 3) {
		timer_oneshot_us(WATCHDOG_RETRY_US);
		return;
	}
	if (stop) {
		end_run(f, USER_END_WATCHDOG, 0, USER_STATUS_WATCHDOG);
		return;
	}
	if (beat) {
		if (user_progress_beat)
			user_progress_beat(tsc_to_us(now - u->start_tsc) / 1000000);
		u->beat_tsc = now + USER_BEAT_S * u->tsc_hz;
	}
	arm(u, now);
}

/* The "user" workload's signature, from entry.S: arch_user_roundtrip (5 instructions, a JMP),
 * user_enter (30, ending in IRETQ), ring 3's page (1, then 6 per SYSCALL(SYS_NOP) round with a
 * JB back taken n - 1 times, then 3 ending in SYSCALL(SYS_EXIT)), the kernel's side of each
 * SYSCALL(SYS_NOP) (5, ending in SYSRETQ; JE and JNZ not taken), of SYS_EXIT (4, the JE and the JNC
 * taken) and user_abort (10, ending in RET). 11n + 53 instructions. */
void arch_user_roundtrip_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_user_enter, user_entry_end);
	s->code2_lo = USER_CODE_VA;
	s->code2_hi = USER_CODE_VA + ELF_USER_PAGE;
	s->taken[WL_JMP] = 1;
	s->taken[WL_COND] = (n - 1) + 2;
	s->taken[WL_FAR] = 1 + (n + 1) + n; /* IRETQ, the SYSCALLs, the SYSRETs */
	s->taken[WL_RET] = 1;
	s->instructions = 11 * n + 53;
}

void user_run_init(void)
{
	trap_set_claim(TRAP_CLAIM_USER, user_fault_claim);
	irq_register(VEC_APIC_TIMER, user_watchdog_irq);
	linux_threads_init();
}
