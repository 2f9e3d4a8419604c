/* SPDX-License-Identifier: MIT */
/*
 * The code cache (option ss.xlate, docs/engine.md "Translated blocks"): a second producer of
 * runs behind run.h. Where per-block stepping would arm a block of ring 3 code, the block is
 * translated once (lib/x86_xlate.h: its plain instructions copied, its direct branch ending in
 * a stub per way out that logs the way taken) and the workload runs the translation instead,
 * TF clear, no breakpoint armed, from block to block through linked stubs, until a way out
 * leads somewhere not translated, the log is full, or an interrupt or exception comes. Then
 * the runs the log holds go to the hooks (ss_hooks.block_branch, plain_n) in the order they
 * ran, exactly as per-block stepping's traps would have told them, and the workload goes on at
 * the original address, stepped.
 *
 * Exact by construction: a translation is made only of instructions block.c would run in a
 * block (ss_insn_plain) from read-only pages, and of direct branches whose ways are known from
 * their bytes; the log holds which way each branch went; the hooks promised room for every run
 * the log can hold before the workload entered (ss_hooks.runs_room: no counter overflows, no
 * BTS threshold, nothing the session does per step); an interrupt or fault inside a
 * translation is taken back to the original instruction it stands for, the runs before it
 * told first (ss_xlate_cut). Translations are forgotten at each run's start and whenever the
 * workload changes its mappings (INVLPG, MOV CR3: ss_xlate_code_changed).
 *
 * Per CPU: a data page (lib/x86_xlate.h: scratch words, the log) and XLATE_CODE_PAGES of code,
 * allocated at the first translation of a run and mapped at a user address within RIP-relative
 * reach of the workload's code (user: the stubs run at CPL 3), unmapped at the run's end.
 */
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/cpu/vectors.h"
#include "arch/x86/step/block.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_step.h"
#include "kernel/console.h"
#include "kernel/memory.h"
#include "lib/x86_xlate.h"

#define XLATE_CODE_PAGES 1024 /* 4 MiB of translations a CPU, forgotten all at once when full */
#define XLATE_BLOCKS	 16384
#define XLATE_RUNS	 (2 * XLATE_BLOCKS)
#define XLATE_INSNS	 (8 * XLATE_BLOCKS)
#define XLATE_HASH	 32768	    /* a power of two */
#define XLATE_ORIG	 (1u << 20) /* bytes of the original code of the blocks translated */
#define XLATE_BLOCK_MAX	 BLOCK_MAX
#define XLATE_LOG_MIN	 8 /* fewer runs of room: stepped as before */
/* Runs told to the hooks at once: a whole log's, and a run or two a hand-back or cut adds
 * (the CPU's xl_cpu.batch). */
#define XLATE_BATCH (XLATE_LOG_CAP + 2)
/* Room for a block of the most instructions and stubs, in whole words. */
#define XLATE_BLOCK_BYTES                                                                          \
	ALIGN_UP((XLATE_BLOCK_MAX + 1) * X86_MAX_INSN_LENGTH + XLATE_JCC_LEN + 2 * XLATE_STUB_LEN, \
		 8)
/* Where a CPU's region lies: the first GiB boundary at least XLATE_GAP above the first code
 * it translates (past a static program's image and its brk heap, kernel/program.h), one
 * XLATE_STRIDE a CPU. */
#define XLATE_GAP	  (512ull << 20)
#define XLATE_ALIGN	  (1ull << 30)
#define XLATE_STRIDE	  (8ull << 20)
#define XLATE_REACH	  (1ull << 31)
#define USER_HALF_END	  0x0000800000000000ull /* the lower half: user addresses */
#define XLATE_TABLE_PAGES (XLATE_TABLE_SIZE / PAGE_4K)
#define XLATE_DATA_PAGES  (XLATE_DATA_SIZE / PAGE_4K)
/* A CPU's region: its data pages, the indirect branches' table, its code */
#define XLATE_REGION (XLATE_DATA_SIZE + XLATE_TABLE_SIZE + XLATE_CODE_PAGES * PAGE_4K)
_Static_assert(XLATE_REGION <= XLATE_STRIDE, "a CPU's region fits its stride");

