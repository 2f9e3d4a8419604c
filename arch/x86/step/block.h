/* SPDX-License-Identifier: MIT */
/*
 * Per-block stepping's private parts, shared by block.c (blocks: decoding, arming, stopping),
 * loop.c (counted loops) and chain.c (prefixes: an indirect branch, or blocks run before the
 * armed one). Not for the rest of the engine (engine.h is that).
 */
#ifndef ARCH_X86_STEP_BLOCK_H
#define ARCH_X86_STEP_BLOCK_H

#include "arch/x86/step/engine.h"
#include "lib/x86_loop.h"
#include "lib/x86_stores.h"

#define BLOCK_MIN 2  /* fewer plain instructions: stepping them costs no more traps */
#define BLOCK_MAX 32 /* plain instructions in a block */
_Static_assert(BLOCK_MAX *X86_MAX_INSN_LENGTH < X86_DECODE_CACHE_SIZE,
	       "a block's decodings (and its end's) never share a decode cache slot");

/*
 * A block once decoded, remembered by its start (a loop body is decoded once, not at every
 * iteration): its bytes as they were decoded (compared with the bytes there before it runs
 * again and after it ran), its instructions' lengths, and how it ends. Only blocks whose bytes
 * (read in whole words from the start) stay on the start's page are remembered.
 */
#define BLOCK_WORDS 16 /* a block's bytes: at most 128 */
/* Blocks remembered per CPU, by start address: a power of two, BLOCK_SLOTS_MAX where memory
 * allows (a real program's code needs thousands: with 64, SQLite decoded its blocks again at
 * most traps), fewer on a small machine (ss_blocks_prepare), at least BLOCK_SLOTS_MIN. */
#define BLOCK_SLOTS_MAX 8192
#define BLOCK_SLOTS_MIN 64
extern unsigned ss_block_slots;
struct ss_block {
	uint64_t start; /* 0: an empty slot */
	uint64_t bytes[BLOCK_WORDS];
	uint8_t words, n, len[BLOCK_MAX];
	bool branch, to_start;	   /* ends in a branch it runs; a successor is the start */
	uint8_t kind;		   /* the branch's enum x86_branch_kind */
	uint64_t last, end, to[2]; /* the branch or breakpoint; the address after the block */
	bool counted;  /* a counted loop: its Jcc goes back to its start (loop says how) */
	bool stores;   /* an instruction of the block (its branch too) may write memory */
	int8_t went;   /* where its Jcc went last: 1 taken, -1 not, 0 not seen (chain_next) */
	uint8_t turns; /* how often it went the other way than before, lately (note_way) */
	bool none;     /* no block starts here (the bytes of its first instructions kept) */
	bool listed;   /* in its CPU's slots to clear at the next reset (block.c) */
	uint32_t gen;  /* this decoding's number (ss_state.blk_gen): a slot decoded again differs */
	struct x86_loop loop;
	/* Its stores' addresses and its registers after it, in terms of the registers before it
	 * (lib/x86_stores.h): what prove.c checks before it runs. */
	struct x86_stores st;
	/* Linear pages its stores were last proven to keep to, under translations number gen
	 * (ss_translation_gen; 0: none): pages no byte of which is its code or a table of their
	 * walks (prove.c). */
	uint32_t proven_gen;
	uint64_t proven_page[2];
	/* The chain last armed from this block (chain.c), armed again while it holds: its blocks
	 * still the decodings it was planned with (gen), their bytes unchanged, each Jcc predicted
	 * the same way, interrupts as they were. k 0: none. */
	struct {
		uint8_t k;
		bool if_clear;
		uint32_t gen[SS_PREFIX_MAX];
		const struct ss_block *c[SS_PREFIX_MAX];
		struct ss_prefix pre[SS_PREFIX_MAX];
		uint64_t used;
	} plan;
};

/* Where the block at start is remembered. */
static inline __attribute__((always_inline)) unsigned slot_of(uint64_t start)
{
	return (unsigned)((start ^ (start >> 6)) & (ss_block_slots - 1));
}

static inline __attribute__((always_inline)) bool same_words(const struct ss_block *b)
{
	const uint64_t *code = (const uint64_t *)b->start;
	for (unsigned i = 0; i < b->words; i++) {
		uint64_t w;
		__builtin_memcpy(&w, code + i, sizeof(w));
		if (w != b->bytes[i])
			return false;
	}
	return true;
}

