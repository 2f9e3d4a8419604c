/* SPDX-License-Identifier: MIT */
/* Translated blocks' machine code (lib/x86_xlate.h). Encodings from SDM Vol. 2 (each
 * instruction's opcode table; ModRM/SIB Tables 2-2 and 2-3; RIP-relative addressing 2.2.1.6). */
#include "lib/x86_xlate.h"

#define REX_W	      0x48
#define OP_MOV_RM_R   0x89 /* MOV r/m64, r64 */
#define OP_MOV_R_RM   0x8b /* MOV r64, r/m64 */
#define OP_LEA	      0x8d
#define OP_MOV_RM_I   0xc7 /* MOV r/m32, imm32 (/0) */
#define OP_JRCXZ      0xe3
#define OP_JMP_REL32  0xe9
#define OP_INT	      0xcd
#define OP_PUSH_I32   0x68
#define OP_0F	      0x0f
#define OP_JCC_REL8   0x70 /* 70+cc */
#define OP_JCC_REL32  0x80 /* 0F 80+cc */
#define MODRM_RIP_RCX 0x0d /* mod 00, reg RCX (1), rm 101: [RIP + disp32] */
#define MODRM_RIP_RDX 0x15 /* mod 00, reg RDX (2), rm 101 */
#define MODRM_SIB     0x04 /* mod 00, reg 0, rm 100: a SIB follows */
#define SIB_RDX_RCX4  0x8a /* scale 4 (10), index RCX (001), base RDX (010) */
#define MODRM_RCX_D8  0x49 /* mod 01, reg RCX, rm RCX: [RCX + disp8] */

static void put32(uint8_t *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* rel32 from `next` (the address after the instruction) to target, where it reaches. */
static bool rel32(uint64_t next, uint64_t target, uint32_t *out)
{
	int64_t d = (int64_t)(target - next);
	if (d != (int64_t)(int32_t)d)
		return false;
	*out = (uint32_t)(int32_t)d;
	return true;
}

/* An instruction of the form REX.W op ModRM(RIP) disp32 at p (address va) reaching `at`. */
static bool rip_insn(uint8_t *p, uint64_t va, uint8_t op, uint8_t modrm, uint64_t at)
{
	uint32_t d;
	if (!rel32(va + 7, at, &d))
		return false;
	p[0] = REX_W;
	p[1] = op;
	p[2] = modrm;
	put32(p + 3, d);
	return true;
}

/* A MOV or LEA with a RIP-relative operand at offset `at` of the code being made, reaching the
 * data page's word at data_off. */
struct rip_at {
	uint8_t at, op, modrm;
	uint16_t data_off;
};

/* The instructions t[0..n) into out (address va), the data page at data. */
static bool rip_insns(uint8_t *out, uint64_t va, uint64_t data, const struct rip_at *t, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!rip_insn(out + t[i].at, va + t[i].at, t[i].op, t[i].modrm,
			      data + t[i].data_off))
			return false;
	return true;
}

/* The stub's instructions, with the offset each starts at (lib/x86_xlate.h's layout). */
enum stub_off {
	S_SAVE_RCX = 0,			  /* mov [rip+RCX], rcx */
	S_LOAD_LEFT = 7,		  /* mov rcx, [rip+LEFT] */
	S_JRCXZ = 14,			  /* jrcxz unlogged */
	S_SAVE_RDX = 16,		  /* mov [rip+RDX], rdx */
	S_LEA_LOG = 23,			  /* lea rdx, [rip+LOG-4] */
	S_STORE = 30,			  /* mov dword [rdx+rcx*4], id */
	S_DEC = 37,			  /* lea rcx, [rcx-1] */
	S_COMMIT = 41,			  /* mov [rip+LEFT], rcx */
	S_LOAD_RDX = 48,		  /* mov rdx, [rip+RDX] */
	S_LOAD_RCX = 55,		  /* mov rcx, [rip+RCX] */
	S_JMP = 62,			  /* jmp rel32 */
	S_HANDBACK = XLATE_STUB_HANDBACK, /* int; .long id */
	S_UNLOGGED_RCX = 73,		  /* mov rcx, [rip+RCX] */
	S_UNLOGGED = XLATE_STUB_UNLOGGED, /* int; .long id | XLATE_UNLOGGED */
};
_Static_assert(S_JMP + 1 == XLATE_STUB_JMP_REL, "the jump's rel32 after its opcode");
_Static_assert(S_UNLOGGED + XLATE_INT_LEN + 4 == XLATE_STUB_LEN, "the stub's length");

