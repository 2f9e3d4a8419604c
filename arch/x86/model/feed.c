/* SPDX-License-Identifier: MIT */
/* spmu_feed: one step of the single-step engine turned into the model's inputs. */
#include "arch/x86/model/model.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/hw/cpu_regs.h"
#include "arch/x86/model/bts.h"
#include "arch/x86/model/spmu.h"

/* A PMI the model requested, handed to the runner once. */
static unsigned take_pmi(struct spmu *m)
{
	if (!m->pmi_pending)
		return 0;
	m->pmi_pending = false;
	return SPMU_FEED_PMI;
}

/* The step to the counters (and the stand-in cache, for a data access): the whole record
 * PEBS may need. Out of line: most steps have nothing to count. */
static __attribute__((noinline)) void retire_counted(struct spmu *m, const struct spmu_feed_step *s)
{
	const struct trap_frame *f = s->frame;
	/* The registers go into PEBS records only: copied while PEBS is enabled. */
	struct spmu_regs regs;
	/* PEBS may write a record (IA32_PEBS_ENABLE has bits): only then does a step need its
	 * time stamp and registers. */
	bool sampling = m->ctr.pebs_enable != 0;
	if (sampling)
		regs = (struct spmu_regs){
		    .rflags =
			f->rflags & ~RFLAGS_TF, /* the engine's TF is invisible to the model */
		    .rax = f->rax,
		    .rbx = f->rbx,
		    .rcx = f->rcx,
		    .rdx = f->rdx,
		    .rsi = f->rsi,
		    .rdi = f->rdi,
		    .rbp = f->rbp,
		    .rsp = f->rsp,
		    .r8 = f->r8,
		    .r9 = f->r9,
		    .r10 = f->r10,
		    .r11 = f->r11,
		    .r12 = f->r12,
		    .r13 = f->r13,
		    .r14 = f->r14,
		    .r15 = f->r15,
		};
	struct spmu_step st = {
	    .retired = s->retired,
	    .next = s->next,
	    .branch = s->insn.branch != X86_BR_NONE,
	    .cpl = s->cpl_from,
	    .tsc = sampling ? rdtsc() : 0,
	    .regs = sampling ? &regs : NULL,
	    .load = s->load,
	    .store = s->store,
	    .load_addr = s->load_addr,
	    .store_addr = s->store_addr,
	};
	spmu_retire(m, &st);
}

unsigned spmu_feed(struct spmu *m, const struct spmu_feed_step *s)
{
	/* Taken or not from the instruction's semantics (lib/x86_step.h), decided by the runner:
	 * a branch to the next instruction is a branch; a handler resuming elsewhere is not the
	 * instruction's branch. (REP string iterations never get here: the engine swallows them,
	 * arch/x86/step/singlestep.c.) */
	enum x86_step_outcome o = s->outcome;
	/* A taken branch is recorded as it retires, before the counters tick: the branch whose
	 * retirement overflows a counter is in the LBR stack the PMI freezes (the record Linux's
	 * PEBS IP fix-up expects at LBR.TO, SDM Vol. 3B 18.6.2.4.2 / Linux
	 * intel_pmu_pebs_fixup_ip). */
	if (o == X86_STEP_TAKEN)
		spmu_branch(m, s->retired, s->next, (enum x86_branch_kind)s->insn.branch,
			    s->cpl_from, s->cpl_to);
	if (m->ctr.live || s->load || s->store)
		retire_counted(m, s);
	else
		spmu_retire_uncounted(m);
	unsigned out = s->btf_hook && spmu_btf_trap(m) ? SPMU_FEED_BTF_TRAP : 0;
	if (o == X86_STEP_REDIRECTED)
		out |= SPMU_FEED_LOST;
	if (m->ctr.counts_memory)
		out |= SPMU_FEED_MEMORY;
	return out | take_pmi(m);
}

TRAP_STEP_HOT bool spmu_feed_plain(struct spmu *m)
{
	if (m->ctr.live || m->ctr.counts_memory || m->pmi_pending)
		return false;
	spmu_retire_uncounted(m); /* spmu_feed's path for it, without the rest of a step */
	return true;
}

uint64_t spmu_plain_room(struct spmu *m, unsigned cpl)
{
	return m->pmi_pending ? 0 : spmu_counters_plain_room(&m->ctr, cpl);
}

void spmu_feed_plain_n(struct spmu *m, uint64_t n, unsigned cpl)
{
	m->steps_since_lbr += n; /* spmu_retire's, n times */
	spmu_counters_tick_plain(&m->ctr, n, cpl);
}

unsigned spmu_feed_transfer(struct spmu *m, const struct spmu_feed_transfer *t)
{
	spmu_transfer(m, t->from, t->to, t->delivery ? X86_BR_INT : X86_BR_IRET, t->cpl_from,
		      t->cpl_to);
	return take_pmi(m);
}

/* Whether `records` more BTS records at `cpl` neither reach the threshold (a PMI request) nor
 * meet a full or unmapped buffer (bts_store's other ways): then spmu_transfer stores them and
 * asks nothing. */
static bool bts_quiet(struct spmu *m, unsigned cpl, uint64_t records)
{
	if (bts_disposition(m->debugctl, cpl) != BTS_STORED)
		return true;
	const struct ds_area64 *ds = m->lin ? m->lin(m->ds_area) : NULL;
	if (!ds || ds->bts_index < ds->bts_base || ds->bts_index > ds->bts_abs_max ||
	    records > (ds->bts_abs_max - ds->bts_index) / sizeof(struct bts_record))
		return false;
	uint64_t next = ds->bts_index + records * sizeof(struct bts_record);
	return next < ds->bts_threshold;
}

