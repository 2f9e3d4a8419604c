/* SPDX-License-Identifier: MIT */
/*
 * The one checked BIT()/GENMASK() pair of baretrace. Every register field in the tree is
 * written with these; the static assertions below pin their meaning so a swapped-argument
 * mistake (a classic in public perfmon code) cannot compile.
 */
#ifndef LIB_BITS_H
#define LIB_BITS_H

#ifdef __ASSEMBLER__
/* Assembly (hw/ headers are shared with .S files): a plain shift, for 32-bit immediates. */
#define BIT(n) (1 << (n))
#else
#include <stdint.h>

/* BIT(n): a 64-bit value with bit n set. */
#define BIT(n) (UINT64_C(1) << (n))

/*
 * GENMASK(hi, lo): bits hi..lo inclusive set, hi >= lo. A reversed pair yields a
 * compile-time error through the negative-width bit-field in GENMASK_CHECK_.
 */
#define GENMASK_CHECK_(hi, lo)                                                                     \
	(sizeof(struct { int genmask_hi_ge_lo_ : ((hi) >= (lo)) ? 1 : -1; }) * 0)
#define GENMASK(hi, lo)                                                                            \
	((((~UINT64_C(0)) >> (63 - (hi))) & ((~UINT64_C(0)) << (lo))) + GENMASK_CHECK_(hi, lo))

/* genmask(hi, lo): GENMASK for bounds known only at run time (hi >= lo, both < 64). */
static inline uint64_t genmask(unsigned hi, unsigned lo)
{
	return ((~UINT64_C(0)) >> (63 - hi)) & ((~UINT64_C(0)) << lo);
}

/* FIELD_GET/FIELD_PREP: extract/insert a field given its GENMASK. */
#define FIELD_SHIFT_(mask)    (__builtin_ctzll(mask))
#define FIELD_GET(mask, val)  (((uint64_t)(val) & (mask)) >> FIELD_SHIFT_(mask))
#define FIELD_PREP(mask, val) (((uint64_t)(val) << FIELD_SHIFT_(mask)) & (mask))

#define ARRAY_SIZE(a)	 (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)	 (((x) + ((a)-1)) & ~((uint64_t)(a)-1))
#define ALIGN_DOWN(x, a) ((x) & ~((uint64_t)(a)-1))
#define IS_ALIGNED(x, a) (((x) & ((uint64_t)(a)-1)) == 0)

_Static_assert(BIT(0) == 1, "BIT(0)");
_Static_assert(BIT(63) == 0x8000000000000000ull, "BIT(63)");
_Static_assert(GENMASK(0, 0) == 1, "GENMASK(0,0)");
_Static_assert(GENMASK(7, 4) == 0xf0, "GENMASK(7,4)");
_Static_assert(GENMASK(63, 0) == ~0ull, "GENMASK(63,0)");
_Static_assert(GENMASK(63, 62) == 0xc000000000000000ull, "GENMASK(63,62)");
_Static_assert(FIELD_GET(GENMASK(15, 8), 0xabcd) == 0xab, "FIELD_GET");
_Static_assert(FIELD_PREP(GENMASK(15, 8), 0x1ff) == 0xff00, "FIELD_PREP truncates");

#endif /* __ASSEMBLER__ */

#endif
