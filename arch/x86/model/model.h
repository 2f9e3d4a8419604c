/* SPDX-License-Identifier: MIT */
/*
 * The software PMU as the rest of the kernel sees it: opaque. Outside arch/x86/model/ only the
 * MSR accessor (arch/x86/pmu/access.c) sees struct spmu; the session runner picks a
 * personality and feeds the model each step and run the single-step engine reports (the runs
 * of arch/x86/step/run.h, the one header of the engine's this folder includes), and learns from
 * the result whether the model wants the workload's #DB (BTF) or a PMI delivered.
 */
#ifndef ARCH_X86_MODEL_MODEL_H
#define ARCH_X86_MODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/step/run.h"
#include "lib/x86_step.h"

struct spmu;
struct spmu_personality;
struct trap_frame;
struct trace_caps;

const struct spmu_personality *spmu_personality_find(const char *name);
const struct spmu_personality *spmu_personality_at(unsigned i);
const char *spmu_personality_name(const struct spmu_personality *p);
const char *spmu_personality_what(const struct spmu_personality *p); /* the processor, a line */
/* The capability record the model presents (decoded from its personality like silicon's). */
const struct trace_caps *spmu_caps(const struct spmu *m);
const struct spmu_personality *spmu_personality_of(const struct spmu *m);

/* One instruction the engine saw retire, decoded. */
struct spmu_feed_step {
	uint64_t retired, next;
	struct x86_step_insn insn; /* the retired instruction, decoded */
	/* What it did (lib/x86_step.h x86_step_classify, or a rebuilt path's step):
	 * X86_STEP_TAKEN is recorded as a branch; X86_STEP_REDIRECTED is a step whose path could
	 * not be followed (SPMU_FEED_LOST). */
	enum x86_step_outcome outcome;
	unsigned cpl_from, cpl_to;
	const struct trap_frame *frame; /* the registers after it (the engine's #DB frame; inside a
					 * rebuilt path, those after the path's last instruction) */
	bool btf_hook; /* the runner delivers BTF traps (else a pending one stays pending) */
	/* Its data accesses, addresses from the registers before it (lib/x86_mem.h); asked
	 * for only while the previous step said SPMU_FEED_MEMORY. */
	bool load, store;
	uint64_t load_addr, store_addr;
};

/* What the step asks of the runner. */
#define SPMU_FEED_BTF_TRAP 1u /* BTF: deliver the workload's single-step #DB */
#define SPMU_FEED_PMI	   2u /* a PMI is pending: deliver it */
#define SPMU_FEED_LOST	   4u /* execution went where the instruction cannot lead: not followed */
#define SPMU_FEED_MEMORY                                                                           \
	8u /* an enabled counter counts loads or stores: report the next                           \
	    * step's accesses */

unsigned spmu_feed(struct spmu *m, const struct spmu_feed_step *s);
/* The most common step, told short: an instruction that is no branch went on to the next one,
 * with no data access to report and no BTF hook (spmu_feed_step's btf_hook clear). True if the
 * model took it so and asks nothing of the runner (spmu_feed would return 0); false if it did
 * not take it (a counter counts, or counts data accesses, or a PMI is pending): then the step
 * goes to spmu_feed. */
bool spmu_feed_plain(struct spmu *m);
/* Per-block stepping: how many plain steps at `cpl` spmu_feed_plain_n may take at once, each as
 * spmu_feed would have taken it (no counter overflows or writes a PEBS record on the way, no
 * PMI is pending, memory events are not counted); then n of them. */
uint64_t spmu_plain_room(struct spmu *m, unsigned cpl);
void spmu_feed_plain_n(struct spmu *m, uint64_t n, unsigned cpl);

/* Per-block stepping's short way: a block's run (arch/x86/step/run.h): n plain steps at `cpl`
 * (as spmu_feed_plain_n), then the direct branch at `from` that ends them, to `to` (taken, or its
 * fall-through), as spmu_feed would take that step with nothing else to report (no data access,
 * no BTF hook, no redirection). True if the model took them so and asks nothing of the runner
 * (spmu_feed would return 0: no PMI, no PEBS record, no BTF trap) and spmu_plain_room then
 * answers at least next_n; false, with nothing changed, where it might ask more or the room is
 * less. */
bool spmu_feed_block(struct spmu *m, const struct run_with_branch *b);
/* Whether `runs` runs of at most `steps` steps in all at cpl (each ending in one branch at
 * most), fed as spmu_feed_plain_n and spmu_feed_block take them, ask nothing (the code
 * cache's room). */
bool spmu_feed_runs_room(struct spmu *m, unsigned cpl, uint64_t steps, uint64_t runs);
/* Runs r[0..k) at one privilege level, each as spmu_feed_plain_n and spmu_feed_block take
 * it (kind X86_BR_NONE: its plain steps alone), where spmu_feed_runs_room said yes for them
 * all before they ran. False where a PMI came due all the same (a broken promise). */
bool spmu_feed_runs(struct spmu *m, const struct run_with_branch *r, size_t k);
/* Counted loops: whether `iterations` blocks b (b->to: the Jcc taken back to the block's start)
 * and then b->n plain steps more go as spmu_feed_block would take each, asking nothing of the
 * runner on the way (b->next_n is not read); then the iterations, at once. */
bool spmu_feed_loop_room(struct spmu *m, const struct run_with_branch *b, uint64_t iterations);
void spmu_feed_loop(struct spmu *m, const struct run_with_branch *b, uint64_t iterations);

/* A transfer the engine reported (arch/x86/step/run.h, ss_transfer_fn): an exception's
 * delivery (recorded as INT-class) or its handler's IRET. No instruction retires. Returns
 * SPMU_FEED_PMI or 0. */
struct spmu_feed_transfer {
	uint64_t from, to;
	bool delivery; /* else the return */
	unsigned cpl_from, cpl_to;
};
unsigned spmu_feed_transfer(struct spmu *m, const struct spmu_feed_transfer *t);

#endif
