/* SPDX-License-Identifier: MIT */
/* Where a straight line of instructions writes (lib/x86_stores.h). */
#include "lib/x86_stores.h"

#define MODRM_MOD(m)	  ((unsigned)(m) >> 6)
#define MODRM_REG(m)	  (((unsigned)(m) >> 3) & 7)
#define MODRM_RM(m)	  ((unsigned)(m)&7)
#define REX_B		  0x01
#define REX_X		  0x02
#define RM_SIB		  4 /* ModRM.rm 100: a SIB byte follows (SDM Vol. 2 Table 2-2) */
#define SIB_NO_INDEX	  4 /* SIB.index 100 without REX.X: none (Table 2-3) */
#define SIB_NO_BASE	  5 /* SIB.base 101 with mod 00: disp32, no base */
#define REG_RAX		  0
#define REG_RCX		  1
#define REG_RDX		  2
#define SEG_FS		  0x64
#define SEG_GS		  0x65
#define X87_FIRST	  0xd8 /* D8-DF: x87 (SDM Vol. 2 Table A-7 on) */
#define X87_LAST	  0xdf
#define X87_STORE_MAX	  128 /* FNSAVE's 108-byte image, the widest x87 store */
#define VECTOR_STORE_MAX  64  /* an SSE/AVX/AVX-512 store: at most a ZMM register */
#define STRING_STORE_MAX  8   /* STOS, MOVS, INS: at most a quadword */
#define MASKMOV_STORE_MAX 16  /* MASKMOVDQU: an XMM register's bytes, masked, at [RDI] */
#define CMPXCHG16B_SIZE	  16
#define CMPXCHG8B_SIZE	  8
#define SREG_STORE_SIZE	  2    /* MOV m16, Sreg */
#define OP_ENTER	  0xc8 /* nesting level > 0 copies frame pointers: not followed */
#define OP_LEAVE	  0xc9
#define OP_POP_EV	  0x8f
#define OP_MOV_EW_SREG	  0x8c
#define OP0F_GROUP15	  0xae /* FXSAVE, XSAVE, XSAVEOPT, ... (size from XCR0), CLFLUSH */
#define OP0F_GROUP9	  0xc7 /* /1 CMPXCHG8B/16B; XSAVEC, XSAVES, VMPTRST: not followed */
#define OP0F_MASKMOV	  0xf7 /* MASKMOVQ, (V)MASKMOVDQU: the store goes to [RDI] */
#define OP0F38_MOVDIR64B  0xf8 /* MOVDIR64B, ENQCMD(S): the destination is a register's */
#define OP0F38_TILESTORED 0x4b /* AMX: rows at base + stride * row */
#define OP0F38_BMI_FIRST  0xf0 /* VEX 0F38 F0-F7: BMI1/2, some write ModRM.vvvv (MULX, BLS*) */
#define OP0F38_BMI_LAST	  0xf7
#define DISP8		  1

/* Whether a VEX/EVEX 0F38 opcode takes a vector index (VSIB: gathers 90-93, scatters A0-A3,
 * their prefetches C6, C7; SDM Vol. 2 2.3.12): a store to as many addresses as elements. */
static bool vsib(unsigned op)
{
	return (op >= 0x90 && op <= 0x93) || (op >= 0xa0 && op <= 0xa3) || op == 0xc6 || op == 0xc7;
}

#define VAL(v, o, s)                                                                               \
	((struct x86_stores_value){                                                                \
	    .var = (v), .var2 = X86_STORES_NONE, .scale2 = 0, .off = (o), .span = (s)})
static const struct x86_stores_value unknown = VAL(X86_STORES_UNKNOWN, 0, 0);
#define SPAN_MAX (1ull << 32) /* a range wider is taken as unknown */

static bool memory_operand(const struct x86_insn *in)
{
	return in->has_modrm && MODRM_MOD(in->modrm) != 3;
}

/* v + k, or unknown. */
static struct x86_stores_value plus(struct x86_stores_value v, int64_t k)
{
	if (v.var == X86_STORES_UNKNOWN)
		return unknown;
	v.off = (int64_t)((uint64_t)v.off + (uint64_t)k);
	return v;
}

