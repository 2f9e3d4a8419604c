/* SPDX-License-Identifier: MIT */
/*
 * What a block's stores may reach, physically: the pure part of the engine's proof
 * (arch/x86/step/prove.c has the rest: the block, the registers, the translations remembered).
 * The reasons and the SDM's rules are prove.c's. Every address here is linear but what the
 * translation function gives; freestanding, host-tested (tests/unit/test_store_proof.c, against
 * a paging model whose aliases the test builds and a byte-by-byte reckoning of its own).
 */
#ifndef ARCH_X86_STEP_STORE_PROOF_H
#define ARCH_X86_STEP_STORE_PROOF_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_mem.h"
#include "lib/x86_stores.h"

/* Where a linear address goes: its physical address, the size of the page that maps it, and the
 * physical frames of the paging-structure tables its walk read (all of them, also where the walk
 * ended at an entry not present: a store there could make it present). */
struct ss_translation {
	uint64_t pa, size;
	uint64_t table[4];
	unsigned ntables;
};
/* False where va is not canonical or not present (t->table[] then holds the walk so far). */
typedef bool (*ss_translate_fn)(uint64_t va, struct ss_translation *t);

/* Store st (of line s) over `trips` more runs after the first, the line's registers stepping
 * as its exit values say (a counted loop's: a register the line leaves at itself plus a
 * constant), from registers g and segment bases fs, gs: its bytes' linear range [*lo, *hi).
 * False where it cannot be said (a register that does not step so, a stride too wide, a range
 * that wraps). */
bool store_span(const struct x86_stores *s, const struct x86_store_ref *st,
		const struct x86_gprs *g, uint64_t fs, uint64_t gs, uint64_t trips, uint64_t *lo,
		uint64_t *hi);

/* The registers after line s from g, of which those in `known` (bit r) are: *after, and which
 * of its registers are known. */
uint16_t store_regs_through(const struct x86_stores *s, const struct x86_gprs *g, uint16_t known,
			    struct x86_gprs *after);

/* Whether no 4-KByte frame of the linear pages `pages` (page numbers, n of them, at most 2) is
 * the frame of the code at `code` or a table of any of their walks: then no store into those
 * pages reaches the code's page or moves a mapping, whatever bytes of them it writes. A page not
 * present is no frame (a store there faults before it writes). */
bool store_pages_apart(ss_translate_fn translate, uint64_t code, const uint64_t *pages, unsigned n);

/* A run: its code [code_lo, code_hi) (every byte present), a counted loop's counter word
 * [slot_lo, slot_hi) (slot_hi 0: none; a store of exactly that range is its own update), its
 * stores [lo[i], hi[i]) for i < n. */
struct store_proof {
	uint64_t code_lo, code_hi, slot_lo, slot_hi;
	unsigned n;
	const uint64_t *lo, *hi;
};
/* Whether no byte the stores write is physically a byte of the code, of the counter or of a
 * paging-structure table on any of the walks, and the counter's word neither code nor table.
 * False also where the ranges are too many or span too many pages to say. */
bool store_ranges_apart(ss_translate_fn translate, const struct store_proof *p);

#endif