/* same_words for a block that may lie on another page than the one the trap found present (a
 * branch's target, a chain's blocks): its page may have been unmapped since it was decoded. Its
 * words all lie on its start's page, asked of fetch.c first (ss_code_readable: a walk, where the
 * page is not remembered present since the last exception or system call), as every read of the
 * workload's code is: a probe that faulted would go through an exception stub that QEMU's log
 * holds, as if the workload had taken it. */
static inline __attribute__((always_inline)) bool present_same_words(const struct ss_block *b)
{
	return ss_code_readable(b->start) && same_words(b);
}

static inline __attribute__((always_inline)) void write_dr(struct ss_state *s, unsigned i,
							   uint64_t v)
{
	if (s->dr[i] == v)
		return;
	s->dr[i] = v;
	switch (i) {
	case 0:
		write_dr0(v);
		break;
	case 1:
		write_dr1(v);
		break;
	case 2:
		write_dr2(v);
		break;
	default:
		write_dr3(v);
		break;
	}
}

/* Arm block b: breakpoints on its branch's successors (DR0, DR1), or on its last instruction
 * (DR0); a counted loop (`loop`) only on its exit, its fall-through (in DR1 where DR1 holds it
 * already: the block that fell into the loop had it there, and a write that moves a breakpoint
 * costs QEMU's TCG more than most of a trap, docs/engine.md "Per-block stepping"); and on its
 * prefixes' ways not predicted (side[], 0: none: DR2, DR3). Which register holds which does
 * not matter: a stop is told by its RIP, never by DR6. */
static inline __attribute__((always_inline)) void arm_sides(struct ss_state *s,
							    const struct ss_block *b,
							    uint64_t *rflags, bool loop,
							    const uint64_t side[SS_PREFIX_MAX])
{
	uint64_t dr7 = DR7_L0 | DR7_RESERVED_1;
	_Static_assert(SS_PREFIX_MAX == 2, "a side each in DR2 and DR3");
	if (side && side[0]) {
		write_dr(s, 2, side[0]);
		dr7 |= DR7_L2;
	}
	if (side && side[1]) {
		write_dr(s, 3, side[1]);
		dr7 |= DR7_L3;
	}
	if (loop && s->dr[1] == b->to[1]) {
		dr7 = DR7_L1 | DR7_RESERVED_1;
	} else if (loop) {
		write_dr(s, 0, b->to[1]);
	} else if (b->branch) {
		write_dr(s, 0, b->to[0]);
		if (b->to[1]) {
			write_dr(s, 1, b->to[1]);
			dr7 |= DR7_L1;
		}
		if (b->to_start)
			*rflags |= RFLAGS_RF;
	} else {
		write_dr(s, 0, b->last);
	}
	if (s->dr7 != dr7)
		write_dr7(dr7);
	s->dr7 = dr7;
	*rflags &= ~RFLAGS_TF;
	s->blk = b;
	s->blk_armed = true;
	s->blk_branch = b->branch;
	s->blk_start = b->start;
	s->blk_last = b->last;
	s->blk_to[0] = b->to[0];
	s->blk_to[1] = b->to[1];
	s->blk_n = b->n;
	s->plain_to = 0;
	s->blk_trips = 0;
	s->blocks++;
	if (b->start != s->loop_declined)
		s->loop_declined = 0; /* another block: that loop is counted again when it comes */
}

static inline __attribute__((always_inline)) void arm(struct ss_state *s, const struct ss_block *b,
						      uint64_t *rflags, bool loop)
{
	arm_sides(s, b, rflags, loop, NULL);
}

/* A Jcc that turned (went the other way than the time before) CHAIN_TURNS times lately, less
 * one for each time it did not, is not predicted (chain.c): a data-dependent branch would
 * leave its chain by the way not predicted half the time, each time the long way. */
#define CHAIN_TURNS	2
#define CHAIN_TURNS_MAX 3

/* Whether block b may begin a chain (chain.c): it ends in a direct JMP, or a Jcc that did not
 * turn often lately, and stores nothing. */
static inline __attribute__((always_inline)) bool chain_first(const struct ss_block *b)
{
	return b->branch && !b->stores &&
	       (b->kind == X86_BR_JMP_REL ||
		(b->kind == X86_BR_JCC && b->to[1] && b->turns < CHAIN_TURNS));
}

