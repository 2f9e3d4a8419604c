/* SPDX-License-Identifier: MIT */
/*
 * Prefixes (docs/engine.md "Per-block stepping"): what runs before the armed block, told to the
 * hooks when it stops. An indirect near branch about to run, whose target the trap's registers say
 * (arm_after_branch); or blocks ending in a direct JMP or a Jcc, run with the blocks they go on
 * to as one (chains): a Jcc's way not predicted gets a breakpoint of its own. A stop on a
 * prefix's straight line or on its way not predicted is that prefix's (block.c, ss_block_cut).
 */
#include "arch/x86/step/block.h"
#include "arch/x86/cpu/trap.h"
#include "lib/x86_mem.h"

/* Where the indirect near branch d goes with registers f (64-bit operand size, SDM Vol. 2A
 * JMP/CALL/RET: "In 64-bit mode, the operand size is fixed at 64 bits" for near branches; with
 * 66H or a segment override it is left to stepping): RET to the stack's top; JMP and CALL to
 * their register, or the word their memory operand names. */
static bool indirect_target(const struct ss_state *s, const struct x86_decoded *d,
			    const struct trap_frame *f, uint64_t *to)
{
	const struct x86_insn *in = &d->insn;
	if (in->operand16 || (in->prefixes & X86_PFX_SEG))
		return false;
	if (d->step.branch == X86_BR_RET)
		return ss_read_workload(s, f->rsp, sizeof(*to), to);
	const struct x86_gprs g = trap_frame_gprs(f);
	if ((in->modrm >> 6) == 3) {
		*to = g.r[(in->modrm & 7) | (in->rex & 1 ? 8 : 0)];
		return true;
	}
	return ss_read_workload(s, x86_modrm_address(in, d->ip, &g, 0, 0), sizeof(*to), to);
}

/* The first block after prefix k (a later prefix's, or the armed one) whose bytes are not
 * those it was decoded from, or NULL. */
static const struct ss_block *later_changed(const struct ss_state *s, unsigned k)
{
	for (unsigned j = k + 1; j < s->npre; j++)
		if (s->pre[j].blk && !present_same_words(s->pre[j].blk))
			return s->pre[j].blk;
	return present_same_words(s->blk) ? NULL : s->blk;
}

/* Prefix block pb (prefix k) ran whole: its bytes compared as a block's (check_bytes); a later
 * block's, changed by then, are unknown where pb may have stored (a block's own stores are its
 * own check's, when it stops). */
static __attribute__((noinline, cold)) void prefix_changed(struct ss_state *s, unsigned k)
{
	const struct ss_block *pb = s->pre[k].blk, *later;
	const uint8_t *then = (const uint8_t *)pb->bytes, *now = (const uint8_t *)pb->start;
	for (unsigned off = 0; off < pb->end - pb->start; off++)
		if (then[off] != now[off]) {
			unsigned at = 0;
			for (unsigned i = 0; i < pb->n && at + pb->len[i] <= off; i++)
				at += pb->len[i];
			ss_block_changed(s, pb, at);
			return;
		}
	if (!s->block_changed_at && pb->stores && (later = later_changed(s, k)))
		s->block_changed_at = later->start;
}

/* Prefix k ran whole: its block's plain steps and its branch told to the hooks (loop_n, one
 * run: asked first, the hooks take it whatever comes). */
static void prefix_retire_one(struct ss_state *s, unsigned k)
{
	const struct ss_prefix *p = &s->pre[k];
	const struct ss_block *pb = p->blk;
	const struct run_with_branch bb = {.n = pb ? pb->n : 0,
					   .from = p->from,
					   .to = p->to,
					   .kind = p->kind,
					   .cpl = s->prev_cpl,
					   .taken = p->taken};
	s->hooks.loop_n(s->hooks.ctx, &bb, 1);
	s->steps += bb.n + 1u;
	if (pb && cpu_probe_byte((const void *)pb->start) &&
	    (!same_words(pb) || (pb->stores && later_changed(s, k))))
		prefix_changed(s, k);
}

