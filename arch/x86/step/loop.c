/* SPDX-License-Identifier: MIT */
/*
 * Counted loops (lib/x86_loop.h, docs/engine.md "Counted loops"): a block whose Jcc goes back to
 * its start, run to its exit with one breakpoint where the registers say how often the Jcc will be
 * taken, its runs told to the hooks at once when it stops, placed by its counter (a fault or an
 * interrupt inside a run: the witness before the stop's instruction says which run).
 */
#include "arch/x86/step/block.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/cpu/usermode.h"

/* `size` bytes (at most 8) of the workload's memory at `at`, zero-extended, where the engine
 * can read them without a fault (fetch.c: present, canonical; ring 3's pages opened, SMAP). */
bool ss_read_workload(const struct ss_state *s, uint64_t at, unsigned size, uint64_t *v)
{
	if (s->prev_cpl == 3)
		user_access_begin();
	if (ss_code_readable(at) < size)
		return false;
	*v = 0;
	__builtin_memcpy(v, (const void *)at, size);
	return true;
}

/* A location of a counted loop now (x86_loop.counter, or a witness's): its register, or the
 * counter's word in memory (read_workload). */
static bool loop_location(const struct ss_state *s, const struct x86_loop *l, unsigned at,
			  const struct x86_gprs *g, uint64_t *x)
{
	if (at != X86_LOOP_SLOT) {
		*x = g->r[at];
		return true;
	}
	return ss_read_workload(s, g->r[l->slot_base] + (uint64_t)(int64_t)l->slot_disp,
				l->slot_size, x);
}

static bool loop_counter(const struct ss_state *s, const struct x86_loop *l,
			 const struct x86_gprs *g, uint64_t *x)
{
	return loop_location(s, l, l->counter, g, x);
}

/* A counted loop's runs as the hooks hear them: n plain steps, its Jcc taken back. */
static struct run_with_branch loop_branch(const struct ss_state *s, const struct ss_block *b)
{
	return (struct run_with_branch){.n = b->n,
					.from = b->last,
					.to = b->start,
					.kind = b->kind,
					.cpl = s->prev_cpl,
					.taken = true};
}

/* A loop's runs counted ahead at most: counting costs one evaluation of its condition a run. */
#define LOOP_TRIPS_MAX (1u << 24)

/*
 * Counted loops (lib/x86_loop.h): where block b is one and the registers f holds now say how
 * often its Jcc will go back, and the hooks take that many runs as one batch (loop_room), it
 * runs to its exit with one breakpoint, on its fall-through: one trap for the whole loop. The
 * runs are told to the hooks when it stops (loop_retire).
 */
bool ss_loop_arm(struct ss_state *s, const struct ss_block *b, const struct trap_frame *f,
		 uint64_t *rflags)
{
	if (!s->hooks.loop_room || !s->hooks.loop_n)
		return false;
	const struct x86_gprs g = trap_frame_gprs(f);
	uint64_t x0, trips;
	if (!loop_counter(s, &b->loop, &g, &x0) ||
	    !x86_loop_trips(&b->loop, x0, &g, LOOP_TRIPS_MAX, &trips) || trips == 0)
		return false;
	/* its stores, over all its runs, reach neither its code nor its counter (prove.c) */
	const struct ss_proof_in in = {.g = &g, .known = SS_ALL_KNOWN, .trips = trips};
	if (b->stores && !ss_prove_stores(b, &in))
		return false;
	const struct run_with_branch bb = loop_branch(s, b);
	if (!s->hooks.loop_room(s->hooks.ctx, &bb, trips))
		return false;
	arm(s, b, rflags, true);
	s->blk_trips = trips;
	s->blk_x0 = x0;
	s->loops++;
	return true;
}

/*
 * A counted loop stopped at f->rip: at its exit's breakpoint, or at a fault or an interrupt
 * inside a run. At the exit the counter must be the one after every run. Inside a run, the
 * witness before the instruction at f->rip (x86_loop.witness: the location that holds the
 * run's starting counter there) says which run it is: the one whose start, among the counters
 * the runs start with (the first, then one step each), the witness holds; the runs before it
 * were whole. Those go to the hooks at once (loop_n); the run f->rip is in goes on as a block's
 * would (ss_block_cut). A counter that says nothing consistent is not guessed: the loop is lost
 * (ss_result.loop_lost_at), the run fails.
 */
void ss_loop_retire(struct ss_state *s, const struct trap_frame *f)
{
	const struct ss_block *b = s->blk;
	const struct x86_loop *l = &b->loop;
	uint64_t trips = s->blk_trips, rip = f->rip, now, x = s->blk_x0, runs = 0;
	s->blk_trips = 0;
	const struct x86_gprs g = trap_frame_gprs(f);
	if (rip == b->to[1]) { /* the exit: all runs whole, the counter stepped in each */
		if (!loop_counter(s, l, &g, &now) || now != x86_loop_after(l, x, trips + 1))
			goto lost;
		runs = trips;
	} else {
		unsigned i = 0;
		uint64_t ip = b->start;
		while (ip < rip && i < b->n)
			ip += b->len[i++];
		if (ip != rip || rip > b->last ||
		    !loop_location(s, l, l->witness[i].at & ~X86_LOOP_WITNESS_32, &g, &now))
			goto lost;
		while (x86_loop_witness_value(l, i, x) != now && runs <= trips) {
			x = x86_loop_next(l, x);
			runs++;
		}
		if (runs > trips)
			goto lost;
	}
	if (runs) {
		const struct run_with_branch bb = loop_branch(s, b);
		s->hooks.loop_n(s->hooks.ctx, &bb, runs);
		s->steps += runs * (b->n + 1u);
		/* a store in one run that changed the code of the next: any change is unknown */
		if (ss_code_readable(b->start) && !same_words(b) && !s->block_changed_at)
			s->block_changed_at = b->start;
	}
	return;
lost:
	if (!s->loop_lost_at)
		s->loop_lost_at = b->start;
}