/* One way out of a translated block: n plain steps, then the direct branch at `from` on to
 * `to` (taken or not), or (RUN_PLAIN) n plain steps on to `to`; an indirect branch's site (n
 * plain steps, then the branch at `from`, its target the log's next word says) or a target
 * of one (`to`: its target stub's run). */
enum xl_run_what { RUN_BRANCH, RUN_PLAIN, RUN_SITE, RUN_TARGET };
struct xl_run {
	uint64_t from, to;
	uint32_t stub; /* its stub's offset in the code */
	uint8_t n, kind, what;
	int8_t rsp; /* a site's stack work (struct x86_xlate_site) */
	bool taken;
};

/* A translated block: its code from `cc` (offset in the code), its body's instructions (n, the
 * branch's PUSH or Jcc among them) at insn[first..first+n), its stubs (or its indirect
 * branch's site) from body_end. Or a target stub (start: the target), the miss stub, or none:
 * no translation starts at `start`. */
enum xl_block_type { XB_NONE, XB_STUBS, XB_SITE, XB_TARGET, XB_MISS };
struct xl_block {
	uint64_t start;
	uint32_t cc, body_end, first, run;
	uint8_t n, nstubs, type;
	struct x86_xlate_site site;
	uint32_t orig;	   /* its original bytes, at xl_cpu.orig + orig */
	uint16_t orig_len; /* from start to past its branch */
};
struct xl_insn {
	uint16_t cc, orig; /* offsets from the block's cc and start */
};

struct xl_cpu {
	uint64_t data_pa, table_pa, code_pa, va; /* va: the region's user address, 0: none */
	uint8_t *data, *code;			 /* the kernel's view of them (the direct map) */
	uint64_t *table;
	bool ready;	  /* the miss stub made, the table filled, for the region at va */
	bool stale;	  /* a run began or mappings changed since the blocks were checked */
	uint64_t last_va; /* where the region was mapped last (the translations' addresses) */
	uint8_t *orig;	  /* the blocks' original bytes, XLATE_ORIG of them */
	uint32_t norig;
	uint64_t step_at; /* an indirect branch that missed: stepped, not entered there */
	struct xl_block *blocks;
	struct xl_run *runs;
	struct xl_insn *insns;
	uint32_t *hash;		       /* block index + 1 by start; 0: none */
	struct run_with_branch *batch; /* XLATE_BATCH runs on their way to the hooks */
	uint8_t *scratch; /* a block's translation, made here, then copied in whole words */
	uint32_t used, nblocks, nruns, ninsns, gen, cap;
	uint32_t link_run; /* the run whose stub handed back, + 1: linked at the next entry */
};

static bool xlate_on;
static struct xl_cpu xl_cpus[MAX_CPUS];
static volatile uint32_t code_gen; /* ss_xlate_code_changed's calls, on any CPU */

void arch_set_step_xlate(bool on)
{
	xlate_on = on;
}

_Static_assert(VEC_XLATE_HANDBACK == XLATE_HANDBACK_VEC, "the stubs' INT is the gate's vector");

bool ss_xlate_wanted(const struct ss_state *s)
{
	return xlate_on && s->prev_cpl == 3 && s->hooks.runs_room && s->hooks.runs_feed;
}

void ss_xlate_code_changed(void)
{
	__atomic_add_fetch(&code_gen, 1, __ATOMIC_RELAXED);
}

static void forget(struct xl_cpu *x)
{
	x->used = x->nblocks = x->nruns = x->ninsns = x->norig = 0;
	x->link_run = 0;
	x->step_at = 0;
	x->ready = false;
	for (unsigned i = 0; x->hash && i < XLATE_HASH; i++)
		x->hash[i] = 0;
}

static inline uint64_t table_va(const struct xl_cpu *x)
{
	return x->va + XLATE_DATA_SIZE;
}

static inline uint64_t code_va(const struct xl_cpu *x)
{
	return table_va(x) + XLATE_TABLE_SIZE;
}

/* After forget, with the region mapped: the miss stub first in the code (a block of its own
 * for cuts), every table slot going to it. */
static void make_ready(struct xl_cpu *x)
{
	uint8_t miss[8] = {0};
	x86_xlate_miss(miss);
	__builtin_memcpy(x->code, miss, sizeof(miss));
	x->blocks[0] = (struct xl_block){.cc = 0, .body_end = 0, .type = XB_MISS};
	x->nblocks = 1;
	x->used = sizeof(miss);
	for (unsigned i = 0; i < (1u << XLATE_TABLE_BITS); i++)
		x->table[i] = code_va(x);
	x->ready = true;
}

