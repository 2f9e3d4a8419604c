/* SPDX-License-Identifier: MIT */
/*
 * x86-64 instruction length decoder and branch classifier (see x86_decode.h).
 *
 * The instruction format (Intel SDM Vol. 2, 2.1, Figure 2-1), 64-bit mode:
 *
 *   [legacy prefixes] [REX] opcode(1-3) [ModRM] [SIB] [disp 1/4] [imm 1/2/4/8]
 *   [legacy prefixes] VEX2/VEX3/EVEX/XOP payload, opcode, ModRM, [SIB] [disp] [imm]
 *
 * 16/32-bit code (CS.L = 0, x86_decode.h enum x86_mode) has no REX (40-4F are INC/DEC), a
 * default operand and address size of CS.D's (66H and 67H select the other), 16-bit
 * addressing's own ModRM forms (Table 2-1: no SIB, disp16), no RIP-relative form, the i64
 * opcodes, and VEX/EVEX only where LES/LDS/BOUND's ModRM.mod would be 11b.
 *
 * at most 15 bytes in all (2.1.1: longer is #GP, or #UD in some cases). Attributes per opcode
 * come from appendix A (Tables, one-byte and 0F maps, the 0F38 and
 * 0F3A maps, where every opcode has a ModRM and every 0F3A opcode an imm8), with the 64-bit
 * "i64" (invalid) superscripts. The decoder reports lengths and branch kinds; it checks validity
 * only where the opcode and ModRM byte alone decide it (invalid-in-64-bit opcodes and group
 * members, malformed VEX/EVEX), not per-instruction prefix rules such as LOCK on a register
 * destination or VEX.L on a 128-bit-only instruction.
 */
#define X86_DECODE_INTERNAL
#include "lib/x86_decode.h"
#include "lib/bits.h"

/* Legacy prefixes (SDM 2.1.1). */
#define PFX_OPSIZE 0x66
#define PFX_ADDRSZ 0x67
#define PFX_LOCK   0xf0
#define PFX_REPNE  0xf2
#define PFX_REP	   0xf3
#define PFX_SEG_ES 0x26
#define PFX_SEG_CS 0x2e
#define PFX_SEG_SS 0x36
#define PFX_SEG_DS 0x3e
#define PFX_SEG_FS 0x64
#define PFX_SEG_GS 0x65

/*
 * REX (SDM 2.2.1): 0100WRXB, "instruction-prefix bytes used in 64-bit mode"; in 16/32-bit
 * code 40-4F are INC/DEC r16/r32 (Table A-2: "REX Prefixes" only "in 64-bit mode"). It counts only
 * when it immediately precedes the opcode (or its 0F escape); one followed by a legacy prefix or by
 * another REX is ignored but still takes a byte.
 */
#define REX_FIRST 0x40
#define REX_LAST  0x4f
#define REX_W	  BIT(3)

/* Escapes to the other maps (SDM 2.1.2, A.3). */
#define ESC_0F	   0x0f
#define ESC_0F38   0x38 /* after 0F */
#define ESC_0F3A   0x3a /* after 0F */
#define ESC_3DNOW  0x0f /* after 0F: 0F 0F ModRM [SIB] [disp] suffix (AMD only, #UD on Intel) */
#define ESC_VEX3   0xc4 /* LES in 16/32-bit modes unless the next ModRM.mod is 11b */
#define ESC_VEX2   0xc5 /* LDS, likewise */
#define ESC_EVEX   0x62 /* BOUND in 16/32-bit modes unless the next ModRM.mod is 11b */
#define ESC_XOP	   0x8f /* POP r/m unless the next byte's map field is >= 8 (AMD) */
#define XOP_MAP_LO 8

/* VEX/EVEX/XOP payload fields (SDM 2.3.5, 2.3.6, 2.7.1; AMD APM Vol. 3 1.8). */
#define VEX_MAP	     GENMASK(4, 0) /* VEX3/XOP byte 1: ~R ~X ~B mmmmm */
#define VEX_W	     BIT(7)	   /* VEX3/XOP byte 2: W ~vvvv L pp */
#define EVEX_P0_MAP  GENMASK(2, 0) /* P0: ~R ~X ~B ~R' 0 mmm */
#define EVEX_P0_ZERO BIT(3)	   /* must be 0 (APX's B4: not supported) */
#define EVEX_P1_ONE  BIT(2)	   /* P1: W ~vvvv 1 pp; the 1 must be 1 */
#define EVEX_P1_W    BIT(7)
#define EVEX_MAP_APX 4 /* EVEX-promoted legacy instructions of APX: not supported */
#define VEX2_PAYLOAD 1
#define VEX3_PAYLOAD 2
#define EVEX_PAYLOAD 3
#define XOP_PAYLOAD  2
#define VZEROALL     0x77 /* VEX 0F 77: VZEROUPPER/VZEROALL, the one VEX opcode with no ModRM */
#define XOP_MAPA_IMM 4	  /* XOP map 0AH instructions carry an imm32 (BEXTR, LWPINS, LWPVAL) */

