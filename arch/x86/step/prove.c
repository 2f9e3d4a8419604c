/* SPDX-License-Identifier: MIT */
/*
 * What a block may write, proven before it runs (issue 47: "a prediction is a hypothesis"). A
 * block runs at full speed on the engine's prediction that its instructions are the bytes it
 * decoded and, for a counted loop, that its counter steps as its own instructions say. The CPU
 * "executes the bytes present at fetch": a store into an instruction that has not yet run
 * changes what runs (SDM Vol. 3A 8.1.3, "Handling Self- and Cross-Modifying Code"), and paging
 * may map two linear addresses onto one physical byte (SDM Vol. 3A 4.3, 4.5: each linear
 * address goes through its own paging-structure entries to a physical address; nothing keeps
 * two entries from naming the same frame), so a store that does not look like the code or the
 * counter can be either. Bytes compared after the block cannot tell a change a later store put
 * back.
 *
 * So the engine proves, with the registers of the trap that arms the block, that no byte any of
 * its stores writes (lib/x86_stores.h: each store's address in terms of those registers; a
 * counted loop's, over all its runs) is, physically, a byte of the block's code, of the counted
 * loop's counter (but for the counter's own update), or of a paging-structure table that the
 * walks of these addresses read (a store there could move any of them, SDM Vol. 3A 4.10.4.1
 * "the processor may use" either translation until invalidated). The physical addresses come
 * from the paging structures CR3 names now (ss_translate). A store onto a page that is not
 * present or a non-canonical address faults before it writes (SDM Vol. 3A 6.5: a fault is
 * reported "before the execution of the faulting instruction"), and the fault cuts the block.
 * Where the proof does not hold the block is not armed: it is stepped, an instruction a trap.
 */
#include "arch/x86/step/block.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/pagetable.h"

