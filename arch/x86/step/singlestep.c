/* SPDX-License-Identifier: MIT */
#include "arch/x86/step/engine.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/idt.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/cpu/vectors.h"
#include "arch/x86/hw/msr.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_step.h"
#include "lib/x86_decode.h"
#include "lib/x86_decode_cache.h"
#include "lib/x86_step.h"

struct ss_state ss_states[MAX_CPUS];
/* Page-aligned (its own pages): QEMU's softmmu TLB is direct-mapped and small, and each step
 * touches the view, the model and the next instruction's bytes; with the view 2 MiB from the
 * model's counters (the .bss layout before this) they evicted each other and three accesses a
 * step took QEMU's slow path (counted with uprobes on helper_le_ldq_mmu/stq_mmu). */
struct ss_step_view ss_step_views[MAX_CPUS] __attribute__((aligned(4096)));

/* This CPU's engine state, or NULL this early in boot (exception paths ask before per-CPU
 * areas exist). */
uint64_t ss_steps_of(unsigned cpu)
{
	return cpu < MAX_CPUS ? __atomic_load_n(&ss_states[cpu].steps, __ATOMIC_RELAXED) : 0;
}

static bool is_rep_string_at(uint64_t ip, enum x86_mode mode)
{
	struct x86_insn in;
	if (!decode_at(ip, mode, &in))
		return false;
	struct x86_step_insn si = x86_step_insn_of(&in);
	return x86_is_rep_string(&si);
}

static void set_prev(struct ss_state *s, uint64_t ip, uint64_t cs);

void ss_run(uint64_t (*fn)(uint64_t), uint64_t arg, const struct ss_hooks *h, bool interrupts,
	    struct ss_result *r)
{
	struct ss_state *s = &ss_states[this_cpu()->index];
	s->view = &ss_step_views[this_cpu()->index];
	s->steps = 0;
	s->rep_iterations = 0;
	s->rebuilt = 0;
	s->skip_seen = 0;
	s->skipped_to = 0;
	s->dr_refused_at = 0;
	ss_block_reset(s);
	s->blocks = 0;
	s->block_changed_at = 0;
	s->loops = 0;
	s->chains = 0;
	s->loop_lost_at = 0;
	s->loop_declined = 0;
	s->traps = s->trap_cycles = 0;
	s->xl = (struct ss_xlate_stats){0};
	uint32_t gen0 = s->blk_gen;
	s->exc_frame = NULL;
	s->nmi_frame = NULL;
	s->next_opcode_ip = 0;
	s->next_dec = NULL;
	s->vtf = false; /* the caller's RFLAGS.TF, clear */
	s->hooks = *h;
	ss_code_forget(); /* mappings may have changed since the last run */
	/* The engine decodes the workload's instructions, ring 3's too, and fixes the RFLAGS image
	 * PUSHF stores on its stack: its traps touch user pages (SMAP, cpu/usermode.h) while the
	 * instruction it reports next is ring 3's (set_prev; a trap from ring 3 opens them too). */
	set_prev(s, (uint64_t)ss_first_insn, SEL_KERNEL_CODE);
	s->active = true;
	r->retval = ss_enter(fn, arg, interrupts ? RFLAGS_IF : 0);
	this_cpu()->user_access_in_traps = false;
	/* The trap that lands on ss_exit ends the run (ss_debug_trap): still active means the
	 * workload went on without traps from s->prev on. */
	r->escaped_at = s->active ? s->prev : 0;
	s->active = false;
	ss_block_reset(s);
	r->blocks = s->blocks;
	r->block_changed_at = s->block_changed_at;
	r->loops = s->loops;
	r->chains = s->chains;
	r->loop_lost_at = s->loop_lost_at;
	r->traps = s->traps;
	r->decoded = s->blk_gen - gen0;
	r->trap_cycles = s->trap_cycles;
	r->xl = s->xl;
	restore_fmask_tf(s);
	r->steps = s->steps;
	r->rep_iterations = s->rep_iterations;
	r->rebuilt = s->rebuilt;
	r->dr_refused_at = s->dr_refused_at;
}

