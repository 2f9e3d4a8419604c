/* SPDX-License-Identifier: MIT */
#include "arch/x86/spmu/singlestep.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/trap.h"
#include "kernel/arch.h"
#include "lib/x86_decode.h"
#include "lib/x86_step.h"

/* DR6 (SDM Vol. 3B 17.2.3, Figure 17-2): BS = single-step caused the #DB. */
#define DR6_BS	       BIT(14)
#define DR6_INIT_VALUE 0xffff0ff0ull /* the value DR6 holds with no condition recorded */

uint64_t ss_enter(uint64_t (*fn)(uint64_t), uint64_t arg, uint64_t extra_flags);

struct ss_state {
	bool active;
	bool in_trap;  /* the engine's own #DB handler runs (an NMI there is not the workload's) */
	uint64_t prev; /* the instruction that will retire next */
	unsigned prev_cpl, cpl_from, cpl_to;
	const struct trap_frame *frame; /* during on_step: the state after the retired insn */
	uint64_t steps;
	uint64_t rep_iterations; /* traps inside a REP string instruction (not steps) */
	ss_step_fn on_step;
	void *ctx;
};

static struct ss_state state[MAX_CPUS];

static inline uint64_t read_dr6(void)
{
	uint64_t v;
	__asm__ volatile("mov %%dr6, %0" : "=r"(v));
	return v;
}

static inline void write_dr6(uint64_t v)
{
	__asm__ volatile("mov %0, %%dr6" : : "r"(v));
}

static bool is_rep_string_at(uint64_t ip)
{
	struct x86_insn in;
	if (x86_decode((const uint8_t *)ip, X86_MAX_INSN_LENGTH, &in) != 0)
		return false;
	struct x86_step_insn si = x86_step_insn_of(&in);
	return x86_is_rep_string(&si);
}

void ss_run(uint64_t (*fn)(uint64_t), uint64_t arg, ss_step_fn on_step, void *ctx, bool interrupts,
	    struct ss_result *r)
{
	struct ss_state *s = &state[this_cpu()->index];
	s->prev = (uint64_t)ss_first_insn;
	s->prev_cpl = 0;
	s->steps = 0;
	s->rep_iterations = 0;
	s->on_step = on_step;
	s->ctx = ctx;
	write_dr6(DR6_INIT_VALUE);
	s->active = true;
	r->retval = ss_enter(fn, arg, interrupts ? RFLAGS_IF : 0);
	s->active = false;
	r->steps = s->steps;
	r->rep_iterations = s->rep_iterations;
}

/* Opcodes the engine treats itself (SDM Vol. 2 Table A-2). */
#define OPC_PUSHF    0x9c
#define OPC_POPF     0x9d
#define OPC_IRET     0xcf
#define OPC_MOV_SR   0x8e /* MOV Sreg, r/m: ModRM.reg 2 is SS */
#define MODRM_REG(m) (((m) >> 3) & 7)
#define SREG_SS	     2

/* The opcode byte at ip (lib/x86_decode.h): a cheap filter, so that only the few instructions
 * below are decoded in full. */
static uint8_t opcode_at(uint64_t ip)
{
	return x86_opcode_byte((const uint8_t *)ip, X86_MAX_INSN_LENGTH);
}

/*
 * Keep the trap flag the engine's own business (SDM Vol. 3B 17.3.1.4; the workload never sets
 * TF itself in our workloads, so its view of TF is 0):
 * - PUSHF pushed RFLAGS with TF set: clear it in the pushed image;
 * - POPF and IRET loaded an image with TF clear: the trap after them still comes (it depends
 *   on TF before the instruction), but the next one would not: set TF in the frame again;
 * SYSCALL's R11 still carries TF: the workloads' own SYSCALL entry is stepped too and its
 * SYSRET needs it to keep the capture going (issue 13 lists what is left).
 * The POPF in the engine's own exit stub (the trap lands on ss_exit) is left alone.
 */
static void hide_tf(uint8_t opcode, uint64_t retired, struct trap_frame *f)
{
	switch (opcode) {
	case OPC_PUSHF: {
		struct x86_insn in;
		if (x86_decode((const uint8_t *)retired, X86_MAX_INSN_LENGTH, &in) != 0)
			return;
		if (in.operand16)
			*(uint16_t *)f->rsp &= (uint16_t)~RFLAGS_TF;
		else
			*(uint64_t *)f->rsp &= ~RFLAGS_TF;
		return;
	}
	case OPC_POPF:
	case OPC_IRET:
		if (f->rip != (uint64_t)ss_exit)
			f->rflags |= RFLAGS_TF;
		return;
	default:
		return;
	}
}

/* MOV SS holds the single-step trap until after the next instruction (SDM Vol. 3B 6.8.3,
 * 17.3.1.4): one trap stands for two instructions. The address of the second, or 0. */
static uint64_t mov_ss_shadowed(uint8_t opcode, uint64_t retired)
{
	if (opcode != OPC_MOV_SR)
		return 0;
	struct x86_insn in;
	if (x86_decode((const uint8_t *)retired, X86_MAX_INSN_LENGTH, &in) != 0 || !in.has_modrm ||
	    MODRM_REG(in.modrm) != SREG_SS)
		return 0;
	return retired + in.length;
}

