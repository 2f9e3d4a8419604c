/* SPDX-License-Identifier: MIT */
/*
 * The single-step engine: runs a workload with RFLAGS.TF set, so that after every retired
 * instruction a debug trap (#DB, on its own IST stack) reports it (SDM Vol. 3B 17.3.1.4,
 * "Single-Step Exception Condition"). The software PMU is driven from here. The kernel's own
 * handlers are never stepped: delivery through an interrupt gate clears TF, IRET restores it.
 */
#ifndef ARCH_X86_SPMU_SINGLESTEP_H
#define ARCH_X86_SPMU_SINGLESTEP_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/cpu/percpu.h"

struct trap_frame;
struct x86_decoded;

/* Called for each retired instruction: its address, and where execution goes next. */
typedef void (*ss_step_fn)(void *ctx, uint64_t retired, uint64_t next);

/* A control transfer that is no retired instruction's own branch (SDM Vol. 3B 17.4.8.1: the
 * LBR stack and BTS record "taken branches, interrupts, and exceptions"): the delivery of an
 * exception the workload raised, FROM the instruction that raised it (a trap such as INT3
 * after it retired, a fault without retiring) TO the handler its IDT gate names; and the
 * handler's IRET back, FROM the IRETQ TO where the workload resumes. `delivery` tells the
 * two apart (kernel/arch_step.h's on_transfer has the same type). */
typedef void (*ss_transfer_fn)(void *ctx, uint64_t from, uint64_t to, bool delivery);

/* What ss_hooks.block_branch hears: n plain steps from a block's start, then the branch at
 * `from` (enum x86_branch_kind `kind`: a near JMP, CALL, Jcc, LOOP or JrCXZ with a relative
 * target) on to `to`, its target (taken) or its fall-through, all at privilege level cpl. */
struct ss_block_branch {
	uint64_t n, from, to;
	uint64_t next_n; /* true only if plain_room would then answer at least next_n */
	unsigned kind, cpl;
	bool taken;
};

/* Who hears about a stepped run; transfer may be NULL. With a decode cache (X86_DECODE_CACHE_SIZE
 * entries, zeroed, lib/x86_decode_cache.h) the engine decodes every instruction before it runs
 * and step hooks read the decodings (ss_step_decoded); without, it decodes only what it must. */
struct ss_hooks {
	ss_step_fn step;
	ss_transfer_fn transfer;
	void *ctx;
	struct x86_decoded *cache;
	/* With a cache, or NULL: a plain step (x86_step_plain on the decoding made before the
	 * instruction ran: no branch, on to the next instruction, at one privilege level, nothing
	 * else due in the engine) goes here instead of to `step`, which then hears of it only if
	 * this returns false. ss_plain_nothing: plain steps need nothing from the hook (only
	 * counted, ss_result.steps); the engine does not call it. */
	bool (*plain)(void *ctx);
	/* Per-block stepping (block.c, option ss.block): how many plain steps at privilege level
	 * `cpl` the hook can take as one batch now, each exactly as `plain` would have taken it
	 * (0: none, every step goes its own way); then the batch: n plain steps in a row. NULL:
	 * no batches, unless `plain` is ss_plain_nothing (then any number, and nothing to call). */
	uint64_t (*plain_room)(void *ctx, unsigned cpl);
	void (*plain_n)(void *ctx, uint64_t n, unsigned cpl);
	/* Per-block stepping's short way (block.c, ss_block_trap): a block's n plain steps and
	 * the direct branch that ends it (taken, or on to its fall-through), at one privilege
	 * level, told at once: exactly as plain_n and then step would have heard of them, where
	 * step would have nothing to ask of the engine and plain_room would then answer at least
	 * next_n (the next block's plain steps). False, with nothing changed, where the
	 * hook has more to do: then they go the long way. NULL: always the long way. */
	bool (*block_branch)(void *ctx, const struct ss_block_branch *b);
	/* Counted loops (block.c, lib/x86_loop.h): whether the hook can take `iterations` runs of
	 * a block (b: its n plain steps, then its branch taken back to its start, b->to) as one
	 * batch and then n plain steps more (the last run's, before its branch goes the long
	 * way), exactly as plain_n and step would have heard of them; the engine asks before the
	 * loop runs, and nothing reaches the hook before the batch (loop_n, with as many runs as
	 * retired, at most `iterations`). NULL: loops are run a trap an iteration. */
	bool (*loop_room)(void *ctx, const struct ss_block_branch *b, uint64_t iterations);
	void (*loop_n)(void *ctx, const struct ss_block_branch *b, uint64_t iterations);
};
bool ss_plain_nothing(void *ctx);

struct ss_result {
	uint64_t steps;		 /* instructions retired under TF */
	uint64_t rep_iterations; /* REP string iterations trapped (not steps, not branches) */
	uint64_t rebuilt; /* traps that stood for more than one instruction (arch_step_rebuild) */
	uint64_t retval;  /* the workload's return value */
	uint64_t dr_refused_at;	   /* 0, or the workload's MOV to a debug register that armed
				    * breakpoints of its own: the engine disarmed them (refused) */
	uint64_t escaped_at;	   /* 0, or the instruction after which no trap came any more: the
				    * workload cleared TF where the engine could not keep it, and
				    * ran on unseen (a capture that ended early) */
	uint64_t blocks;	   /* blocks run at full speed (block.c) */
	uint64_t block_changed_at; /* 0, or an instruction of a full-speed block whose bytes
				    * changed under it after a store in the block before it: what
				    * ran there is unknown (block.c) */
	uint64_t loops;		   /* counted loops run to their exit at full speed (block.c) */
	uint64_t chains;       /* blocks run with the block their direct JMP went to (block.c) */
	uint64_t loop_lost_at; /* 0, or the start of a counted loop whose runs its counter
				* did not tell where it stopped: not accounted (block.c) */
};