/* The instruction that will retire next, under code segment `cs`: traps open user access
 * while it is ring 3's. */
static inline void move_prev(struct ss_state *s, uint64_t ip, uint64_t cs)
{
	s->prev = ip;
	s->prev_cpl = cs & 3;
	s->prev_mode = (uint8_t)cpu_code_mode(cs);
	this_cpu()->user_access_in_traps = s->prev_cpl == 3;
}

/* Where the engine goes on when something other than a step moved it (a handler's resume, an
 * exception's return address): also DR6 cleared, as the instruction there may be one
 * dr6_matters names (a step clears it when it sees one coming, ss_debug_trap). */
static void set_prev(struct ss_state *s, uint64_t ip, uint64_t cs)
{
	move_prev(s, ip, cs);
	/* Decoded now, before it runs, from the bytes there now: a handler may have rewritten
	 * them (a breakpoint byte put back, a UD2 patched into a CALL) before resuming here, and
	 * the CPU runs the bytes present when it fetches (SDM Vol. 3A 8.1.3): a decoding cached
	 * before the handler ran must not answer for them (exactness class 1: code that changes
	 * between decoding and running). */
	s->next_dec = s->hooks.cache ? cached_at(s->hooks.cache, ip, true, s->prev_mode) : NULL;
	s->next_opcode_ip = 0; /* read again at the trap after it (the handler may change vtf) */
	s->plain_to = 0;
	write_dr6(DR6_INIT_VALUE);
}

/* The opcode of the instruction that retired at prev, as read before it ran (an instruction
 * may overwrite its own first bytes: it ran as what it was, SDM Vol. 3A 8.1.3). */
static inline unsigned retired_opcode(const struct ss_state *s, uint64_t prev)
{
	if (s->next_opcode_ip == prev)
		return s->next_opcode;
	return s->next_dec && s->next_dec->ip == prev ? s->next_dec->opcode
						      : opcode_at(prev, s->prev_mode);
}

/* An instruction that may invalidate TLB entries retires next: the translations prove.c
 * remembered go (fetch.c), and the code cache's where it may say a mapping changed (xlate.c). */
static __attribute__((noinline, cold)) void tlb_invalidated(const struct x86_decoded *dec)
{
	ss_code_forget();
	if (!dec || changes_mappings(&dec->insn))
		ss_xlate_code_changed();
}

/* The instruction at f->rip retires next: its opcode, read once (from its decoding, where the
 * step made one), and what is due before it runs and at the trap after it. */
static inline __attribute__((always_inline)) void arm_next(struct ss_state *s, uint64_t ip,
							   const struct x86_decoded *dec,
							   unsigned opcode, bool special)
{
	s->next_opcode = opcode;
	s->next_opcode_ip = ip;
	if (__builtin_expect(invalidates_tlb(opcode), 0))
		tlb_invalidated(dec);
	s->next_whole = special || s->vtf || ss_skip_every;
	/* A plain step's trap lands right after it (x86_step_plain); the run's end is no step
	 * of the workload's. */
	uint64_t after = dec ? ip + dec->step.length : 0;
	s->plain_to = dec && s->hooks.plain && !s->next_whole && dec->step.branch == X86_BR_NONE &&
			      s->prev_mode == X86_MODE_64 && after != (uint64_t)ss_exit
			  ? after
			  : 0;
}

static inline __attribute__((always_inline)) void note_next(struct ss_state *s,
							    struct trap_frame *f)
{
	uint64_t ip = f->rip;
	const struct x86_decoded *dec = s->next_dec && s->next_dec->ip == ip ? s->next_dec : NULL;
	unsigned opcode = dec ? dec->opcode : opcode_at(ip, s->prev_mode);
	bool special = engine_special(opcode);
	arm_next(s, ip, dec, opcode, special);
	if (special)
		before_special(s, opcode, f);
}

