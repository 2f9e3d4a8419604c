/* SPDX-License-Identifier: MIT */
/*
 * x86-64 instruction length decoder and branch classifier, for the software PMU: it single-steps
 * code (RFLAGS.TF) and must tell, for every retired instruction, whether it was a branch, which
 * kind (the classes of LBR_SELECT, Arch LBR LBR_CTL and BR_TYPE) and, for direct branches, the
 * target. Pure and freestanding (no tables outside this library, no allocation, no FP).
 *
 * Decodes in the mode the code segment sets (enum x86_mode: 64-bit mode, CS.L = 1; or a 32-
 * or 16-bit segment, CS.L = 0 and CS.D = 1 or 0: compatibility mode, or protected mode), with
 * the operand and address sizes the prefixes then select (SDM Vol. 2A 2.2.1, Vol. 1 3.6 and
 * Table 3-4). Where Intel and AMD disagree, Intel is implemented (notably: 66H does not shorten
 * rel32 of near JMP/CALL/Jcc in 64-bit mode on Intel).
 * Rules from the Intel SDM Vol. 2, chapter 2 (Instruction Format) and appendix A (Opcode Map).
 *
 * How the kinds map onto the LBR classes (SDM Vol. 3B: "Filtering of Last Branch Records" for
 * LBR_SELECT; the Architectural LBR branch types of LBR_CTL and LBR_INFO.BR_TYPE):
 *   X86_BR_JCC, X86_BR_JCXZ_LOOP  JCC            BR_TYPE COND
 *   X86_BR_JMP_REL                NEAR_REL_JMP   BR_TYPE NEAR_REL_JMP
 *   X86_BR_JMP_IND                NEAR_IND_JMP   BR_TYPE NEAR_IND_JMP
 *   X86_BR_CALL_REL               NEAR_REL_CALL  BR_TYPE NEAR_REL_CALL
 *   X86_BR_CALL_IND               NEAR_IND_CALL  BR_TYPE NEAR_IND_CALL
 *   X86_BR_RET                    NEAR_RET       BR_TYPE NEAR_RET
 *   every other kind but XBEGIN   FAR_BRANCH     BR_TYPE OTHER_BRANCH
 */
#ifndef LIB_X86_DECODE_H
#define LIB_X86_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define X86_MAX_INSN_LENGTH 15 /* SDM Vol. 2 2.1: longer is #GP (or #UD) */

enum x86_branch_kind {
	X86_BR_NONE,	   /* not a branch */
	X86_BR_JCC,	   /* Jcc rel8 (70-7F), Jcc rel32 (0F 80-8F) */
	X86_BR_JCXZ_LOOP,  /* JrCXZ, LOOP, LOOPE, LOOPNE (E0-E3): conditional, rel8 */
	X86_BR_JMP_REL,	   /* JMP rel8 (EB), JMP rel32 (E9) */
	X86_BR_JMP_IND,	   /* JMP r/m64 (FF /4) */
	X86_BR_CALL_REL,   /* CALL rel32 (E8) */
	X86_BR_CALL_IND,   /* CALL r/m64 (FF /2) */
	X86_BR_RET,	   /* near RET (C3), RET imm16 (C2) */
	X86_BR_FAR_JMP,	   /* JMP m16:16/32/64 (FF /5, memory only); EA is invalid in 64-bit */
	X86_BR_FAR_CALL,   /* CALL m16:16/32/64 (FF /3, memory only); 9A is invalid in 64-bit */
	X86_BR_FAR_RET,	   /* RETF (CB), RETF imm16 (CA) */
	X86_BR_INT,	   /* INT3 (CC), INT imm8 (CD), INT1/ICEBP (F1); INTO (CE) is invalid */
	X86_BR_SYSCALL,	   /* 0F 05 */
	X86_BR_SYSRET,	   /* 0F 07 */
	X86_BR_SYSENTER,   /* 0F 34 (Intel: valid in 64-bit mode; AMD: #UD in long mode) */
	X86_BR_SYSEXIT,	   /* 0F 35 */
	X86_BR_IRET,	   /* IRET/IRETD/IRETQ (CF); also UIRET (F3 0F 01 EC) and the FRED
			    * returns ERETU (F3 0F 01 CA) and ERETS (F2 0F 01 CA) */
	X86_BR_XBEGIN,	   /* XBEGIN rel16/rel32 (C7 F8): not a branch when it executes (it
			    * falls through and LBR records nothing for it); rel gives the abort
			    * fallback address, where a later transactional abort lands */
	X86_BR_KIND_COUNT, /* number of kinds, not a kind */
};

