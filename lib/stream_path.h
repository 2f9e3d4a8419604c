/* SPDX-License-Identifier: MIT */
/*
 * The record stream's path encoding of BTS records (lib/stream.h, frame type BT_F_PATH), as
 * Intel PT encodes a trace (SDM Vol. 3C, chapter "Intel Processor Trace": TNT packets for
 * conditional branches, TIP packets for indirect targets, a return compressed against the
 * call stack): the writer and the reader both know the code, so a record is mostly implied by
 * the static path from the previous record's TO.
 *
 * Per record, a bit stream (least significant bit of each byte first):
 *   0  a path record: walk the code from the previous TO. At each conditional branch (Jcc,
 *      JrCXZ, LOOPcc) one bit: 0 not taken, walk on; 1 taken here: the record is this
 *      instruction to its target. The first direct JMP or CALL met is the record (no bits).
 *      The first other branch met (indirect JMP/CALL, RET, far, INT, SYSCALL, IRET, ...) is
 *      the record's FROM, and its TO follows: 1 = as predicted (RET: the return stack's top;
 *      any other: the last target seen from this FROM), or 0 and a varint of the zig-zag
 *      difference from the prediction (FROM when there is none). The flags are the previous
 *      record's and there is no leak note.
 *   1  an escape: the whole record: a leak bit, a flags bit (then a varint of the flags),
 *      varints of zig-zag (FROM - previous TO) and (TO - FROM). Interrupts and exceptions,
 *      records whose path leaves the known code, filtered or lost records, every first
 *      record of a frame.
 * A varint is groups of 8 bits: 7 value bits, least significant first, and a continue bit.
 * The walk reads code only where the writer's code function gives it (the kernel: its own
 * text and the user program's, as in the ELF files a reader has); a path record never walks
 * more than BT_PATH_WALK_MAX instructions or carries more than BT_PATH_BITS_MAX bits.
 * The state (previous TO and flags, return stack, last targets) starts afresh in every frame,
 * so every frame stands alone.
 */
#ifndef LIB_STREAM_PATH_H
#define LIB_STREAM_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BT_PATH_WALK_MAX 4096 /* instructions from one record's TO to the next's FROM */
#define BT_PATH_BITS_MAX 256  /* not-taken bits in one record */
#define BT_PATH_RS	 16   /* return stack entries */
#define BT_PATH_SITES	 64   /* last targets of indirect branches, by FROM */
/* bits of one record at most: an escape is 3 bits and three 10-group varints; a path record
 * is 1 bit, the not-taken bits, the taken bit and a prediction bit with a 10-group varint */
#define BT_PATH_RECORD_BITS  (1 + BT_PATH_BITS_MAX + 2 + 80)
#define BT_PATH_RECORD_BYTES ((BT_PATH_RECORD_BITS + 7) / 8)

struct bt_bts;

/* Signed differences as unsigned numbers, small either way (zig-zag: 0, -1, 1, -2 -> 0, 1, 2,
 * 3), for every delta the stream sends. */
static inline uint64_t bt_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t bt_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Up to 15 bytes of code at addr into buf: their count, 0 where the code is not known. */
typedef size_t (*bt_code_fn)(void *ctx, uint64_t addr, uint8_t *buf);
/* A bt_code_fn's answer from code held in memory, the len bytes at lo: up to 15 of them from
 * addr (fewer at the end), 0 if addr is not in [lo, lo + len). */
size_t bt_code_copy(uint64_t addr, uint64_t lo, const uint8_t *bytes, uint64_t len, uint8_t *buf);

/* What a reader met on the way (bt_read_path's counts): the information the records carry. */
struct bt_path_counts {
	uint64_t records, escapes;
	uint64_t conditionals, taken;	 /* conditional branches walked, and those taken */
	uint64_t returns, returns_hit;	 /* near returns, and those the return stack predicted */
	uint64_t indirect, indirect_hit; /* other branches with a TO to say, and those predicted */
};

/* A reader's cache of decoded instructions, by address (the code must not change while it is
 * in use: clear it when the code does). */
#define BT_INSN_CACHE 65536
struct bt_insn_cache {
	struct bt_insn_cached {
		uint64_t addr;	 /* 0: empty */
		uint64_t target; /* a direct branch's */
		uint8_t length, kind, class;
	} e[BT_INSN_CACHE];
};

struct bt_path {
	bt_code_fn code;
	void *code_ctx;
	struct bt_path_counts *counts; /* a reader's tally, or NULL */
	struct bt_insn_cache *cache;   /* a reader's, or NULL */
	uint64_t prev_to, prev_flags;
	uint64_t rs[BT_PATH_RS];
	unsigned rs_n;	 /* entries in use (a full stack loses its oldest) */
	unsigned rs_top; /* the top at rs[(rs_top - 1) % BT_PATH_RS] */
	uint64_t site[BT_PATH_SITES], last[BT_PATH_SITES];
};

/* What a record does to the state once it is kept (bt_path_advance). */
struct bt_path_op {
	bool path;		 /* a path record (an escape changes only TO and flags) */
	int kind;		 /* enum x86_branch_kind of the instruction at FROM */
	uint64_t return_address; /* a CALL's: FROM + its length */
};

struct bt_bits {
	uint8_t *buf;
	size_t bits; /* capacity */
	size_t pos;  /* next bit */
};

/* A frame's start: the code function, the counts and the cache kept, the state forgotten. */
void bt_path_reset(struct bt_path *p);
/* One record's bits appended to out (false: no room, out unchanged past its old pos); *op says
 * how to advance the state once the record is kept. The state itself is not changed. */
bool bt_path_encode(const struct bt_path *p, const struct bt_bts *r, struct bt_bits *out,
		    struct bt_path_op *op);
void bt_path_advance(struct bt_path *p, const struct bt_bts *r, const struct bt_path_op *op);

/* Errors of bt_path_decode. */
#define BT_PATH_MALFORMED (-1) /* the bits run out, or a varint is too long */
#define BT_PATH_NO_CODE	  (-2) /* the walk needs code the code function does not give */
#define BT_PATH_LOST	  (-3) /* the walk goes on past BT_PATH_WALK_MAX or BT_PATH_BITS_MAX */
/* One record from in, the state advanced: 0, or an error (*missing: the address the code was
 * needed at). */
int bt_path_decode(struct bt_path *p, struct bt_bits *in, struct bt_bts *r, uint64_t *missing);

#endif
