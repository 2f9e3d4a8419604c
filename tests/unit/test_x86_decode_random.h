/* SPDX-License-Identifier: MIT */
/*
 * test_x86_decode.c's random encodings: a seeded generator (the same stream on every run, so
 * that a failure reproduces) of byte sequences shaped like instructions, for objdump -b binary
 * to decode alongside x86_decode(). Header-only: the Makefile builds every tests/unit/test_*.c
 * as a test of its own.
 */
#ifndef TESTS_UNIT_TEST_X86_DECODE_RANDOM_H
#define TESTS_UNIT_TEST_X86_DECODE_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_TAIL_BYTES 10 /* after the opcode: room for ModRM, SIB, disp32 and imm32 */

/* xorshift64*: a fixed sequence, so that a failure reproduces. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull; /* Vigna's xorshift64* multiplier */
}

static unsigned rng_below(uint64_t *s, unsigned n)
{
	return (unsigned)(rng_next(s) >> 32) % n;
}

/* One random encoding: a few prefixes, maybe REX, an opcode in one of the maps or a VEX/EVEX
 * payload with its fixed bits mostly right, then random ModRM/SIB/displacement/immediate bytes. */
static size_t fuzz_one(uint64_t *s, uint8_t *out)
{
	static const uint8_t prefixes[] = {0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e,
					   0x3e, 0x26, 0x36, 0x64, 0x65};
	static const uint8_t evex_maps[] = {1, 2, 3, 5, 6};
	size_t n = 0;
	unsigned np = rng_below(s, 8) < 3 ? 1 + rng_below(s, 3) : 0;
	for (unsigned i = 0; i < np; i++)
		out[n++] = prefixes[rng_below(s, sizeof(prefixes))];
	if (rng_below(s, 4) == 0)
		out[n++] = (uint8_t)(0x40 + rng_below(s, 16));
	uint8_t r[3] = {(uint8_t)rng_next(s), (uint8_t)rng_next(s), (uint8_t)rng_next(s)};
	switch (rng_below(s, 16)) {
	case 0:
	case 1:
	case 2:
	case 3:
	case 4:
	case 5: /* one-byte map (prefixes and escapes included) */
		out[n++] = r[0];
		break;
	case 6:
	case 7:
	case 8: /* 0F map */
		out[n++] = 0x0f;
		out[n++] = r[0];
		break;
	case 9: /* 0F38 */
		out[n++] = 0x0f;
		out[n++] = 0x38;
		out[n++] = r[0];
		break;
	case 10: /* 0F3A */
		out[n++] = 0x0f;
		out[n++] = 0x3a;
		out[n++] = r[0];
		break;
	case 11: /* VEX2 */
		out[n++] = 0xc5;
		out[n++] = r[0];
		out[n++] = r[1];
		break;
	case 12: /* VEX3, maps 1-3 */
		out[n++] = 0xc4;
		out[n++] = (uint8_t)((r[0] & 0xe0) | (1 + rng_below(s, 3)));
		out[n++] = r[1];
		out[n++] = r[2];
		break;
	case 13:
	case 14: /* EVEX, maps 1-3, 5, 6; P0 bit 3 clear, P1 bit 2 set */
		out[n++] = 0x62;
		out[n++] = (uint8_t)((r[0] & 0xf0) | evex_maps[rng_below(s, sizeof(evex_maps))]);
		out[n++] = (uint8_t)(r[1] | 0x04);
		out[n++] = r[2];
		out[n++] = (uint8_t)rng_next(s);
		break;
	default: /* XOP, maps 8-0AH */
		out[n++] = 0x8f;
		out[n++] = (uint8_t)((r[0] & 0xe0) | (8 + rng_below(s, 3)));
		out[n++] = r[1];
		out[n++] = r[2];
		break;
	}
	for (unsigned i = 0; i < FUZZ_TAIL_BYTES; i++)
		out[n++] = (uint8_t)rng_next(s);
	return n;
}

#endif