/* One block as spmu_feed would take its steps: the checks are the caller's. */
static void feed_block(struct spmu *m, const struct run_with_branch *b)
{
	spmu_feed_plain_n(m, b->n, b->cpl);
	/* spmu_feed's order: the branch is recorded, then the step counted */
	if (b->taken)
		spmu_branch(m, b->from, b->to, b->kind, b->cpl, b->cpl);
	if (m->ctr.live) {
		const struct spmu_step st = {
		    .retired = b->from, .next = b->to, .branch = true, .cpl = b->cpl};
		spmu_retire(m, &st);
	} else {
		spmu_retire_uncounted(m);
	}
}

/* Whether `steps` steps at `cpl`, `records` of them taken branches, ask nothing of the runner:
 * no PMI pending, no BTF, no counter overflowing, the BTS records stored below the threshold. */
static bool steps_quiet(struct spmu *m, unsigned cpl, uint64_t steps, uint64_t records)
{
	return !m->pmi_pending && !(m->debugctl & DEBUGCTL_BTF) &&
	       spmu_counters_quiet(&m->ctr, steps) && (!records || bts_quiet(m, cpl, records));
}

bool spmu_feed_block(struct spmu *m, const struct run_with_branch *b)
{
	if (!steps_quiet(m, b->cpl, b->n + 1 + b->next_n, b->taken))
		return false;
	feed_block(m, b);
	return true;
}

bool spmu_feed_runs(struct spmu *m, const struct run_with_branch *r, size_t k)
{
	/* feed_block's order for each run (its plain steps, its branch recorded, the branch
	 * retired), the counters moved once for all: spmu_feed_runs_room promised that none
	 * overflows, nothing is armed and no PMI, BTF or BTS threshold comes in between, so
	 * that each tick does nothing but move them, in any order */
	uint64_t plain = 0, branches = 0;
	unsigned cpl = k ? r[0].cpl : 0;
	bool done = spmu_runs_branches(m, r, k);
	for (size_t i = 0; i < k; i++) {
		plain += r[i].n;
		if (!done)
			m->steps_since_lbr += r[i].n;
		if (r[i].kind == X86_BR_NONE)
			continue;
		branches++;
		if (done)
			continue;
		if (r[i].taken)
			spmu_branch(m, r[i].from, r[i].to, r[i].kind, r[i].cpl, r[i].cpl);
		m->steps_since_lbr++; /* spmu_retire's, or spmu_retire_uncounted's */
	}
	spmu_counters_tick_plain(&m->ctr, plain, cpl);
	const struct spmu_tick t = {.branch = true, .cpl = cpl};
	spmu_counters_tick_n(&m->ctr, &t, branches);
	return !m->pmi_pending;
}

bool spmu_feed_runs_room(struct spmu *m, unsigned cpl, uint64_t steps, uint64_t runs)
{
	/* each run ends in one branch at most: `runs` bounds the branches and BTS records */
	return !m->pmi_pending && !(m->debugctl & DEBUGCTL_BTF) &&
	       spmu_counters_quiet_runs(&m->ctr, steps, runs) && (!runs || bts_quiet(m, cpl, runs));
}

bool spmu_feed_loop_room(struct spmu *m, const struct run_with_branch *b, uint64_t iterations)
{
	if (!b->taken || b->n >= UINT32_MAX || iterations >= UINT32_MAX)
		return false; /* the steps below cannot wrap */
	return steps_quiet(m, b->cpl, iterations * (b->n + 1) + b->n, iterations);
}

#define STATS_WORDS (sizeof(struct spmu_stats) / sizeof(uint64_t))
_Static_assert(sizeof(struct spmu_stats) % sizeof(uint64_t) == 0, "the statistics are counters");

/*
 * The runs of a counted loop after its first, fed whole: where no counter counts (so nothing
 * ticks), no BTS record is stored and no architectural LBR records, each run does to the model
 * what the first did: its statistics move by as much, and its LBR record, where the first went
 * on the legacy stack, is the same each time (n + 1 instructions since the one before,
 * spmu_lbr_again); else n + 1 more instructions go by without one.
 */
static void loop_again(struct spmu *m, const struct run_with_branch *b, uint64_t k,
		       const struct spmu_stats *before)
{
	/* the statistics as words, in place (may_alias: GCC's leave to read a struct of uint64_t
	 * through them) */
	typedef uint64_t __attribute__((may_alias)) stats_word;
	stats_word *now = (stats_word *)(void *)&m->stats;
	const stats_word *then = (const stats_word *)(const void *)before;
	bool recorded = m->stats.lbr_recorded != before->lbr_recorded;
	for (unsigned i = 0; i < STATS_WORDS; i++)
		now[i] += k * (now[i] - then[i]);
	if (!recorded) {
		m->steps_since_lbr += k * (b->n + 1);
		return;
	}
	spmu_lbr_again(m, b->from, b->to, b->kind, b->cpl, b->n, k);
	spmu_retire_uncounted(m); /* the last run's branch retires */
}

void spmu_feed_loop(struct spmu *m, const struct run_with_branch *b, uint64_t iterations)
{
	if (iterations <= 1) { /* none, or one run (a prefix block, block.c): no batch */
		if (iterations)
			feed_block(m, b);
		return;
	}
	const struct spmu_stats before = m->stats;
	feed_block(m, b);
	uint64_t k = iterations - 1;
	if (m->ctr.live || spmu_arch_lbr_on(m) ||
	    bts_disposition(m->debugctl, b->cpl) == BTS_STORED) {
		while (k--)
			feed_block(m, b);
		return;
	}
	if (k)
		loop_again(m, b, k, &before);
}
