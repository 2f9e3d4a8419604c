/* SPDX-License-Identifier: MIT */
/*
 * The single-step engine: runs a workload with RFLAGS.TF set, so that after every retired
 * instruction a debug trap (#DB, on its own IST stack) reports it (SDM Vol. 3B 17.3.1.4,
 * "Single-Step Exception Condition"). Whoever runs it hears of the runs through the hooks of
 * arch/x86/step/run.h (the session feeds them to the software PMU). The kernel's own handlers
 * are never stepped: delivery through an interrupt gate clears TF, IRET restores it.
 */
#ifndef ARCH_X86_STEP_SINGLESTEP_H
#define ARCH_X86_STEP_SINGLESTEP_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/step/store_proof.h"
#include "arch/x86/step/run.h"

struct trap_frame;
struct x86_decoded;

/* The code cache's counts over a run (xlate.c, option ss.xlate): entries into translated code,
 * hand-backs (and TSC cycles inside their handler, hooks included, with ss_count_traps), cuts
 * (an interrupt or exception inside), hand-backs of an indirect branch's miss and of a full
 * log, blocks translated, caches started over; what must stay 0: runs the hooks refused after
 * promising room for them (or a log entry that is no run), ring 0 code found changed while it
 * ran translated, the first translated address a cut could not take back. */
struct ss_xlate_stats {
	uint64_t entries, handbacks, cycles, cuts, misses, full, translated, restarts;
	uint64_t refused, changed, lost_at;
};

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
	uint64_t traps;	       /* the engine's #DB handler entries (steps and blocks' stops) */
	uint64_t decoded;      /* blocks decoded (not found remembered) */
	uint64_t trap_cycles;  /* TSC cycles inside that handler, hooks included (ss_count_traps) */
	struct ss_xlate_stats xl; /* translated blocks (xlate.c) */
};
/* Whether the engine measures its handler's time (ss_result.trap_cycles: two RDTSC a trap), and
 * ss_trap's way when it does (measure.c). */
extern bool ss_count_traps;
/* Option ss.xlate.map: say, through `say`, each translated instruction of this CPU's code
 * cache: "xlate-map cpu=N cc=CACHE-ADDRESS orig=ORIGINAL-ADDRESS" (a block's copies, the Jcc
 * or PUSH its direct branch became, the stub a JMP became, an indirect branch's site: " site"
 * after it), after an "xlate-region cpu=N lo=ADDRESS hi=ADDRESS" line: the cache's code. */
extern bool ss_xlate_map_on;
void ss_xlate_say_map(void (*say)(const char *fmt, ...));
bool ss_counted_trap(struct trap_frame *f);

/* How many of the X86_MAX_INSN_LENGTH bytes from ip the engine may read now without a fault:
 * 0 where ip's page is not present or ip is not canonical, fewer where the bytes run onto a page
 * that is not present (fetch.c). */
unsigned ss_code_readable(uint64_t ip);
/* Whether ip's page is present and mapped read-only now (no R/W in some entry of its walk):
 * code that this mapping cannot write (per-block stepping's first rule, block.c). */
bool ss_code_readonly(uint64_t ip);
/* Where linear address va goes through the paging structures CR3 names now (SDM Vol. 3A 4.5,
 * 4-level paging), as store_proof.h's ss_translate_fn says; remembered per CPU as a TLB does
 * (fetch.c). */
bool ss_translate(uint64_t va, struct ss_translation *t);
/* The number of times this CPU forgot its translations (ss_code_forget): one number stands
 * for one set of translations (0: none yet). */
uint32_t ss_translation_gen(void);
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
bool ss_trap(struct trap_frame *f);

/* The entry stub's bounds (in .text.workload, arch/x86/step/singlestep_entry.S). */
extern const char ss_first_insn[], ss_exit[];

/* Instructions CPU cpu's current (or last) single-stepped run has retired so far: another CPU's
 * sign of its progress. */
uint64_t ss_steps_of(unsigned cpu);

#endif