/* A trap ss_debug_trap's common path leaves here: after an instruction the engine has work
 * for, a REP iteration or a branch to itself, a change of privilege level, the run's end, the
 * workload stepping itself, option test.ss.skip. `opcode`: the retired instruction's. */
static __attribute__((noinline)) bool debug_trap_whole(struct ss_state *s, struct trap_frame *f,
						       unsigned opcode)
{
	bool special = engine_special(opcode);
	/* With DR7 clear (no breakpoints), the one #DB a stepped instruction can raise besides the
	 * single-step trap is INT1's or INT 1's: DR6.BS tells them apart, cleared before such an
	 * instruction ran (at the trap before it, or set_prev). Elsewhere DR6 is left alone:
	 * reading and writing it on every trap costs QEMU's TCG a helper and a block end. */
	if (special && dr6_matters(opcode)) {
		if (!(read_dr6() & DR6_BS))
			return false;
		write_dr6(DR6_INIT_VALUE); /* DR6 bits are sticky */
	}
	/* SDM Vol. 3B 17.3.1.4: a repeated string instruction traps after every iteration, at
	 * its own address. Those traps are not instructions and not branches: nobody sees them.
	 * (The same address again can also be a taken branch to itself, `loop .`: decode.) */
	if (f->rip == s->prev &&
	    (s->next_dec && s->next_dec->ip == s->prev ? x86_is_rep_string(&s->next_dec->step)
						       : is_rep_string_at(s->prev, s->prev_mode))) {
		s->rep_iterations++;
		return true;
	}
	if (ss_skip_every && skip_trap(s, f))
		return true;
	s->view->cpl_from = s->prev_cpl;
	s->view->cpl_to = f->cs & 3;	/* the privilege level execution continues at */
	bool own = own_trap(s, opcode); /* the workload's TF: this trap is its own too */
	if (special)
		special_step(s, opcode, f);
	else
		report_step(s, s->view, f, s->prev, f->rip);
	move_prev(s, f->rip, f->cs);
	note_next(s, f);
	if (f->rip == (uint64_t)ss_exit) {
		s->active = false; /* TF is clear from here on */
		return true;
	}
	if (own) {
		/* The workload single-steps itself: its #DB goes where it would go without the
		 * engine (trap dispatch: a workload's handler, or an unexpected exception), with
		 * DR6.BS as the processor sets it. */
		write_dr6(DR6_INIT_VALUE | DR6_BS);
		return false;
	}
	ss_block_arm(s, &f->rflags, f);
	return true;
}

_Static_assert(sizeof(struct db_cpu_frame) ==
		   sizeof(struct trap_frame) - __builtin_offsetof(struct trap_frame, rip),
	       "the CPU's frame ends struct trap_frame");
_Static_assert(__builtin_offsetof(struct trap_frame, cs) -
		       __builtin_offsetof(struct trap_frame, rip) ==
		   __builtin_offsetof(struct db_cpu_frame, cs),
	       "CS follows RIP");

bool ss_plain_nothing(void *ctx)
{
	(void)ctx;
	return true;
}

/* Whether the trap landing at `next` in code segment `cs` is the plain single-step trap after
 * s->prev, with nothing else due: ss_debug_trap's common path (and branch_trap's). */
static inline bool ordinary_step(const struct ss_state *s, uint64_t next, uint64_t cs)
{
	uint64_t prev = s->prev;
	return s->next_opcode_ip == prev && !s->next_whole && next != prev &&
	       (cs & 3) == s->prev_cpl && next != (uint64_t)ss_exit &&
	       s->prev_mode == X86_MODE_64 && cs_64bit(cs);
}

/*
 * A block's breakpoint on its last instruction, one that needs a trap of its own (block.c), the
 * short way: where the block ran to it untouched, its plain steps are told to the hooks (as
 * ss_block_cut does) and that instruction is stepped (as block_stop does), unless the engine
 * has work for it (before_special writes the whole frame).
 */
