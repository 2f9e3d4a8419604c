/* SPDX-License-Identifier: MIT */
/*
 * The door to the single-step engine (arch/x86/step/singlestep.c): a function run under the
 * trap flag, each retired instruction told to the caller (kernel/sstrace.c).
 */
#ifndef KERNEL_ARCH_STEP_H
#define KERNEL_ARCH_STEP_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_step.h"

/* A test build's (option test.ss.skip, make test-knobs): the single-step engine leaves out every
 * Nth trap whose path the code decides, as a platform that skips single-step traps would, so that
 * the step hooks must rebuild the path (arch_step_rebuild); 0 = none. */
void arch_set_step_skip(unsigned every);
/* Option ss.block: the single-step engine runs straight-line code at full speed with a trap per
 * block (on, the default) or traps after every instruction (off, test only). */
void arch_set_step_block(bool on);
/* Option ss.xlate: ring 3 code runs translated, its runs logged (a code cache, the same
 * records), or a trap per block. */
void arch_set_step_xlate(bool on);
/* Option ss.xlate.map: after each session, the translated instructions' addresses. */
void arch_set_step_xlate_map(bool on);
/* Option ss.stats: the engine counts its traps and times its handler (ss_result). */
void arch_set_step_stats(bool on);
/* What a single-stepped run counted (arch_single_step). */
struct arch_step_counts {
	uint64_t steps;		   /* instructions retired under the trap flag */
	uint64_t rep_iterations;   /* REP string iterations trapped (not steps, not branches) */
	uint64_t rebuilt;	   /* traps that stood for more than one instruction (their path
				    * rebuilt from the code, arch_step_rebuild) */
	uint64_t escaped_at;	   /* 0, or the instruction after which no trap came any more */
	uint64_t dr_refused_at;	   /* 0, or the MOV to a debug register that armed breakpoints of
				    * the workload's own, which the engine disarmed (refused) */
	uint64_t blocks;	   /* blocks run at full speed (per-block stepping) */
	uint64_t block_changed_at; /* 0, or where a full-speed block's code changed under it:
				    * what ran there is not known */
	uint64_t loops;		   /* counted loops run to their exit at full speed */
	uint64_t chains;	   /* blocks run with the block their direct JMP went to, as one */
	uint64_t loop_lost_at;	   /* 0, or a counted loop whose runs could not be placed */
};
/* Run fn(arg) single-stepped on this CPU: on_step(ctx, retired, next) for every retired
 * instruction (with a cache, but the plain ones: x86_step_plain on the decoding made before the
 * instruction ran, no branch and on to the next one, which are only counted), on_transfer(ctx,
 * from, to, delivery) (if not NULL) for every transfer that is no instruction's branch but is
 * recorded as one (an exception's or interrupt's delivery to its handler, and the handler's
 * return). `cache` (X86_DECODE_CACHE_SIZE entries, zeroed, lib/x86_decode_cache.h) holds the
 * instructions' decodings (arch_step_decoded). With a cache and on_loop (else NULL), a counted
 * loop (lib/x86_loop.h) runs at full speed: its Jcc's `runs` takings back, from `from` to
 * `to`, come to on_loop at once instead of to on_step (the last run's, not taken, to on_step).
 * Returns fn's result. */
struct x86_decoded;
struct arch_step_hooks {
	void (*on_step)(void *ctx, uint64_t retired, uint64_t next);
	void (*on_transfer)(void *ctx, uint64_t from, uint64_t to, bool delivery);
	void (*on_loop)(void *ctx, uint64_t from, uint64_t to, uint64_t runs);
	void *ctx;
	struct x86_decoded *cache;
};
uint64_t arch_single_step(uint64_t (*fn)(uint64_t), uint64_t arg, const struct arch_step_hooks *h,
			  struct arch_step_counts *counts);
/* TSC cycles fn(arg) takes under the trap flag with a #DB handler that only returns (IRETQ):
 * the platform's own trap round trip per instruction, the floor under the engine's step. For
 * benchmarks, with the other CPUs idle (the IDT is shared). */
uint64_t arch_step_floor(uint64_t (*fn)(uint64_t), uint64_t arg);
/* What per-block stepping's breakpoints cost the platform (make bench): TSC cycles of
 * `iterations` runs of a loop of ARCH_BP_LOOP_INSNS instructions, run plain, with an instruction
 * breakpoint armed on the loop's page that is never hit (QEMU's TCG then runs that page one
 * instruction a translation block), and with one hit every iteration by a #DB handler that only
 * sets RF and returns. For benchmarks, with the other CPUs idle (the IDT is shared). */
#define ARCH_BP_LOOP_INSNS 9
struct arch_bp_cost {
	uint64_t plain, same_page, hit;
};
void arch_step_bp_cost(uint64_t iterations, struct arch_bp_cost *c);
/* Inside on_step: the retired instruction's decoding, made from its bytes before it ran, and
 * the next one's, from its bytes now (before it runs); NULL where the bytes are no
 * instruction. */
void arch_step_decoded(const struct x86_decoded **in, const struct x86_decoded **upcoming);
/* Inside on_step, when `next` is not where the retired instruction leads (x86_step_classify
 * said X86_STEP_REDIRECTED): the path one trap stood for, rebuilt from the code
 * (lib/x86_step.h x86_path_rebuild, reading only mapped code); the run's step count grows by
 * the instructions found. Returns their number, 0 or -1 as x86_path_rebuild. */
int arch_step_rebuild(uint64_t retired, const struct x86_step_insn *in, uint64_t next,
		      const struct x86_step_regs *after, struct x86_path_step path[X86_PATH_MAX]);
/* Inside on_step: RFLAGS (the engine's TF hidden) and RCX after the retired instruction, what
 * lib/x86_step.h needs to tell a taken conditional branch. */
void arch_step_regs(uint64_t *rflags, uint64_t *rcx);

#endif