void ss_block_prefix_retire(struct ss_state *s)
{
	for (unsigned k = 0; k < s->npre; k++)
		prefix_retire_one(s, k);
	s->npre = 0;
}

/*
 * An indirect near branch (RET, JMP or CALL through a register or memory) about to run, with
 * the registers f that it will run with: nothing runs between this trap and it, so its target
 * is known now (the stack's top, the register, the word its operand names: read where the
 * engine cannot fault). The block there is armed with the branch as its prefix: one trap for
 * both. The branch is told to the hooks when the block stops (ss_block_prefix_retire), asked
 * first: the hooks must take it then whatever comes (loop_room, one run of no plain steps).
 * Not where the branch's own address is one of the block's stops (a stop there would not tell
 * whether the branch had run), a counted loop, or a loop resumed with interrupts enabled.
 */
bool ss_chain_after_branch(struct ss_state *s, const struct x86_decoded *d,
			   const struct trap_frame *f, uint64_t room, uint64_t *rflags)
{
	uint64_t from = s->prev, to;
	unsigned kind = d->step.branch;
	if (!s->hooks.loop_room || !s->hooks.loop_n || room < 2 || !indirect_target(s, d, f, &to) ||
	    to == from || !ss_code_readable(to))
		return false;
	/* (the target's decoding may take the branch's cache slot: kind was read first) */
	const struct x86_decoded *td = cached_at(s->hooks.cache, to, true, X86_MODE_64);
	const struct ss_block *b = td ? ss_block_at(s, td, to, room - 1, NULL) : NULL;
	if (!b || b->counted || (b->to_start && (*rflags & RFLAGS_IF)) || from == b->last ||
	    (b->branch && (from == b->to[0] || from == b->to[1])) ||
	    (from >= b->start && from < b->end))
		return false;
	/* the block's stores, and an indirect CALL's return address, proven with the registers
	 * after the branch (SDM Vol. 2 RET: RSP + 8, and the imm16 "bytes to be popped"; CALL:
	 * RSP - 8, the return address stored there) */
	if (b->stores || kind == X86_BR_CALL_IND) {
		struct x86_gprs g = trap_frame_gprs(f);
		uint64_t push = 0;
		if (kind == X86_BR_RET)
			g.r[X86_REG_RSP] += sizeof(uint64_t) + (d->insn.imm_size ? d->insn.imm : 0);
		if (kind == X86_BR_CALL_IND) {
			push = g.r[X86_REG_RSP];
			g.r[X86_REG_RSP] -= sizeof(uint64_t);
		}
		const struct ss_proof_in in = {.g = &g, .known = SS_ALL_KNOWN, .push_before = push};
		if (!ss_prove_stores(b, &in))
			return false;
	}
	const struct run_with_branch bb = {
	    .from = from, .to = to, .kind = kind, .cpl = s->prev_cpl, .taken = true};
	if (!s->hooks.loop_room(s->hooks.ctx, &bb, 1))
		return false;
	arm(s, b, rflags, false);
	*rflags |= RFLAGS_RF; /* the branch runs first, breakpoint or not (SDM Vol. 3B 17.3.1.1) */
	s->npre = 1;
	s->pre[0] = (struct ss_prefix){
	    .blk = NULL, .from = from, .to = to, .kind = (uint8_t)kind, .taken = true};
	return true;
}

/*
 * Whether block nb may follow blocks c[0..k) (their ways not predicted side[0..k)) in a chain:
 * every stop told apart. Each block's straight line is its own (no two overlap); no stop of nb
 * (its branch's successors, or its breakpoint) and no way not predicted lies on any straight
 * line, nor is one the other; nb's branch does not go back to its own start (a breakpoint there
 * would fire on the way in); every block is remembered in its own slot. One exception, `wrap`
 * (interrupts disabled): a stop of nb at the chain's start, which is resumed with RF set, as a
 * block whose branch goes back to its start is (branch_successors).
 */
