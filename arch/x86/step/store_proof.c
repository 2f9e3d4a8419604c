/* SPDX-License-Identifier: MIT */
/* What a block's stores may reach, physically (store_proof.h): pure, host-tested. */
#include "arch/x86/step/store_proof.h"

#define PAGE_4K		4096ull
#define PROVE_RANGES	32	     /* physical ranges a proof keeps, merged where they touch */
#define PROVE_PAGES_MAX 4096u	     /* pages a store's range may span (a counted loop's runs) */
#define STEP_MAX	(1ll << 36)  /* a loop's stride: |stride| * its runs fits */
#define TRIPS_MAX	(1ull << 24) /* runs a span is reckoned over (the engine counts no more) */
#define SPAN_MAX	(1ull << 40) /* a store's range of addresses (x86_stores keeps < 2^32) */

struct phys_set {
	unsigned n;
	uint64_t lo[PROVE_RANGES], hi[PROVE_RANGES];
};

static bool add_range(struct phys_set *p, uint64_t lo, uint64_t hi)
{
	for (unsigned i = 0; i < p->n; i++) {
		if (lo >= p->lo[i] && hi <= p->hi[i])
			return true;
		if (p->hi[i] == lo) {
			p->hi[i] = hi;
			return true;
		}
	}
	if (p->n == PROVE_RANGES)
		return false;
	p->lo[p->n] = lo;
	p->hi[p->n] = hi;
	p->n++;
	return true;
}

static bool overlap(const struct phys_set *a, const struct phys_set *b)
{
	for (unsigned i = 0; i < a->n; i++)
		for (unsigned j = 0; j < b->n; j++)
			if (a->lo[i] < b->hi[j] && b->lo[j] < a->hi[i])
				return true;
	return false;
}

/* The physical ranges linear [lo, hi) maps to now into phys, the walks' tables into tables;
 * `code`: every byte must be present (else false). False where a set is full or the range
 * spans more than PROVE_PAGES_MAX pages. */
static bool map_range(ss_translate_fn translate, uint64_t lo, uint64_t hi, struct phys_set *phys,
		      struct phys_set *tables, bool code)
{
	unsigned pages = 0;
	for (uint64_t va = lo; va < hi;) {
		struct ss_translation t;
		bool present = translate(va, &t);
		for (unsigned i = 0; i < t.ntables; i++)
			if (!add_range(tables, t.table[i], t.table[i] + PAGE_4K))
				return false;
		uint64_t size = present ? t.size : PAGE_4K;
		uint64_t next = (va & ~(size - 1)) + size;
		if (next > hi || next < va)
			next = hi;
		if (present && !add_range(phys, t.pa, t.pa + (next - va)))
			return false;
		if (!present && code)
			return false;
		va = next;
		if (++pages > PROVE_PAGES_MAX)
			return false;
	}
	return true;
}

/* How register r steps from one run of a counted loop (its line s) to the next (its exit value is
 * itself plus a constant), or false. */
static bool run_step(const struct x86_stores *s, unsigned r, int64_t *step)
{
	if (r == X86_STORES_NONE) {
		*step = 0;
		return true;
	}
	const struct x86_stores_value *e = &s->exit[r];
	if (e->var != r || e->var2 != X86_STORES_NONE)
		return false;
	*step = e->off;
	return true;
}

bool store_span(const struct x86_stores *s, const struct x86_store_ref *st,
		const struct x86_gprs *g, uint64_t fs, uint64_t gs, uint64_t trips, uint64_t *lo,
		uint64_t *hi)
{
	uint64_t a = x86_store_address(st, g, fs, gs);
	int64_t sb, si;
	*lo = a;
	*hi = a + st->size + st->span; /* (a range's values: the same in every run) */
	if (st->span >= SPAN_MAX || *hi <= *lo)
		return false; /* (a run's own bytes wrap) */
	if (!trips)
		return true;
	if (trips > TRIPS_MAX || !run_step(s, st->base, &sb) || !run_step(s, st->index, &si) ||
	    sb >= STEP_MAX || sb <= -STEP_MAX || si >= STEP_MAX || si <= -STEP_MAX)
		return false;
	int64_t d = sb + si * (1ll << st->scale); /* |d| < 2^39, |d * trips| < 2^63 */
	if (d >= STEP_MAX || d <= -STEP_MAX)
		return false;
	int64_t span = d * (int64_t)trips;
	if (span > 0)
		*hi += (uint64_t)span;
	else
		*lo += (uint64_t)span;
	return *hi > *lo && *lo <= a && *hi >= a + st->size + st->span;
}

uint16_t store_regs_through(const struct x86_stores *s, const struct x86_gprs *g, uint16_t known,
			    struct x86_gprs *after)
{
	uint16_t k = 0;
	const struct x86_gprs before = *g; /* after may be g itself */
	g = &before;
	for (unsigned r = 0; r < X86_STORES_REGS; r++) {
		struct x86_stores_value v = s->exit[r];
		after->r[r] = 0;
		if (v.var == X86_STORES_UNKNOWN || v.var == X86_STORES_RANGE ||
		    (v.var != X86_STORES_CONST && !(known & (1u << v.var))) ||
		    (v.var2 != X86_STORES_NONE && !(known & (1u << v.var2))))
			continue;
		x86_stores_eval(v, g, &after->r[r]);
		k |= (uint16_t)(1u << r);
	}
	return k;
}

/* The 4-KByte frame a translation's address lies in. */
static uint64_t frame_of_pa(uint64_t pa)
{
	return pa & ~(PAGE_4K - 1);
}

bool store_pages_apart(ss_translate_fn translate, uint64_t code, const uint64_t *pages, unsigned n)
{
	struct ss_translation c, t[2];
	if (n > 2 || !translate(code, &c))
		return false;
	bool present[2];
	for (unsigned i = 0; i < n; i++)
		present[i] = translate(pages[i] * PAGE_4K, &t[i]);
	for (unsigned i = 0; i < n; i++) {
		if (!present[i])
			continue; /* a store there faults before it writes */
		uint64_t f = frame_of_pa(t[i].pa);
		if (f == frame_of_pa(c.pa))
			return false;
		for (unsigned k = 0; k < c.ntables; k++)
			if (f == c.table[k])
				return false;
		for (unsigned j = 0; j < n; j++)
			for (unsigned k = 0; k < t[j].ntables; k++)
				if (f == t[j].table[k])
					return false;
	}
	return true;
}

bool store_ranges_apart(ss_translate_fn translate, const struct store_proof *p)
{
	struct phys_set keep, tables, stores, slot; /* (only n set: a proof runs on every arm) */
	keep.n = tables.n = stores.n = slot.n = 0;
	if (!map_range(translate, p->code_lo, p->code_hi, &keep, &tables, true))
		return false;
	if (p->slot_hi && !map_range(translate, p->slot_lo, p->slot_hi, &slot, &tables, true))
		return false;
	for (unsigned i = 0; i < p->n; i++) {
		if (p->slot_hi && p->lo[i] == p->slot_lo && p->hi[i] == p->slot_hi)
			continue; /* the counter's own update (x86_loop: only its word's base+disp)
				   */
		if (!map_range(translate, p->lo[i], p->hi[i], &stores, &tables, false))
			return false;
	}
	/* the counter's word, written by its own update, is neither code nor a table */
	return !overlap(&stores, &keep) && !overlap(&stores, &tables) && !overlap(&stores, &slot) &&
	       !overlap(&slot, &keep) && !overlap(&slot, &tables);
}