/* ModRM and SIB (SDM 2.1.5, Tables 2-2 and 2-3; 64-bit forms in 2.2.1.3 to 2.2.1.6). */
#define MODRM_MOD(m)  ((m) >> 6)
#define MODRM_REG(m)  (((m) >> 3) & 7)
#define MODRM_RM(m)   ((m)&7)
#define SIB_BASE(s)   ((s)&7)
#define MOD_MEM	      0 /* [reg], or the disp32 special cases below */
#define MOD_DISP8     1
#define MOD_DISP32    2
#define MOD_REG	      3
#define RM_SIB	      4 /* rm=100: a SIB byte follows (whatever REX.B says) */
#define RM_DISP32     5 /* mod=00 rm=101: RIP+disp32 in 64-bit mode, plain disp32 in 32-bit */
#define SIB_BASE_NONE 5 /* mod=00 base=101: no base, disp32 (whatever REX.B says) */
#define DISP8_BYTES   1
#define DISP32_BYTES  4	   /* also in 16/32-bit modes with 32-bit addressing; disp16 with 16-bit */
#define DISP16_BYTES  2	   /* 16-bit addressing (SDM Table 2-1): mod=10b, and mod=00b rm=110b */
#define RM16_DISP16   6	   /* 16-bit addressing, mod=00b rm=110b: disp16 alone, no base */
#define MODRM_IS_REG  0xc0 /* ModRM.mod = 11b: after C4/C5/62 in 16/32-bit code, VEX/EVEX */

/* Opcodes named in the code below. */
#define OP_POP_EV      0x8f /* group 1A: /0 only (other /r: XOP, or #UD) */
#define OP_LEA	       0x8d /* memory operand only */
#define OP_MOV_EW_SR   0x8c /* MOV r/m16, Sreg: Sreg 0-5 */
#define OP_MOV_SR_EW   0x8e /* MOV Sreg, r/m16: Sreg 0, 2-5 (CS is #UD) */
#define SREG_CS	       1
#define SREG_LAST      5
#define OP_GRP11_EB    0xc6 /* MOV r/m8, ib (/0); XABORT ib (C6 F8) */
#define OP_GRP11_EV    0xc7 /* MOV r/m, iz (/0); XBEGIN rel16/32 (C7 F8) */
#define MODRM_XABORT   0xf8 /* C6 F8 */
#define MODRM_XBEGIN   0xf8 /* C7 F8 */
#define OP_GRP3_EB     0xf6 /* TEST ib only for /0 and /1 */
#define OP_GRP3_EV     0xf7 /* TEST iz only for /0 and /1 */
#define GRP3_TEST_LAST 1    /* /0 TEST and /1, its alias, take the immediate */
#define OP_GRP4	       0xfe /* INC/DEC r/m8: /0, /1 */
#define GRP4_LAST      1
#define OP_GRP5	       0xff /* INC DEC CALL CALLF JMP JMPF PUSH, /7 #UD */
#define GRP5_CALL      2
#define GRP5_CALLF     3
#define GRP5_JMP       4
#define GRP5_JMPF      5
#define GRP5_LAST      6
#define OP_JCC8_FIRST  0x70
#define OP_JCC8_LAST   0x7f
#define OP_LOOPNE      0xe0
#define OP_JRCXZ       0xe3
#define OP_CALL_REL    0xe8
#define OP_JMP_REL32   0xe9
#define OP_JMP_REL8    0xeb
#define OP_RET_IW      0xc2
#define OP_RET	       0xc3
#define OP_RETF_IW     0xca
#define OP_RETF	       0xcb
#define OP_INT3	       0xcc
#define OP_INT_IB      0xcd
#define OP_IRET	       0xcf
#define OP_INT1	       0xf1
#define OP_CALLF_PTR   0x9a /* 16/32-bit code only, as the next two */
#define OP_JMPF_PTR    0xea
#define OP_INTO	       0xce
/* 0F map */
#define OP0F_GRP6	0x00 /* /6 (JMPE, IA-64) and /7 #UD */
#define GRP6_LAST	5
#define OP0F_GRP7	0x01
#define MODRM_ERET	0xca /* F3: ERETU, F2: ERETS (FRED); no prefix: CLAC */
#define MODRM_UIRET	0xec /* F3: UIRET */
#define OP0F_SYSCALL	0x05
#define OP0F_SYSRET	0x07
#define OP0F_PREFETCH	0x0d /* AMD PREFETCH/PREFETCHW group: memory operand only */
#define OP0F_SYSENTER	0x34
#define OP0F_SYSEXIT	0x35
#define OP0F_SSE4A	0x78 /* NP VMREAD; 66 EXTRQ ib,ib; F2 INSERTQ ib,ib; F3 #UD */
#define OP0F_POPCNT	0xb8 /* F3 POPCNT; otherwise JMPE (IA-64): #UD */
#define OP0F_JCC_FIRST	0x80
#define OP0F_JCC_LAST	0x8f
#define SSE4A_IMM_BYTES 1 /* each of the two immediates */