/* The range 0 .. mask, where it is narrow enough to follow. */
static struct x86_stores_value range_to(uint64_t mask)
{
	if (mask >= SPAN_MAX)
		return unknown;
	return VAL(X86_STORES_RANGE, 0, mask);
}

/* Address terms: base + (index << scale) + off + one of 0 .. span. */
struct terms {
	uint8_t base, index, scale;
	int64_t off;
	uint64_t span;
};

/* Add value v (times 1 << scale) to t: false where v is unknown or both registers are taken. */
static bool add_value(struct terms *t, struct x86_stores_value v, unsigned scale)
{
	if (v.var == X86_STORES_UNKNOWN)
		return false;
	if (v.var2 != X86_STORES_NONE) { /* an LEA's base + index: both slots, unscaled */
		if (scale || t->index != X86_STORES_NONE ||
		    (v.var != X86_STORES_CONST && t->base != X86_STORES_NONE))
			return false;
		t->off = (int64_t)((uint64_t)t->off + (uint64_t)v.off);
		if (v.var != X86_STORES_CONST)
			t->base = v.var;
		t->index = v.var2;
		t->scale = v.scale2;
		return true;
	}
	t->off = (int64_t)((uint64_t)t->off + ((uint64_t)v.off << scale));
	if (v.var == X86_STORES_CONST)
		return true;
	if (v.var == X86_STORES_RANGE) { /* spans below SPAN_MAX, scale at most 3 */
		t->span += v.span << scale;
		return t->span < SPAN_MAX;
	}
	if (scale == 0 && t->base == X86_STORES_NONE) {
		t->base = v.var;
		return true;
	}
	if (t->index == X86_STORES_NONE) {
		t->index = v.var;
		t->scale = (uint8_t)scale;
		return true;
	}
	if (scale == 0 && t->scale == 0 && t->base == X86_STORES_NONE) {
		t->base = v.var;
		return true;
	}
	return false;
}

/* The ModRM memory operand's address in the line's terms (SDM Vol. 2 2.1.5; RIP-relative from
 * the next instruction, 2.2.1.6); rsp_adjust: added to RSP first (POP Ev, "computes the
 * effective address of the operand after it increments the ESP register", Vol. 2 POP). False
 * where it is not an affine function of the registers at the line's start: a 32-bit address
 * size (truncated, Vol. 1 3.3.7), EVEX's compressed disp8 (disp8*N, Vol. 2 2.7.5), a register not
 * followed. */
static bool modrm_terms(const struct x86_stores_value *v, const struct x86_insn *in, uint64_t ip,
			int64_t rsp_adjust, struct terms *t)
{
	*t = (struct terms){X86_STORES_NONE, X86_STORES_NONE, 0, in->disp, 0};
	if (in->address_size != 8 || ((in->prefixes & X86_PFX_EVEX) && in->disp_size == DISP8))
		return false;
	if (in->rip_relative) {
		t->off = (int64_t)(ip + in->length + (uint64_t)(int64_t)in->disp);
		return true;
	}
	unsigned mod = MODRM_MOD(in->modrm);
	struct x86_stores_value rsp = plus(v[X86_REG_RSP], rsp_adjust);
	const struct x86_stores_value *reg = v;
	if (MODRM_RM(in->modrm) != RM_SIB) {
		unsigned b = x86_modrm_rm(in);
		return add_value(t, b == X86_REG_RSP ? rsp : reg[b], 0);
	}
	unsigned index = ((in->sib >> 3) & 7) | (in->rex & REX_X ? 8 : 0);
	unsigned base = (in->sib & 7) | (in->rex & REX_B ? 8 : 0);
	if (!((in->sib & 7) == SIB_NO_BASE && mod == 0) &&
	    !add_value(t, base == X86_REG_RSP ? rsp : reg[base], 0))
		return false;
	if (index != SIB_NO_INDEX && !add_value(t, reg[index], in->sib >> 6))
		return false;
	return true;
}