static __attribute__((noinline)) bool block_last_trap(struct ss_state *s, struct db_cpu_frame *c)
{
	uint64_t last = s->blk_last;
	if (s->blk_branch || c->rip != last || (c->cs & 3) != s->prev_cpl || !cs_64bit(c->cs) ||
	    s->vtf || ss_skip_every || !ss_block_intact(s))
		return false;
	const struct x86_decoded *dec = cached_at(s->hooks.cache, last, true, X86_MODE_64);
	if (!dec || engine_special(dec->opcode))
		return false;
	if (s->npre)
		ss_block_prefix_retire(s);
	s->blk_armed = false;
	s->steps += s->blk_n;
	if (s->blk_n && s->hooks.plain != ss_plain_nothing)
		s->hooks.plain_n(s->hooks.ctx, s->blk_n, s->prev_cpl);
	s->prev = last;
	s->next_dec = dec;
	s->plain_to = 0;
	c->rflags |= RFLAGS_TF;
	arm_next(s, last, dec, dec->opcode, false);
	if (!ss_block_arm(s, &c->rflags,
			  frame_of(c))) /* a plain one the block had no room for: a block */
		ss_block_idle(s);
	return true;
}

/*
 * A stepped near JMP, CALL or RET (not in a block: a block's last instruction, or a branch whose
 * target lies on another page) the short way: the step report_step and model_step would make,
 * where the hook takes it whole (ss_hooks.block_branch, no plain steps before it) and the
 * instruction it went to is no special one; then the next block is armed as ss_debug_trap does.
 */
static __attribute__((noinline)) bool branch_trap(struct ss_state *s, struct db_cpu_frame *c)
{
	uint64_t prev = s->prev, next = c->rip;
	const struct x86_decoded *in = s->next_dec;
	if (!s->hooks.block_branch || !ordinary_step(s, next, c->cs) || !in || in->ip != prev ||
	    in->insn.length == 0 || in->insn.mode != X86_MODE_64)
		return false;
	switch (in->step.branch) {
	case X86_BR_JMP_REL:
	case X86_BR_CALL_REL:
		if (next != x86_step_target(&in->step, prev))
			return false; /* redirected: model_step_whole rebuilds it */
		break;
	case X86_BR_JMP_IND:
	case X86_BR_CALL_IND:
	case X86_BR_RET:
		break; /* x86_step_classify: taken, wherever it went */
	default:
		return false;
	}
	unsigned kind = in->step.branch;
	s->next_dec = keep_aside(s, in, prev, next); /* for the long way too, if it comes to it */
	const struct x86_decoded *dec = cached_at(s->hooks.cache, next, true, X86_MODE_64);
	if (!dec || engine_special(dec->opcode))
		return false;
	const struct run_with_branch bb = {
	    .from = prev, .to = next, .kind = kind, .cpl = s->prev_cpl, .taken = true};
	if (!s->hooks.block_branch(s->hooks.ctx, &bb))
		return false;
	s->steps++;
	s->view->cpl_from = s->view->cpl_to = s->prev_cpl;
	s->prev = next;
	s->next_dec = dec;
	arm_next(s, next, dec, dec->opcode, false);
	ss_block_arm(s, &c->rflags, frame_of(c));
	return true;
}

/*
 * Most traps of all, from the engine's entry (the whole frame saved around c, frame_of): a
 * block's breakpoint at its branch's successor (ss_block_trap), or a plain step
 * (note_next armed s->plain_to: the retired instruction's decoding, made before it ran, says
 * no branch, and the trap landed right after it, at the same privilege level), the next
 * instruction decoded before it runs and no instruction the engine has work for, and the
 * hook's short way taking it (ss_hooks.plain). False, with nothing changed but the decode
 * cache: the entry goes on to ss_debug_trap with the whole frame.
 */