static void *alloc_zeroed(uint64_t bytes)
{
	return page_alloc_virt(bytes); /* page_alloc: cleared */
}

/* The CPU's tables and pages, once a boot. */
static bool prepare(struct xl_cpu *x)
{
	if (x->hash)
		return x->code != NULL;
	x->hash = alloc_zeroed(XLATE_HASH * sizeof(uint32_t));
	x->blocks = alloc_zeroed(XLATE_BLOCKS * sizeof(struct xl_block));
	x->runs = alloc_zeroed(XLATE_RUNS * sizeof(struct xl_run));
	x->insns = alloc_zeroed(XLATE_INSNS * sizeof(struct xl_insn));
	x->batch = alloc_zeroed(XLATE_BATCH * sizeof(struct run_with_branch));
	x->scratch = alloc_zeroed(XLATE_BLOCK_BYTES);
	x->orig = alloc_zeroed(XLATE_ORIG);
	x->data_pa = page_alloc(XLATE_DATA_PAGES);
	x->table_pa = page_alloc_uncleared(XLATE_TABLE_PAGES);
	x->code_pa = page_alloc_uncleared(XLATE_CODE_PAGES);
	if (!x->hash || !x->blocks || !x->runs || !x->insns || !x->batch || !x->scratch ||
	    !x->orig || !x->data_pa || !x->table_pa || !x->code_pa) {
		x->code = NULL;
		if (!x->hash)
			x->hash = (uint32_t *)1; /* tried: never again this boot */
		return false;
	}
	x->data = arch_phys_to_virt(x->data_pa);
	x->table = arch_phys_to_virt(x->table_pa);
	x->code = arch_phys_to_virt(x->code_pa);
	return true;
}

static void unmap(struct xl_cpu *x)
{
	if (!x->va)
		return;
	for (uint64_t off = 0; off < XLATE_REGION; off += PAGE_4K)
		paging_unmap_kernel_4k(x->va + off);
	x->va = 0;
}

/* Map the region near `near` (a user code address), where nothing is mapped. */
static bool map_near(struct xl_cpu *x, uint64_t near, unsigned cpu)
{
	uint64_t va = ALIGN_UP(near + XLATE_GAP, XLATE_ALIGN) + (uint64_t)cpu * XLATE_STRIDE;
	if (va + XLATE_REGION > USER_HALF_END || va + XLATE_REGION - near >= XLATE_REACH)
		return false;
	for (uint64_t off = 0; off < XLATE_REGION; off += PAGE_4K) {
		uint64_t pa, flags, size;
		if (paging_translate(va + off, &pa, &flags, &size))
			return false;
	}
	if (va != x->last_va)
		forget(x); /* the translations' addresses are the region's */
	x->last_va = va;
	x->va = va;
	/* data read and written by the stubs; table read by them; code run (user pages: the
	 * stubs run at CPL 3), all written by the kernel through the direct map */
	uint64_t at = va;
	for (uint64_t p = 0; p < XLATE_DATA_PAGES; p++, at += PAGE_4K)
		if (!paging_map_user_4k(at, x->data_pa + p * PAGE_4K, true, false))
			goto fail;
	for (uint64_t p = 0; p < XLATE_TABLE_PAGES; p++, at += PAGE_4K)
		if (!paging_map_user_4k(at, x->table_pa + p * PAGE_4K, false, false))
			goto fail;
	for (uint64_t p = 0; p < XLATE_CODE_PAGES; p++, at += PAGE_4K)
		if (!paging_map_user_4k(at, x->code_pa + p * PAGE_4K, false, true))
			goto fail;
	return true;
fail:
	unmap(x);
	return false;
}

void ss_xlate_reset(struct ss_state *s)
{

	struct xl_cpu *x = &xl_cpus[this_cpu()->index];
	s->xl_active = false;
	unmap(x);
	x->stale = true; /* kept for the next run, checked before it enters them */
	x->link_run = 0;
	x->step_at = 0;
}

/* Whether every block translated still stands for the code there: its bytes as they were, on
 * read-only pages (a run may load other code there, a system call change its mappings). */