/* An implicit operand's address terms: register r's value plus off ([RSP - n], [RDI]). */
static bool register_terms(const struct x86_stores_value *v, unsigned r, int64_t off,
			   struct terms *t)
{
	*t = (struct terms){X86_STORES_NONE, X86_STORES_NONE, 0, off, 0};
	return add_value(t, v[r], 0);
}

static uint8_t seg_of(const struct x86_insn *in)
{
	if (!(in->prefixes & X86_PFX_SEG))
		return 0;
	return in->segment == SEG_FS || in->segment == SEG_GS ? in->segment : 0;
}

/* The bytes an integer store the memory table classifies writes (SDM Vol. 2 Table:
 * the b-forms write a byte, the v-forms the operand size). */
static unsigned integer_size(const struct x86_insn *in)
{
	unsigned op = in->opcode;
	if (in->opcode_map == X86_MAP_0F) {
		if ((op >= 0x90 && op <= 0x9f) || op == 0xb0 || op == 0xc0)
			return 1;
		if (op == OP0F_GROUP9)
			return in->rex_w ? CMPXCHG16B_SIZE : CMPXCHG8B_SIZE;
		return in->operand_size;
	}
	if (op == OP_MOV_EW_SREG)
		return SREG_STORE_SIZE;
	if ((op < 0x40 && !(op & 1)) || op == 0x80 || op == 0x86 || op == 0x88 || op == 0xc0 ||
	    op == 0xc6 || op == 0xd0 || op == 0xd2 || op == 0xf6 || op == 0xfe || op == 0xa2)
		return 1;
	return in->operand_size;
}

/* Whether a ModRM memory operand the memory table does not classify is a store this file
 * cannot bound (see the top of x86_stores.h); else it is taken as one of its class's widest. */
static bool unbounded_unclassified(const struct x86_insn *in, unsigned *size)
{
	unsigned op = in->opcode;
	bool vex = in->prefixes & (X86_PFX_VEX | X86_PFX_EVEX);
	*size = VECTOR_STORE_MAX;
	if (in->opcode_map == X86_MAP_ONE_BYTE && !vex) {
		*size = X87_STORE_MAX;
		return !(op >= X87_FIRST && op <= X87_LAST);
	}
	if (in->opcode_map == X86_MAP_0F && !vex)
		return op == OP0F_GROUP15 || op == OP0F_GROUP9 || op == 0xa3 || op == 0xab ||
		       op == 0xb3 || op == 0xbb; /* BT* Ev,Gv: the bit offset moves the address */
	if (in->opcode_map == X86_MAP_0F38)
		return op == OP0F38_MOVDIR64B || (vex && (vsib(op) || op == OP0F38_TILESTORED));
	return false;
}

/* Instruction i's store (with the registers before it, v) into out->st; false where it has
 * one this file cannot put in terms of the line's start. */