TRAP_STEP_HOT bool ss_plain_trap(struct db_cpu_frame *c)
{
	struct ss_state *s = state_here();
	if (!s || !s->active)
		return false;
	if (s->prev_cpl == 3)
		user_access_begin(); /* the code the engine reads is ring 3's (SMAP) */
	if (s->blk_armed) {	     /* a block's breakpoint */
		enum ss_block_short r = ss_block_trap(s, c);
		if (r == SS_SHORT_FED) {
			/* as block_stop goes on after the branch's step */
			c->rflags |= RFLAGS_TF;
			arm_next(s, c->rip, s->next_dec, s->next_dec->opcode, false);
			if (!ss_block_arm(s, &c->rflags, frame_of(c)))
				ss_block_idle(s);
		}
		return r != SS_SHORT_NONE || block_last_trap(s, c);
	}
	if (c->rip != s->plain_to)
		return branch_trap(s, c);
	if ((c->cs & 3) != s->prev_cpl)
		return false;
	const struct x86_decoded *dec = cached_at(s->hooks.cache, c->rip, true, X86_MODE_64);
	if (!dec || engine_special(dec->opcode))
		return false; /* before_special may write the frame */
	if (s->hooks.plain != ss_plain_nothing && !s->hooks.plain(s->hooks.ctx))
		return false;
	s->steps++;
	s->prev = c->rip;
	s->next_dec = dec;
	arm_next(s, c->rip, dec, dec->opcode, false);
	ss_block_arm(s, &c->rflags, frame_of(c));
	return true;
}

/* The #DB of a block's breakpoint (block.c): its instructions retired, the one at the breakpoint
 * is stepped (or the next block armed). Any other #DB while a block runs is not the engine's. */
static __attribute__((noinline)) bool block_stop(struct ss_state *s, struct trap_frame *f)
{
	enum ss_block_stop st = ss_block_cut(s, f, true);
	if (st == SS_BLOCK_OFF_PATH) {
		s->ok_page = 0;
		ss_block_idle(s);
		return false;
	}
	f->rflags |= RFLAGS_TF;
	if (st == SS_BLOCK_BRANCH) {
		/* the branch that ended the block, from the registers after it (nothing ran since)
		 */
		s->view->cpl_from = s->view->cpl_to = s->prev_cpl;
		report_step(s, s->view, f, s->prev, f->rip);
		s->prev = f->rip;
	}
	note_next(s, f);
	if (!ss_block_arm(s, &f->rflags, f))
		ss_block_idle(s);
	s->ok_page = 0;
	return true;
}

/* Every trap ss_plain_trap did not take: the engine's, or not (false: trap dispatch's). */
TRAP_STEP_HOT bool ss_debug_trap(struct trap_frame *f)
{
	struct ss_state *s = state_here();
	if (!s || !s->active)
		return false;
	/* The engine reads the code it steps, and PUSHF's image: ring 3's pages too (SMAP). */
	if (s->prev_cpl == 3 || (f->cs & 3) == 3)
		user_access_begin();
	if (s->blk_armed)
		return block_stop(s, f);
	uint64_t prev = s->prev, next = f->rip;
	if (!ordinary_step(s, next, f->cs))
		return debug_trap_whole(s, f, retired_opcode(s, prev));
	/* The step from prev to next at one privilege level (the user access traps have stays as
	 * it is, move_prev), nothing else due. */
	struct ss_step_view *v = s->view;
	v->cpl_from = v->cpl_to = s->prev_cpl;
	report_step(s, v, f, prev, next);
	s->prev = next;
	note_next(s, f);
	ss_block_arm(s, &f->rflags, f);
	return true;
}

/* The #DB gate's handler's one call (singlestep_entry.S): a plain step or a block's short way
 * (ss_plain_trap), else the long way with the whole frame (ss_debug_trap); false: the #DB is
 * not the engine's. With option ss.stats, each trap counted and timed (measure.c). */
TRAP_STEP_HOT bool ss_trap(struct trap_frame *f)
{
	if (__builtin_expect(ss_count_traps, 0))
		return ss_counted_trap(f);
	return ss_plain_trap(db_frame_of(f)) || ss_debug_trap(f);
}

extern const char ss_debug_entry[];

extern const char ss_xlate_entry[];

