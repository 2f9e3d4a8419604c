/* SPDX-License-Identifier: MIT */
/*
 * Where a straight line of 64-bit instructions may write memory, as linear addresses in terms of
 * the general registers before its first instruction (per-block stepping is exact by
 * construction: "any store the engine cannot bound — by any instruction, through any mapping —
 * may reach code bytes and counters"). The single-step engine runs such a line at full speed to a
 * breakpoint (arch/x86/step/block.c): it may only do so where it can show, before the line runs,
 * that no byte the line writes is a byte of its code or of a counted loop's counter, through
 * whatever mapping (the engine compares physical addresses, arch/x86/step/prove.c). This file
 * says where the writes go.
 *
 * The line is followed by the SDM's instruction semantics (Vol. 2 instruction pages; "32-bit
 * operands generate a 32-bit result, zero-extended", Vol. 1 3.4.1.1; the effective address,
 * Vol. 2 2.1.5 and 2.2.1.6 RIP-relative; PUSH and CALL store below RSP, "decrements the stack
 * pointer and then stores", Vol. 2 PUSH). A register is known as the value some register held
 * at the line's start plus a constant, or as a constant; an instruction this file does not
 * follow makes every register it may write unknown (all but RSP, and RSP too where it may name
 * it). Every store is listed with its address in those terms; a store whose address cannot be
 * put so (a base computed in a way not followed, a bit offset that moves the address, XSAVE's
 * size, a vector index, a destination in a register) ends the part of the line that is covered:
 * the engine stops before it and lets it run alone, where its address follows from the
 * registers of that stop. What is not classified is counted as a store of its class's widest
 * size at its ModRM address, never as no store. Pure, freestanding, host-tested
 * (tests/unit/test_x86_stores.c, against the host CPU's own writes).
 */
#ifndef LIB_X86_STORES_H
#define LIB_X86_STORES_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_decode.h"
#include "lib/x86_mem.h"

/* stores a line holds at most: a block has at most 32 instructions and a branch */
#define X86_STORES_MAX	   40
#define X86_STORES_REGS	   16	/* RAX..R15 in encoding order */
#define X86_STORES_CONST   0x10 /* a value: a constant (x86_stores_value.off) */
#define X86_STORES_RANGE   0x11 /* a value from off to off + span (an AND's mask, a MOVZX) */
#define X86_STORES_UNKNOWN 0xff /* a value not followed */
#define X86_STORES_NONE	   0xfe /* no base or no index register */

/* A register's value: register `var`'s at the line's start plus off, the constant off
 * (X86_STORES_CONST), one of off .. off + span (X86_STORES_RANGE), or unknown; plus register
 * var2's at the line's start shifted left by scale2 where var2 is not X86_STORES_NONE (an LEA
 * with an index; var then a register or X86_STORES_CONST, span 0). */
struct x86_stores_value {
	uint8_t var, var2, scale2;
	int64_t off;
	uint64_t span;
};

/* One store: bytes [A + k, A + k + size) for one k in 0 .. span, where A = base + (index <<
 * scale) + off (base, index: the registers' values at the line's start, X86_STORES_NONE:
 * absent) plus the FS or GS base where `seg` is that prefix byte (64H, 65H), else 0. */
struct x86_store_ref {
	uint8_t base, index, scale, seg;
	uint8_t insn;  /* which instruction of the line stores */
	uint16_t size; /* bytes written from A (the widest the instruction's class writes) */
	int64_t off;
	uint64_t span; /* what values in a range (X86_STORES_RANGE) add to A */
};

struct x86_stores {
	uint8_t n; /* stores */
	struct x86_store_ref st[X86_STORES_MAX];
	/* each register after the covered part, in terms of the registers at its start */
	struct x86_stores_value exit[X86_STORES_REGS];
};

/*
 * Follow the line insn[0..n) (contiguous 64-bit code from `start`): its stores, and its
 * registers after each instruction, into *out. Returns how many instructions from the start are
 * covered: all n, or k < n where instruction k's store cannot be put in terms of the line's
 * start (k = 0: not in any terms: its writes are not bounded by its registers). *out describes
 * instructions [0, k).
 */
unsigned x86_stores_follow(const struct x86_insn *const *insn, unsigned n, uint64_t start,
			   struct x86_stores *out);

/* Store s's first byte with registers g at the line's start and segment bases fs, gs. */
uint64_t x86_store_address(const struct x86_store_ref *s, const struct x86_gprs *g, uint64_t fs,
			   uint64_t gs);

/* A value's number with registers g at the line's start; false where it is unknown. */
bool x86_stores_eval(struct x86_stores_value v, const struct x86_gprs *g, uint64_t *out);

/* The registers after the line from g, those before it: *after; returns the mask of registers
 * (bit r) whose value is known. */
uint16_t x86_stores_after(const struct x86_stores *s, const struct x86_gprs *g,
			  struct x86_gprs *after);

#endif