/* Where block b's branch went (b is one of this CPU's remembered blocks: blk_cache). */
static inline __attribute__((always_inline)) void note_way(const struct ss_block *b, bool taken)
{
	struct ss_block *w = (struct ss_block *)b;
	int8_t way = taken ? 1 : -1;
	if (w->went && w->went != way)
		w->turns = w->turns + 2 > CHAIN_TURNS_MAX ? CHAIN_TURNS_MAX : w->turns + 2;
	else if (w->turns)
		w->turns--;
	w->went = way;
}

/* The room a chain's blocks after its first take at most: SS_PREFIX_MAX blocks and branches. */
#define CHAIN_ROOM (SS_PREFIX_MAX * (BLOCK_MAX + 1u))

/* Whether address a lies on block b's straight line (its start to its last instruction). */
static inline bool on_line(const struct ss_block *b, uint64_t a)
{
	return a >= b->start && a <= b->last;
}

/* Whether kind is a near RET, or a near JMP or CALL through a register or memory. */
static inline bool indirect_near(unsigned kind)
{
	return kind == X86_BR_RET || kind == X86_BR_JMP_IND || kind == X86_BR_CALL_IND;
}

/* The block at `start` (d: its first instruction's decoding, made before it runs) with at most
 * `room` plain steps: remembered (its bytes unchanged), or decoded now; NULL where none
 * (block.c). */
struct ss_block *ss_block_at(struct ss_state *s, const struct x86_decoded *d, uint64_t start,
			     uint64_t room, const struct ss_block *same);
/* Block b's instruction at byte offset `at` changed while it ran: unknown what ran there if an
 * instruction before it in b may have stored (block.c). */
void ss_block_changed(struct ss_state *s, const struct ss_block *b, unsigned at);

/* What a block about to be armed runs with (prove.c): the registers g before it (before its
 * prefix blocks pre[0..npre), which store nothing), which of them are known (bit r); a counted
 * loop's runs after the first (trips, 0: one run); push_before: the RSP of an indirect CALL
 * run just before it (its return address written at [RSP - 8]), else 0. */
struct ss_proof_in {
	const struct x86_gprs *g;
	uint16_t known;
	uint8_t npre;
	const struct ss_block *pre[SS_PREFIX_MAX];
	uint64_t trips, push_before;
};
#define SS_ALL_KNOWN 0xffffu
/* Whether block b, run as `in` says, writes no byte of its code, of a counted loop's counter
 * (but by the counter's own update) or of the paging structures that map them or its stores,
 * through any mapping (prove.c). */
bool ss_prove_stores(const struct ss_block *b, const struct ss_proof_in *in);
/* ss_prove_stores for block b run once from the registers of frame f. */
static inline bool ss_prove_one(const struct ss_block *b, const struct trap_frame *f)
{
	if (!b->stores)
		return true;
	const struct x86_gprs g = trap_frame_gprs(f);
	const struct ss_proof_in in = {.g = &g, .known = SS_ALL_KNOWN};
	return ss_prove_stores(b, &in);
}

/* Counted loops (loop.c). `size` bytes (at most 8) of the workload's memory at `at`,
 * zero-extended, where the engine can read them without a fault. */
bool ss_read_workload(const struct ss_state *s, uint64_t at, unsigned size, uint64_t *v);
/* Arm counted loop b to its exit where its count follows from f and the hooks take its runs. */
bool ss_loop_arm(struct ss_state *s, const struct ss_block *b, const struct trap_frame *f,
		 uint64_t *rflags);
/* The armed counted loop stopped at f->rip: its whole runs told to the hooks. */
void ss_loop_retire(struct ss_state *s, const struct trap_frame *f);

/* Prefixes (chain.c): an indirect near branch d about to run, armed with the block at its
 * target; block b armed with the blocks it goes on to as one. */
bool ss_chain_after_branch(struct ss_state *s, const struct x86_decoded *d,
			   const struct trap_frame *f, uint64_t room, uint64_t *rflags);
bool ss_chain_arm(struct ss_state *s, const struct ss_block *b, uint64_t room, bool decode,
		  uint64_t *rflags, const struct trap_frame *f);

#endif