void ss_install_entry(void)
{
	idt_set_gate(VEC_DB, (uint64_t)ss_debug_entry, IST_DEBUG, 0);
	/* a translation's hand-back, an INT at CPL 3 (SDM Vol. 3A 6.12.1.1: the gate's DPL) */
	idt_set_gate(VEC_XLATE_HANDBACK, (uint64_t)ss_xlate_entry, IST_NONE, 3);
}

void ss_resume_stepped(struct ss_state *s, struct trap_frame *f)
{
	ss_cut_stepped(s, f);
	note_next(s, f);
	if (!ss_block_arm(s, &f->rflags, f))
		ss_block_idle(s);
}

void ss_cut_stepped(struct ss_state *s, struct trap_frame *f)
{
	s->prev = f->rip;
	s->next_opcode_ip = 0;
	s->plain_to = 0;
	s->next_whole = false;
	s->next_dec = cached_at(s->hooks.cache, f->rip, true, X86_MODE_64);
	f->rflags |= RFLAGS_TF;
}

/* arch_single_step's on_loop, per CPU, for the counted-loop hooks below. */
static void (*step_loops[MAX_CPUS])(void *ctx, uint64_t from, uint64_t to, uint64_t runs);

static bool step_loop_room(void *ctx, const struct run_with_branch *b, uint64_t iterations)
{
	(void)ctx, (void)b, (void)iterations;
	return true; /* the step hooks count nothing that could come due in a loop */
}

static void step_loop_n(void *ctx, const struct run_with_branch *b, uint64_t iterations)
{
	if (b->taken) /* a chain's Jcc not taken (block.c) is no branch record */
		step_loops[this_cpu()->index](ctx, b->from, b->to, iterations);
}

uint64_t arch_single_step(uint64_t (*fn)(uint64_t), uint64_t arg, const struct arch_step_hooks *a,
			  struct arch_step_counts *counts)
{
	struct ss_result r;
	bool loops = a->cache && a->on_loop;
	step_loops[this_cpu()->index] = a->on_loop;
	/* kernel/arch_step.h: on_step is not told of plain steps (sstrace.c takes none of them). */
	struct ss_hooks h = {a->on_step,
			     a->on_transfer,
			     a->ctx,
			     a->cache,
			     a->cache ? ss_plain_nothing : NULL,
			     NULL,
			     NULL,
			     NULL,
			     loops ? step_loop_room : NULL,
			     loops ? step_loop_n : NULL,
			     NULL,
			     NULL};
	ss_run(fn, arg, &h, false, &r);
	*counts = (struct arch_step_counts){.steps = r.steps,
					    .rep_iterations = r.rep_iterations,
					    .rebuilt = r.rebuilt,
					    .escaped_at = r.escaped_at,
					    .dr_refused_at = r.dr_refused_at,
					    .blocks = r.blocks,
					    .block_changed_at = r.block_changed_at,
					    .loops = r.loops,
					    .chains = r.chains,
					    .loop_lost_at = r.loop_lost_at};
	return r.retval;
}

void arch_step_decoded(const struct x86_decoded **in, const struct x86_decoded **upcoming)
{
	ss_step_decoded(in, upcoming);
}

void arch_step_regs(uint64_t *rflags, uint64_t *rcx)
{
	const struct trap_frame *f = ss_step_frame();
	*rflags = f ? f->rflags & ~RFLAGS_TF : 0; /* the engine's TF is not the workload's */
	*rcx = f ? f->rcx : 0;
}

uint64_t ss_workload_ip(const struct trap_frame *f)
{
	const struct ss_state *s = state_here();
	return s && s->active && s->in_trap && s->view->frame ? s->view->frame->rip : f->rip;
}

bool ss_active_here(void)
{
	const struct ss_state *s = state_here();
	return s && s->active && !s->in_trap && !s->exc_frame;
}