#define PROVE_RANGES	32	    /* physical ranges a proof keeps, merged where they touch */
#define PROVE_PAGES_MAX 4096u	    /* pages a store's range may span (a counted loop's runs) */
#define STEP_MAX	(1ll << 36) /* a loop's stride: |stride| * LOOP_TRIPS_MAX fits */

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
static bool map_range(uint64_t lo, uint64_t hi, struct phys_set *phys, struct phys_set *tables,
		      bool code)
{
	unsigned pages = 0;
	for (uint64_t va = lo; va < hi;) {
		struct ss_translation t;
		bool present = ss_translate(va, &t);
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

/* How register r steps from one run of counted loop b to the next (its exit value is itself
 * plus a constant), or false. */
static bool run_step(const struct ss_block *b, unsigned r, int64_t *step)
{
	if (r == X86_STORES_NONE) {
		*step = 0;
		return true;
	}
	const struct x86_stores_value *e = &b->st.exit[r];
	if (e->var != r || e->var2 != X86_STORES_NONE)
		return false;
	*step = e->off;
	return true;
}

/* Store st's linear range over `trips` more runs after the first: [*lo, *hi). */
static bool store_span(const struct ss_block *b, const struct x86_store_ref *st,
		       const struct x86_gprs *g, uint64_t fs, uint64_t gs, uint64_t trips,
		       uint64_t *lo, uint64_t *hi)
{
	uint64_t a = x86_store_address(st, g, fs, gs);
	int64_t sb, si;
	*lo = a;
	*hi = a + st->size + st->span; /* (a range's values: the same in every run) */
	if (!trips)
		return *hi > *lo;
	if (!run_step(b, st->base, &sb) || !run_step(b, st->index, &si))
		return false;
	int64_t d = sb + (int64_t)((uint64_t)si << st->scale);
	if (d >= STEP_MAX || d <= -STEP_MAX)
		return false;
	int64_t span = d * (int64_t)trips;
	if (span > 0)
		*hi += (uint64_t)span;
	else
		*lo += (uint64_t)span;
	return *hi > *lo && *lo <= a && *hi >= a + st->size + st->span;
}

/* The registers after block b's straight line and its branch, from g: which are known. */
static uint16_t through(const struct ss_block *b, const struct x86_gprs *g, uint16_t known,
			struct x86_gprs *after)
{
	uint16_t k = 0;
	for (unsigned r = 0; r < X86_STORES_REGS; r++) {
		struct x86_stores_value v = b->st.exit[r];
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

/* Whether no frame of `pages` (linear page numbers, n of them) is the code's frame or a table
 * of any of their walks: then no store into those pages can reach the code or move a mapping,
 * whatever bytes of them it writes. */
static bool pages_apart(uint64_t code, const uint64_t *pages, unsigned n)
{
	struct ss_translation c, t[2];
	if (!ss_translate(code, &c))
		return false;
	bool present[2];
	for (unsigned i = 0; i < n; i++)
		present[i] = ss_translate(pages[i] * PAGE_4K, &t[i]);
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

/* A single run's stores [lo[i], hi[i]) (i < n) proven page by page: they keep to at most two
 * linear pages, remembered in b with the translations' number, apart from its code
 * (pages_apart); where that was proven before under the same translations, nothing is looked
 * up. False where it does not hold so (the byte-by-byte proof decides). */
static bool run_pages_apart(const struct ss_block *b, const uint64_t *lo, const uint64_t *hi,
			    unsigned n)
{
	uint32_t gen = ss_translation_gen();
	uint64_t pages[2];
	unsigned np = 0;
	bool known = gen && b->proven_gen == gen;
	for (unsigned i = 0; i < n; i++)
		for (uint64_t p = lo[i] / PAGE_4K; p <= (hi[i] - 1) / PAGE_4K; p++) {
			if (known && (p == b->proven_page[0] || p == b->proven_page[1]))
				continue;
			known = false;
			unsigned j = 0;
			while (j < np && pages[j] != p)
				j++;
			if (j == np && np == 2)
				return false;
			pages[j] = p;
			np += j == np;
		}
	if (known)
		return true;
	if (!np) /* (a store that spans no page: never, hi > lo) */
		return false;
	if (!pages_apart(b->start, pages, np))
		return false;
	struct ss_block *w = (struct ss_block *)b; /* one of this CPU's: blk_cache */
	w->proven_gen = gen;
	w->proven_page[0] = pages[0];
	w->proven_page[1] = np > 1 ? pages[1] : pages[0];
	return true;
}

bool ss_prove_stores(struct ss_state *s, const struct ss_block *b, const struct ss_proof_in *in)
{
	(void)s;
	if (!b->stores && !in->push_before)
		return true; /* nothing written: nothing to prove */
	struct x86_gprs g = *in->g;
	uint16_t known = in->known;
	for (unsigned i = 0; i < in->npre; i++) /* the prefixes run first; they store nothing */
		known = through(in->pre[i], &g, known, &g);
	uint64_t fs = 0, gs = 0;
	for (unsigned i = 0; i < b->st.n; i++)
		if (b->st.st[i].seg) {
			cpu_segment_bases(&fs, &gs);
			break;
		}
	/* every store's linear range (a counted loop's over all its runs) */
	uint64_t lo[X86_STORES_MAX + 1], hi[X86_STORES_MAX + 1];
	unsigned n = 0;
	if (in->push_before) {
		lo[n] = in->push_before - sizeof(uint64_t);
		hi[n++] = in->push_before;
	}
	for (unsigned i = 0; i < b->st.n; i++, n++) {
		const struct x86_store_ref *st = &b->st.st[i];
		if ((st->base != X86_STORES_NONE && !(known & (1u << st->base))) ||
		    (st->index != X86_STORES_NONE && !(known & (1u << st->index))) ||
		    !store_span(b, st, &g, fs, gs, in->trips, &lo[n], &hi[n]))
			return false;
	}
	if (!in->trips && run_pages_apart(b, lo, hi, n))
		return true;
	struct phys_set keep, tables, stores, slot; /* (only n set: a proof runs on every arm) */
	keep.n = tables.n = stores.n = slot.n = 0;
	if (!map_range(b->start, b->end > b->last ? b->end : b->last + 1, &keep, &tables, true))
		return false;
	uint64_t slot_lo = 0, slot_hi = 0;
	if (in->trips && b->loop.counter == X86_LOOP_SLOT) {
		const struct x86_loop *l = &b->loop;
		slot_lo = g.r[l->slot_base] + (uint64_t)(int64_t)l->slot_disp;
		slot_hi = slot_lo + l->slot_size;
		if (!map_range(slot_lo, slot_hi, &slot, &tables, true))
			return false;
	}
	for (unsigned i = 0; i < n; i++) {
		if (slot_hi && lo[i] == slot_lo && hi[i] == slot_hi)
			continue; /* the counter's own update (x86_loop: only its word's base+disp)
				   */
		if (!map_range(lo[i], hi[i], &stores, &tables, false))
			return false;
	}
	/* the counter's word, written by its own update, is neither code nor a table */
	return !overlap(&stores, &keep) && !overlap(&stores, &tables) && !overlap(&stores, &slot) &&
	       !overlap(&slot, &keep) && !overlap(&slot, &tables);
}
