/* SPDX-License-Identifier: MIT */
/*
 * Last Branch Record registers, defined once for the drivers, the capability decoder and the
 * software PMU: the legacy (model-specific) LBR stack with MSR_LBR_SELECT and the record
 * formats of IA32_PERF_CAPABILITIES[5:0] (SDM Vol. 3B 17.4.8, 17.7-17.12, Table 17-13), and
 * Architectural LBR with IA32_LBR_CTL and LBR_INFO (SDM Vol. 3B chapter "Last Branch
 * Records", Architectural LBR sections; Linux arch/x86/include/asm/perf_event.h ARCH_LBR_*).
 * MSR numbers are in hw/msr.h.
 */
#ifndef ARCH_X86_HW_LBR_REGS_H
#define ARCH_X86_HW_LBR_REGS_H

#include "arch/x86/hw/msr.h"
#include "lib/bits.h"
#include "lib/x86_decode.h"

/* ---- branch classes: one vocabulary for filters, records and the model -------------------- */

/*
 * The seven branch classes both LBR filters name: MSR_LBR_SELECT bits 2-8 (class c is bit
 * c + 2, SDM Vol. 3B Table 17-13) and IA32_LBR_CTL bits 16-22 (in another order, below).
 */
enum lbr_class {
	LBR_CLASS_JCC,
	LBR_CLASS_NEAR_REL_CALL,
	LBR_CLASS_NEAR_IND_CALL,
	LBR_CLASS_NEAR_RET,
	LBR_CLASS_NEAR_IND_JMP,
	LBR_CLASS_NEAR_REL_JMP,
	LBR_CLASS_FAR, /* far jumps/calls/returns, interrupts, exceptions, SYSCALL/SYSRET, IRET */
	LBR_CLASS_COUNT
};

/* Sets of classes, bit c for class c. */
#define LBR_F_COND	    BIT(LBR_CLASS_JCC)
#define LBR_F_NEAR_REL_CALL BIT(LBR_CLASS_NEAR_REL_CALL)
#define LBR_F_NEAR_IND_CALL BIT(LBR_CLASS_NEAR_IND_CALL)
#define LBR_F_NEAR_RET	    BIT(LBR_CLASS_NEAR_RET)
#define LBR_F_NEAR_IND_JMP  BIT(LBR_CLASS_NEAR_IND_JMP)
#define LBR_F_NEAR_REL_JMP  BIT(LBR_CLASS_NEAR_REL_JMP)
#define LBR_F_FAR	    BIT(LBR_CLASS_FAR)
#define LBR_F_ALL	    GENMASK(LBR_CLASS_COUNT - 1, 0)
#define LBR_F_CALLS	    (LBR_F_NEAR_REL_CALL | LBR_F_NEAR_IND_CALL)
#define LBR_F_JMPS	    (LBR_F_NEAR_REL_JMP | LBR_F_NEAR_IND_JMP)
/* What call-stack mode records: near calls push, near returns pop (SDM Vol. 3B 17.9). */
#define LBR_F_CALL_STACK (LBR_F_CALLS | LBR_F_NEAR_RET)

/* The LBR class of a decoded branch (SDM Vol. 3B Table 17-13's rows; JrCXZ and LOOP are
 * conditional branches). Not for X86_BR_NONE. */
static inline enum lbr_class lbr_class_of_branch(enum x86_branch_kind k)
{
	switch (k) {
	case X86_BR_JCC:
	case X86_BR_JCXZ_LOOP:
		return LBR_CLASS_JCC;
	case X86_BR_CALL_REL:
		return LBR_CLASS_NEAR_REL_CALL;
	case X86_BR_CALL_IND:
		return LBR_CLASS_NEAR_IND_CALL;
	case X86_BR_RET:
		return LBR_CLASS_NEAR_RET;
	case X86_BR_JMP_IND:
		return LBR_CLASS_NEAR_IND_JMP;
	case X86_BR_JMP_REL:
		return LBR_CLASS_NEAR_REL_JMP;
	default:
		return LBR_CLASS_FAR; /* far transfers, INT, SYSCALL/SYSRET, IRET, ... */
	}
}

/* ---- legacy LBR ------------------------------------------------------------------------- */

#define LBR_MAX_DEPTH 32 /* deepest legacy stack (Skylake and later, SDM Vol. 3B Table 17-4) */

/* MSR_LBR_SELECT: bits 0-8 SUPPRESS the class when set, bit 9 enables call-stack mode
 * (SDM Vol. 3B 17.7.2 Table 17-13, 17.9.1). */
#define LBR_SELECT_CPL_EQ_0	      BIT(0)	   /* do not record branches ending in ring 0 */
#define LBR_SELECT_CPL_NEQ_0	      BIT(1)	   /* ... ending in ring > 0 */
#define LBR_SELECT_CLASS(c)	      BIT(2 + (c)) /* suppress enum lbr_class c */
#define LBR_SELECT_JCC		      LBR_SELECT_CLASS(LBR_CLASS_JCC)
#define LBR_SELECT_NEAR_REL_CALL      LBR_SELECT_CLASS(LBR_CLASS_NEAR_REL_CALL)
#define LBR_SELECT_NEAR_IND_CALL      LBR_SELECT_CLASS(LBR_CLASS_NEAR_IND_CALL)
#define LBR_SELECT_NEAR_RET	      LBR_SELECT_CLASS(LBR_CLASS_NEAR_RET)
#define LBR_SELECT_NEAR_IND_JMP	      LBR_SELECT_CLASS(LBR_CLASS_NEAR_IND_JMP)
#define LBR_SELECT_NEAR_REL_JMP	      LBR_SELECT_CLASS(LBR_CLASS_NEAR_REL_JMP)
#define LBR_SELECT_FAR_BRANCH	      LBR_SELECT_CLASS(LBR_CLASS_FAR)
#define LBR_SELECT_EN_CALLSTACK	      BIT(9)
#define LBR_SELECT_VALID_NO_CALLSTACK GENMASK(8, 0)
_Static_assert(LBR_SELECT_JCC == BIT(2) && LBR_SELECT_NEAR_REL_CALL == BIT(3) &&
		   LBR_SELECT_NEAR_IND_CALL == BIT(4) && LBR_SELECT_NEAR_RET == BIT(5) &&
		   LBR_SELECT_NEAR_IND_JMP == BIT(6) && LBR_SELECT_NEAR_REL_JMP == BIT(7) &&
		   LBR_SELECT_FAR_BRANCH == BIT(8),
	       "SDM Table 17-13 bit positions");
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