bool x86_xlate_stub_at(unsigned off, struct x86_xlate_stub_state *st)
{
	*st = (struct x86_xlate_stub_state){0};
	switch (off) {
	case S_SAVE_RCX:
	case S_LOAD_LEFT:
		return true;
	case S_JRCXZ:
	case S_SAVE_RDX:
	case S_LEA_LOG:
	case S_UNLOGGED_RCX:
		st->rcx_in_data = true;
		return true;
	case S_STORE:
	case S_DEC:
	case S_COMMIT:
		st->rcx_in_data = st->rdx_in_data = true;
		return true;
	case S_LOAD_RDX:
		st->rcx_in_data = st->rdx_in_data = st->logged = true;
		return true;
	case S_LOAD_RCX:
		st->rcx_in_data = st->logged = true;
		return true;
	case S_JMP:
	case S_HANDBACK:
		st->logged = true;
		return true;
	case S_UNLOGGED:
		return true;
	default:
		return false;
	}
}

bool x86_xlate_stub(uint8_t *out, uint64_t va, uint64_t data, uint32_t id)
{
	static const struct rip_at rips[] = {
	    {S_SAVE_RCX, OP_MOV_RM_R, MODRM_RIP_RCX, XLATE_D_RCX},
	    {S_LOAD_LEFT, OP_MOV_R_RM, MODRM_RIP_RCX, XLATE_D_LEFT},
	    {S_SAVE_RDX, OP_MOV_RM_R, MODRM_RIP_RDX, XLATE_D_RDX},
	    {S_LEA_LOG, OP_LEA, MODRM_RIP_RDX, XLATE_D_LOG - 4},
	    {S_COMMIT, OP_MOV_RM_R, MODRM_RIP_RCX, XLATE_D_LEFT},
	    {S_LOAD_RDX, OP_MOV_R_RM, MODRM_RIP_RDX, XLATE_D_RDX},
	    {S_LOAD_RCX, OP_MOV_R_RM, MODRM_RIP_RCX, XLATE_D_RCX},
	    {S_UNLOGGED_RCX, OP_MOV_R_RM, MODRM_RIP_RCX, XLATE_D_RCX},
	};
	uint32_t d;
	if (!rip_insns(out, va, data, rips, sizeof(rips) / sizeof(rips[0])))
		return false;
	out[S_JRCXZ] = OP_JRCXZ;
	out[S_JRCXZ + 1] = (uint8_t)(S_UNLOGGED_RCX - (S_JRCXZ + 2));
	out[S_STORE] = OP_MOV_RM_I;
	out[S_STORE + 1] = MODRM_SIB;
	out[S_STORE + 2] = SIB_RDX_RCX4;
	put32(out + S_STORE + 3, id);
	out[S_DEC] = REX_W;
	out[S_DEC + 1] = OP_LEA;
	out[S_DEC + 2] = MODRM_RCX_D8;
	out[S_DEC + 3] = 0xff; /* -1 */
	out[S_JMP] = OP_JMP_REL32;
	rel32(va + S_HANDBACK, va + S_HANDBACK, &d);
	put32(out + S_JMP + 1, d);
	out[S_HANDBACK] = OP_INT;
	out[S_HANDBACK + 1] = XLATE_HANDBACK_VEC;
	put32(out + S_HANDBACK + XLATE_INT_LEN, id);
	out[S_UNLOGGED] = OP_INT;
	out[S_UNLOGGED + 1] = XLATE_HANDBACK_VEC;
	put32(out + S_UNLOGGED + XLATE_INT_LEN, id | XLATE_UNLOGGED);
	return true;
}

bool x86_xlate_stub_link(uint8_t *stub, uint64_t va, uint64_t target)
{
	uint32_t d;
	if (!rel32(va + S_HANDBACK, target ? target : va + S_HANDBACK, &d))
		return false;
	put32(stub + XLATE_STUB_JMP_REL, d);
	return true;
}