static bool note_store(struct x86_stores *out, const struct x86_stores_value *v,
		       const struct x86_insn *in, const struct x86_mem_use *u, uint64_t ip,
		       unsigned i)
{
	struct terms t;
	unsigned size = 0;
	uint8_t seg = 0;
	bool maskmov = in->opcode_map == X86_MAP_0F && in->opcode == OP0F_MASKMOV &&
		       !(in->prefixes & X86_PFX_EVEX) && !memory_operand(in);
	if (in->opcode_map == X86_MAP_ONE_BYTE && in->opcode == OP_ENTER)
		return false;
	/* Never in a block, and not bounded here: a REP string writes RCX elements; INT n, far
	 * CALL, IRET and the other transfers but the near ones push or load frames; the
	 * system groups 0F 00 / 0F 01 (CLZERO writes a line at RAX). */
	if ((in->prefixes & (X86_PFX_REP | X86_PFX_REPNE)) &&
	    (u->store == X86_MEM_RDI || u->load == X86_MEM_RSI || u->load == X86_MEM_RDI))
		return false;
	if (in->branch > X86_BR_RET) /* far transfers, INT n, SYSCALL, IRET, ... (decode.h) */
		return false;
	if (in->opcode_map == X86_MAP_0F && (in->opcode == 0x00 || in->opcode == 0x01) &&
	    !(in->prefixes & (X86_PFX_VEX | X86_PFX_EVEX)))
		return false;
	if (u->unknown) {
		if (unbounded_unclassified(in, &size))
			return false;
		if (!modrm_terms(v, in, ip, 0, &t))
			return false;
		seg = seg_of(in);
	} else if (maskmov) {
		if (in->address_size != 8 || !register_terms(v, X86_REG_RDI, 0, &t))
			return false;
		size = MASKMOV_STORE_MAX;
		seg = seg_of(in);
	} else {
		switch (u->store) {
		case X86_MEM_NONE:
			return true;
		case X86_MEM_MODRM: {
			bool pop = in->opcode_map == X86_MAP_ONE_BYTE && in->opcode == OP_POP_EV;
			if (!modrm_terms(v, in, ip, pop ? u->push_size : 0, &t))
				return false;
			/* POP Ev moves 8 bytes (2 with 66H) whatever REX.W says: "defaults to 64
			 * bits" in 64-bit mode (SDM Vol. 2 POP) */
			size = pop ? u->push_size : integer_size(in);
			seg = seg_of(in);
			break;
		}
		case X86_MEM_PUSH:
			if (!register_terms(v, X86_REG_RSP, -(int64_t)u->push_size, &t))
				return false;
			size = u->push_size;
			break;
		case X86_MEM_RDI: /* ES:RDI, never overridden (SDM Vol. 2 STOS) */
			if (in->address_size != 8 || !register_terms(v, X86_REG_RDI, 0, &t))
				return false;
			size = STRING_STORE_MAX;
			break;
		case X86_MEM_MOFFS:
			t = (struct terms){X86_STORES_NONE, X86_STORES_NONE, 0, (int64_t)in->imm,
					   0};
			size = integer_size(in);
			seg = seg_of(in);
			break;
		default:
			return false;
		}
	}
	if (out->n == X86_STORES_MAX)
		return false;
	out->st[out->n++] = (struct x86_store_ref){.base = t.base,
						   .index = t.index,
						   .scale = t.scale,
						   .seg = seg,
						   .insn = (uint8_t)i,
						   .size = (uint16_t)size,
						   .off = t.off,
						   .span = t.span};
	return true;
}

/* A byte register written (SDM Vol. 2 Table 2-2: without REX, 4-7 are AH, CH, DH, BH). */
static void kill_byte(struct x86_stores_value *v, const struct x86_insn *in, unsigned r)
{
	v[x86_byte_register(in, (int)r)] = unknown;
}

/* The register r written with a result not followed: its byte forms, its 16-bit form (the
 * rest kept) and its 32-bit form (zero-extended) alike. */
static void kill(struct x86_stores_value *v, const struct x86_insn *in, unsigned r, bool byte)
{
	if (byte)
		kill_byte(v, in, r);
	else
		v[r] = unknown;
}

/* Whether an instruction not followed may write RSP: a register field, the ModRM register
 * operand or the register in the opcode naming it (4, which with REX is SPL), VEX.vvvv as the
 * destination of BMI's MULX and BLS* (VEX 0F38 F0-F7) or XOP's, or the stack used implicitly
 * (PUSH, POP, ENTER, LEAVE). */
