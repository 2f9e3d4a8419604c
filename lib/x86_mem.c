/* SPDX-License-Identifier: MIT */
#include "lib/x86_mem.h"

#define MODRM_MOD(m) ((unsigned)(m) >> 6)
#define MODRM_REG(m) (((unsigned)(m) >> 3) & 7)
#define MODRM_RM(m)  ((unsigned)(m)&7)
#define SIB_SCALE(s) ((unsigned)(s) >> 6)
#define SIB_INDEX(s) (((unsigned)(s) >> 3) & 7)
#define SIB_BASE(s)  ((unsigned)(s)&7)
#define REX_B	     0x01
#define REX_X	     0x02
#define RM_SIB	     4 /* ModRM.rm = 100b: a SIB byte follows */
#define SIB_NO_BASE  5 /* SIB.base = 101b with mod = 00b: disp32, no base */
#define SIB_NO_INDEX 4 /* SIB.index = 100b (without REX.X): no index */
#define SEG_FS	     0x64
#define SEG_GS	     0x65
#define STACK_SLOT   8 /* a 64-bit mode push or pop; 2 with 66H (SDM Vol. 2 PUSH, POP) */
#define WORD_SLOT    2
#define LEGACY_SLOT  4 /* a push or pop of 32-bit code */
#define RM_DISP32    5 /* mod = 00b, rm = 101b: RIP-relative in 64-bit mode, else disp32 alone */
#define RM16_DISP16  6 /* 16-bit addressing, mod = 00b, rm = 110b: disp16 alone */
#define REG_RBX	     3

enum access { NONE, LOAD, STORE, RMW };

static struct x86_mem_use modrm_use(enum access a)
{
	struct x86_mem_use u = {0};
	u.modrm_known = true;
	u.load = (a == LOAD || a == RMW) ? X86_MEM_MODRM : X86_MEM_NONE;
	u.store = (a == STORE || a == RMW) ? X86_MEM_MODRM : X86_MEM_NONE;
	return u;
}

static struct x86_mem_use implicit(enum x86_mem_where load, enum x86_mem_where store)
{
	struct x86_mem_use u = {0};
	u.load = (uint8_t)load;
	u.store = (uint8_t)store;
	return u;
}

static struct x86_mem_use unknown(void)
{
	struct x86_mem_use u = {0};
	u.unknown = true;
	return u;
}

/* The one-byte map (SDM Vol. 2 Table A-2) for a ModRM memory operand. */
static struct x86_mem_use one_byte_modrm(uint8_t op, unsigned reg)
{
	if (op < 0x40 && (op & 7) < 4) {
		/* ALU Eb,Gb / Ev,Gv read-modify-write (CMP only reads), Gb,Eb / Gv,Ev read. */
		bool cmp = (op >> 3) == 7;
		return modrm_use((op & 7) < 2 && !cmp ? RMW : LOAD);
	}
	switch (op) {
	case 0x63: /* MOVSXD */
	case 0x69: /* IMUL Gv,Ev,Iz */
	case 0x6b: /* IMUL Gv,Ev,Ib */
	case 0x84: /* TEST */
	case 0x85:
	case 0x8a: /* MOV Gb,Eb */
	case 0x8b: /* MOV Gv,Ev */
	case 0x8e: /* MOV Sreg,Ew */
		return modrm_use(LOAD);
	case 0x80: /* group 1: /7 is CMP */
	case 0x81:
	case 0x83:
		return modrm_use(reg == 7 ? LOAD : RMW);
	case 0x86: /* XCHG */
	case 0x87:
	case 0xc0: /* group 2 shifts and rotates */
	case 0xc1:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		return modrm_use(RMW);
	case 0x88: /* MOV Eb,Gb */
	case 0x89: /* MOV Ev,Gv */
	case 0x8c: /* MOV Ew,Sreg */
		return modrm_use(STORE);
	case 0x8d: /* LEA: an address, no access */
		return modrm_use(NONE);
	case 0x8f: { /* POP Ev: reads the stack, writes the operand */
		struct x86_mem_use u = modrm_use(STORE);
		u.load = X86_MEM_POP;
		return u;
	}
	case 0xc6: /* MOV Eb,Ib (/0) */
	case 0xc7: /* MOV Ev,Iz (/0) */
		return reg == 0 ? modrm_use(STORE) : unknown();
	case 0xf6: /* group 3: TEST, NOT, NEG, MUL, IMUL, DIV, IDIV */
	case 0xf7:
		return modrm_use(reg == 2 || reg == 3 ? RMW : LOAD);
	case 0xfe: /* group 4: INC, DEC */
		return reg <= 1 ? modrm_use(RMW) : unknown();
	case 0xff: { /* group 5 */
		if (reg <= 1)
			return modrm_use(RMW);
		struct x86_mem_use u = modrm_use(LOAD); /* CALL, JMP (near, far), PUSH read it */
		if (reg == 2 || reg == 6)
			u.store = X86_MEM_PUSH;
		return u;
	}
	default:
		return unknown(); /* x87 (D8-DF) and the rest */
	}
}