static void report_step(struct ss_state *s, struct trap_frame *f, uint64_t retired, uint64_t next)
{
	s->steps++;
	s->frame = f;
	s->in_trap = true; /* a PMI sent as NMI from on_step arrives right here */
	if (s->on_step)
		s->on_step(s->ctx, retired, next);
	s->in_trap = false;
	s->frame = NULL;
}

bool ss_debug_trap(struct trap_frame *f)
{
	struct percpu *cpu = percpu_current();
	if (!cpu)
		return false;
	struct ss_state *s = &state[cpu->index];
	uint64_t dr6 = read_dr6();
	if (!s->active || !(dr6 & DR6_BS))
		return false;
	write_dr6(DR6_INIT_VALUE); /* DR6 bits are sticky: clear for the next trap */
	/* SDM Vol. 3B 17.3.1.4: a repeated string instruction traps after every iteration, at
	 * its own address. Those traps are not instructions and not branches: nobody sees them.
	 * (The same address again can also be a taken branch to itself, `loop .`: decode.) */
	if (f->rip == s->prev && is_rep_string_at(s->prev)) {
		s->rep_iterations++;
		return true;
	}
	s->cpl_from = s->prev_cpl;
	s->cpl_to = f->cs & 3;		     /* the privilege level execution continues at */
	uint8_t opcode = opcode_at(s->prev); /* once per step: the two checks below share it */
	hide_tf(opcode, s->prev, f);
	uint64_t second = mov_ss_shadowed(opcode, s->prev);
	if (second && second != f->rip) {
		/* The MOV SS and the instruction after it: report both, the second with the
		 * trap's own frame (the first one's registers are not visible any more). */
		report_step(s, f, s->prev, second);
		s->cpl_from = s->cpl_to;
		hide_tf(opcode_at(second), second, f);
		report_step(s, f, second, f->rip);
	} else {
		report_step(s, f, s->prev, f->rip);
	}
	s->prev = f->rip;
	s->prev_cpl = s->cpl_to;
	if (f->rip == (uint64_t)ss_exit)
		s->active = false; /* TF is clear from here on */
	return true;
}

uint64_t arch_single_step(uint64_t (*fn)(uint64_t), uint64_t arg,
			  void (*on_step)(void *ctx, uint64_t retired, uint64_t next), void *ctx,
			  uint64_t *steps, uint64_t *rep_iterations)
{
	struct ss_result r;
	ss_run(fn, arg, on_step, ctx, false, &r);
	*steps = r.steps;
	*rep_iterations = r.rep_iterations;
	return r.retval;
}

void arch_step_regs(uint64_t *rflags, uint64_t *rcx)
{
	const struct trap_frame *f = state[this_cpu()->index].frame;
	*rflags = f ? f->rflags & ~RFLAGS_TF : 0; /* the engine's TF is not the workload's */
	*rcx = f ? f->rcx : 0;
}

void ss_step_cpls(unsigned *from, unsigned *to)
{
	const struct ss_state *s = &state[this_cpu()->index];
	*from = s->cpl_from;
	*to = s->cpl_to;
}

const struct trap_frame *ss_step_frame(void)
{
	return state[this_cpu()->index].frame;
}

uint64_t ss_workload_ip(const struct trap_frame *f)
{
	struct percpu *cpu = percpu_current();
	const struct ss_state *s = cpu ? &state[cpu->index] : NULL;
	return s && s->active && s->in_trap && s->frame ? s->frame->rip : f->rip;
}

bool ss_active_here(void)
{
	struct percpu *cpu = percpu_current();
	return cpu && state[cpu->index].active && !state[cpu->index].in_trap;
}

/*
 * An exception or interrupt the workload takes (not the engine's own #DB). Interrupt-gate
 * delivery clears TF, so the handler is not stepped. A trap-class exception (INT3, INT n,
 * INTO) retires its instruction without a single-step trap for it: report that step now, with
 * execution going on at the return address the frame holds. A fault (the instruction did not
 * retire) or an interrupt between instructions leaves the frame's RIP at the instruction that
 * will retire next, which the engine already expects.
 */
void ss_note_exception(const struct trap_frame *f)
{
	struct percpu *cpu = percpu_current();
	if (!cpu)
		return;
	struct ss_state *s = &state[cpu->index];
	if (!s->active || f->rip == s->prev)
		return;
	s->steps++;
	s->cpl_from = s->prev_cpl;
	s->cpl_to = f->cs & 3;
	s->frame = f;
	if (s->on_step)
		s->on_step(s->ctx, s->prev, f->rip);
	s->frame = NULL;
	s->prev = f->rip;
	s->prev_cpl = s->cpl_to;
}

void ss_note_resume(const struct trap_frame *f)
{
	struct percpu *cpu = percpu_current();
	if (!cpu)
		return;
	struct ss_state *s = &state[cpu->index];
	if (!s->active || s->in_trap || f->rip == s->prev)
		return;
	s->prev = f->rip; /* nothing retired: the handler chose where the workload goes on */
	s->prev_cpl = f->cs & 3;
}