/* VEX/EVEX map 0F opcodes with an imm8 (the 0F3A map always has one; SDM Table A-3). */
#define VEX_0F_PSHUF  0x70 /* VPSHUFD/HW/LW */
#define VEX_0F_GRP14  0x73 /* groups 12-14 (71-73): shifts by immediate */
#define VEX_0F_CMPPS  0xc2 /* VCMPPS/PD/SS/SD */
#define VEX_0F_PINSRW 0xc4 /* then C5 VPEXTRW */
#define VEX_0F_SHUFPS 0xc6 /* VSHUFPS/PD */
static bool vex_0f_has_imm8(uint8_t op)
{
	return (op >= VEX_0F_PSHUF && op <= VEX_0F_GRP14) || op == VEX_0F_CMPPS ||
	       (op >= VEX_0F_PINSRW && op <= VEX_0F_SHUFPS);
}

struct cursor {
	const uint8_t *code;
	size_t avail;
	unsigned pos;
};

/* Whether n more bytes exist: the 15-byte limit first, then the caller's buffer. */
static int need(const struct cursor *c, unsigned n)
{
	if (c->pos + n > X86_MAX_INSN_LENGTH)
		return X86_E_TOO_LONG;
	if (c->pos + n > c->avail)
		return X86_E_TRUNCATED;
	return 0;
}

/* n (1..8) little-endian bytes at the cursor, consumed; need() has been checked. */
static uint64_t take(struct cursor *c, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->code[c->pos + i] << (8 * i);
	c->pos += n;
	return v;
}

static int32_t sign_extend(uint64_t v, unsigned bytes)
{
	unsigned shift = 64 - 8 * bytes;
	return (int32_t)((int64_t)(v << shift) >> shift);
}

/* ModRM, then SIB and displacement as ModRM says (SDM Tables 2-2, 2-3; 64-bit: 2.2.1). */
static int take_modrm(struct cursor *c, struct x86_insn *o, bool reg_only)
{
	int e = need(c, 1);
	if (e)
		return e;
	o->has_modrm = true;
	o->modrm = (uint8_t)take(c, 1);
	unsigned mod = MODRM_MOD(o->modrm);
	if (mod == MOD_REG || reg_only)
		return 0;
	unsigned dsize = mod == MOD_DISP8 ? DISP8_BYTES : mod == MOD_DISP32 ? DISP32_BYTES : 0;
	if (o->address_size == 2) {
		/* 16-bit addressing (SDM Table 2-1): no SIB; disp16 for mod=10b and for
		 * mod=00b rm=110b ([BP] has no mod=00b form). */
		if (mod == MOD_DISP32 || (mod == MOD_MEM && MODRM_RM(o->modrm) == RM16_DISP16))
			dsize = DISP16_BYTES;
	} else if (MODRM_RM(o->modrm) == RM_SIB) {
		if ((e = need(c, 1)))
			return e;
		o->has_sib = true;
		o->sib = (uint8_t)take(c, 1);
		if (mod == MOD_MEM && SIB_BASE(o->sib) == SIB_BASE_NONE)
			dsize = DISP32_BYTES;
	} else if (mod == MOD_MEM && MODRM_RM(o->modrm) == RM_DISP32) {
		/* 64-bit mode: RIP-relative, with 67H EIP-relative (SDM 2.2.1.6); 16/32-bit code:
		 * disp32 alone, absolute (Table 2-2). */
		o->rip_relative = o->mode == X86_MODE_64;
		dsize = DISP32_BYTES;
	}
	if (dsize) {
		if ((e = need(c, dsize)))
			return e;
		o->disp_size = (uint8_t)dsize;
		o->disp = sign_extend(take(c, dsize), dsize);
	}
	return 0;
}