/* The one-byte map without a ModRM memory operand: the implicit accesses. */
static struct x86_mem_use one_byte_implicit(uint8_t op)
{
	if (op >= 0x50 && op <= 0x57)
		return implicit(X86_MEM_NONE, X86_MEM_PUSH);
	if (op >= 0x58 && op <= 0x5f)
		return implicit(X86_MEM_POP, X86_MEM_NONE);
	switch (op) {
	case 0x68: /* PUSH Iz, Ib */
	case 0x6a:
	case 0x9c: /* PUSHF */
	case 0xc8: /* ENTER pushes RBP first */
	case 0xe8: /* CALL rel32 */
		return implicit(X86_MEM_NONE, X86_MEM_PUSH);
	case 0x9d: /* POPF */
	case 0xc2: /* RET */
	case 0xc3:
	case 0xca: /* RETF */
	case 0xcb:
		return implicit(X86_MEM_POP, X86_MEM_NONE);
	case 0xc9: /* LEAVE: RSP <- RBP, then POP RBP */
		return implicit(X86_MEM_RBP, X86_MEM_NONE);
	case 0x6c: /* INS */
	case 0x6d:
	case 0xaa: /* STOS */
	case 0xab:
		return implicit(X86_MEM_NONE, X86_MEM_RDI);
	case 0x6e: /* OUTS */
	case 0x6f:
	case 0xa6: /* CMPS: SRC1 is [RSI] */
	case 0xa7:
	case 0xac: /* LODS */
	case 0xad:
		return implicit(X86_MEM_RSI, X86_MEM_NONE);
	case 0xa4: /* MOVS */
	case 0xa5:
		return implicit(X86_MEM_RSI, X86_MEM_RDI);
	case 0xae: /* SCAS */
	case 0xaf:
		return implicit(X86_MEM_RDI, X86_MEM_NONE);
	case 0xa0: /* MOV AL/rAX, moffs */
	case 0xa1:
		return implicit(X86_MEM_MOFFS, X86_MEM_NONE);
	case 0xa2: /* MOV moffs, AL/rAX */
	case 0xa3:
		return implicit(X86_MEM_NONE, X86_MEM_MOFFS);
	default:
		return implicit(X86_MEM_NONE, X86_MEM_NONE);
	}
}