unsigned x86_xlate_copy(uint8_t *out, uint64_t out_va, const uint8_t *code,
			const struct x86_insn *in, uint64_t insn_va)
{
	unsigned len = in->length;
	for (unsigned i = 0; i < len; i++)
		out[i] = code[i];
	if (!in->rip_relative)
		return len;
	/* disp32 comes right before the immediates (SDM Vol. 2A Figure 2-1) */
	unsigned at = len - in->imm_size - in->imm2_size - 4;
	uint64_t target = insn_va + len + (uint64_t)(int64_t)in->disp;
	uint32_t d;
	if (in->disp_size != 4 || !rel32(out_va + len, target, &d))
		return 0;
	put32(out + at, d);
	return len;
}

unsigned x86_xlate_jcc(uint8_t *out, uint64_t out_va, unsigned cc, uint64_t target)
{
	uint32_t d;
	if (!rel32(out_va + XLATE_JCC_LEN, target, &d))
		return 0;
	out[0] = OP_0F;
	out[1] = (uint8_t)(OP_JCC_REL32 | (cc & 0xf));
	put32(out + 2, d);
	return XLATE_JCC_LEN;
}

unsigned x86_xlate_push(uint8_t *out, uint64_t value)
{
	if ((uint64_t)(int64_t)(int32_t)value != value)
		return 0;
	out[0] = OP_PUSH_I32;
	put32(out + 1, (uint32_t)value);
	return XLATE_PUSH_LEN;
}

bool x86_xlate_jcc_cond(const struct x86_insn *in, unsigned *cc)
{
	if (in->branch != X86_BR_JCC || in->mode != X86_MODE_64 || in->operand16)
		return false;
	if (in->opcode_map == X86_MAP_ONE_BYTE && (in->opcode & 0xf0) == OP_JCC_REL8)
		*cc = in->opcode & 0xf;
	else if (in->opcode_map == X86_MAP_0F && (in->opcode & 0xf0) == OP_JCC_REL32)
		*cc = in->opcode & 0xf;
	else
		return false;
	return true;
}

#define OP_GRP5		0xff /* FF /2 CALL r/m64, /4 JMP r/m64 */
#define OP_RET		0xc3
#define MODRM_RIP_RAX	0x05 /* mod 00, reg RAX, rm 101 */
#define MODRM_RSP_SIB	0x14 /* mod 00, reg RDX, rm 100: a SIB follows */
#define SIB_RSP		0x24 /* no index, base RSP */
#define MODRM_RSP_D8	0x64 /* mod 01, reg RSP, rm 100 (SIB), disp8 */
#define MODRM_SIB_D32	0x84 /* mod 10, reg 0, rm 100: SIB, disp32 */
#define SIB_RAX_RCX4	0x88 /* scale 4, index RCX, base RAX */
#define MODRM_ECX_DX	0xca /* mod 11, reg ECX, rm EDX */
#define OP_MOVZX_W	0xb7 /* 0F B7: MOVZX r32, r/m16 */
#define MODRM_JMP_SIB	0x24 /* mod 00, /4, rm 100: SIB */
#define SIB_RAX_RCX8	0xc8 /* scale 8, index RCX, base RAX */
#define MODRM_RCX_RDX32 0x8a /* mod 10, reg RCX, rm RDX: [RDX + disp32] */
#define MODRM_REG_MASK	0x38
#define MODRM_REG_RDX	0x10 /* reg field 010 */
#define RET_POP		8