/* The mode code is decoded in: the code segment's L and D flags (SDM Vol. 3A 3.4.5: "L (64-bit
 * code segment) flag ... If the L-bit is set, then the D-bit must be cleared"; D is the default
 * operand and address size, 32 bits when set). X86_MODE_64 is 0: a zeroed struct is 64-bit. */
enum x86_mode {
	X86_MODE_64, /* IA-32e mode, CS.L = 1 */
	X86_MODE_32, /* CS.L = 0, CS.D = 1: compatibility mode or protected mode, 32-bit segment */
	X86_MODE_16, /* CS.L = 0, CS.D = 0: a 16-bit segment */
};
static inline enum x86_mode x86_mode_of_cs(bool cs_l, bool cs_d)
{
	return cs_l ? X86_MODE_64 : cs_d ? X86_MODE_32 : X86_MODE_16;
}

/* The opcode after the legacy prefixes and REX: the byte itself in the one-byte map (other
 * escapes such as C4, C5, 62 are returned as they are), X86_OPCODE_0F(b) for the two-byte map
 * (0F b: 0F 05 is SYSCALL), or 0 if it does not fit in avail (at most 15) bytes. A cheap filter
 * before a full x86_decode. */
#define X86_OPCODE_0F(b) (0x0f00u | (b))
unsigned x86_opcode_of(const uint8_t *code, size_t avail);
/* The same in `mode`: outside 64-bit mode 40-4F are INC/DEC, opcodes (SDM Vol. 2A 2.2.1). */
unsigned x86_opcode_of_mode(const uint8_t *code, size_t avail, enum x86_mode mode);

/* First bytes that are not the opcode itself: the legacy prefixes 26 2E 36 3E 64-67 F0 F2 F3
 * (SDM Vol. 2A 2.1.1), REX 40-4F (2.2.1) and the 0F escape; one bit each, by the byte's top two
 * bits. */
#define X86_NOT_OPCODE_00_3F                                                                       \
	((1ull << 0x0f) | (1ull << 0x26) | (1ull << 0x2e) | (1ull << 0x36) | (1ull << 0x3e))
#define X86_NOT_OPCODE_40_7F (0xffffull | (0xfull << (0x64 - 0x40)))
#define X86_NOT_OPCODE_C0_FF                                                                       \
	((1ull << (0xf0 - 0xc0)) | (1ull << (0xf2 - 0xc0)) | (1ull << (0xf3 - 0xc0)))

#define X86_REX_MASK 0xf0 /* REX is 0100WRXB */
#define X86_REX_BITS 0x40

/* x86_opcode_of, inline where the first byte, or the one after a single REX, is the opcode
 * (most instructions): the single-step engine asks on every step. */
static inline unsigned x86_opcode_quick(const uint8_t *code, size_t avail)
{
	static const uint64_t not_opcode[4] = {X86_NOT_OPCODE_00_3F, X86_NOT_OPCODE_40_7F, 0,
					       X86_NOT_OPCODE_C0_FF};
	size_t i = avail > 1 && (code[0] & X86_REX_MASK) == X86_REX_BITS;
	uint8_t b = i < avail ? code[i] : 0;
	if (i < avail && !((not_opcode[b >> 6] >> (b & 63)) & 1))
		return b;
	return x86_opcode_of(code, avail);
}

