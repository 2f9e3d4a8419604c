/* SPDX-License-Identifier: MIT */
/*
 * What one single-step trap says about the instruction before it, decided from the
 * instruction's semantics and the registers after it, never from the address alone: a
 * branch to the next instruction is still a taken branch (`call 1f; 1: pop`, `jmp .+2`, a
 * jump table's fall-through case), a conditional branch is taken when its condition holds
 * even if its target is the next instruction, and a REP string instruction traps after every
 * iteration without being a branch (SDM Vol. 3B 17.3.1.4: "the processor generates a
 * single-step debug exception after each iteration" of a repeated string instruction).
 * Conditions: SDM Vol. 2 Jcc ("Jump if Condition Is Met") and Appendix B.1.4.7, Table B-10
 * (condition-code encodings); JrCXZ, LOOP/LOOPcc (SDM Vol. 2). Pure, host-tested.
 */
#ifndef LIB_X86_STEP_H
#define LIB_X86_STEP_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/x86_decode.h"

enum x86_step_outcome {
	X86_STEP_SEQUENTIAL,	/* not a branch: execution went on at the next instruction */
	X86_STEP_TAKEN,		/* a taken branch: FROM the instruction, TO where execution went */
	X86_STEP_NOT_TAKEN,	/* a conditional branch whose condition did not hold */
	X86_STEP_REP_ITERATION, /* a REP string instruction with iterations left: no branch, it
				 * has not retired yet (the same instruction traps again) */
	X86_STEP_REDIRECTED,	/* execution did not go where the instruction leads: an exception
				 * handler resumed elsewhere, or one trap covered more than one
				 * instruction; not a branch of this instruction */
};

/* What the classifier needs of a decoded instruction: small enough for a per-address cache
 * (arch/x86/session/session.c) and for the software PMU's step record. */
struct x86_step_insn {
	uint8_t length;
	uint8_t branch;	    /* enum x86_branch_kind */
	uint8_t opcode;	    /* the condition of Jcc/LOOPcc/JrCXZ, the string operation */
	uint8_t opcode_map; /* X86_MAP_*: a string opcode only counts in the one-byte map */
	uint16_t prefixes;  /* X86_PFX_*: REP/REPNE, VEX/EVEX/XOP */
	bool address32;	    /* 67H: JrCXZ and LOOP count in ECX */
};

static inline struct x86_step_insn x86_step_insn_of(const struct x86_insn *in)
{
	return (struct x86_step_insn){in->length,     (uint8_t)in->branch, in->opcode,
				      in->opcode_map, in->prefixes,	   in->address32};
}

/* The registers after the instruction (the single-step trap's frame). Jcc, JrCXZ and LOOPcc
 * leave the flags alone, JrCXZ leaves RCX alone and LOOP has already decremented it. */
struct x86_step_regs {
	uint64_t rflags, rcx;
};

/* Whether condition code cc (the low nibble of Jcc, SETcc, CMOVcc) holds for these flags. */
bool x86_condition_holds(unsigned cc, uint64_t rflags);
/* A string instruction (MOVS, CMPS, STOS, LODS, SCAS, INS, OUTS) with a REP/REPE/REPNE prefix. */
bool x86_is_rep_string(const struct x86_step_insn *in);
/* The outcome of the instruction at `retired` when the next trap stands at `next`. */
enum x86_step_outcome x86_step_classify(const struct x86_step_insn *in, uint64_t retired,
					uint64_t next, const struct x86_step_regs *after);

#endif