static bool may_write_rsp(const struct x86_insn *in, const struct x86_mem_use *u)
{
	unsigned op = in->opcode;
	/* MOV to or from CR/DR (0F 20-23) take their register from r/m whatever mod says */
	bool crdr = in->opcode_map == X86_MAP_0F && op >= 0x20 && op <= 0x23;
	if (in->has_modrm &&
	    (x86_modrm_reg(in) == X86_REG_RSP ||
	     ((MODRM_MOD(in->modrm) == 3 || crdr) && x86_modrm_rm(in) == X86_REG_RSP)))
		return true;
	if (u->store == X86_MEM_PUSH || u->load == X86_MEM_POP || u->load == X86_MEM_RBP ||
	    u->store == X86_MEM_RBP || (in->prefixes & X86_PFX_XOP))
		return true;
	if ((in->prefixes & (X86_PFX_VEX | X86_PFX_EVEX)) && in->opcode_map == X86_MAP_0F38 &&
	    op >= OP0F38_BMI_FIRST && op <= OP0F38_BMI_LAST)
		return true;
	unsigned embedded = x86_opcode_reg(in);
	if (in->opcode_map == X86_MAP_ONE_BYTE && op >= 0x40 && embedded == X86_REG_RSP &&
	    ((op & 0xf0) == 0x50 || (op & 0xf8) == 0x90 || (op & 0xf0) == 0xb0))
		return true;
	return in->opcode_map == X86_MAP_0F && (op & 0xf8) == 0xc8 && embedded == X86_REG_RSP;
}

/* An instruction not followed: every register it may write is unknown. */
static void kill_generic(struct x86_stores_value *v, const struct x86_insn *in,
			 const struct x86_mem_use *u)
{
	for (unsigned r = 0; r < X86_STORES_REGS; r++)
		if (r != X86_REG_RSP)
			v[r] = unknown;
	if (may_write_rsp(in, u))
		v[X86_REG_RSP] = unknown;
}

/* The ALU forms 00-3D (ADD OR ADC SBB AND SUB XOR CMP, SDM Table A-2): CMP writes nothing;
 * XOR or SUB of a register with itself is 0 ("zeroing idiom"); the rest write their
 * destination. */
static void follow_alu(struct x86_stores_value *v, const struct x86_insn *in)
{
	unsigned op = in->opcode, form = op & 7;
	bool byte = !(op & 1);
	if ((op >> 3) == 7)
		return;
	unsigned dst = form < 2 ? x86_modrm_rm(in) : form < 4 ? x86_modrm_reg(in) : REG_RAX;
	if (form < 2 && memory_operand(in))
		return;
	bool self = form < 4 && MODRM_MOD(in->modrm) == 3 && x86_modrm_reg(in) == x86_modrm_rm(in);
	if (!byte && self && ((op >> 3) == 6 || (op >> 3) == 5) && in->operand_size >= 4) {
		v[dst] = VAL(X86_STORES_CONST, 0, 0);
		return;
	}
	if (op == 0x25 && in->operand_size >= 4 &&
	    (in->operand_size == 4 || x86_imm_signed(in) >= 0)) { /* AND eAX, imm: 0..imm */
		v[dst] = range_to(in->operand_size == 4 ? (uint32_t)x86_imm_signed(in)
							: (uint64_t)x86_imm_signed(in));
		return;
	}
	kill(v, in, dst, byte);
}

/* Group 1 (80, 81, 83) with an immediate: ADD and SUB of a 64-bit register followed. */
static void follow_group1(struct x86_stores_value *v, const struct x86_insn *in)
{
	unsigned ext = MODRM_REG(in->modrm);
	bool byte = in->opcode == 0x80;
	if (ext == 7 || memory_operand(in))
		return;
	unsigned r = x86_modrm_rm(in);
	int64_t k = x86_imm_signed(in);
	if (!byte && in->operand_size == 8 && (ext == 0 || ext == 5))
		v[r] = plus(v[r], ext == 0 ? k : -k);
	else if (!byte && ext == 4 && (in->operand_size == 4 || (in->operand_size == 8 && k >= 0)))
		v[r] = range_to(in->operand_size == 4 ? (uint32_t)k : (uint64_t)k); /* AND: 0..k */
	else
		kill(v, in, r, byte);
}

/* SHL r, k of a constant or a range that stays below 2^32 (so the result is exact at 32 and
 * 64 bits); anything else unknown. The count is masked to 5 or 6 bits (SDM Vol. 2 SAL/SAR/SHL/
 * SHR). */