/* Errors of x86_decode(), all negative. */
enum x86_decode_error {
	X86_E_TRUNCATED = -1, /* the instruction continues past `avail` bytes */
	X86_E_TOO_LONG = -2,  /* more than 15 bytes (prefixes included) */
	X86_E_INVALID = -3,   /* not a valid encoding in the mode (#UD on Intel) */
};

/* x86_insn.prefixes: the prefixes seen (legacy ones anywhere before the opcode) and the
 * encoding. F2/F3 record only the last of the two, as the processor uses it. */
#define X86_PFX_OPSIZE 0x0001 /* 66 */
#define X86_PFX_ADDRSZ 0x0002 /* 67 */
#define X86_PFX_LOCK   0x0004 /* F0 */
#define X86_PFX_REPNE  0x0008 /* F2 (also BND, XACQUIRE) */
#define X86_PFX_REP    0x0010 /* F3 (also XRELEASE) */
#define X86_PFX_SEG    0x0020 /* a segment override; the last one is in x86_insn.segment */
#define X86_PFX_REX    0x0040 /* an effective REX prefix (immediately before the opcode) */
#define X86_PFX_VEX    0x0080 /* VEX2 (C5) or VEX3 (C4) encoding */
#define X86_PFX_EVEX   0x0100 /* EVEX (62) encoding */
#define X86_PFX_XOP    0x0200 /* AMD XOP (8F, map >= 8) encoding */
#define X86_PFX_3DNOW  0x0400 /* AMD 3DNow! (0F 0F ModRM ... opcode-suffix byte) */

/* x86_insn.opcode_map */
#define X86_MAP_ONE_BYTE 0 /* SDM Table A-2 */
#define X86_MAP_0F	 1 /* Table A-3 (also VEX/EVEX mmmmm = 1) */
#define X86_MAP_0F38	 2 /* Table A-4 */
#define X86_MAP_0F3A	 3 /* Table A-5 */
#define X86_MAP_EVEX5	 5 /* EVEX map 5 (AVX512-FP16) */
#define X86_MAP_EVEX6	 6 /* EVEX map 6 (AVX512-FP16) */
#define X86_MAP_XOP8	 8 /* AMD XOP maps 8, 9, 0AH */
#define X86_MAP_XOP9	 9
#define X86_MAP_XOPA	 10

struct x86_insn {
	uint8_t length; /* 1..15 bytes */
	enum x86_branch_kind branch;
	bool has_rel;	      /* direct (relative) branch, or XBEGIN: rel is valid */
	int32_t rel;	      /* sign-extended rel8/rel32; rel16 with a 16-bit operand size in
			       * 16/32-bit code, and XBEGIN's with 66H in 64-bit mode */
	uint16_t prefixes;    /* X86_PFX_* */
	uint8_t segment;      /* last segment override byte (2E 36 3E 26 64 65), 0 if none */
	uint8_t rex;	      /* the effective REX byte (40-4F), 0 if none */
	bool rex_w;	      /* REX.W, or VEX/EVEX/XOP .W */
	bool operand16;	      /* 16-bit operand size (operand_size 2): 66H in 64/32-bit code */
	bool address32;	      /* 32-bit addressing (address_size 4): 67H in 64-bit code */
	uint8_t mode;	      /* enum x86_mode it was decoded in */
	uint8_t operand_size; /* 2, 4 or 8 bytes (SDM Vol. 1 Table 3-4; 64-bit mode: 2.2.1.2) */
	uint8_t address_size; /* 2, 4 or 8 bytes (the default, or the other with 67H) */
	uint8_t opcode_map;   /* X86_MAP_* */
	uint8_t opcode;	      /* the opcode byte within the map (3DNow!: 0F; the suffix is imm) */
	bool has_modrm;
	uint8_t modrm;
	bool has_sib;
	uint8_t sib;
	bool rip_relative; /* ModRM mod=00 rm=101 in 64-bit mode: disp32 from the next insn */
	uint8_t disp_size; /* 0, 1, 2 (16-bit addressing) or 4 bytes (moffs: in imm) */
	int32_t disp;	   /* sign-extended; EVEX disp8 is not scaled here (disp8*N, SDM 2.7.5) */
	uint8_t imm_size;  /* bytes of the first immediate: 0, 1, 2, 4, 6, 8 (also moffs, rel,
			    * the ptr16:16/32 of far CALL/JMP 9A/EA outside 64-bit mode) */
	uint8_t imm2_size; /* bytes of a second immediate (ENTER, EXTRQ, INSERTQ): 0 or 1 */
	uint64_t imm;	   /* first immediate, zero-extended */
	uint8_t imm2;	   /* second immediate */
};

