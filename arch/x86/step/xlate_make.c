/* SPDX-License-Identifier: MIT */
/*
 * Translating a block for the code cache (docs/engine.md "Translated blocks"): its plain
 * instructions copied, the direct branch that ends it with a stub per way out, or the indirect
 * branch that ends it as a site (lib/x86_xlate.h); a target stub for an indirect branch's
 * target. Made in a scratch buffer and copied into the code in whole words.
 */
#include "arch/x86/step/xlate.h"

/* Whether the decoded instruction may be copied into a translation: one a block may run
 * (ss_insn_plain), or a REP string instruction. The engine steps a REP string's iterations
 * (each traps, SDM Vol. 3B 17.3.1.4) and counts it one instruction, no branch, when it is done;
 * translated it runs whole, or is interrupted with RIP still on it and its registers where
 * its iterations left them (SDM Vol. 2B "REP": "the instruction ... can be interrupted"), then
 * stepped on from there (ss_xlate_cut): one instruction either way. */
static bool xlate_plain(const struct x86_decoded *d)
{
	return ss_insn_plain(d) || (x86_is_rep_string(&d->step) && d->step.branch == X86_BR_NONE &&
				    !engine_special(d->opcode));
}

/* The ways out of a block ending at decoding d (at ip): its direct branch's, or none. */
static unsigned ways_out(const struct x86_decoded *d, uint64_t ip, unsigned *cc, uint64_t to[2])
{
	if (!d || d->insn.mode != X86_MODE_64 || !d->step.has_rel ||
	    d->step.ip_size != sizeof(uint64_t) || d->insn.operand16)
		return 0;
	uint64_t next = ip + d->insn.length;
	to[0] = x86_branch_target(&d->insn, ip);
	switch (d->step.branch) {
	case X86_BR_JCC:
		to[1] = next;
		return x86_xlate_jcc_cond(&d->insn, cc) ? 2 : 0;
	case X86_BR_JMP_REL:
		return 1;
	case X86_BR_CALL_REL:
		return (uint64_t)(int64_t)(int32_t)next == next ? 1 : 0;
	default:
		return 0;
	}
}

/* A run of the block being translated, its stub emitted at code offset `at`. */
static bool add_run(struct xl_cpu *x, uint8_t *out, uint32_t at, const struct xl_run *r)
{
	uint32_t id = x->nruns;
	if (!x86_xlate_stub(out, xl_code_va(x) + at, x->va, id))
		return false;
	x->runs[x->nruns] = *r;
	x->runs[x->nruns++].stub = at;
	return true;
}

/* Translate the block at start (d: its first instruction's decoding); NULL where none. */
/* Into the code in whole words, from the scratch buffer: a store to a page QEMU has translated
 * code of costs it a look for that code (its TCG's self-modifying-code check) a store at a
 * time. The next free byte moves past them. */
static void place(struct xl_cpu *x, uint32_t at, uint32_t end)
{
	uint32_t words = (end - at + 7) / 8;
	for (uint32_t i = 0; i < words; i++) {
		uint64_t w;
		__builtin_memcpy(&w, x->scratch + 8 * i, sizeof(w));
		__builtin_memcpy(x->code + at + 8 * i, &w, sizeof(w));
	}
	x->used = at + 8 * words;
}

/* Block b's original bytes, from its start to end, kept for still_valid. */
static void keep_orig(struct xl_cpu *x, struct xl_block *b, uint64_t end)
{
	b->orig = x->norig;
	b->orig_len = (uint16_t)(end - b->start);
	__builtin_memcpy(x->orig + x->norig, (const void *)b->start, b->orig_len);
	x->norig += b->orig_len;
}

/* Whether the decoding d at ip is an indirect near branch the site translates. */
static bool indirect_site(const struct x86_decoded *d)
{
	return d && d->insn.mode == X86_MODE_64 &&
	       (d->step.branch == X86_BR_RET || d->step.branch == X86_BR_JMP_IND ||
		d->step.branch == X86_BR_CALL_IND);
}

/* Translate the block at start (d: its first instruction's decoding); NULL where none. */
/* The block being translated: where it starts, its code's offset, its first instruction's
 * slot, the scratch buffer its bytes go to (from `at`), their address; as copy_body leaves
 * it, its plain instructions' count and bytes, and where the instruction after them lies. */