static int take_imm(struct cursor *c, struct x86_insn *o, unsigned size, unsigned size2)
{
	int e = need(c, size + size2);
	if (e)
		return e;
	o->imm_size = (uint8_t)size;
	o->imm = take(c, size);
	o->imm2_size = (uint8_t)size2;
	o->imm2 = (uint8_t)take(c, size2);
	return 0;
}

/* Size of the first immediate of a legacy-map kind (the second is ENTER's ib). */
static unsigned imm_bytes(const struct x86_insn *o, enum x86_imm_kind k)
{
	switch (k) {
	case X86_I_B:
	case X86_I_R8:
		return 1;
	case X86_I_W:
	case X86_I_WB:
		return 2;
	case X86_I_Z:
		return o->operand_size == 2 ? 2 : 4;
	case X86_I_V:
		return o->operand_size;
	case X86_I_MOFFS:
		return o->address_size;
	case X86_I_R32:
		/* 64-bit mode: rel32 whatever 66H says (Intel); else the operand size's. */
		return o->mode != X86_MODE_64 && o->operand_size == 2 ? 2 : 4;
	case X86_I_PTR:
		return 2 + (o->operand_size == 2 ? 2 : 4);
	default:
		return 0;
	}
}

/* Validity and immediates that depend on ModRM (opcode groups, SDM Table A-6). Returns the
 * immediate kind, or X86_E_INVALID. */
static int group_rules(struct x86_insn *o)
{
	unsigned reg = MODRM_REG(o->modrm), mod = MODRM_MOD(o->modrm);
	if (o->opcode_map == X86_MAP_0F) {
		switch (o->opcode) {
		case OP0F_GRP6:
			return reg <= GRP6_LAST ? X86_I_NONE : X86_E_INVALID;
		case OP0F_PREFETCH:
			/* A register operand is #UD as AMD's APM (PREFETCH) and QEMU (translate.c,
			 * 0F 0D: mod 3 is illegal_op) have it; Zydis decodes Intel XED's NOP. */
			return mod != MOD_REG ? X86_I_NONE : X86_E_INVALID;
		default: /* 0F 78 and 0F B8 depend on prefixes: see decode_legacy() */
			return X86_I_NONE;
		}
	}
	switch (o->opcode) {
	case OP_MOV_EW_SR:
		return reg <= SREG_LAST ? X86_I_NONE : X86_E_INVALID;
	case OP_LEA:
		return mod != MOD_REG ? X86_I_NONE : X86_E_INVALID;
	case OP_MOV_SR_EW:
		return reg <= SREG_LAST && reg != SREG_CS ? X86_I_NONE : X86_E_INVALID;
	case OP_POP_EV:
		return reg == 0 ? X86_I_NONE : X86_E_INVALID;
	case OP_GRP11_EB:
		return reg == 0 || o->modrm == MODRM_XABORT ? X86_I_B : X86_E_INVALID;
	case OP_GRP11_EV:
		if (o->modrm == MODRM_XBEGIN) {
			o->branch = X86_BR_XBEGIN;
			return X86_I_Z; /* rel16 with 66H, even in 64-bit mode (unlike JMP/CALL) */
		}
		return reg == 0 ? X86_I_Z : X86_E_INVALID;
	case OP_GRP3_EB:
		return reg <= GRP3_TEST_LAST ? X86_I_B : X86_I_NONE;
	case OP_GRP3_EV:
		return reg <= GRP3_TEST_LAST ? X86_I_Z : X86_I_NONE;
	case OP_GRP4:
		return reg <= GRP4_LAST ? X86_I_NONE : X86_E_INVALID;
	case OP_GRP5:
		if (reg > GRP5_LAST || ((reg == GRP5_CALLF || reg == GRP5_JMPF) && mod == MOD_REG))
			return X86_E_INVALID;
		o->branch = reg == GRP5_CALL	? X86_BR_CALL_IND
			    : reg == GRP5_CALLF ? X86_BR_FAR_CALL
			    : reg == GRP5_JMP	? X86_BR_JMP_IND
			    : reg == GRP5_JMPF	? X86_BR_FAR_JMP
						: X86_BR_NONE;
		return X86_I_NONE;
	default:
		return X86_I_NONE;
	}
}