/* The two-byte map (SDM Vol. 2 Table A-3). */
static struct x86_mem_use map_0f(uint8_t op, unsigned reg, bool mem)
{
	switch (op) {
	case 0xa0: /* PUSH FS, PUSH GS */
	case 0xa8:
		return implicit(X86_MEM_NONE, X86_MEM_PUSH);
	case 0xa1: /* POP FS, POP GS */
	case 0xa9:
		return implicit(X86_MEM_POP, X86_MEM_NONE);
	default:
		break;
	}
	if (!mem)
		return implicit(X86_MEM_NONE, X86_MEM_NONE);
	if (op >= 0x40 && op <= 0x4f) /* CMOVcc reads its source whatever the condition */
		return modrm_use(LOAD);
	if (op >= 0x90 && op <= 0x9f) /* SETcc */
		return modrm_use(STORE);
	switch (op) {
	case 0x0d: /* PREFETCHW */
	case 0x18: /* PREFETCHh and hint NOPs */
	case 0x19:
	case 0x1a:
	case 0x1b:
	case 0x1c:
	case 0x1d:
	case 0x1e:
	case 0x1f: /* NOP Ev */
		return modrm_use(NONE);
	case 0xaf: /* IMUL Gv,Ev */
	case 0xb6: /* MOVZX */
	case 0xb7:
	case 0xb8: /* POPCNT */
	case 0xbc: /* BSF, TZCNT */
	case 0xbd: /* BSR, LZCNT */
	case 0xbe: /* MOVSX */
	case 0xbf:
		return modrm_use(LOAD);
	case 0xb0: /* CMPXCHG (writes back even when unequal) */
	case 0xb1:
	case 0xc0: /* XADD */
	case 0xc1:
		return modrm_use(RMW);
	case 0xba: /* group 8, immediate bit offset: BT reads, BTS/BTR/BTC write back */
		return reg == 4 ? modrm_use(LOAD) : reg > 4 ? modrm_use(RMW) : unknown();
	case 0xc7: /* group 9: /1 CMPXCHG8B/16B */
		return reg == 1 ? modrm_use(RMW) : unknown();
	default:
		return unknown(); /* BT* Ev,Gv (the offset moves the address), SSE, system */
	}
}

struct x86_mem_use x86_mem_use_of(const struct x86_insn *in)
{
	bool mem = in->has_modrm && MODRM_MOD(in->modrm) != 3;
	unsigned reg = MODRM_REG(in->modrm);
	struct x86_mem_use u;
	if (in->prefixes & (X86_PFX_VEX | X86_PFX_EVEX | X86_PFX_XOP | X86_PFX_3DNOW))
		u = mem ? unknown() : implicit(X86_MEM_NONE, X86_MEM_NONE);
	else if (in->opcode_map == X86_MAP_ONE_BYTE)
		u = mem ? one_byte_modrm(in->opcode, reg) : one_byte_implicit(in->opcode);
	else if (in->opcode_map == X86_MAP_0F)
		u = map_0f(in->opcode, reg, mem);
	else
		u = mem ? unknown() : implicit(X86_MEM_NONE, X86_MEM_NONE);
	/* 64-bit mode: a near CALL pushes 8 bytes whatever 66H says (Intel), PUSH and POP move 2
	 * with 66H; 16/32-bit code: the operand size, 2 or 4 (SDM Vol. 2 PUSH, POP, CALL). */
	bool call = in->branch == X86_BR_CALL_REL || in->branch == X86_BR_CALL_IND;
	if (in->mode != X86_MODE_64)
		u.push_size = in->operand16 ? WORD_SLOT : LEGACY_SLOT;
	else
		u.push_size = (in->operand16 && !call) ? WORD_SLOT : STACK_SLOT;
	return u;
}

static uint64_t segment_base(const struct x86_insn *in, uint64_t fs_base, uint64_t gs_base)
{
	if (!(in->prefixes & X86_PFX_SEG))
		return 0;
	return in->segment == SEG_FS ? fs_base : in->segment == SEG_GS ? gs_base : 0;
}

/* The address mask of an address size: "Address calculations are first truncated to the
 * effective address size of the current mode (64-bit mode or compatibility mode), as
 * overridden by any address-size prefix. The result is then zero-extended to the full 64-bit
 * address width." (SDM Vol. 1 3.3.7). */
static uint64_t address_mask(unsigned size)
{
	return size == 2 ? 0xffffull : size == 4 ? 0xffffffffull : ~0ull;
}

/* 16-bit addressing (SDM Vol. 2A Table 2-1): BX+SI, BX+DI, BP+SI, BP+DI, SI, DI, BP (disp16
 * alone with mod = 00b), BX; then the displacement. */