static bool still_valid(const struct xl_cpu *x)
{
	for (uint32_t i = 0; i < x->nblocks; i++) {
		const struct xl_block *b = &x->blocks[i];
		if (b->type != XB_STUBS && b->type != XB_SITE)
			continue; /* none: stepped however its bytes are; stubs: of a block */
		uint64_t last = b->start + b->orig_len - 1;
		if (!ss_code_readonly(b->start) || !ss_code_readonly(last) ||
		    !ss_code_readable(b->start) || !ss_code_readable(last))
			return false;
		const uint8_t *now = (const uint8_t *)b->start, *then = x->orig + b->orig;
		for (unsigned k = 0; k < b->orig_len; k++)
			if (now[k] != then[k])
				return false;
	}
	return true;
}

static unsigned hash_of(uint64_t start)
{
	return (unsigned)((start ^ (start >> 13)) * 0x9e3779b1u) & (XLATE_HASH - 1);
}

static struct xl_block *find(struct xl_cpu *x, uint64_t start)
{
	for (unsigned h = hash_of(start), i = 0; i < XLATE_HASH;
	     i++, h = (h + 1) & (XLATE_HASH - 1)) {
		uint32_t k = x->hash[h];
		if (!k)
			return NULL;
		if (x->blocks[k - 1].start == start)
			return &x->blocks[k - 1];
	}
	return NULL;
}