/* Branch kinds decided by the opcode alone (group 5 and XBEGIN: group_rules()). Not branches,
 * though Zydis files them with the control transfers: RSM (SMM only, #UD elsewhere), XABORT
 * and XEND (a transaction's abort lands where no instruction branched, SDM Vol. 1 16.3.8),
 * BOUND (#BR is an exception, recorded as its delivery). */
static enum x86_branch_kind classify(const struct x86_insn *o)
{
	uint8_t op = o->opcode;
	if (o->opcode_map == X86_MAP_0F) {
		if (op >= OP0F_JCC_FIRST && op <= OP0F_JCC_LAST)
			return X86_BR_JCC;
		if (op == OP0F_SYSCALL)
			return X86_BR_SYSCALL;
		if (op == OP0F_SYSRET)
			return X86_BR_SYSRET;
		if (op == OP0F_SYSENTER)
			return X86_BR_SYSENTER;
		if (op == OP0F_SYSEXIT)
			return X86_BR_SYSEXIT;
		if (op == OP0F_GRP7 && (o->prefixes & (X86_PFX_REP | X86_PFX_REPNE)) &&
		    o->modrm == MODRM_ERET)
			return X86_BR_IRET; /* ERETU (F3) / ERETS (F2): FRED specification (newer
					     * than Zydis 4.0, which reads CLAC) */
		if (op == OP0F_GRP7 && (o->prefixes & X86_PFX_REP) && o->modrm == MODRM_UIRET)
			return X86_BR_IRET; /* UIRET (SDM Vol. 2 UIRET) */
		return X86_BR_NONE;
	}
	if (o->opcode_map != X86_MAP_ONE_BYTE)
		return X86_BR_NONE;
	if (o->mode != X86_MODE_64) { /* the i64 far transfers and INTO (16/32-bit code) */
		if (op == OP_CALLF_PTR)
			return X86_BR_FAR_CALL;
		if (op == OP_JMPF_PTR)
			return X86_BR_FAR_JMP;
		if (op == OP_INTO)
			return X86_BR_INT;
	}
	if (op >= OP_JCC8_FIRST && op <= OP_JCC8_LAST)
		return X86_BR_JCC;
	if (op >= OP_LOOPNE && op <= OP_JRCXZ)
		return X86_BR_JCXZ_LOOP; /* 67H: ECX instead of RCX; rel8 regardless */
	switch (op) {
	case OP_CALL_REL:
		return X86_BR_CALL_REL;
	case OP_JMP_REL32:
	case OP_JMP_REL8:
		return X86_BR_JMP_REL;
	case OP_RET:
	case OP_RET_IW:
		return X86_BR_RET;
	case OP_RETF:
	case OP_RETF_IW:
		return X86_BR_FAR_RET;
	case OP_INT3:
	case OP_INT_IB:
	case OP_INT1:
		return X86_BR_INT;
	case OP_IRET:
		return X86_BR_IRET;
	default:
		return X86_BR_NONE;
	}
}