static bool chain_apart(const struct ss_block *const *c, const uint64_t *side, unsigned k,
			const struct ss_block *nb, bool wrap)
{
	uint64_t stop[2] = {nb->branch ? nb->to[0] : nb->last, nb->branch ? nb->to[1] : 0};
	if (nb->to_start)
		return false;
	for (unsigned i = 0; i < k; i++) {
		if (slot_of(c[i]->start) == slot_of(nb->start) ||
		    !(nb->last < c[i]->start || nb->start > c[i]->last))
			return false;
		for (unsigned j = 0; j < 2; j++)
			if (stop[j] &&
			    ((on_line(c[i], stop[j]) && !(wrap && stop[j] == c[0]->start)) ||
			     stop[j] == side[i]))
				return false;
		for (unsigned j = 0; j < k; j++)
			if (side[j] && (on_line(c[i], side[j]) || on_line(nb, side[j]) ||
					(j != i && side[j] == side[i])))
				return false;
	}
	return true;
}

/*
 * Where block c goes on in a chain: a JMP's target, or a Jcc's predicted successor (*side: the
 * other one, which gets a breakpoint). A Jcc is predicted to go where it went last time, else
 * as the processor's static rule has it: a jump back (a loop) taken, a jump forward not; not
 * where it turned often lately (CHAIN_TURNS). False where c does not end in either.
 */
static bool chain_next(const struct ss_block *c, uint64_t *to, uint64_t *side, bool *taken)
{
	if (!c->branch)
		return false;
	if (c->kind == X86_BR_JMP_REL) {
		*to = c->to[0];
		*side = 0;
		*taken = true;
		return true;
	}
	if (c->kind != X86_BR_JCC || !c->to[1] || c->to[0] == c->to[1] || c->turns >= CHAIN_TURNS)
		return false;
	*taken = c->went ? c->went > 0 : c->to[0] <= c->last;
	*to = c->to[*taken ? 0 : 1];
	*side = c->to[*taken ? 1 : 0];
	return true;
}

/* Whether block b's remembered chain (ss_block.plan) holds now (see there), with `room`. */
static bool plan_holds(const struct ss_block *b, uint64_t room, bool if_clear)
{
	unsigned k = b->plan.k;
	if (!k || b->plan.if_clear != if_clear || b->plan.used + b->plan.c[k - 1]->n > room)
		return false;
	const struct ss_block *from = b;
	for (unsigned i = 0; i < k; i++) {
		const struct ss_block *c = b->plan.c[i];
		const struct ss_prefix *p = &b->plan.pre[i];
		uint64_t to, way;
		bool taken;
		if (c->gen != b->plan.gen[i] || c->start != p->to || c->none ||
		    !chain_next(from, &to, &way, &taken) || to != p->to || taken != p->taken ||
		    !present_same_words(c))
			return false;
		from = c;
	}
	return true;
}

/* Arm the chain of block b planned in b->plan: the hooks asked, the breakpoints set. */
static bool arm_plan(struct ss_state *s, const struct ss_block *b, uint64_t *rflags)
{
	unsigned k = b->plan.k;
	const struct ss_block *last = b->plan.c[k - 1];
	const struct run_with_branch bb = {.n = b->plan.used,
					   .from = b->last,
					   .to = b->to[0],
					   .kind = b->kind,
					   .cpl = s->prev_cpl,
					   .taken = true};
	if (!s->hooks.loop_room(s->hooks.ctx, &bb, k))
		return false;
	const uint64_t side[SS_PREFIX_MAX] = {b->plan.pre[0].side, k > 1 ? b->plan.pre[1].side : 0};
	arm_sides(s, last, rflags, false, side);
	if (last->branch && (last->to[0] == b->start || last->to[1] == b->start))
		*rflags |= RFLAGS_RF; /* back at the start (chain_apart's wrap) */
	s->npre = (uint8_t)k;
	for (unsigned i = 0; i < k; i++)
		s->pre[i] = b->plan.pre[i];
	s->chains++;
	return true;
}