static bool site_load(uint8_t *out, unsigned *at, uint64_t va, const uint8_t *code,
		      const struct x86_insn *in, uint64_t insn_va)
{
	if (in->branch == X86_BR_RET) {
		if (in->opcode != OP_RET)
			return false; /* RET imm16: not translated */
		static const uint8_t load[] = {REX_W, OP_MOV_R_RM, MODRM_RSP_SIB, SIB_RSP};
		for (unsigned i = 0; i < sizeof(load); i++)
			out[(*at)++] = load[i];
		return true;
	}
	/* FF /2 or /4: MOV RDX, r/m64 with the same ModRM operand (REX.X and REX.B kept) */
	if (in->opcode_map != X86_MAP_ONE_BYTE || in->opcode != OP_GRP5 || !in->has_modrm ||
	    in->operand16 || in->address32 || in->imm_size)
		return false;
	if (in->prefixes & (X86_PFX_OPSIZE | X86_PFX_ADDRSZ | X86_PFX_LOCK | X86_PFX_VEX |
			    X86_PFX_EVEX | X86_PFX_XOP))
		return false;
	unsigned tail = 1u + in->has_sib + in->disp_size; /* ModRM, SIB, displacement */
	unsigned modrm_at = in->length - tail;
	if (in->segment)
		out[(*at)++] = in->segment;
	out[(*at)++] = (uint8_t)(REX_W | (in->rex & 0x03));
	out[(*at)++] = OP_MOV_R_RM;
	unsigned first = *at;
	for (unsigned i = 0; i < tail; i++)
		out[(*at)++] = code[modrm_at + i];
	out[first] = (uint8_t)((out[first] & ~MODRM_REG_MASK) | MODRM_REG_RDX);
	if (in->rip_relative) {
		uint32_t d;
		uint64_t target = insn_va + in->length + (uint64_t)(int64_t)in->disp;
		if (!rel32(va + *at, target, &d))
			return false;
		put32(out + *at - 4, d);
	}
	return true;
}

bool x86_xlate_site(uint8_t *out, uint64_t va, uint64_t data, uint64_t table, const uint8_t *code,
		    const struct x86_insn *in, uint64_t insn_va, uint32_t id,
		    struct x86_xlate_site *site)
{
	if (in->mode != X86_MODE_64)
		return false;
	unsigned at = 0;
	static const uint8_t save_modrm[] = {MODRM_RIP_RAX, MODRM_RIP_RCX, MODRM_RIP_RDX};
	static const uint16_t save_to[] = {XLATE_D_RAX, XLATE_D_RCX, XLATE_D_RDX};
	for (unsigned i = 0; i < 3; i++, at += 7)
		if (!rip_insn(out + at, va + at, OP_MOV_RM_R, save_modrm[i], data + save_to[i]))
			return false;
	site->load = (uint8_t)at;
	if (!site_load(out, &at, va, code, in, insn_va))
		return false;
	site->rsp = 0;
	if (in->branch == X86_BR_RET) {
		static const uint8_t pop[] = {REX_W, OP_LEA, MODRM_RSP_D8, SIB_RSP, RET_POP};
		for (unsigned i = 0; i < sizeof(pop); i++)
			out[at++] = pop[i];
		site->rsp = RET_POP;
	} else if (in->branch == X86_BR_CALL_IND) {
		unsigned l = x86_xlate_push(out + at, insn_va + in->length);
		if (!l)
			return false;
		at += l;
		site->rsp = -RET_POP;
	} else if (in->branch != X86_BR_JMP_IND) {
		return false;
	}
	site->adjusted = (uint8_t)at;
	if (!rip_insn(out + at, va + at, OP_MOV_R_RM, MODRM_RIP_RCX, data + XLATE_D_LEFT))
		return false;
	at += 7;
	unsigned jrcxz = at;
	out[at++] = OP_JRCXZ;
	at++; /* its rel8, below */
	if (!rip_insn(out + at, va + at, OP_LEA, MODRM_RIP_RAX, data + XLATE_D_LOG - 4))
		return false;
	at += 7;
	out[at++] = OP_MOV_RM_I;
	out[at++] = MODRM_SIB_D32;
	out[at++] = SIB_RAX_RCX4;
	put32(out + at, XLATE_D_SITES);
	put32(out + at + 4, id);
	at += 8;
	out[at++] = OP_0F;
	out[at++] = OP_MOVZX_W;
	out[at++] = MODRM_ECX_DX;
	if (!rip_insn(out + at, va + at, OP_LEA, MODRM_RIP_RAX, table))
		return false;
	at += 7;
	out[at++] = OP_GRP5;
	out[at++] = MODRM_JMP_SIB;
	out[at++] = SIB_RAX_RCX8;
	out[jrcxz + 1] = (uint8_t)(at - (jrcxz + 2));
	site->handback = (uint8_t)at;
	out[at++] = OP_INT;
	out[at++] = XLATE_HANDBACK_VEC;
	put32(out + at, id | XLATE_UNLOGGED);
	at += 4;
	site->len = (uint8_t)at;
	return at <= XLATE_SITE_MAX;
}