/* After the legacy prefixes and REX: the one-byte, 0F, 0F38 and 0F3A maps. */
static int decode_legacy(struct cursor *c, struct x86_insn *o)
{
	int e;
	uint8_t attr;
	o->opcode = (uint8_t)take(c, 1);
	if (o->opcode != ESC_0F) {
		attr = o->mode == X86_MODE_64 ? x86_one_byte_map[o->opcode]
					      : x86_one_byte_attr_legacy(o->opcode);
	} else {
		if ((e = need(c, 1)))
			return e;
		o->opcode = (uint8_t)take(c, 1);
		o->opcode_map = X86_MAP_0F;
		attr = x86_map_0f[o->opcode];
		if (o->opcode == ESC_0F38 || o->opcode == ESC_0F3A) {
			/* Tables: all have ModRM, 0F3A all have imm8. */
			o->opcode_map = o->opcode == ESC_0F38 ? X86_MAP_0F38 : X86_MAP_0F3A;
			if ((e = need(c, 1)))
				return e;
			o->opcode = (uint8_t)take(c, 1);
			attr = X86_A_MODRM | (o->opcode_map == X86_MAP_0F3A ? X86_I_B : X86_I_NONE);
		} else if (o->opcode == ESC_3DNOW) {
			o->prefixes |= X86_PFX_3DNOW; /* the trailing "imm8" is the real opcode */
		}
	}
	if (attr & X86_A_BAD)
		return X86_E_INVALID;
	int kind = attr & X86_A_IMM;
	if (attr & X86_A_MODRM) {
		if ((e = take_modrm(c, o, attr & X86_A_REGONLY)))
			return e;
		if (attr & X86_A_GROUP && (kind = group_rules(o)) < 0)
			return kind;
	}
	unsigned size2 = kind == X86_I_WB ? 1 : 0;
	if (o->opcode_map == X86_MAP_0F && o->opcode == OP0F_SSE4A) {
		/* The last of F2/F3 decides, then 66 (SDM 2.1.1 mandatory prefixes). */
		if (o->prefixes & X86_PFX_REP)
			return X86_E_INVALID;
		if (o->prefixes & (X86_PFX_REPNE | X86_PFX_OPSIZE)) {
			kind = X86_I_B; /* AMD SSE4a EXTRQ/INSERTQ xmm, ib, ib (#UD on Intel) */
			size2 = SSE4A_IMM_BYTES;
		}
	}
	if (o->opcode_map == X86_MAP_0F && o->opcode == OP0F_POPCNT && !(o->prefixes & X86_PFX_REP))
		return X86_E_INVALID;
	if ((e = take_imm(c, o, imm_bytes(o, (enum x86_imm_kind)kind), size2)))
		return e;
	if (o->branch == X86_BR_NONE)
		o->branch = classify(o);
	if (kind == X86_I_R8 || kind == X86_I_R32 || o->branch == X86_BR_XBEGIN) {
		o->has_rel = true;
		o->rel = sign_extend(o->imm, o->imm_size);
	}
	return 0;
}

/*
 * VEX (C4, C5: SDM 2.3.5, 2.3.6), EVEX (62: 2.7.1) and AMD XOP (8F). In 64-bit mode C4/C5/62
 * are always these (in 16/32-bit modes only when the next byte's top two bits are 11b, else
 * LES/LDS/BOUND). After the payload come an opcode, a ModRM and whatever ModRM asks for, then
 * an imm8 where the map or opcode has one.
 */
static int decode_vex(struct cursor *c, struct x86_insn *o, uint8_t esc)
{
	int e;
	/* 66, F2, F3, LOCK or REX before a VEX prefix is #UD (SDM 2.3.2 to 2.3.4; EVEX
	 * likewise, 2.7); segment overrides and 67H are allowed. AMD XOP follows the same rule. */
	if (o->prefixes & (X86_PFX_OPSIZE | X86_PFX_LOCK | X86_PFX_REP | X86_PFX_REPNE) || o->rex)
		return X86_E_INVALID;
	unsigned payload = esc == ESC_VEX2   ? VEX2_PAYLOAD
			   : esc == ESC_EVEX ? EVEX_PAYLOAD
			   : esc == ESC_VEX3 ? VEX3_PAYLOAD
					     : XOP_PAYLOAD;
	if ((e = need(c, payload + 1))) /* payload and opcode */
		return e;
	const uint8_t *p = c->code + c->pos;
	unsigned map, imm = 0;
	switch (esc) {
	case ESC_VEX2:
		o->prefixes |= X86_PFX_VEX;
		map = X86_MAP_0F;
		break;
	case ESC_VEX3:
		o->prefixes |= X86_PFX_VEX;
		map = FIELD_GET(VEX_MAP, p[0]);
		o->rex_w = p[1] & VEX_W;
		/* VEX maps 1-3 only (map 7 of recent AVX extensions, e.g. URDMSR with an imm32, is
		 * not supported: objdump of binutils 2.40 does not know it either). */
		if (map < X86_MAP_0F || map > X86_MAP_0F3A)
			return X86_E_INVALID;
		break;
	case ESC_EVEX:
		o->prefixes |= X86_PFX_EVEX;
		map = FIELD_GET(EVEX_P0_MAP, p[0]);
		o->rex_w = p[1] & EVEX_P1_W;
		/* P1 bit 2 clear is Knights Corner's MVEX, #UD on every other processor (SDM
		 * 2.7.1: the bit "must be 1"); Zydis decodes MVEX, and KNC's VEX mask branches. */
		if ((p[0] & EVEX_P0_ZERO) || !(p[1] & EVEX_P1_ONE))
			return X86_E_INVALID;
		/* Maps 1-3, and 5-6 (AVX512-FP16, no immediates there); map 4 is APX's. */
		if (map < X86_MAP_0F || map == EVEX_MAP_APX || map > X86_MAP_EVEX6)
			return X86_E_INVALID;
		break;
	default: /* XOP, AMD APM Vol. 3 1.8: maps 8 (imm8), 9 (none), 0AH (imm32) */
		o->prefixes |= X86_PFX_XOP;
		map = FIELD_GET(VEX_MAP, p[0]);
		o->rex_w = p[1] & VEX_W;
		if (map > X86_MAP_XOPA)
			return X86_E_INVALID;
		imm = map == X86_MAP_XOP8 ? 1 : map == X86_MAP_XOPA ? XOP_MAPA_IMM : 0;
		break;
	}
	c->pos += payload;
	o->opcode_map = (uint8_t)map;
	o->opcode = (uint8_t)take(c, 1);
	if (map == X86_MAP_0F3A || (map == X86_MAP_0F && vex_0f_has_imm8(o->opcode)))
		imm = 1;
	if (!(esc == ESC_VEX2 || esc == ESC_VEX3) || map != X86_MAP_0F || o->opcode != VZEROALL)
		if ((e = take_modrm(c, o, false)))
			return e;
	return take_imm(c, o, imm, 0);
}