/*
 * Chains: block b ends in a direct JMP, or a Jcc (branch_successors: its successors on its
 * page); the block where it goes on (chain_next) is armed with b as its prefix, and so on, up
 * to SS_PREFIX_MAX prefixes: one trap for all, the breakpoints the last block's and a Jcc's on
 * its way not predicted. The prefixes are told to the hooks when the last block stops, each
 * block's plain steps and its branch (ss_block_prefix_retire), asked first (loop_room: their
 * branches as that many runs of all their steps, more than they are); a stop on a prefix's
 * straight line, or on its way not predicted, is that prefix's (ss_block_cut). The blocks are
 * remembered, or decoded now where `decode` (the long way). Not where their stops cannot be
 * told apart (chain_apart) or the last is a counted loop. The chain found is remembered in b
 * (plan) and armed again from there while it holds (plan_holds).
 */
/* The chain's last block c[k], after blocks c[0..k) (which store nothing), proven from the
 * registers of frame f (prove.c). */
static bool chain_proven(const struct ss_block *const *c, unsigned k, const struct trap_frame *f)
{
	if (!c[k]->stores)
		return true;
	const struct x86_gprs g = trap_frame_gprs(f);
	struct ss_proof_in in = {.g = &g, .known = SS_ALL_KNOWN, .npre = (uint8_t)k};
	for (unsigned i = 0; i < k; i++)
		in.pre[i] = c[i];
	return ss_prove_stores(c[k], &in);
}

bool ss_chain_arm(struct ss_state *s, const struct ss_block *b, uint64_t room, bool decode,
		  uint64_t *rflags, const struct trap_frame *f)
{
	const struct ss_block *c[SS_PREFIX_MAX + 1] = {b};
	struct ss_prefix pre[SS_PREFIX_MAX];
	uint64_t side[SS_PREFIX_MAX] = {0, 0}, used = 0;
	unsigned k = 0;
	bool if_clear = !(*rflags & RFLAGS_IF);
	if (!s->hooks.loop_room || !s->hooks.loop_n)
		return false;
	if (plan_holds(b, room, if_clear)) {
		const struct ss_block *pc[SS_PREFIX_MAX + 1] = {b};
		for (unsigned i = 0; i < b->plan.k; i++)
			pc[i + 1] = b->plan.c[i];
		return chain_proven(pc, b->plan.k, f) && arm_plan(s, b, rflags);
	}
	for (; k < SS_PREFIX_MAX; k++) {
		uint64_t to, way;
		bool taken;
		if (c[k]->stores || !chain_next(c[k], &to, &way, &taken) ||
		    room < used + c[k]->n + 1u + BLOCK_MIN)
			break;
		uint64_t left = room - used - c[k]->n - 1u;
		struct ss_block *nb = &s->blk_cache[slot_of(to)];
		bool seen = nb->start == to && !nb->none && nb->n <= left;
		if (decode && !seen) {
			for (unsigned i = 0; i <= k; i++)
				if (slot_of(c[i]->start) == slot_of(to))
					nb =
					    NULL; /* decoding it would overwrite one of the chain */
			const struct x86_decoded *td =
			    nb ? cached_at(s->hooks.cache, to, true, X86_MODE_64) : NULL;
			nb = td ? ss_block_at(s, td, to, left, NULL) : NULL;
		} else if (!seen || !present_same_words(nb)) {
			nb = NULL;
		}
		side[k] = way;
		if (!nb || nb->counted || !chain_apart(c, side, k + 1, nb, if_clear)) {
			side[k] = 0;
			break;
		}
		pre[k] = (struct ss_prefix){.blk = c[k],
					    .from = c[k]->last,
					    .to = to,
					    .side = way,
					    .kind = c[k]->kind,
					    .taken = taken};
		used += c[k]->n + 1u;
		c[k + 1] = nb;
	}
	if (k == 0 || !chain_proven(c, k, f))
		return false;
	struct ss_block *p = (struct ss_block *)b; /* one of this CPU's: blk_cache */
	p->plan.k = (uint8_t)k;
	p->plan.if_clear = if_clear;
	p->plan.used = used;
	for (unsigned i = 0; i < k; i++) {
		p->plan.c[i] = c[i + 1];
		p->plan.gen[i] = c[i + 1]->gen;
		p->plan.pre[i] = pre[i];
	}
	return arm_plan(s, b, rflags);
}
