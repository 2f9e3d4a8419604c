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
	uint8_t branch;	      /* enum x86_branch_kind */
	uint8_t opcode;	      /* the condition of Jcc/LOOPcc/JrCXZ, the string operation */
	uint8_t opcode_map;   /* X86_MAP_*: a string opcode only counts in the one-byte map */
	uint16_t prefixes;    /* X86_PFX_*: REP/REPNE, VEX/EVEX/XOP */
	uint8_t address_size; /* 4 or 2: JrCXZ and LOOP count in ECX or CX; else RCX */
	bool has_rel;	      /* a direct branch (or XBEGIN): rel gives its target */
	int32_t rel;
	uint8_t ip_size; /* 4 or 2: the IP bytes a near branch writes (x86_ip_mask); else 8 */
};

static inline struct x86_step_insn x86_step_insn_of(const struct x86_insn *in)
{
	return (struct x86_step_insn){
	    .length = in->length,
	    .branch = (uint8_t)in->branch,
	    .opcode = in->opcode,
	    .opcode_map = in->opcode_map,
	    .prefixes = in->prefixes,
	    .address_size = in->address_size,
	    .has_rel = in->has_rel,
	    .rel = in->rel,
	    .ip_size = in->mode == X86_MODE_64 ? 8
		       : in->operand_size == 2 ? 2
					       : 4,
	};
}

/* Where a direct branch at ip goes when taken (x86_branch_target). */
static inline uint64_t x86_step_target(const struct x86_step_insn *in, uint64_t ip)
{
	uint64_t t = ip + in->length + (uint64_t)(int64_t)in->rel;
	return in->ip_size == 4 ? (uint32_t)t : in->ip_size == 2 ? (uint16_t)t : t;
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
/* Whether a conditional branch's condition held, from the registers after it (JrCXZ, LOOP,
 * LOOPE, LOOPNE: opcodes E3H, E2H, E1H, E0H). */
static inline bool x86_step_condition_held(const struct x86_step_insn *in,
					   const struct x86_step_regs *r)
{
	if (in->branch == X86_BR_JCC)
		return x86_condition_holds(in->opcode, r->rflags);
	/* The count register is the address size's (SDM Vol. 2 LOOP: "IF AddressSize = 32 THEN
	 * Count is ECX; ELSE IF AddressSize = 64 THEN Count is RCX; ELSE Count is CX"). */
	uint64_t count = in->address_size == 4	 ? (r->rcx & 0xffffffffu)
			 : in->address_size == 2 ? (r->rcx & 0xffffu)
						 : r->rcx;
	bool zf = r->rflags & (1u << 6); /* RFLAGS.ZF (SDM Vol. 1 3.4.3) */
	switch (in->opcode) {
	case 0xe3: /* JrCXZ */
		return count == 0;
	case 0xe2:		   /* LOOP */
		return count != 0; /* RCX already decremented */
	case 0xe1:		   /* LOOPE */
		return count != 0 && zf;
	default: /* 0xe0: LOOPNE */
		return count != 0 && !zf;
	}
}

/* Most steps: an instruction that is no branch went on to the next one (x86_step_classify's
 * X86_STEP_SEQUENTIAL, decided without the registers). */
static inline bool x86_step_plain(const struct x86_step_insn *in, uint64_t retired, uint64_t next)
{
	return in->branch == X86_BR_NONE && next == retired + in->length;
}

/* The outcome of the instruction at `retired` when the next trap stands at `next`. A direct
 * branch that did not land where it leads (its target, or the next instruction when not taken)
 * is X86_STEP_REDIRECTED. Inline: the single-step engine asks on every step. */
static inline enum x86_step_outcome x86_step_classify(const struct x86_step_insn *in,
						      uint64_t retired, uint64_t next,
						      const struct x86_step_regs *after)
{
	uint64_t sequential = retired + in->length;
	/* Most steps: no branch, on to the next instruction. Tested before the switch, which
	 * compiles to a jump table (an indirect jump ends a translation block under QEMU's TCG). */
	if (x86_step_plain(in, retired, next))
		return X86_STEP_SEQUENTIAL;
	switch (in->branch) {
	case X86_BR_NONE:
	case X86_BR_XBEGIN: /* falls through when it executes (SDM Vol. 1 16.3.8) */
		if (next == sequential)
			return X86_STEP_SEQUENTIAL;
		if (next == retired && x86_is_rep_string(in))
			return X86_STEP_REP_ITERATION;
		return X86_STEP_REDIRECTED;
	case X86_BR_JCC:
	case X86_BR_JCXZ_LOOP:
		if (x86_step_condition_held(in, after))
			return next == x86_step_target(in, retired) ? X86_STEP_TAKEN
								    : X86_STEP_REDIRECTED;
		return next == sequential ? X86_STEP_NOT_TAKEN : X86_STEP_REDIRECTED;
	case X86_BR_JMP_REL:
	case X86_BR_CALL_REL:
		return next == x86_step_target(in, retired) ? X86_STEP_TAKEN : X86_STEP_REDIRECTED;
	case X86_BR_INT:
	case X86_BR_SYSCALL:
	case X86_BR_SYSENTER:
		/* Entries into the kernel whose handler runs unstepped (delivery and SYSCALL's
		 * FMASK clear TF): the engine sees the instruction and then where the handler
		 * resumed the workload. Back at the next instruction, the instruction itself made
		 * no branch (the delivery and the handler's IRET are the engine's transfers). */
		return next == sequential ? X86_STEP_SEQUENTIAL : X86_STEP_TAKEN;
	default:
		return X86_STEP_TAKEN; /* indirect JMP and CALL, RET, far transfers, IRET, SYSRET,
					* SYSEXIT: their target is data */
	}
}

/*
 * One trap that stood for more than one instruction (SDM Vol. 3B 6.8.3: MOV SS holds the
 * single-step trap back for one instruction; a platform may skip one): the path from the
 * instruction at `from` (decoded before it ran) to `to`, where the trap landed, rebuilt from
 * the code. Every instruction but the last goes where its code says: a non-branch to the next
 * instruction, a direct JMP or CALL to its target, a conditional branch either way (decided
 * by which way reaches `to`); an indirect branch, a return or a far transfer can only be the
 * last, its target being data. The last one's outcome comes from the registers after it, the
 * trap's (`after`). The shortest path wins; two paths of that length, or none of at most
 * X86_PATH_MAX instructions, cannot be rebuilt.
 */
#define X86_PATH_MAX 4

struct x86_path_step {
	uint64_t ip, next;
	struct x86_step_insn insn;
	uint8_t outcome; /* X86_STEP_SEQUENTIAL, X86_STEP_TAKEN or X86_STEP_NOT_TAKEN */
};

/* Decodes the instruction at ip for the rebuild: 0, or nonzero where it cannot (unmapped, not
 * an instruction). */
typedef int (*x86_path_decode_fn)(void *ctx, uint64_t ip, struct x86_step_insn *out);

/* The number of instructions written to path[] (2 to X86_PATH_MAX, `from` first), 0 when no
 * path leads to `to`, or -1 when more than one does. */
int x86_path_rebuild(x86_path_decode_fn decode, void *ctx, uint64_t from,
		     const struct x86_step_insn *first, uint64_t to,
		     const struct x86_step_regs *after, struct x86_path_step path[X86_PATH_MAX]);

#endif
