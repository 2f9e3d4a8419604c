/* SPDX-License-Identifier: MIT */
/*
 * What a block may write, proven before it runs, so that per-block stepping is exact by
 * construction ("a prediction is a hypothesis"). A block runs at full speed on the engine's
 * prediction that its instructions are the bytes it decoded and, for a counted loop, that its
 * counter steps as its own instructions say. The CPU "executes the bytes present at fetch": a
 * store into an instruction that has not yet run changes what runs (SDM Vol. 3A 8.1.3,
 * "Handling Self- and Cross-Modifying Code"), and paging may map two linear addresses onto one
 * physical byte (SDM Vol. 3A 4.3, 4.5: each linear address goes through its own
 * paging-structure entries to a physical address; nothing keeps two entries from naming the
 * same frame), so a store that does not look like the code or the counter can be either. Bytes
 * compared after the block cannot tell a change a later store put back.
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
#include "arch/x86/step/store_proof.h"

/* A single run's stores [lo[i], hi[i]) (i < n) proven page by page: they keep to at most two
 * linear pages, apart from the block's code and from each other's walks (store_pages_apart),
 * remembered in b with the translations' number; where the same pages were proven before under
 * the same translations, nothing is looked up. False where it does not hold so (the
 * byte-by-byte proof decides). */
static bool run_pages_apart(const struct ss_block *b, const uint64_t *lo, const uint64_t *hi,
			    unsigned n)
{
	uint32_t gen = ss_translation_gen();
	uint64_t pages[2];
	unsigned np = 0;
	for (unsigned i = 0; i < n; i++)
		for (uint64_t p = lo[i] / PAGE_4K; p <= (hi[i] - 1) / PAGE_4K; p++) {
			unsigned j = 0;
			while (j < np && pages[j] != p)
				j++;
			if (j == np && np == 2)
				return false;
			pages[j] = p;
			np += j == np;
		}
	if (!np) /* (a store that spans no page: never, hi > lo) */
		return false;
	uint64_t other = np > 1 ? pages[1] : pages[0];
	if (gen && b->proven_gen == gen &&
	    ((pages[0] == b->proven_page[0] && other == b->proven_page[1]) ||
	     (pages[0] == b->proven_page[1] && other == b->proven_page[0])))
		return true;
	if (!store_pages_apart(ss_translate, b->start, pages, np))
		return false;
	struct ss_block *w = (struct ss_block *)b; /* one of this CPU's: blk_cache */
	w->proven_gen = gen;
	w->proven_page[0] = pages[0];
	w->proven_page[1] = other;
	return true;
}

bool ss_prove_stores(const struct ss_block *b, const struct ss_proof_in *in)
{
	if (!b->stores && !in->push_before)
		return true; /* nothing written: nothing to prove */
	struct x86_gprs g = *in->g;
	uint16_t known = in->known;
	for (unsigned i = 0; i < in->npre; i++) /* the prefixes run first; they store nothing */
		known = store_regs_through(&in->pre[i]->st, &g, known, &g);
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
		    !store_span(&b->st, st, &g, fs, gs, in->trips, &lo[n], &hi[n]))
			return false;
	}
	if (!in->trips && run_pages_apart(b, lo, hi, n))
		return true;
	struct store_proof p = {.code_lo = b->start,
				.code_hi = b->end > b->last ? b->end : b->last + 1,
				.n = n,
				.lo = lo,
				.hi = hi};
	if (in->trips && b->loop.counter == X86_LOOP_SLOT) {
		const struct x86_loop *l = &b->loop;
		p.slot_lo = g.r[l->slot_base] + (uint64_t)(int64_t)l->slot_disp;
		p.slot_hi = p.slot_lo + l->slot_size;
	}
	return store_ranges_apart(ss_translate, &p);
}
