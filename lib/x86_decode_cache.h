/* SPDX-License-Identifier: MIT */
/*
 * Decodings of the instructions a single-stepped workload runs, cached by address (direct
 * mapped) with the bytes each came from, so that code that rewrites itself is decoded again
 * (exact single-stepping: "decode each instruction from its bytes before it runs, ... and drop any
 * cached decoding when the code at an address changes"). Used on every step by the single-step
 * engine's trace (kernel/sstrace.c) and the software PMU's runner (arch/x86/session/session.c):
 * inline, as under QEMU's TCG each call and return ends a translation block. Pure,
 * freestanding, host-tested (tests/unit/test_x86_decode_cache.c).
 */
#ifndef LIB_X86_DECODE_CACHE_H
#define LIB_X86_DECODE_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_decode.h"
#include "lib/x86_step.h"

#define X86_DECODE_CACHE_SIZE 16384 /* entries */
#define X86_DECODE_PAGE                                                                            \
	4096 /* the smallest page: bytes past an instruction may be unmapped                       \
	      * beyond its end */

struct x86_decoded {
	uint64_t ip;
	struct x86_insn insn;	   /* length 0: empty slot */
	struct x86_step_insn step; /* what the classifier needs of it (lib/x86_step.h) */
	unsigned opcode;	   /* x86_opcode_of its bytes: the single-step engine's filter */
	uint64_t bytes[2];	   /* the instruction's (at most 15), then zeros */
	uint64_t mask[2];	   /* which of the 16 bytes are the instruction's */
};

/* Whether the bytes at slot->ip are still those it was decoded from: two 8-byte compares where
 * the 16 bytes at ip lie in one page (the bytes beyond the instruction, masked out, may not be
 * mapped past a page end), else byte by byte. */
static inline __attribute__((always_inline)) bool
x86_decoded_same_bytes(const struct x86_decoded *slot)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)slot->ip;
	if ((slot->ip & (X86_DECODE_PAGE - 1)) <= X86_DECODE_PAGE - 16) {
		uint64_t lo, hi; /* __builtin_: the kernel builds with -fno-builtin */
		__builtin_memcpy(&lo, code, sizeof(lo));
		__builtin_memcpy(&hi, code + sizeof(lo), sizeof(hi));
		return (lo & slot->mask[0]) == slot->bytes[0] &&
		       (hi & slot->mask[1]) == slot->bytes[1];
	}
	const uint8_t *then = (const uint8_t *)slot->bytes;
	for (unsigned i = 0; i < slot->insn.length; i++)
		if (code[i] != then[i])
			return false;
	return true;
}

/* x86_decode_cached's miss: slot decoded afresh from the bytes at ip (out of line, so that the
 * hit stays a few instructions in its caller). */
static __attribute__((noinline, cold)) const struct x86_decoded *
x86_decode_fill(struct x86_decoded *slot, uint64_t ip, enum x86_mode mode, unsigned avail)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)ip;
	if (x86_decode_mode(code, avail, mode, &slot->insn) != 0) {
		slot->insn.length = 0;
		return 0;
	}
	slot->ip = ip;
	slot->step = x86_step_insn_of(&slot->insn);
	slot->opcode = x86_opcode_of_mode(code, slot->insn.length, mode);
	uint8_t *then = (uint8_t *)slot->bytes, *mask = (uint8_t *)slot->mask;
	for (unsigned i = 0; i < sizeof(slot->bytes); i++) {
		bool its = i < slot->insn.length;
		then[i] = its ? code[i] : 0;
		mask[i] = its ? 0xff : 0;
	}
	return slot;
}

/*
 * The decoding of the instruction at ip in `mode` (the same bytes decode otherwise in 16/32-bit
 * code: a slot decoded in another mode is decoded again), from cache[X86_DECODE_CACHE_SIZE], or
 * NULL where the bytes there are no instruction, or where the instruction would run past the
 * `avail` bytes from ip that can be read (the rest lie on a page that is not present: the caller
 * knows: exactness class 3; a cached decoding longer than that is not compared, it is decoded again
 * and fails). `before_run`: ip is about to run, so the cached entry is
 * checked against the bytes there and decoded again if they changed; otherwise (ip has just
 * retired) the entry is taken as it is: it was made before ip ran (a previous call with
 * before_run), even if ip then rewrote itself. An instruction not seen before is decoded now.
 */
static inline __attribute__((always_inline)) const struct x86_decoded *
x86_decode_cached_at(struct x86_decoded *cache, uint64_t ip, bool before_run, enum x86_mode mode,
		     unsigned avail)
{
	struct x86_decoded *slot = &cache[ip % X86_DECODE_CACHE_SIZE];
	if (slot->ip != ip || slot->insn.length == 0 || slot->insn.mode != mode ||
	    slot->insn.length > avail || (before_run && !x86_decoded_same_bytes(slot)))
		return x86_decode_fill(slot, ip, mode, avail);
	return slot;
}

/* x86_decode_cached_at with all X86_MAX_INSN_LENGTH bytes from ip readable. */
static inline __attribute__((always_inline)) const struct x86_decoded *
x86_decode_cached_mode(struct x86_decoded *cache, uint64_t ip, bool before_run, enum x86_mode mode)
{
	return x86_decode_cached_at(cache, ip, before_run, mode, X86_MAX_INSN_LENGTH);
}

/* x86_decode_cached_at for 64-bit code. */
static inline __attribute__((always_inline)) const struct x86_decoded *
x86_decode_cached_avail(struct x86_decoded *cache, uint64_t ip, bool before_run, unsigned avail)
{
	return x86_decode_cached_at(cache, ip, before_run, X86_MODE_64, avail);
}

/* x86_decode_cached_at for 64-bit code, all X86_MAX_INSN_LENGTH bytes from ip readable. */
static inline __attribute__((always_inline)) const struct x86_decoded *
x86_decode_cached(struct x86_decoded *cache, uint64_t ip, bool before_run)
{
	return x86_decode_cached_at(cache, ip, before_run, X86_MODE_64, X86_MAX_INSN_LENGTH);
}

#endif