/*
 * Decode the instruction at code[0..avail) in `mode`. Returns 0 and fills *out, or a negative
 * enum x86_decode_error: X86_E_TRUNCATED when the bytes end before the instruction does,
 * X86_E_TOO_LONG as soon as the bytes it needs go past 15 (whatever `avail`), X86_E_INVALID
 * for an encoding invalid in the mode: in 64-bit mode the "i64" opcodes; reserved one-byte and
 * 0F opcodes (the X cells of x86_decode_tables.c); the group members group_rules() names (0F 00
 * /6-7, 0F 0D and LEA with a register, POP Ev /1-7, C6/C7 /1-7 but XABORT/XBEGIN, FE /2-7, FF
 * /7 and far CALL/JMP with a register, MOV Sreg with no such register, 0F B8 without F3, F3 0F
 * 78); VEX/EVEX/XOP after 66/F2/F3/F0/REX or with a reserved map or payload bit. Not rejected,
 * decoded by their format for the length a processor that has them would take (the Zydis
 * cross-check, tests/unit/test_x86_decode_zydis.h, counts these by Zydis's reason): unassigned
 * opcodes inside the 0F38, 0F3A, VEX, EVEX and XOP maps (their map's common format: ModRM,
 * imm8 where the map has one), other group members and mandatory-prefix combinations of the
 * 0F map that Table A-6 leaves blank, reserved x87 forms (Tables ), LOCK on an
 * instruction that takes none, a control or debug register that does not exist, and EVEX
 * payload bits a given instruction forbids: none of them retires (#UD), so no trace sees one.
 * Reads at most 15 bytes. *out is zeroed first, whatever the result.
 */
int x86_decode_mode(const uint8_t *code, size_t avail, enum x86_mode mode, struct x86_insn *out);

/* x86_decode_mode in 64-bit mode. */
static inline int x86_decode(const uint8_t *code, size_t avail, struct x86_insn *out)
{
	return x86_decode_mode(code, avail, X86_MODE_64, out);
}

/* The general register ModRM.reg names, with REX.R; ModRM.rm's (a register operand, mod 11b),
 * with REX.B: encoding order, RAX 0 .. R15 15 (SDM Vol. 2 2.2.1.2, Table 2-4). */
static inline unsigned x86_modrm_reg(const struct x86_insn *in)
{
	return ((in->modrm >> 3) & 7) | (in->rex & 0x04 ? 8 : 0);
}
static inline unsigned x86_modrm_rm(const struct x86_insn *in)
{
	return (in->modrm & 7) | (in->rex & 0x01 ? 8 : 0);
}

/* The register in the opcode's low three bits (PUSH/POP r, XCHG rAX, MOV r, imm; BSWAP), with
 * REX.B (SDM Vol. 2 2.2.1.2, "opcode reg field"). */
static inline unsigned x86_opcode_reg(const struct x86_insn *in)
{
	return (in->opcode & 7) | (in->rex & 0x01 ? 8 : 0);
}

/* A byte operand's register r as the register it is part of: without REX, 4-7 are AH, CH, DH,
 * BH, the second bytes of RAX..RBX (SDM Vol. 2 Table 2-2); with REX, SPL..DIL and the rest. */
static inline int x86_byte_register(const struct x86_insn *in, int r)
{
	return !in->rex && r >= 4 && r < 8 ? r - 4 : r;
}