static void insert(struct xl_cpu *x, uint32_t index)
{
	unsigned h = hash_of(x->blocks[index].start);
	while (x->hash[h])
		h = (h + 1) & (XLATE_HASH - 1);
	x->hash[h] = index + 1;
}

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
	if (!x86_xlate_stub(out, code_va(x) + at, x->va, id))
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
static struct xl_block *translate(struct ss_state *s, struct xl_cpu *x, uint64_t start,
				  const struct x86_decoded *d)
{
	if (x->nblocks + 2 > XLATE_BLOCKS || x->nruns + 3 > XLATE_RUNS ||
	    x->ninsns + XLATE_BLOCK_MAX + 1 > XLATE_INSNS ||
	    x->norig + (XLATE_BLOCK_MAX + 1) * X86_MAX_INSN_LENGTH > XLATE_ORIG ||
	    x->used + XLATE_BLOCK_BYTES > XLATE_CODE_PAGES * PAGE_4K) {
		forget(x); /* full: everything translated again as it runs */
		make_ready(x);
		s->xl_restarts++;
	}
	uint32_t at = x->used, first = x->ninsns;
	uint8_t *out = x->scratch; /* the code's bytes from `at` */
	s->xl_translated++;
	uint64_t base = code_va(x) + at, ip = start;
	unsigned n = 0, len = 0;
	while (n < XLATE_BLOCK_MAX && d && xlate_plain(d) && ss_code_readonly(ip) &&
	       ss_code_readonly(ip + d->insn.length - 1)) {
		unsigned l =
		    x86_xlate_copy(out + len, base + len, (const uint8_t *)d->bytes, &d->insn, ip);
		if (!l)
			break;
		x->insns[first + n] = (struct xl_insn){(uint16_t)len, (uint16_t)(ip - start)};
		len += l;
		ip += d->insn.length;
		n++;
		d = cached_at(s->hooks.cache, ip, true, X86_MODE_64);
	}
	unsigned cc = 0;
	uint64_t to[2] = {0, 0};
	bool on_ro = d && ss_code_readonly(ip) && ss_code_readonly(ip + d->insn.length - 1);
	unsigned ways = on_ro ? ways_out(d, ip, &cc, to) : 0;
	struct xl_block *b = &x->blocks[x->nblocks];
	*b = (struct xl_block){.start = start, .cc = at, .first = first, .run = x->nruns};
	if (!ways && on_ro && indirect_site(d)) {
		/* the site of an indirect branch ends the block */
		const struct xl_run r = {.from = ip,
					 .n = (uint8_t)n,
					 .kind = (uint8_t)d->step.branch,
					 .what = RUN_SITE,
					 .taken = true};
		if (x86_xlate_site(out + len, base + len, x->va, table_va(x),
				   (const uint8_t *)d->bytes, &d->insn, ip, x->nruns, &b->site)) {
			x->insns[first + n] =
			    (struct xl_insn){(uint16_t)len, (uint16_t)(ip - start)};
			b->n = (uint8_t)(n + 1);
			b->body_end = at + len;
			b->type = XB_SITE;
			x->runs[x->nruns] = r;
			x->runs[x->nruns].rsp = b->site.rsp;
			x->runs[x->nruns++].stub = b->body_end;
			x->ninsns = first + b->n;
			insert(x, x->nblocks++);
			keep_orig(x, b, ip + d->insn.length);
			place(x, at, b->body_end + b->site.len);
			return b;
		}
	}
	if (!n && !ways) { /* remembered as none: stepped, not decoded again each time */
		*b = (struct xl_block){.start = start, .cc = at, .body_end = at, .first = first};
		insert(x, x->nblocks++);
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
	insert(x, x->nblocks++);
	/* ways out to blocks translated already (itself too): linked now */
	for (unsigned k = 0; k < b->nstubs; k++) {
		const struct xl_run *w = &x->runs[b->run + k];
		const struct xl_block *t = find(x, w->to);
		if (t && t->type != XB_NONE)
			x86_xlate_stub_link(out + (w->stub - at), code_va(x) + w->stub,
					    code_va(x) + t->cc);
	}
	keep_orig(x, b, ip + (ways ? d->insn.length : 0));
	place(x, at, b->body_end + b->nstubs * XLATE_STUB_LEN);
	return b;
}

/* The target stub for block t, an indirect branch's target (its table slot, by its start's
 * low bits, then goes there), unless one is there for it already. */
static void add_target(struct xl_cpu *x, const struct xl_block *t)
{
	unsigned slot = (unsigned)(t->start & ((1u << XLATE_TABLE_BITS) - 1));
	uint64_t now = x->table[slot];
	if (now != code_va(x)) { /* a target stub's: its run number at offset 31 */
		uint32_t id;
		__builtin_memcpy(&id, x->code + (now - code_va(x)) + 31, sizeof(id));
		if (id < x->nruns && x->runs[id].to == t->start)
			return;
	}
	if (x->nblocks + 1 > XLATE_BLOCKS || x->nruns + 1 > XLATE_RUNS ||
	    x->used + XLATE_TARGET_LEN + 8 > XLATE_CODE_PAGES * PAGE_4K)
		return; /* full: missed again until the next restart */
	uint32_t at = x->used;
	if (!x86_xlate_target(x->scratch, code_va(x) + at, x->va, t->start, x->nruns, code_va(x),
			      code_va(x) + t->cc))
		return;
	x->runs[x->nruns] = (struct xl_run){.to = t->start, .stub = at, .what = RUN_TARGET};
	x->blocks[x->nblocks++] = (struct xl_block){
	    .start = t->start, .cc = at, .body_end = at, .run = x->nruns, .type = XB_TARGET};
	x->nruns++;
	place(x, at, at + XLATE_TARGET_LEN);
	x->table[slot] = code_va(x) + at;
}

/* How many runs the log may take at the entry: the hooks take them with nothing to ask, and
 * one more (the run a full log hands back unlogged, or the part of a run a cut adds). */
static uint32_t room(const struct ss_state *s)
{
	uint64_t k = XLATE_LOG_CAP;
	for (; k >= XLATE_LOG_MIN; k /= 2)
		if (s->hooks.runs_room(s->hooks.ctx, 3, (k + 1) * (XLATE_BLOCK_MAX + 1), k + 1))
			return (uint32_t)k;
	return 0;
}

bool ss_xlate_enter(struct ss_state *s, struct trap_frame *f, const struct x86_decoded *d)
{
	if (!xlate_on || s->prev_cpl != 3 || (f->cs & 3) != 3 || !s->hooks.runs_room ||
	    !s->hooks.runs_feed || s->hooks.plain == ss_plain_nothing || s->vtf || ss_skip_every ||
	    s->npre || s->blk_armed)
		return false;
	struct xl_cpu *x = &xl_cpus[this_cpu()->index];
	if (f->rip == x->step_at) { /* an indirect branch that missed: stepped */
		x->step_at = 0;
		return false;
	}
	uint32_t cap = room(s);
	if (!cap || !prepare(x))
		return false;
	if (!x->va && !map_near(x, f->rip, this_cpu()->index))
		return false;
	uint32_t gen = __atomic_load_n(&code_gen, __ATOMIC_RELAXED);
	if (gen != x->gen) {
		x->stale = true;
		x->gen = gen;
	}
	if (x->stale) {
		if (!still_valid(x)) {
			forget(x);
			s->xl_restarts++;
		}
		x->stale = false;
	}
	if (!x->ready)
		make_ready(x);
	struct xl_block *b = find(x, f->rip);
	if (!b && !(b = translate(s, x, f->rip, d)))
		return false;
	if (b->type == XB_NONE)
		return false; /* no translation starts here */
	if (x->link_run) {
		const struct xl_run *w = &x->runs[x->link_run - 1];
		if (w->to == b->start)
			x86_xlate_stub_link(x->code + w->stub, code_va(x) + w->stub,
					    code_va(x) + b->cc);
		x->link_run = 0;
	}
	__builtin_memcpy(x->data + XLATE_D_LEFT, &(uint64_t){cap}, sizeof(uint64_t));
	x->cap = cap;
	ss_block_idle(s);
	f->rflags &= ~RFLAGS_TF;
	f->rip = code_va(x) + b->cc;
	s->xl_active = true;
	s->xl_entries++;
	return true;
}

struct batch {
	size_t k;
	struct run_with_branch *r;
};

static void flush(struct ss_state *s, struct batch *b)
{
	if (b->k && !s->hooks.runs_feed(s->hooks.ctx, b->r, b->k))
		s->xl_refused++;
	b->k = 0;
}

static void add(struct ss_state *s, struct batch *b, const struct run_with_branch *r)
{
	s->steps += r->n + (r->kind != X86_BR_NONE ? 1u : 0u);
	b->r[b->k++] = *r;
	if (b->k == XLATE_BATCH)
		flush(s, b);
}

/* n plain steps to batch b. */
static void feed_plain(struct ss_state *s, struct batch *b, unsigned n)
{
	if (!n)
		return;
	const struct run_with_branch r = {.n = n, .kind = X86_BR_NONE, .cpl = 3};
	add(s, b, &r);
}

/* A run of the log to its batch (told to the hooks by flush); site: for a target's run, the
 * site its indirect branch ran from. */
static void feed(struct ss_state *s, struct batch *b, const struct xl_run *r,
		 const struct xl_run *site)
{
	struct run_with_branch w = {.n = r->n,
				    .from = r->from,
				    .to = r->to,
				    .kind = r->what == RUN_PLAIN ? X86_BR_NONE : r->kind,
				    .cpl = 3,
				    .taken = r->taken};
	if (r->what == RUN_TARGET) {
		w.n = site->n;
		w.from = site->from;
		w.kind = site->kind;
		w.taken = true;
	}
	add(s, b, &w);
}

/* The site whose run number sits beside log entry i (0-based). */
static const struct xl_run *site_beside(const struct xl_cpu *x, uint64_t i)
{
	uint32_t id;
	__builtin_memcpy(&id, x->data + XLATE_D_SITES + XLATE_D_LOG + 4 * i, sizeof(id));
	return id < x->nruns && x->runs[id].what == RUN_SITE ? &x->runs[id] : NULL;
}

static uint64_t left_now(const struct xl_cpu *x)
{
	uint64_t left;
	__builtin_memcpy(&left, x->data + XLATE_D_LEFT, sizeof(left));
	return left;
}

/* The runs the log holds, oldest first (written from the top down), to batch b. */
static void drain(struct ss_state *s, struct xl_cpu *x, struct batch *b)
{
	uint64_t left = left_now(x);
	for (uint64_t i = x->cap; i > left && i > 0; i--) {
		uint32_t id;
		__builtin_memcpy(&id, x->data + XLATE_D_LOG + 4 * (i - 1), sizeof(id));
		const struct xl_run *r = id < x->nruns ? &x->runs[id] : NULL;
		const struct xl_run *site =
		    r && r->what == RUN_TARGET ? site_beside(x, i - 1) : NULL;
		if (!r || r->what == RUN_SITE || (r->what == RUN_TARGET && !site))
			s->xl_refused++; /* not a run the stubs log: the records are not whole */
		else
			feed(s, b, r, site);
	}
	x->cap = (uint32_t)left;
}

/* The registers a site parked, back in the frame (the data page keeps them until the next
 * site or stub overwrites them). */
static void unpark(const struct xl_cpu *x, struct trap_frame *f)
{
	__builtin_memcpy(&f->rax, x->data + XLATE_D_RAX, sizeof(f->rax));
	__builtin_memcpy(&f->rcx, x->data + XLATE_D_RCX, sizeof(f->rcx));
	__builtin_memcpy(&f->rdx, x->data + XLATE_D_RDX, sizeof(f->rdx));
}

/* An indirect branch's site ran up to its jump (or its own hand-back), the branch not taken
 * yet: its registers and stack back as they were, its plain steps to batch b, and the branch
 * stepped at its own address (not entered again there: step_at). */
static void site_undone(struct ss_state *s, struct xl_cpu *x, struct batch *b,
			const struct xl_run *site, struct trap_frame *f, bool adjusted)
{
	unpark(x, f);
	if (adjusted)
		f->rsp -= (uint64_t)(int64_t)site->rsp;
	feed_plain(s, b, site->n);
	f->rip = site->from;
	x->step_at = site->from;
}

/* The site of the log entry to come (the slot beside LEFT - 1), or NULL. */
static const struct xl_run *site_pending(const struct xl_cpu *x)
{
	uint64_t left = left_now(x);
	return left ? site_beside(x, left - 1) : NULL;
}

static bool handback(struct ss_state *s, struct trap_frame *f);

bool ss_xlate_handback(struct trap_frame *f)
{
	struct ss_state *s = state_here();
	if (!s || !s->active || !s->xl_active)
		return false;
	if (!ss_count_traps)
		return handback(s, f);
	uint64_t t0 = rdtsc();
	bool r = handback(s, f);
	s->xl_cycles += rdtsc() - t0;
	return r;
}

/* The miss stub's hand-back: the target (in RDX) gets its target stub, where a translation
 * starts there, for the next time; this time the branch is stepped. */
static bool missed(struct ss_state *s, struct xl_cpu *x, struct batch *b, struct trap_frame *f)
{
	const struct xl_run *pending = site_pending(x);
	if (!pending)
		return false;
	const struct xl_run site = *pending; /* translate may start the code over */
	uint64_t target = f->rdx;
	const struct x86_decoded *d =
	    ss_code_readable(target) ? cached_at(s->hooks.cache, target, true, X86_MODE_64) : NULL;
	struct xl_block *t = find(x, target);
	if (!t && d)
		t = translate(s, x, target, d);
	if (t && (t->type == XB_STUBS || t->type == XB_SITE))
		add_target(x, t);
	site_undone(s, x, b, &site, f, true);
	return true;
}

static bool handback(struct ss_state *s, struct trap_frame *f)
{
	struct xl_cpu *x = &xl_cpus[this_cpu()->index];
	user_access_begin(); /* the code it goes on at is ring 3's (SMAP) */
	uint64_t off = f->rip - code_va(x);
	if (off < XLATE_INT_LEN || off + 4 > x->used)
		return false;
	uint32_t word;
	__builtin_memcpy(&word, x->code + off, sizeof(word));
	uint32_t id = word & ~XLATE_UNLOGGED;
	if (word != XLATE_MISS && id >= x->nruns)
		return false;
	struct batch bt = {0, x->batch};
	drain(s, x, &bt);
	if (word == XLATE_MISS) {
		s->xl_misses++;
		if (!missed(s, x, &bt, f)) {
			flush(s, &bt);
			s->xl_lost_at = f->rip;
			return false;
		}
	} else if (x->runs[id].what == RUN_SITE) {
		/* a site's own hand-back (the log full): the branch not taken yet */
		s->xl_full++;
		site_undone(s, x, &bt, &x->runs[id], f, true);
	} else {
		const struct xl_run *r = &x->runs[id];
		if (word & XLATE_UNLOGGED) {
			s->xl_full++;
			feed(s, &bt, r, NULL);
		} else
			x->link_run = id + 1;
		f->rip = r->to;
	}
	flush(s, &bt);
	s->xl_handbacks++;
	s->xl_active = false;
	ss_resume_stepped(s, f);
	return true;
}

/* The block whose code holds offset off (blocks lie in the code in the order made). */
static const struct xl_block *block_holding(const struct xl_cpu *x, uint64_t off)
{
	uint32_t lo = 0, hi = x->nblocks;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x->blocks[mid].cc <= off)
			lo = mid;
		else
			hi = mid;
	}
	return x->nblocks && x->blocks[lo].cc <= off ? &x->blocks[lo] : NULL;
}