struct making {
	uint64_t start, base, ip;
	uint32_t at, first;
	uint8_t *out;
	unsigned n, len;
	const struct x86_decoded *d; /* the instruction after them, or NULL */
};

/* The block's plain instructions copied, at most XLATE_BLOCK_MAX, from read-only pages. */
static void copy_body(struct ss_state *s, struct xl_cpu *x, struct making *m)
{
	const struct x86_decoded *d = m->d;
	while (m->n < XLATE_BLOCK_MAX && d && xlate_plain(d) && xl_may_translate(x, m->ip) &&
	       ss_code_readonly(m->ip) && ss_code_readonly(m->ip + d->insn.length - 1)) {
		unsigned l = x86_xlate_copy(m->out + m->len, m->base + m->len,
					    (const uint8_t *)d->bytes, &d->insn, m->ip);
		if (!l)
			break;
		x->insns[m->first + m->n] =
		    (struct xl_insn){(uint16_t)m->len, (uint16_t)(m->ip - m->start)};
		m->len += l;
		m->ip += d->insn.length;
		m->n++;
		d = cached_at(s->hooks.cache, m->ip, true, X86_MODE_64);
	}
	m->d = d;
}

/* The block ending in the indirect branch m->d, as a site; false where it has none. */
static bool make_site(struct xl_cpu *x, struct making *m, struct xl_block *b)
{
	const struct x86_decoded *d = m->d;
	if (!x86_xlate_site(m->out + m->len, m->base + m->len, x->va, xl_table_va(x),
			    (const uint8_t *)d->bytes, &d->insn, m->ip, x->nruns, &b->site))
		return false;
	x->insns[m->first + m->n] =
	    (struct xl_insn){(uint16_t)m->len, (uint16_t)(m->ip - m->start)};
	b->n = (uint8_t)(m->n + 1);
	b->body_end = m->at + m->len;
	b->type = XB_SITE;
	x->runs[x->nruns] = (struct xl_run){.from = m->ip,
					    .n = (uint8_t)m->n,
					    .kind = (uint8_t)d->step.branch,
					    .what = RUN_SITE,
					    .rsp = b->site.rsp,
					    .taken = true,
					    .stub = b->body_end};
	x->nruns++;
	x->ninsns = m->first + b->n;
	xl_insert(x, x->nblocks++);
	keep_orig(x, b, m->ip + d->insn.length);
	place(x, m->at, b->body_end + b->site.len);
	return true;
}