/* The first immediate, sign-extended from its size (imm8, imm16, imm32; imm64 as it is). */
static inline int64_t x86_imm_signed(const struct x86_insn *in)
{
	switch (in->imm_size) {
	case 1:
		return (int8_t)in->imm;
	case 2:
		return (int16_t)in->imm;
	case 4:
		return (int32_t)in->imm;
	default:
		return (int64_t)in->imm;
	}
}

/* The mask of the instruction pointer a near branch of `in` writes: all 64 bits in 64-bit mode,
 * else the operand size's (SDM Vol. 2 Jcc, JMP, CALL, LOOP: "IF OperandSize = 32 THEN EIP ←
 * EIP + SignExtend(DEST)"; with 16: "EIP ← EIP AND 0000FFFFH"). */
static inline uint64_t x86_ip_mask(unsigned mode, unsigned operand_size)
{
	return mode == X86_MODE_64 ? ~0ull : operand_size == 2 ? 0xffffull : 0xffffffffull;
}

/* The target of a direct branch (has_rel) at address `ip`: ip + length + rel (XBEGIN: the
 * fallback address), wrapped as x86_ip_mask says (code segment base 0, as every segment of
 * this kernel); 0 for every other instruction. */
uint64_t x86_branch_target(const struct x86_insn *in, uint64_t ip);

/* Whether the kind is conditional (JCC, JCXZ_LOOP: LBR_SELECT's JCC class). */
bool x86_branch_conditional(enum x86_branch_kind k);

/* A short name for reports ("jcc", "call-ind", ...); "?" for an unknown value. */
const char *x86_branch_name(enum x86_branch_kind k);

#ifdef X86_DECODE_INTERNAL
/*
 * Shared by lib/x86_decode.c and lib/x86_decode_tables.c only: the per-opcode attributes of
 * the legacy maps, an immediate kind in the low four bits and flags above. Sizes follow the
 * effective operand size (2, 4 or 8 bytes) and address size of the mode and prefixes.
 */
enum x86_imm_kind {
	X86_I_NONE,
	X86_I_B, /* ib */
	X86_I_W, /* iw */
	X86_I_Z, /* iz: 2 bytes with a 16-bit operand size, else 4 (sign-extended under REX.W) */
	X86_I_V, /* iv (B8+r only): the operand size, 2, 4 or 8 */
	X86_I_MOFFS, /* A0-A3 moffs: the address size, 2, 4 or 8 */
	X86_I_WB,    /* ENTER: iw then ib */
	X86_I_R8,    /* rel8 */
	X86_I_R32,   /* rel32 of near JMP/CALL/Jcc: Intel ignores 66H in 64-bit mode (AMD: rel16);
		      * rel16 with a 16-bit operand size in 16/32-bit code */
	X86_I_PTR,   /* ptr16:16/32 of CALLF/JMPF 9A/EA (16/32-bit code only): 2 + operand size */
};
#define X86_A_IMM   0x0f /* an enum x86_imm_kind */
#define X86_A_MODRM 0x10 /* a ModRM byte follows the opcode */
#define X86_A_BAD                                                                                  \
	0x20		   /* invalid in 64-bit mode ("i64" in appendix A, or reserved); in        \
			    * 16/32-bit code x86_legacy_attr() gives the i64 opcodes' cells */
#define X86_A_GROUP   0x40 /* validity or immediate depends on ModRM (group_rules()) */
#define X86_A_REGONLY 0x80 /* ModRM.mod ignored, always registers: MOV CR/DR (0F 20-23) */

extern const uint8_t x86_one_byte_map[256]; /* SDM Table A-2 */
extern const uint8_t x86_map_0f[256];	    /* SDM Table A-3 */
/* A one-byte opcode's cell in 16/32-bit code: the i64 opcodes valid there, else the table's. */
uint8_t x86_one_byte_attr_legacy(uint8_t opcode);
#endif

#endif