/* A cut in a block's body at off: the plain instructions before the one there retired. */
static bool cut_body(struct ss_state *s, struct xl_cpu *x, struct batch *bt,
		     const struct xl_block *b, uint64_t off, struct trap_frame *f)
{
	unsigned i = 0;
	while (i < b->n && b->cc + x->insns[b->first + i].cc != off)
		i++;
	if (i == b->n)
		return false;
	feed_plain(s, bt, i);
	f->rip = b->start + x->insns[b->first + i].orig;
	return true;
}

/* A cut in a block's stubs: where the stub parked RCX and RDX, and whether it logged. */
static bool cut_stub(struct ss_state *s, struct xl_cpu *x, struct batch *bt,
		     const struct xl_block *b, uint64_t off, struct trap_frame *f)
{
	unsigned k = (unsigned)((off - b->body_end) / XLATE_STUB_LEN);
	struct x86_xlate_stub_state st;
	if (k >= b->nstubs ||
	    !x86_xlate_stub_at((unsigned)((off - b->body_end) % XLATE_STUB_LEN), &st))
		return false;
	if (st.rcx_in_data)
		__builtin_memcpy(&f->rcx, x->data + XLATE_D_RCX, sizeof(f->rcx));
	if (st.rdx_in_data)
		__builtin_memcpy(&f->rdx, x->data + XLATE_D_RDX, sizeof(f->rdx));
	const struct xl_run *r = &x->runs[b->run + k];
	if (!st.logged)
		feed(s, bt, r, NULL);
	f->rip = r->to;
	return true;
}