static uint64_t modrm16_address(const struct x86_insn *in, const struct x86_gprs *g)
{
	static const uint8_t base[8] = {REG_RBX,     REG_RBX,	  X86_REG_RBP, X86_REG_RBP,
					X86_REG_RSI, X86_REG_RDI, X86_REG_RBP, REG_RBX};
	static const int8_t index[8] = {X86_REG_RSI, X86_REG_RDI, X86_REG_RSI, X86_REG_RDI,
					-1,	     -1,	  -1,	       -1};
	unsigned mod = MODRM_MOD(in->modrm), rm = MODRM_RM(in->modrm);
	uint64_t a = (uint64_t)(int64_t)in->disp;
	if (mod == 0 && rm == RM16_DISP16)
		return a & 0xffff;
	a += g->r[base[rm]] & 0xffff;
	if (index[rm] >= 0)
		a += g->r[index[rm]] & 0xffff;
	return a & 0xffff;
}

uint64_t x86_modrm_address(const struct x86_insn *in, uint64_t ip, const struct x86_gprs *g,
			   uint64_t fs_base, uint64_t gs_base)
{
	uint64_t a = (uint64_t)(int64_t)in->disp;
	unsigned mod = MODRM_MOD(in->modrm), rm = MODRM_RM(in->modrm);
	unsigned rex_b = (in->rex & REX_B) ? 8 : 0, rex_x = (in->rex & REX_X) ? 8 : 0;
	if (in->address_size == 2) {
		a = modrm16_address(in, g);
	} else if (in->rip_relative) {
		a += ip + in->length;
	} else if (mod == 0 && rm == RM_DISP32) {
		/* 16/32-bit code: disp32 alone, no base (Table 2-2); 64-bit mode has
		 * rip_relative here. */
	} else if (rm == RM_SIB) {
		unsigned index = SIB_INDEX(in->sib) | rex_x, base = SIB_BASE(in->sib);
		if (index != SIB_NO_INDEX)
			a += g->r[index] << SIB_SCALE(in->sib);
		if (!(base == SIB_NO_BASE && mod == 0))
			a += g->r[base | rex_b];
	} else {
		a += g->r[rm | rex_b];
	}
	a &= address_mask(in->address_size);
	return a + segment_base(in, fs_base, gs_base);
}

uint64_t x86_mem_address(const struct x86_insn *in, const struct x86_mem_use *u,
			 enum x86_mem_where where, uint64_t ip, const struct x86_gprs *g,
			 uint64_t fs_base, uint64_t gs_base)
{
	uint64_t mask = address_mask(in->address_size);
	/* The stack: RSP in 64-bit mode; ESP in 16/32-bit code (a stack segment with B = 1, as the
	 * 32-bit data segments a compatibility-mode workload runs with: SDM Vol. 3A 3.4.5). */
	uint64_t smask = in->mode == X86_MODE_64 ? ~0ull : 0xffffffffull;
	switch (where) {
	case X86_MEM_MODRM:
		/* POP Ev with RSP in the address: "computes the effective address of the
		 * operand after it increments the ESP register" (SDM Vol. 2 POP). */
		if (in->opcode_map == X86_MAP_ONE_BYTE && in->opcode == 0x8f) {
			struct x86_gprs after = *g;
			after.r[X86_REG_RSP] += u->push_size;
			return x86_modrm_address(in, ip, &after, fs_base, gs_base);
		}
		return x86_modrm_address(in, ip, g, fs_base, gs_base);
	case X86_MEM_MOFFS:
		return in->imm + segment_base(in, fs_base, gs_base);
	case X86_MEM_PUSH:
		return (g->r[X86_REG_RSP] - u->push_size) & smask;
	case X86_MEM_POP:
		return g->r[X86_REG_RSP] & smask;
	case X86_MEM_RSI: /* DS:RSI, overridable */
		return (g->r[X86_REG_RSI] & mask) + segment_base(in, fs_base, gs_base);
	case X86_MEM_RDI: /* ES:RDI, never overridden */
		return g->r[X86_REG_RDI] & mask;
	case X86_MEM_RBP:
		return g->r[X86_REG_RBP] & smask;
	default:
		return 0;
	}
}