/* The X86_PFX_* flag of a legacy prefix byte (SDM 2.1.1), 0 if b is none. */
static uint16_t legacy_prefix_flag(uint8_t b)
{
	switch (b) {
	case PFX_OPSIZE:
		return X86_PFX_OPSIZE;
	case PFX_ADDRSZ:
		return X86_PFX_ADDRSZ;
	case PFX_LOCK:
		return X86_PFX_LOCK;
	case PFX_REPNE:
		return X86_PFX_REPNE;
	case PFX_REP:
		return X86_PFX_REP;
	case PFX_SEG_ES:
	case PFX_SEG_CS:
	case PFX_SEG_SS:
	case PFX_SEG_DS:
	case PFX_SEG_FS:
	case PFX_SEG_GS:
		return X86_PFX_SEG;
	default:
		return 0;
	}
}

static bool is_rex(uint8_t b, enum x86_mode mode)
{
	return mode == X86_MODE_64 && b >= REX_FIRST && b <= REX_LAST;
}

unsigned x86_opcode_of_mode(const uint8_t *code, size_t avail, enum x86_mode mode)
{
	size_t n = avail < X86_MAX_INSN_LENGTH ? avail : X86_MAX_INSN_LENGTH;
	for (size_t i = 0; i < n; i++) {
		if (legacy_prefix_flag(code[i]) || is_rex(code[i], mode))
			continue;
		if (code[i] != ESC_0F)
			return code[i];
		return i + 1 < n ? X86_OPCODE_0F(code[i + 1]) : 0;
	}
	return 0;
}

unsigned x86_opcode_of(const uint8_t *code, size_t avail)
{
	return x86_opcode_of_mode(code, avail, X86_MODE_64);
}

/* The effective operand and address sizes (SDM Vol. 1 Table 3-4 for 16/32-bit code: 66H and 67H
 * select the size CS.D does not; Vol. 2A 2.2.1.2, Table 2-4 for 64-bit mode: REX.W gives 64
 * bits whatever 66H says, 67H 32-bit addresses). */
static void set_sizes(struct x86_insn *o)
{
	bool opsz = o->prefixes & X86_PFX_OPSIZE, adsz = o->prefixes & X86_PFX_ADDRSZ;
	switch (o->mode) {
	case X86_MODE_64:
		o->operand_size = o->rex_w ? 8 : opsz ? 2 : 4;
		o->address_size = adsz ? 4 : 8;
		break;
	case X86_MODE_32:
		o->operand_size = opsz ? 2 : 4;
		o->address_size = adsz ? 2 : 4;
		break;
	default:
		o->operand_size = opsz ? 4 : 2;
		o->address_size = adsz ? 4 : 2;
		break;
	}
	o->operand16 = o->operand_size == 2;
	o->address32 = o->address_size == 4;
}

/* Whether the byte at the cursor starts a VEX, EVEX or XOP encoding (SDM Vol. 2A 2.3.3: in
 * 16/32-bit code C4/C5 are LES/LDS, and 62 BOUND (2.7.1), unless the next byte's top bits are
 * 11b, which their ModRM cannot have; AMD XOP: 8F is POP Ev unless the map field is 8 or more,
 * a ModRM.reg POP does not have, in every mode). */