/* A step ss_note_exception reports for the frame of an exception: from `from` to `to`. */
static void exception_step(struct ss_state *s, struct trap_frame *f, uint64_t from, uint64_t to)
{
	s->steps++;
	s->view->cpl_from = s->prev_cpl;
	s->view->cpl_to = to == f->rip ? f->cs & 3 : s->prev_cpl;
	s->view->frame = f;
	decode_step(s, s->view, from, to, to == f->rip ? cpu_code_mode(f->cs) : s->prev_mode);
	if (s->hooks.step)
		s->hooks.step(s->hooks.ctx, from, to);
	s->view->frame = NULL;
}

/*
 * An exception or interrupt the workload takes (not the engine's own #DB). Interrupt-gate
 * delivery clears TF, so the handler is not stepped. A trap-class exception (INT3, INT n,
 * INTO) retires its instruction without a single-step trap for it: report that step now, with
 * execution going on at the return address the frame holds. A fault (the instruction did not
 * retire) or an interrupt between instructions leaves the frame's RIP at the instruction that
 * will retire next, which the engine already expects.
 */
void ss_note_exception(struct trap_frame *f)
{
	struct ss_state *s = state_here();
	if (!s)
		return;
	if (!s->active)
		return;
	if (s->xl_active)
		ss_xlate_cut(s, f); /* inside a translation (xlate.c): back to the original code */
	if (s->blk_armed) {
		/* Inside a block run at full speed (block.c): what retired before f->rip is
		 * accounted; the workload goes on stepped (TF in the frame, for an NMI's IRET;
		 * a delivery's handler sees the workload's own, ss_note_delivery). */
		enum ss_block_stop st = ss_block_cut(s, f, false);
		s->blk_same = NULL; /* a handler runs before the next block */
		if (st == SS_BLOCK_BRANCH) {
			exception_step(s, f, s->prev, f->rip); /* the branch ran, then this came */
			s->prev = f->rip;
		}
		ss_block_idle(s);
		f->rflags |= RFLAGS_TF;
	}
	restore_fmask_tf(s);   /* a SYSCALL that did not retire (#UD) */
	ss_code_forget();      /* its handler may change mappings */
	s->exc_from = s->prev; /* the instruction that raised it, for ss_note_delivery */
	s->exc_cpl = s->prev_cpl;
	if (f->rip == s->prev)
		return;
	/* s->prev retired without a trap of its own: an INT3 or INT n raised this, or a trap
	 * went missing (option test.ss.skip) before the instruction at f->rip faulted or was
	 * interrupted, which then is the one the delivery starts from. After MOV SS the
	 * instruction that follows ran too, its trap held back with MOV SS's: MOV SS holds back
	 * debug exceptions and interrupts only (SDM Vol. 3A 6.8.3), so that instruction may raise
	 * this one (an INT3, an INT n), and the record starts at it ("the address of the
	 * instruction that caused the exception", SDM Vol. 3B 17.4.8.1; exactness class 2:
	 * an exception in MOV SS's shadow). */
	unsigned opcode = retired_opcode(s, s->prev);
	uint64_t second = mov_ss_shadowed(opcode, s->prev, s->prev_mode);
	if (second && second != f->rip) {
		exception_step(s, f, s->prev, second);
		s->prev = second; /* the same code segment as the MOV SS */
		opcode = s->next_dec && s->next_dec->ip == second ? s->next_dec->opcode
								  : opcode_at(second, s->prev_mode);
	}
	bool raised_by_prev = opcode == OPC_INT3 || opcode == OPC_INTN || opcode == OPC_INT1 ||
			      (opcode == OPC_INTO && s->prev_mode != X86_MODE_64);
	uint64_t raiser = s->prev;
	unsigned raiser_cpl = s->prev_cpl;
	exception_step(s, f, s->prev, f->rip);
	set_prev(s, f->rip, f->cs);
	s->exc_from = raised_by_prev ? raiser : s->prev;
	s->exc_cpl = raised_by_prev ? raiser_cpl : s->prev_cpl;
}

