/* SPDX-License-Identifier: MIT */
/*
 * The software PMU's model-specific (legacy) LBR stack: recording, LBR_SELECT filtering and
 * the FROM/TO/INFO encodings of the LBR formats of IA32_PERF_CAPABILITIES[5:0]. Pure.
 * Sources: SDM Vol. 3B 17.4.8 (LBR stack), 17.7 / 17.9 / 17.12 (per-generation LBR
 * filtering and formats), ../shared/reference/intel-trace-hw.md sections 3.1-3.4.
 */
#ifndef ARCH_X86_SPMU_LBR_H
#define ARCH_X86_SPMU_LBR_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/bits.h"

#define LBR_MAX_DEPTH 32

/* MSR_LBR_SELECT (1C8H): bits 0-8 SUPPRESS the class when set, bit 9 enables call-stack mode
 * (SDM 17.7.2 Table 17-13 / 17.9.1; reference 3.2). */
#define LBR_SELECT_CPL_EQ_0	      BIT(0) /* do not record branches ending in ring 0 */
#define LBR_SELECT_CPL_NEQ_0	      BIT(1) /* ... ending in ring > 0 */
#define LBR_SELECT_JCC		      BIT(2)
#define LBR_SELECT_NEAR_REL_CALL      BIT(3)
#define LBR_SELECT_NEAR_IND_CALL      BIT(4)
#define LBR_SELECT_NEAR_RET	      BIT(5)
#define LBR_SELECT_NEAR_IND_JMP	      BIT(6)
#define LBR_SELECT_NEAR_REL_JMP	      BIT(7)
#define LBR_SELECT_FAR_BRANCH	      BIT(8)
#define LBR_SELECT_EN_CALLSTACK	      BIT(9)
#define LBR_SELECT_VALID_NO_CALLSTACK GENMASK(8, 0)
/*
 * Call-stack mode (SDM Vol. 3B 17.9, Haswell and later): the configuration the SDM requires.
 * JCC, NEAR_IND_JMP, NEAR_REL_JMP and FAR_BRANCH suppressed, calls and returns captured, at
 * most one CPL bit: near calls push a record, near returns pop (clear) the newest one.
 */
#define LBR_SELECT_CALLSTACK_MUST_SET                                                              \
	(LBR_SELECT_JCC | LBR_SELECT_NEAR_IND_JMP | LBR_SELECT_NEAR_REL_JMP |                      \
	 LBR_SELECT_FAR_BRANCH | LBR_SELECT_EN_CALLSTACK)
#define LBR_SELECT_CALLSTACK_MUST_CLEAR                                                            \
	(LBR_SELECT_NEAR_REL_CALL | LBR_SELECT_NEAR_IND_CALL | LBR_SELECT_NEAR_RET)

/* Legacy LBR formats (IA32_PERF_CAPABILITIES[5:0], SDM 17.4.8.1 / reference 1.5, 3.4). */
enum lbr_format {
	LBR_FMT_32 = 0,		/* 32-bit offsets */
	LBR_FMT_LIP = 1,	/* 64-bit linear address */
	LBR_FMT_EIP = 2,	/* 64-bit effective address */
	LBR_FMT_EIP_FLAGS = 3,	/* + mispredict in FROM[63] */
	LBR_FMT_EIP_FLAGS2 = 4, /* + TSX in_tx FROM[62], abort FROM[61] */
	LBR_FMT_INFO = 5,	/* flags and cycles in LBR_INFO */
	LBR_FMT_TIME = 6,	/* cycles in TO[63:48], mispredict FROM[63] */
	LBR_FMT_INFO2 = 7,	/* LBR_INFO without TSX */
};

/* The branch classes of LBR_SELECT. */
enum lbr_class {
	LBR_CLASS_JCC,
	LBR_CLASS_NEAR_REL_CALL,
	LBR_CLASS_NEAR_IND_CALL,
	LBR_CLASS_NEAR_RET,
	LBR_CLASS_NEAR_IND_JMP,
	LBR_CLASS_NEAR_REL_JMP,
	LBR_CLASS_FAR, /* far jumps/calls/returns, interrupts, exceptions, SYSCALL/SYSRET, IRET */
};

struct lbr_branch {
	uint64_t from, to;
	enum lbr_class cls;
	unsigned cpl_to;   /* privilege level the branch ends in */
	bool mispredicted; /* the model predicts every branch correctly: false */
	uint16_t cycles;   /* elapsed-cycle approximation since the previous LBR record */
};

struct lbr_stack {
	enum lbr_format format;
	unsigned depth; /* a power of two, <= LBR_MAX_DEPTH */
	unsigned tos;	/* index of the most recent record */
	uint64_t select;
	bool nhm_select_erratum; /* Nehalem/Westmere: calls need the jump classes (below) */
	uint64_t from[LBR_MAX_DEPTH], to[LBR_MAX_DEPTH], info[LBR_MAX_DEPTH];
};

/* Whether LBR_SELECT lets the branch through. */
bool lbr_select_allows(uint64_t select, const struct lbr_branch *b);
/* Whether `select` is a configuration the model accepts: call-stack mode only as the SDM
 * requires it (above); NULL, or a reason. */
const char *lbr_select_check(uint64_t select, bool call_stack_supported);
/* Record one branch (the caller has checked DEBUGCTL.LBR and freeze): TOS moves up, the
 * FROM/TO/INFO slot gets the format's encoding; in call-stack mode a near return instead
 * clears the newest record and moves TOS down. Returns false if filtered out. */
bool lbr_record(struct lbr_stack *s, const struct lbr_branch *b);
/* The format's encodings (exposed for host tests and the future decoder cross-check). */
void lbr_encode(enum lbr_format f, const struct lbr_branch *b, uint64_t *from, uint64_t *to,
		uint64_t *info);
bool lbr_format_supported(enum lbr_format f); /* formats the model offers: 3-7 */

#endif
