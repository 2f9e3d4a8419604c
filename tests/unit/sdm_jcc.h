/* SPDX-License-Identifier: MIT */
/*
 * The Jcc condition table of SDM Vol. 2A "Jcc" (0x70 + cc, 0F 80 + cc), one line per condition
 * code, over the RFLAGS status flags at their positions (SDM Vol. 1 3.4.3.1, Figure 3-8): the
 * reference the unit tests of lib/x86_step.c and lib/x86_xlate.c hold conditions against.
 */
#ifndef TESTS_UNIT_SDM_JCC_H
#define TESTS_UNIT_SDM_JCC_H

#include <stdbool.h>
#include <stdint.h>

#define FLAG_CF (1u << 0)
#define FLAG_PF (1u << 2)
#define FLAG_ZF (1u << 6)
#define FLAG_SF (1u << 7)
#define FLAG_OF (1u << 11)

/* Whether Jcc with condition code cc jumps with RFLAGS f. */
static inline bool sdm_condition(unsigned cc, uint64_t f)
{
	bool cf = f & FLAG_CF, pf = f & FLAG_PF, zf = f & FLAG_ZF, sf = f & FLAG_SF,
	     of = f & FLAG_OF;
	switch (cc) {
	case 0x0:
		return of; /* JO: OF=1 */
	case 0x1:
		return !of; /* JNO: OF=0 */
	case 0x2:
		return cf; /* JB: CF=1 */
	case 0x3:
		return !cf; /* JAE: CF=0 */
	case 0x4:
		return zf; /* JE: ZF=1 */
	case 0x5:
		return !zf; /* JNE: ZF=0 */
	case 0x6:
		return cf || zf; /* JBE: CF=1 or ZF=1 */
	case 0x7:
		return !cf && !zf; /* JA: CF=0 and ZF=0 */
	case 0x8:
		return sf; /* JS: SF=1 */
	case 0x9:
		return !sf; /* JNS: SF=0 */
	case 0xa:
		return pf; /* JP: PF=1 */
	case 0xb:
		return !pf; /* JNP: PF=0 */
	case 0xc:
		return sf != of; /* JL: SF != OF */
	case 0xd:
		return sf == of; /* JGE: SF=OF */
	case 0xe:
		return zf || sf != of; /* JLE: ZF=1 or SF != OF */
	default:
		return !zf && sf == of; /* JG: ZF=0 and SF=OF */
	}
}

#endif