static struct x86_stores_value shift_left(struct x86_stores_value v, unsigned k, unsigned os)
{
	k &= os == 8 ? 63 : 31;
	if ((v.var != X86_STORES_CONST && v.var != X86_STORES_RANGE) || v.var2 != X86_STORES_NONE ||
	    v.off < 0 || k >= 32 || (uint64_t)v.off + v.span >= (1ull << 32) >> k)
		return unknown;
	return VAL(v.var, (int64_t)((uint64_t)v.off << k), v.span << k);
}

/* The one-byte opcodes followed; false: not one of them (kill_generic's). */
/* MOV between registers, of an immediate, LEA (SDM Vol. 2 MOV, LEA); false: not one of them. */
static bool follow_moves(struct x86_stores_value *v, const struct x86_insn *in, uint64_t ip)
{
	unsigned op = in->opcode, os = in->operand_size, ext = MODRM_REG(in->modrm);
	bool mem = memory_operand(in), reg64 = os == 8;
	unsigned reg = x86_modrm_reg(in), rm = x86_modrm_rm(in);
	if (op >= 0xb0 && op <= 0xbf) { /* MOV r8, imm8; MOV r, imm */
		unsigned r = x86_opcode_reg(in);
		if (op < 0xb8)
			kill_byte(v, in, r);
		else if (os == 8 || os == 4) /* imm64; imm32 zero-extended */
			v[r] = VAL(X86_STORES_CONST,
				   os == 8 ? (int64_t)in->imm : (int64_t)(uint32_t)in->imm, 0);
		else
			v[r] = unknown;
		return true;
	}
	switch (op) {
	case 0x88: /* MOV Eb, Gb / Ev, Gv */
	case 0x89:
		if (!mem && op == 0x89 && reg64)
			v[rm] = v[reg];
		else if (!mem)
			kill(v, in, rm, op == 0x88);
		return true;
	case 0x8a: /* MOV Gb, Eb / Gv, Ev */
	case 0x8b:
		if (op == 0x8b && !mem && reg64)
			v[reg] = v[rm];
		else
			kill(v, in, reg, op == 0x8a);
		return true;
	case 0x8d: { /* LEA: the address, no access */
		struct terms t;
		if (os != 8 || !modrm_terms(v, in, ip, 0, &t) ||
		    (t.span && (t.base != X86_STORES_NONE || t.index != X86_STORES_NONE)))
			v[reg] = unknown;
		else if (t.span)
			v[reg] = VAL(X86_STORES_RANGE, t.off, t.span);
		else if (t.base == X86_STORES_NONE)
			v[reg] = VAL(X86_STORES_CONST, t.off, 0);
		else
			v[reg] = VAL(t.base, t.off, 0);
		if (v[reg].var != X86_STORES_UNKNOWN && !t.span) {
			v[reg].var2 = t.index;
			v[reg].scale2 = t.scale;
		}
		return true;
	}
	case 0xc6: /* MOV Eb, Ib / Ev, Iz (/0) */
	case 0xc7:
		if (ext != 0)
			return false;
		if (mem)
			return true;
		if (op == 0xc7 && (os == 8 || os == 4)) /* sign-extended; zero-extended */
			v[rm] = VAL(X86_STORES_CONST,
				    os == 8 ? x86_imm_signed(in)
					    : (int64_t)(uint32_t)x86_imm_signed(in),
				    0);
		else
			kill(v, in, rm, op == 0xc6);
		return true;
	default:
		return false;
	}
}

/* The stack's instructions: PUSH, POP, LEAVE, CALL move RSP by the operand's size (SDM Vol. 2
 * PUSH, POP, LEAVE, CALL); false: not one of them. */