static int vex_escape(const struct cursor *c, const struct x86_insn *o, bool *vex)
{
	uint8_t b = c->code[c->pos];
	*vex = false;
	if (b != ESC_VEX2 && b != ESC_VEX3 && b != ESC_EVEX && b != ESC_XOP)
		return 0;
	if (b != ESC_XOP && o->mode == X86_MODE_64) {
		*vex = true;
		return 0;
	}
	int e = need(c, 2);
	if (e)
		return e;
	uint8_t next = c->code[c->pos + 1];
	*vex = b == ESC_XOP ? FIELD_GET(VEX_MAP, next) >= XOP_MAP_LO
			    : (next & MODRM_IS_REG) == MODRM_IS_REG;
	return 0;
}

int x86_decode_mode(const uint8_t *code, size_t avail, enum x86_mode mode, struct x86_insn *out)
{
	struct cursor c = {code, avail, 0};
	struct x86_insn *o = out;
	int e;
	*o = (struct x86_insn){0};
	o->mode = (uint8_t)mode;
	/* Legacy prefixes in any order and number, then REX (SDM 2.1.1, 2.2.1). */
	for (;;) {
		if ((e = need(&c, 1)))
			return e;
		uint8_t b = code[c.pos];
		uint16_t flag = legacy_prefix_flag(b);
		/* Of F2 and F3, the last one counts (SDM 2.1.1: "undefined" if both; processors
		 * and objdump take the last as the mandatory prefix). */
		if (flag & (X86_PFX_REP | X86_PFX_REPNE))
			o->prefixes &= (uint16_t) ~(X86_PFX_REP | X86_PFX_REPNE);
		/* ES/CS/SS/DS overrides are ignored in 64-bit mode (2E/3E still serve as branch
		 * hints and 3E as CET's NOTRACK); FS/GS add their base. */
		if (flag == X86_PFX_SEG)
			o->segment = b;
		if (flag) {
			o->prefixes |= flag;
			o->rex = 0; /* a REX followed by a legacy prefix is ignored */
			c.pos++;
		} else if (is_rex(b, mode)) {
			o->rex = b; /* a later REX replaces an earlier one */
			c.pos++;
		} else {
			break;
		}
	}
	o->rex_w = o->rex & REX_W;
	set_sizes(o);
	if (o->rex)
		o->prefixes |= X86_PFX_REX;

	uint8_t b = code[c.pos];
	bool vex;
	if ((e = vex_escape(&c, o, &vex))) {
		*o = (struct x86_insn){0};
		return e;
	}
	if (vex) {
		c.pos++;
		e = decode_vex(&c, o, b);
	} else {
		e = decode_legacy(&c, o);
	}
	if (e) {
		*o = (struct x86_insn){0};
		return e;
	}
	o->length = (uint8_t)c.pos;
	return 0;
}

uint64_t x86_branch_target(const struct x86_insn *in, uint64_t ip)
{
	if (!in->has_rel)
		return 0;
	return (ip + in->length + (uint64_t)(int64_t)in->rel) &
	       x86_ip_mask(in->mode, in->operand_size);
}

bool x86_branch_conditional(enum x86_branch_kind k)
{
	return k == X86_BR_JCC || k == X86_BR_JCXZ_LOOP;
}

static const char *const branch_names[X86_BR_KIND_COUNT] = {
    [X86_BR_NONE] = "none",	    [X86_BR_JCC] = "jcc",	  [X86_BR_JCXZ_LOOP] = "jcxz-loop",
    [X86_BR_JMP_REL] = "jmp",	    [X86_BR_JMP_IND] = "jmp-ind", [X86_BR_CALL_REL] = "call",
    [X86_BR_CALL_IND] = "call-ind", [X86_BR_RET] = "ret",	  [X86_BR_FAR_JMP] = "far-jmp",
    [X86_BR_FAR_CALL] = "far-call", [X86_BR_FAR_RET] = "far-ret", [X86_BR_INT] = "int",
    [X86_BR_SYSCALL] = "syscall",   [X86_BR_SYSRET] = "sysret",	  [X86_BR_SYSENTER] = "sysenter",
    [X86_BR_SYSEXIT] = "sysexit",   [X86_BR_IRET] = "iret",	  [X86_BR_XBEGIN] = "xbegin",
};

const char *x86_branch_name(enum x86_branch_kind k)
{
	if ((unsigned)k >= X86_BR_KIND_COUNT)
		return "?";
	return branch_names[k];
}