struct xl_block *xl_translate(struct ss_state *s, struct xl_cpu *x, uint64_t start,
			      const struct x86_decoded *d)
{
	if (x->nblocks + 2 > XLATE_BLOCKS || x->nruns + 3 > XLATE_RUNS ||
	    x->ninsns + XLATE_BLOCK_MAX + 1 > XLATE_INSNS ||
	    x->norig + (XLATE_BLOCK_MAX + 1) * X86_MAX_INSN_LENGTH > XLATE_ORIG ||
	    x->used + XLATE_BLOCK_BYTES > XLATE_CODE_PAGES * PAGE_4K) {
		xl_forget(x); /* full: everything translated again as it runs */
		xl_make_ready(x);
		s->xl.restarts++;
	}
	s->xl.translated++;
	struct making m = {.start = start,
			   .ip = start,
			   .at = x->used,
			   .first = x->ninsns,
			   .out = x->scratch,
			   .d = d};
	m.base = xl_code_va(x) + m.at;
	copy_body(s, x, &m);
	d = m.d;
	uint64_t ip = m.ip, base = m.base;
	uint32_t at = m.at, first = m.first;
	unsigned n = m.n, len = m.len;
	uint8_t *out = m.out;
	unsigned cc = 0;
	uint64_t to[2] = {0, 0};
	bool on_ro = d && xl_may_translate(x, ip) && ss_code_readonly(ip) &&
		     ss_code_readonly(ip + d->insn.length - 1);
	unsigned ways = on_ro ? ways_out(d, ip, &cc, to) : 0;
	struct xl_block *b = &x->blocks[x->nblocks];
	*b = (struct xl_block){.start = start, .cc = at, .first = first, .run = x->nruns};
	if (!ways && on_ro && indirect_site(d) && make_site(x, &m, b))
		return b;  /* the site of an indirect branch ends the block */
	if (!n && !ways) { /* remembered as none: stepped, not decoded again each time */
		*b = (struct xl_block){.start = start, .cc = at, .body_end = at, .first = first};
		xl_insert(x, x->nblocks++);
		return b;
	}
	uint8_t kind = ways ? (uint8_t)d->step.branch : X86_BR_NONE;
	struct xl_run r = {
	    .from = ip, .n = (uint8_t)n, .kind = kind, .what = ways ? RUN_BRANCH : RUN_PLAIN};
	if (ways) {
		x->insns[first + n] = (struct xl_insn){(uint16_t)len, (uint16_t)(ip - start)};
		if (kind == X86_BR_JCC) {
			/* Jcc to the second stub (taken); the first (not taken) follows it */
			unsigned l = x86_xlate_jcc(out + len, base + len, cc,
						   base + len + XLATE_JCC_LEN + XLATE_STUB_LEN);
			len += l;
		} else if (kind == X86_BR_CALL_REL) {
			len += x86_xlate_push(out + len, ip + d->insn.length);
		}
		b->n = (uint8_t)(n + 1);
	} else {
		b->n = (uint8_t)n;
	}
	b->body_end = at + len;
	b->type = XB_STUBS;
	bool ok = true;
	if (kind == X86_BR_JCC) {
		r.to = to[1];
		ok = add_run(x, out + len, b->body_end, &r);
		r.to = to[0];
		r.taken = true;
		ok = ok && add_run(x, out + len + XLATE_STUB_LEN, b->body_end + XLATE_STUB_LEN, &r);
		b->nstubs = 2;
	} else {
		r.to = ways ? to[0] : ip;
		r.taken = ways != 0;
		ok = add_run(x, out + len, b->body_end, &r);
		b->nstubs = 1;
	}
	if (!ok) {
		x->nruns = b->run;
		return NULL;
	}
	x->ninsns = first + b->n;
	xl_insert(x, x->nblocks++);
	/* ways out to blocks translated already (itself too): linked now */
	for (unsigned k = 0; k < b->nstubs; k++) {
		const struct xl_run *w = &x->runs[b->run + k];
		const struct xl_block *t = xl_find(x, w->to);
		if (t && t->type != XB_NONE)
			x86_xlate_stub_link(out + (w->stub - at), xl_code_va(x) + w->stub,
					    xl_code_va(x) + t->cc);
	}
	keep_orig(x, b, ip + (ways ? d->insn.length : 0));
	place(x, at, b->body_end + b->nstubs * XLATE_STUB_LEN);
	return b;
}

/* The target stub for block t, an indirect branch's target (its table slot, by its start's
 * low bits, then goes there), unless one is there for it already. */
void xl_add_target(struct xl_cpu *x, const struct xl_block *t)
{
	unsigned slot = (unsigned)(t->start & ((1u << XLATE_TABLE_BITS) - 1));
	uint64_t now = x->table[slot];
	if (now != xl_code_va(x)) { /* a target stub's */
		uint32_t id;
		__builtin_memcpy(&id, x->code + (now - xl_code_va(x)) + XLATE_TARGET_ID,
				 sizeof(id));
		if (id < x->nruns && x->runs[id].to == t->start)
			return;
	}
	if (x->nblocks + 1 > XLATE_BLOCKS || x->nruns + 1 > XLATE_RUNS ||
	    x->used + XLATE_TARGET_LEN + 8 > XLATE_CODE_PAGES * PAGE_4K)
		return; /* full: missed again until the next restart */
	uint32_t at = x->used;
	if (!x86_xlate_target(x->scratch, xl_code_va(x) + at, x->va, t->start, x->nruns,
			      xl_code_va(x), xl_code_va(x) + t->cc))
		return;
	x->runs[x->nruns] = (struct xl_run){.to = t->start, .stub = at, .what = RUN_TARGET};
	x->blocks[x->nblocks++] = (struct xl_block){
	    .start = t->start, .cc = at, .body_end = at, .run = x->nruns, .type = XB_TARGET};
	x->nruns++;
	place(x, at, at + XLATE_TARGET_LEN);
	x->table[slot] = xl_code_va(x) + at;
}