/*
 * Legacy LBR formats, IA32_PERF_CAPABILITIES[5:0] (SDM Vol. 3B 17.4.8.1; Linux
 * arch/x86/events/intel/lbr.c LBR_FORMAT_*). 3FH appears in third-party code as "no legacy
 * LBR, use Arch LBR"; that is unconfirmed, so it is only reported as such, never relied on.
 */
enum lbr_format {
	LBR_FMT_32 = 0,		/* 32-bit offsets */
	LBR_FMT_LIP = 1,	/* 64-bit linear address */
	LBR_FMT_EIP = 2,	/* 64-bit effective address */
	LBR_FMT_EIP_FLAGS = 3,	/* + mispredict in FROM[63] (Nehalem to Ivy Bridge) */
	LBR_FMT_EIP_FLAGS2 = 4, /* + TSX in_tx FROM[62], abort FROM[61] (Haswell, Broadwell) */
	LBR_FMT_INFO = 5,	/* flags and cycles in LBR_INFO (Skylake, Ice Lake) */
	LBR_FMT_TIME = 6,	/* cycles in TO[63:48], mispredict FROM[63] (Goldmont) */
	LBR_FMT_INFO2 = 7,	/* LBR_INFO without TSX (Goldmont Plus) */
	LBR_FMT_LAST_KNOWN = LBR_FMT_INFO2,
	LBR_FMT_NO_LEGACY_3F = 0x3f,
};

/* Record fields by format (SDM Vol. 3B 17.4.8.1, 17.12 for LBR_INFO). */
#define LBR_FMT0_FROM	   GENMASK(31, 0)  /* format 0: FROM in the FROM MSR's low half ... */
#define LBR_FMT0_TO	   GENMASK(63, 32) /* ... and TO in its high half */
#define LBR_FROM_MISPRED   BIT(63)	   /* formats 3, 4, 6 */
#define LBR_FROM_IN_TX	   BIT(62)	   /* format 4 */
#define LBR_FROM_ABORT	   BIT(61)	   /* format 4 */
#define LBR_FMT3_ADDR	   GENMASK(62, 0)  /* format 3: address sign-extended from bit 62 */
#define LBR_FMT4_ADDR	   GENMASK(60, 0)  /* format 4: ... from bit 60 */
#define LBR_INFO_MISPRED   BIT(63)	   /* MSR_LBR_INFO_x, formats 5 and 7 */
#define LBR_INFO_IN_TX	   BIT(62)	   /* format 5 only */
#define LBR_INFO_ABORT	   BIT(61)	   /* format 5 only */
#define LBR_INFO_CYCLES	   GENMASK(15, 0)
#define LBR_FMT6_TO_ADDR   GENMASK(47, 0)  /* format 6: TO sign-extended from bit 47 ... */
#define LBR_FMT6_TO_CYCLES GENMASK(63, 48) /* ... and the cycle count above it */

/* ---- Architectural LBR ------------------------------------------------------------------- */

#define ARCH_LBR_MAX_DEPTH 64

/* IA32_LBR_CTL: positive ("capture") sense. */
#define LBR_CTL_LBREN	      BIT(0)
#define LBR_CTL_OS	      BIT(1)
#define LBR_CTL_USR	      BIT(2)
#define LBR_CTL_CALL_STACK    BIT(3)
#define LBR_CTL_JCC	      BIT(16)
#define LBR_CTL_NEAR_REL_JMP  BIT(17)
#define LBR_CTL_NEAR_IND_JMP  BIT(18)
#define LBR_CTL_NEAR_REL_CALL BIT(19)
#define LBR_CTL_NEAR_IND_CALL BIT(20)
#define LBR_CTL_NEAR_RET      BIT(21)
#define LBR_CTL_OTHER_BRANCH  BIT(22)
#define LBR_CTL_BRANCHES      GENMASK(22, 16)

/* IA32_LBR_x_INFO. */
#define ARCH_LBR_INFO_MISPRED	BIT(63)
#define ARCH_LBR_INFO_IN_TX	BIT(62)
#define ARCH_LBR_INFO_ABORT	BIT(61)
#define ARCH_LBR_INFO_CYC_VALID BIT(60)
#define ARCH_LBR_INFO_BR_TYPE	GENMASK(59, 56)
#define ARCH_LBR_INFO_CYC_CNT	GENMASK(15, 0)

/* LBR_INFO.BR_TYPE values: 0-5 near branches, 1xxxB "other" (far transfers, interrupts,
 * exceptions). */
enum arch_lbr_br_type {
	ARCH_BR_JCC = 0,
	ARCH_BR_NEAR_IND_JMP = 1,
	ARCH_BR_NEAR_REL_JMP = 2,
	ARCH_BR_NEAR_IND_CALL = 3,
	ARCH_BR_NEAR_REL_CALL = 4,
	ARCH_BR_NEAR_RET = 5,
	ARCH_BR_OTHER = 8,
};

#endif