/* The target stub's instructions, with the offset each starts at (lib/x86_xlate.h). */
enum target_off {
	T_COMPARE = 0,			  /* lea rcx, [rdx - target] */
	T_JRCXZ = 7,			  /* jrcxz hit */
	T_MISS = 9,			  /* jmp miss */
	T_LOAD_LEFT = 14,		  /* hit: mov rcx, [rip+LEFT] */
	T_LEA_LOG = 21,			  /* lea rax, [rip+LOG-4] */
	T_STORE = 28,			  /* mov dword [rax+rcx*4], id */
	T_DEC = 35,			  /* lea rcx, [rcx-1] */
	T_COMMIT = 39,			  /* mov [rip+LEFT], rcx */
	T_LOAD_RAX = XLATE_TARGET_LOGGED, /* mov rax, [rip+RAX] */
	T_LOAD_RCX = 53,		  /* mov rcx, [rip+RCX] */
	T_LOAD_RDX = 60,		  /* mov rdx, [rip+RDX] */
	T_JMP = 67,			  /* jmp to */
};
_Static_assert(T_JMP + 5 == XLATE_TARGET_LEN, "the target stub's length");
_Static_assert(T_COMMIT + 7 == T_LOAD_RAX, "what follows the commit is logged");
_Static_assert(T_STORE + 3 == XLATE_TARGET_ID, "the run number the target stub logs");

bool x86_xlate_target(uint8_t *out, uint64_t va, uint64_t data, uint64_t target, uint32_t id,
		      uint64_t miss, uint64_t to)
{
	static const struct rip_at rips[] = {
	    {T_LOAD_LEFT, OP_MOV_R_RM, MODRM_RIP_RCX, XLATE_D_LEFT},
	    {T_LEA_LOG, OP_LEA, MODRM_RIP_RAX, XLATE_D_LOG - 4},
	    {T_COMMIT, OP_MOV_RM_R, MODRM_RIP_RCX, XLATE_D_LEFT},
	    {T_LOAD_RAX, OP_MOV_R_RM, MODRM_RIP_RAX, XLATE_D_RAX},
	    {T_LOAD_RCX, OP_MOV_R_RM, MODRM_RIP_RCX, XLATE_D_RCX},
	    {T_LOAD_RDX, OP_MOV_R_RM, MODRM_RIP_RDX, XLATE_D_RDX},
	};
	uint64_t neg = (uint64_t)0 - target;
	uint32_t d;
	if ((uint64_t)(int64_t)(int32_t)neg != neg ||
	    !rip_insns(out, va, data, rips, sizeof(rips) / sizeof(rips[0])) ||
	    !rel32(va + T_LOAD_LEFT, miss, &d))
		return false;
	out[T_COMPARE] = REX_W;
	out[T_COMPARE + 1] = OP_LEA;
	out[T_COMPARE + 2] = MODRM_RCX_RDX32;
	put32(out + T_COMPARE + 3, (uint32_t)neg);
	out[T_JRCXZ] = OP_JRCXZ;
	out[T_JRCXZ + 1] = T_LOAD_LEFT - T_MISS; /* over the JMP to the miss stub */
	out[T_MISS] = OP_JMP_REL32;
	put32(out + T_MISS + 1, d);
	out[T_STORE] = OP_MOV_RM_I;
	out[T_STORE + 1] = MODRM_SIB;
	out[T_STORE + 2] = SIB_RAX_RCX4;
	put32(out + T_STORE + 3, id);
	out[T_DEC] = REX_W;
	out[T_DEC + 1] = OP_LEA;
	out[T_DEC + 2] = MODRM_RCX_D8;
	out[T_DEC + 3] = 0xff; /* -1 */
	out[T_JMP] = OP_JMP_REL32;
	if (!rel32(va + XLATE_TARGET_LEN, to, &d))
		return false;
	put32(out + T_JMP + 1, d);
	return true;
}

void x86_xlate_miss(uint8_t *out)
{
	out[0] = OP_INT;
	out[1] = XLATE_HANDBACK_VEC;
	put32(out + 2, XLATE_MISS);
}
