/* SPDX-License-Identifier: MIT */
/*
 * The code cache's runs back to the hooks (docs/engine.md "Translated blocks"): at a hand-back
 * (a stub's or site's INT, the miss stub's) the runs the log holds go to ss_hooks.runs_feed in
 * the order they ran; at an interrupt or exception inside a translation (ss_xlate_cut), the
 * same, then the instructions before the one it stands at, and the frame goes back to the
 * original code: the registers a stub or site parked, its stack work undone.
 */
#include "arch/x86/step/xlate.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/usermode.h"

struct batch {
	size_t k;
	struct run_with_branch *r;
	unsigned cpl; /* the cache's code's privilege level */
};

static void flush(struct ss_state *s, struct batch *b)
{
	if (b->k && !s->hooks.runs_feed(s->hooks.ctx, b->r, b->k))
		s->xl.refused++;
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
	const struct run_with_branch r = {.n = n, .kind = X86_BR_NONE, .cpl = b->cpl};
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
				    .cpl = b->cpl,
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
			s->xl.refused++; /* not a run the stubs log: the records are not whole */
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
	s->xl.cycles += rdtsc() - t0;
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
	struct xl_block *t = xl_find(x, target);
	if (!t && d)
		t = xl_translate(s, x, target, d);
	if (t && (t->type == XB_STUBS || t->type == XB_SITE))
		xl_add_target(x, t);
	site_undone(s, x, b, &site, f, true);
	return true;
}

static bool handback(struct ss_state *s, struct trap_frame *f)
{
	struct xl_cpu *x = xl_here(f->cs & 3);
	user_access_begin(); /* the code it goes on at is ring 3's (SMAP) */
	uint64_t off = f->rip - xl_code_va(x);
	if (off < XLATE_INT_LEN || off + 4 > x->used)
		return false;
	uint32_t word;
	__builtin_memcpy(&word, x->code + off, sizeof(word));
	uint32_t id = word & ~XLATE_UNLOGGED;
	if (word != XLATE_MISS && id >= x->nruns)
		return false;
	struct batch bt = {0, x->batch, x->cpl};
	drain(s, x, &bt);
	if (word == XLATE_MISS) {
		s->xl.misses++;
		if (!missed(s, x, &bt, f)) {
			flush(s, &bt);
			s->xl.lost_at = f->rip;
			return false;
		}
	} else if (x->runs[id].what == RUN_SITE) {
		/* a site's own hand-back (the log full): the branch not taken yet */
		s->xl.full++;
		site_undone(s, x, &bt, &x->runs[id], f, true);
	} else {
		const struct xl_run *r = &x->runs[id];
		if (word & XLATE_UNLOGGED) {
			s->xl.full++;
			feed(s, &bt, r, NULL);
		} else
			x->link_run = id + 1;
		f->rip = r->to;
	}
	flush(s, &bt);
	xl_ring0_checked(s, x);
	s->xl.handbacks++;
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
	struct xl_cpu *x = xl_here(f->cs & 3);
	s->xl_active = false;
	s->xl.cuts++;
	uint64_t off = f->rip - xl_code_va(x);
	const struct xl_block *b = off < x->used ? block_holding(x, off) : NULL;
	struct batch bt = {0, x->batch, x->cpl};
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
	xl_ring0_checked(s, x);
	if (!ok) {
		s->xl.lost_at = f->rip;
		return;
	}
	ss_cut_stepped(s, f);
}