static bool follow_stack(struct x86_stores_value *v, const struct x86_insn *in,
			 const struct x86_mem_use *u)
{
	unsigned op = in->opcode, ext = MODRM_REG(in->modrm);
	bool mem = memory_operand(in);
	unsigned rm = x86_modrm_rm(in);
	if ((op & 0xf0) == 0x50) { /* PUSH r (50-57), POP r (58-5F) */
		struct x86_stores_value sp = v[X86_REG_RSP];
		int64_t k = op < 0x58 ? -(int64_t)u->push_size : (int64_t)u->push_size;
		v[X86_REG_RSP] = plus(sp, k);
		if (op >= 0x58) {
			unsigned r = x86_opcode_reg(in);
			v[r] = unknown; /* POP RSP: the value popped */
		}
		return true;
	}
	switch (op) {
	case 0x68: /* PUSH imm */
	case 0x6a:
		v[X86_REG_RSP] = plus(v[X86_REG_RSP], -(int64_t)u->push_size);
		return true;
	case OP_POP_EV: /* POP Ev (/0) */
		if (ext != 0)
			return false;
		v[X86_REG_RSP] = plus(v[X86_REG_RSP], u->push_size);
		if (!mem)
			v[rm] = unknown;
		return true;
	case OP_LEAVE: /* RSP <- RBP, then POP RBP (SDM Vol. 2 LEAVE: 64 bits by default) */
		if (in->operand16)
			return false;
		v[X86_REG_RSP] = plus(v[X86_REG_RBP], (int64_t)u->push_size);
		v[X86_REG_RBP] = unknown;
		return true;
	case 0xe8: /* CALL rel32: pushes the return address */
		v[X86_REG_RSP] = plus(v[X86_REG_RSP], -(int64_t)u->push_size);
		return true;
	default:
		return false;
	}
}

static bool follow_one_byte(struct x86_stores_value *v, const struct x86_insn *in,
			    const struct x86_mem_use *u, uint64_t ip)
{
	unsigned op = in->opcode, os = in->operand_size, ext = MODRM_REG(in->modrm);
	bool mem = memory_operand(in), reg64 = os == 8;
	unsigned rm = x86_modrm_rm(in);
	if (op < 0x40 && (op & 7) < 6) {
		follow_alu(v, in);
		return true;
	}
	if (follow_moves(v, in, ip) || follow_stack(v, in, u))
		return true;
	switch (op) {
	case 0x80:
	case 0x81:
	case 0x83:
		follow_group1(v, in);
		return true;
	case 0x84: /* TEST */
	case 0x85:
	case 0xa8:
	case 0xa9:
		return true;
	case 0x90: /* NOP (XCHG r8, rAX with REX.B) */
		return !(in->rex & REX_B);
	case 0x98: /* CBW/CWDE/CDQE */
		v[REG_RAX] = unknown;
		return true;
	case 0x99: /* CWD/CDQ/CQO */
		v[REG_RDX] = unknown;
		return true;
	case 0xc0: /* group 2 shifts and rotates */
	case 0xc1:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		if (!mem && (op == 0xc1 || op == 0xd1) && ext == 4 && (os == 8 || os == 4))
			v[rm] = shift_left(v[rm], op == 0xd1 ? 1 : (unsigned)in->imm, os);
		else if (!mem)
			kill(v, in, rm, !(op & 1));
		return true;
	case 0xf6: /* group 3: TEST; NOT, NEG; MUL, IMUL, DIV, IDIV write rAX and rDX */
	case 0xf7:
		if (ext <= 1)
			return true;
		if (ext <= 3) {
			if (!mem)
				kill(v, in, rm, op == 0xf6);
			return true;
		}
		v[REG_RAX] = unknown;
		v[REG_RDX] = unknown;
		return true;
	case 0xfe: /* group 4/5: INC, DEC; PUSH Ev */
	case 0xff:
		if (ext == 6 && op == 0xff) {
			v[X86_REG_RSP] = plus(v[X86_REG_RSP], -(int64_t)u->push_size);
			return true;
		}
		if (ext > 1)
			return false;
		if (mem)
			return true;
		if (op == 0xff && reg64)
			v[rm] = plus(v[rm], ext == 0 ? 1 : -1);
		else
			kill(v, in, rm, op == 0xfe);
		return true;
	case 0xe9: /* JMP, Jcc: no register */
	case 0xeb:
		return true;
	case 0xe0: /* LOOPNE, LOOPE, LOOP: rCX - 1; JrCXZ: nothing */
	case 0xe1:
	case 0xe2:
		v[REG_RCX] = unknown;
		return true;
	case 0xe3:
		return true;
	default:
		return op >= 0x70 && op <= 0x7f; /* Jcc rel8 */
	}
}