/* A cut in an indirect branch's site: before its load nothing changed; after it, the parked
 * registers are back and the stack work undone; the branch is stepped. */
static bool cut_site(struct ss_state *s, struct xl_cpu *x, struct batch *bt,
		     const struct xl_block *b, uint64_t off, struct trap_frame *f)
{
	unsigned at = (unsigned)(off - b->body_end);
	const struct xl_run *site = &x->runs[b->run];
	if (at >= b->site.len)
		return false;
	if (at <= b->site.load) {
		feed_plain(s, bt, site->n);
		f->rip = site->from;
		return true;
	}
	site_undone(s, x, bt, site, f, at >= b->site.adjusted);
	x->step_at = 0; /* a cut: nothing missed */
	return true;
}

/* A cut in a target stub (or the miss stub): before the log took the run, the branch is
 * undone as at a miss; after, it ran, and the target stub puts the registers back. */
static bool cut_target(struct ss_state *s, struct xl_cpu *x, struct batch *bt,
		       const struct xl_block *b, uint64_t off, struct trap_frame *f)
{
	unsigned at = (unsigned)(off - b->cc);
	if (b->type == XB_TARGET && at >= XLATE_TARGET_LOGGED) {
		unpark(x, f);
		f->rip = x->runs[b->run].to;
		return true;
	}
	const struct xl_run *site = site_pending(x);
	if (!site)
		return false;
	site_undone(s, x, bt, site, f, true);
	x->step_at = 0;
	return true;
}

void ss_xlate_cut(struct ss_state *s, struct trap_frame *f)
{
	struct xl_cpu *x = &xl_cpus[this_cpu()->index];
	s->xl_active = false;
	s->xl_cuts++;
	uint64_t off = f->rip - code_va(x);
	const struct xl_block *b = off < x->used ? block_holding(x, off) : NULL;
	struct batch bt = {0, x->batch};
	drain(s, x, &bt);
	bool ok = false;
	if (b && (b->type == XB_TARGET || b->type == XB_MISS))
		ok = cut_target(s, x, &bt, b, off, f);
	else if (b && off < b->body_end)
		ok = cut_body(s, x, &bt, b, off, f);
	else if (b && b->type == XB_SITE)
		ok = cut_site(s, x, &bt, b, off, f);
	else if (b && b->type == XB_STUBS)
		ok = cut_stub(s, x, &bt, b, off, f);
	flush(s, &bt);
	if (!ok) {
		s->xl_lost_at = f->rip;
		return;
	}
	ss_cut_stepped(s, f);
}
