/* SPDX-License-Identifier: MIT */
/*
 * Runs: where the single-step engine (arch/x86/step/) and the software PMU (arch/x86/model/)
 * meet, the one header of either folder that the other includes. A run is what retired between
 * two stops of the engine: plain instructions in a row, the taken (or not taken) direct branch
 * that ends them with its FROM and TO, the exceptions delivered to the workload and their
 * handlers' returns. The engine tells a run to the hooks below as it sees it; the model retires
 * runs (arch/x86/model/model.h: spmu_feed_plain_n, spmu_feed_block, spmu_feed_loop,
 * spmu_feed_transfer); a single step is a run of one (spmu_feed). The session fills the hooks
 * with the model's functions (arch/x86/session/session.c); neither folder calls the other.
 */
#ifndef ARCH_X86_STEP_RUN_H
#define ARCH_X86_STEP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/x86_decode.h"

/* Called for each retired instruction: its address, and where execution goes next. */
typedef void (*ss_step_fn)(void *ctx, uint64_t retired, uint64_t next);

/* A control transfer that is no retired instruction's own branch (SDM Vol. 3B 17.4.8.1: the
 * LBR stack and BTS record "taken branches, interrupts, and exceptions"): the delivery of an
 * exception the workload raised, FROM the instruction that raised it (a trap such as INT3
 * after it retired, a fault without retiring) TO the handler its IDT gate names; and the
 * handler's IRET back, FROM the IRETQ TO where the workload resumes. `delivery` tells the
 * two apart (kernel/arch_step.h's on_transfer has the same type). */
typedef void (*ss_transfer_fn)(void *ctx, uint64_t from, uint64_t to, bool delivery);

/* A block's run (ss_hooks.block_branch, loop_room, loop_n; the model's spmu_feed_block,
 * spmu_feed_loop_room, spmu_feed_loop): n plain steps from a block's start, then the direct
 * branch at `from` that ends them (`kind`: a near JMP, CALL, Jcc, LOOP or JrCXZ with a relative
 * target) on to `to`, its target (taken) or its fall-through, all at privilege level cpl. */
struct run_with_branch {
	uint64_t n, from, to;
	uint64_t next_n; /* true only if plain_room would then answer at least next_n */
	enum x86_branch_kind kind;
	unsigned cpl;
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
	bool (*block_branch)(void *ctx, const struct run_with_branch *b);
	/* Counted loops (block.c, lib/x86_loop.h): whether the hook can take `iterations` runs of
	 * a block (b: its n plain steps, then its branch taken back to its start, b->to) as one
	 * batch and then n plain steps more (the last run's, before its branch goes the long
	 * way), exactly as plain_n and step would have heard of them; the engine asks before the
	 * loop runs, and nothing reaches the hook before the batch (loop_n, with as many runs as
	 * retired, at most `iterations`). NULL: loops are run a trap an iteration. */
	bool (*loop_room)(void *ctx, const struct run_with_branch *b, uint64_t iterations);
	void (*loop_n)(void *ctx, const struct run_with_branch *b, uint64_t iterations);
	/* The code cache (xlate.c): whether the hook can take, at privilege level cpl, any
	 * `runs` runs of at most `steps` steps in all (each run's plain steps and at most one
	 * branch, taken or not), each as plain_n and block_branch would take it, without asking
	 * anything of the engine (no counter overflowing, no BTS threshold, nothing due per
	 * step); the engine asks before the workload runs them and tells them after. NULL: no
	 * translated blocks. */
	bool (*runs_room)(void *ctx, unsigned cpl, uint64_t steps, uint64_t runs);
	/* Then the runs, r[0..k) in the order they ran, within what runs_room promised: each
	 * its n plain steps and, unless its kind is X86_BR_NONE, its branch (its next_n 0).
	 * False where the hook had something to ask after all (a broken promise: the engine
	 * says so, the session fails). */
	bool (*runs_feed)(void *ctx, const struct run_with_branch *r, size_t k);
};
/* The engine's `plain` for hooks that need nothing of plain steps (singlestep.c). */
bool ss_plain_nothing(void *ctx);

#endif