/* The two-byte opcodes followed; false: not one of them. */
static bool follow_0f(struct x86_stores_value *v, const struct x86_insn *in)
{
	unsigned op = in->opcode;
	bool mem = memory_operand(in);
	if (op == 0x1f || op == 0x0d || (op >= 0x18 && op <= 0x1e) || (op >= 0x80 && op <= 0x8f))
		return true; /* NOP Ev, PREFETCH, hint NOPs; Jcc rel32 */
	if ((op == 0xb6 || op == 0xb7) && in->operand_size >= 4) { /* MOVZX: 0..FFH, 0..FFFFH */
		v[x86_modrm_reg(in)] = range_to(op == 0xb6 ? 0xff : 0xffff);
		return true;
	}
	if ((op >= 0x40 && op <= 0x4f) || op == 0xaf || op == 0xb6 || op == 0xb7 || op == 0xbe ||
	    op == 0xbf || op == 0xb8 || op == 0xbc || op == 0xbd) {
		v[x86_modrm_reg(in)] =
		    unknown; /* CMOVcc, IMUL, MOVZX/SX, POPCNT, BSF/TZCNT, BSR/LZCNT */
		return true;
	}
	if (op >= 0x90 && op <= 0x9f) { /* SETcc Eb */
		if (!mem)
			kill_byte(v, in, x86_modrm_rm(in));
		return true;
	}
	return false;
}

unsigned x86_stores_follow(const struct x86_insn *const *insn, unsigned n, uint64_t start,
			   struct x86_stores *out)
{
	struct x86_stores_value *v = out->exit;
	out->n = 0;
	for (unsigned r = 0; r < X86_STORES_REGS; r++)
		v[r] = VAL(r, 0, 0);
	uint64_t ip = start;
	for (unsigned i = 0; i < n; i++) {
		const struct x86_insn *in = insn[i];
		if (in->mode != X86_MODE_64)
			return i;
		struct x86_mem_use u = x86_mem_use_of(in);
		if (!note_store(out, v, in, &u, ip, i))
			return i;
		bool plain = !(in->prefixes & (X86_PFX_VEX | X86_PFX_EVEX | X86_PFX_XOP |
					       X86_PFX_3DNOW | X86_PFX_REP | X86_PFX_REPNE));
		bool followed = false;
		if (plain && in->opcode_map == X86_MAP_ONE_BYTE)
			followed = follow_one_byte(v, in, &u, ip);
		else if (plain && in->opcode_map == X86_MAP_0F)
			followed = follow_0f(v, in);
		if (!followed)
			kill_generic(v, in, &u);
		ip += in->length;
	}
	return n;
}

bool x86_stores_eval(struct x86_stores_value v, const struct x86_gprs *g, uint64_t *out)
{
	if (v.var == X86_STORES_UNKNOWN || v.var == X86_STORES_RANGE)
		return false;
	*out = (v.var == X86_STORES_CONST ? 0 : g->r[v.var]) + (uint64_t)v.off;
	if (v.var2 != X86_STORES_NONE)
		*out += g->r[v.var2] << v.scale2;
	return true;
}

uint64_t x86_store_address(const struct x86_store_ref *s, const struct x86_gprs *g, uint64_t fs,
			   uint64_t gs)
{
	uint64_t a = (uint64_t)s->off;
	if (s->base != X86_STORES_NONE)
		a += g->r[s->base];
	if (s->index != X86_STORES_NONE)
		a += g->r[s->index] << s->scale;
	return a + (s->seg == SEG_FS ? fs : s->seg == SEG_GS ? gs : 0);
}

uint16_t x86_stores_after(const struct x86_stores *s, const struct x86_gprs *g,
			  struct x86_gprs *after)
{
	uint16_t known = 0;
	for (unsigned r = 0; r < X86_STORES_REGS; r++) {
		after->r[r] = 0;
		if (x86_stores_eval(s->exit[r], g, &after->r[r]))
			known |= (uint16_t)(1u << r);
	}
	return known;
}