/* How many of the X86_MAX_INSN_LENGTH bytes from ip the engine may read now without a fault:
 * 0 where ip's page is not present or ip is not canonical, fewer where the bytes run onto a page
 * that is not present (fetch.c). */
unsigned ss_code_readable(uint64_t ip);
/* Whether ip's page is present and mapped read-only now (no R/W in some entry of its walk):
 * code that this mapping cannot write (per-block stepping's first rule, block.c). */
bool ss_code_readonly(uint64_t ip);
/* Forget the pages ss_code_readable and ss_code_readonly found on this CPU (their mappings may
 * change). */
void ss_code_forget(void);

/* Run fn(arg) single-stepped on this CPU, telling h about every instruction and transfer;
 * with `interrupts` the workload runs with RFLAGS.IF set (interrupt handlers are not stepped:
 * delivery clears TF, IRET restores it). */
void ss_run(uint64_t (*fn)(uint64_t), uint64_t arg, const struct ss_hooks *h, bool interrupts,
	    struct ss_result *r);
/* What a hook may read of the step or transfer it is called for, per CPU (inline below: the
 * software PMU asks on every step). */
struct ss_step_view {
	const struct trap_frame *frame; /* NULL outside a hook */
	unsigned cpl_from, cpl_to;
	const struct x86_decoded *in, *upcoming; /* see ss_step_decoded */
};
extern struct ss_step_view ss_step_views[MAX_CPUS];
/* Inside a hook: the CPL the step or transfer starts at and the one execution continues at. */
static inline void ss_step_cpls(unsigned *from, unsigned *to)
{
	const struct ss_step_view *v = &ss_step_views[this_cpu()->index];
	*from = v->cpl_from;
	*to = v->cpl_to;
}
/* Inside a hook: the registers after the retired instruction (the #DB trap frame), or at the
 * exception or its return (the exception's frame). */
static inline const struct trap_frame *ss_step_frame(void)
{
	return ss_step_views[this_cpu()->index].frame;
}
/* Inside a step hook of a run with a decode cache (ss_hooks.cache): the retired instruction's
 * decoding, made from its bytes before it ran, and the next one's, checked against its bytes
 * now (before it runs); NULL where the bytes are no instruction, or without a cache. */
static inline void ss_step_decoded(const struct x86_decoded **in,
				   const struct x86_decoded **upcoming)
{
	const struct ss_step_view *v = &ss_step_views[this_cpu()->index];
	*in = v->in;
	*upcoming = v->upcoming;
}
/* An exception or interrupt the stepped workload takes, before its handler runs: account a
 * trap-class instruction that retired without its own single-step trap (see singlestep.c). */
void ss_note_exception(struct trap_frame *f);
/* Then report its delivery (not a #DB's or an NMI's), and hide the engine's TF in the frame
 * the handler sees (SDM Vol. 3A 6.12.1: the frame holds the workload's RFLAGS). */
void ss_note_delivery(struct trap_frame *f);
/* An NMI inside the engine's #DB handler (a PMI sent as NMI from a step hook): report it as
 * silicon would see it, delivered at the workload's next instruction (its return is reported
 * by ss_note_resume). True if it was one. */
bool ss_note_step_nmi(struct trap_frame *f);
/* Resume observer (cpu/trap.h): the IRET back from the workload's exception (reported, TF set
 * again); a handler that moved the workload's resume address (a fault fixed up by skipping
 * the instruction) moves the engine's "next to retire" with it, so the instruction there is
 * not mistaken for a branch of the faulting one. */
void ss_note_resume(struct trap_frame *f);
/* Whether a workload is being stepped on this CPU. */
bool ss_active_here(void);
/* The workload's instruction an interrupt stands at: the frame's RIP, except for an NMI that
 * arrived inside the engine's own #DB handler (a PMI sent as NMI by the software PMU), which
 * stands where the stepped workload goes on. */
uint64_t ss_workload_ip(const struct trap_frame *f);
/* The engine's #DB entry (singlestep_entry.S) in #DB's IDT gate: set once at boot. */
void ss_install_entry(void);
/* Boot CPU, once the CPUs are up: each one's memory for per-block stepping (block.c). */
void ss_blocks_prepare(unsigned cpus);
/* From the engine's #DB entry (singlestep.c): a plain step, with the CPU's part of the frame
 * only; then any other trap with the whole frame. True if it was the engine's (handled). */
struct db_cpu_frame;
bool ss_plain_trap(struct db_cpu_frame *c);
bool ss_debug_trap(struct trap_frame *f);

/* The entry stub's bounds (in .text.workload, arch/x86/spmu/singlestep_entry.S). */
extern const char ss_first_insn[], ss_exit[];

/* Instructions CPU cpu's current (or last) single-stepped run has retired so far: another CPU's
 * sign of its progress. */
uint64_t ss_steps_of(unsigned cpu);

#endif