static void report_transfer(struct ss_state *s, struct trap_frame *f, uint64_t from, uint64_t to,
			    unsigned cpl_from, unsigned cpl_to, bool delivery)
{
	const struct trap_frame *outer =
	    s->view->frame; /* an NMI inside a step: the step's own frame */
	s->view->cpl_from = cpl_from;
	s->view->cpl_to = cpl_to;
	s->view->frame = f;
	if (s->hooks.transfer)
		s->hooks.transfer(s->hooks.ctx, from, to, delivery);
	s->view->frame = outer;
}

/*
 * Exceptions and interrupts are recorded as they are delivered (SDM Vol. 3B 17.4.8.1, 17.4.9:
 * "taken branches, interrupts, and exceptions"), except debug exceptions, which the LBR stack
 * never records (17.4.8.1 "except for debug exceptions"; the model takes that for BTS, and for
 * the handler's return, too). An exception's record starts at the instruction that raised it;
 * an interrupt's (vectors 32-255: here the virtual PMIs) at the instruction it interrupted,
 * which has not executed and is where the handler returns (the SDM sections cited here do not say
 * which address an interrupt's FROM holds; this is the reading Intel PT states for asynchronous
 * events, docs/engine.md). The handler the gate names runs at CPL 0 (cpu/idt.c).
 */
void ss_note_delivery(struct trap_frame *f)
{
	struct ss_state *s = state_here();
	if (!s)
		return;
	if (!s->active || s->exc_frame || f->vector == VEC_NMI)
		return;
	if (f->vector != VEC_DB)
		report_transfer(s, f, s->exc_from, idt_gate_target((unsigned)f->vector), s->exc_cpl,
				HANDLER_CPL, true);
	s->exc_frame = f;
	f->rflags = with_tf(f->rflags, s->vtf); /* the handler reads the workload's RFLAGS */
}

/*
 * A PMI the software PMU sends as an NMI from a step hook arrives inside the engine's #DB
 * handler, where silicon's would interrupt the workload at the next instruction: its delivery
 * and return are recorded there (FROM and back to the stepped workload's next instruction).
 */
bool ss_note_step_nmi(struct trap_frame *f)
{
	struct ss_state *s = state_here();
	if (!s || !s->active || !s->in_trap || !s->view->frame || f->vector != VEC_NMI ||
	    s->nmi_frame)
		return false;
	s->nmi_frame = f;
	report_transfer(s, f, s->view->frame->rip, idt_gate_target(VEC_NMI), s->view->frame->cs & 3,
			HANDLER_CPL, true);
	return true;
}

void ss_note_resume(struct trap_frame *f)
{
	struct ss_state *s = state_here();
	if (!s)
		return;
	if (s->active && s->in_trap && s->nmi_frame == f) {
		s->nmi_frame = NULL; /* the NMI's return: back to the workload, on silicon */
		report_transfer(s, f, (uint64_t)trap_iret, s->view->frame->rip, HANDLER_CPL,
				s->view->frame->cs & 3, false);
		return;
	}
	if (!s->active || s->in_trap)
		return;
	if (s->exc_frame == f) {
		/* The handler's IRETQ (cpu/trap_stubs.S) back into the workload: the TF the
		 * handler left is the workload's, the engine's goes with it. A debug exception's
		 * return is not recorded, as its delivery is not (ss_note_delivery). */
		s->exc_frame = NULL;
		s->vtf = f->rflags & RFLAGS_TF;
		f->rflags |= RFLAGS_TF;
		if (f->vector != VEC_DB)
			report_transfer(s, f, (uint64_t)trap_iret, f->rip, HANDLER_CPL, f->cs & 3,
					false);
	} else if (s->exc_frame) {
		return; /* a trap inside the workload's exception handler */
	} else if (f->rip == s->prev) {
		/* Nothing moved, but the handler may have rewritten the code there: decoded
		 * again before it runs (set_prev). */
		if (s->hooks.cache)
			s->next_dec = cached_at(s->hooks.cache, f->rip, true, s->prev_mode);
		return;
	}
	set_prev(s, f->rip, f->cs); /* nothing retired: the handler chose where it goes on */
	if (s->next_dec && engine_special(s->next_dec->opcode))
		before_special(s, s->next_dec->opcode, f);
}
