/* SPDX-License-Identifier: MIT */
/* Counted loops (lib/x86_loop.h): one iteration of the body read symbolically. */
#include "lib/x86_loop.h"

#define UNKNOWN	  0xff /* a value the body computes in a way not followed */
#define LOCATIONS 17   /* the 16 registers and the slot */
#define REX_B	  0x01
#define REX_X	  0x02
#define NO_INDEX  4 /* SIB.index 100 without REX.X: no index (SDM Vol. 2 Table 2-3) */
#define NO_BASE	  5 /* SIB.base 101 with mod 00: disp32, no base */
#define RIP_RM	  5 /* ModRM.rm 101 with mod 00: RIP-relative in 64-bit mode */
#define SIB_RM	  4 /* ModRM.rm 100: a SIB byte follows */

/* Jcc conditions (SDM Vol. 2 Appendix B.1.4.7, Table B-1): tttn. */
enum {
	CC_O,
	CC_NO,
	CC_B,
	CC_AE,
	CC_E,
	CC_NE,
	CC_BE,
	CC_A,
	CC_S,
	CC_NS,
	CC_P,
	CC_NP,
	CC_L,
	CC_GE,
	CC_LE,
	CC_G
};

/* A location's value as X + off (X the location `var` held when the iteration started), or
 * its low 32 bits zero-extended (bits 32). */
struct sym {
	uint8_t var, bits;
	int64_t off;
};

struct eval {
	struct sym v[LOCATIONS];
	uint8_t writes[LOCATIONS]; /* instructions that wrote the location */
	bool have_slot, slot_bad;
	uint8_t slot_base, slot_size;
	int32_t slot_disp;
	/* stores to memory other than the slot: checked against it at the end */
	uint8_t stores;
	struct {
		bool simple;
		uint8_t base, size;
		int32_t disp;
	} store[X86_LOOP_MAX_INSNS];
};

static const struct sym unknown = {UNKNOWN, 64, 0};

static struct sym to32(struct sym s)
{
	return s.var == UNKNOWN ? unknown : (struct sym){s.var, 32, s.off};
}

static unsigned modrm_mod(const struct x86_insn *in)
{
	return in->modrm >> 6;
}

/* The ModRM memory operand as [base + disp] with no index, segment override or RIP. */
static bool simple_memory(const struct x86_insn *in, uint8_t *base, int32_t *disp)
{
	if (!in->has_modrm || modrm_mod(in) == 3 || in->rip_relative || in->address_size != 8 ||
	    (in->prefixes & X86_PFX_SEG))
		return false;
	if (in->has_sib) {
		if (((in->sib >> 3) & 7) != NO_INDEX || (in->rex & REX_X))
			return false;
		if ((in->sib & 7) == NO_BASE && modrm_mod(in) == 0)
			return false;
		*base = (uint8_t)((in->sib & 7) | (in->rex & REX_B ? 8 : 0));
	} else {
		if ((in->modrm & 7) == RIP_RM && modrm_mod(in) == 0)
			return false;
		*base = (uint8_t)x86_modrm_rm(in);
	}
	*disp = in->disp;
	return true;
}

/* The location a ModRM operand names: its register, the slot, or -1 (other memory). A first
 * load of a simple word makes it the slot. */
static int modrm_location(struct eval *e, const struct x86_insn *in, bool load)
{
	if (modrm_mod(in) == 3)
		return (int)x86_modrm_rm(in);
	uint8_t base;
	int32_t disp;
	if (!simple_memory(in, &base, &disp))
		return -1;
	if (!e->have_slot && load && (in->operand_size == 4 || in->operand_size == 8)) {
		e->have_slot = true;
		e->slot_base = base;
		e->slot_disp = disp;
		e->slot_size = in->operand_size;
		e->v[X86_LOOP_SLOT] =
		    (struct sym){X86_LOOP_SLOT, (uint8_t)(in->operand_size * 8), 0};
	}
	if (e->have_slot && base == e->slot_base && disp == e->slot_disp) {
		if (in->operand_size != e->slot_size)
			e->slot_bad = true;
		return X86_LOOP_SLOT;
	}
	return -1;
}

static struct sym read_loc(const struct eval *e, int loc, unsigned size)
{
	if (loc < 0 || size < 4)
		return unknown;
	return size == 4 ? to32(e->v[loc]) : e->v[loc];
}

static void write_loc(struct eval *e, const struct x86_insn *in, int loc, struct sym s,
		      unsigned size)
{
	if (loc < 0) {
		uint8_t base;
		int32_t disp;
		bool simple = simple_memory(in, &base, &disp);
		e->store[e->stores].simple = simple;
		e->store[e->stores].base = simple ? base : 0;
		e->store[e->stores].disp = simple ? disp : 0;
		e->store[e->stores].size = (uint8_t)size;
		e->stores++;
		return;
	}
	if (size < 4)
		s = unknown; /* a partial write: the rest of the register kept */
	else if (size == 4)
		s = to32(s); /* zero-extended into a register; the slot's 4 bytes */
	e->v[loc] = s;
	e->writes[loc]++;
}

static struct sym plus(struct sym s, int64_t k, unsigned size)
{
	if (s.var == UNKNOWN || size < 4 || (size == 8 && s.bits != 64))
		return unknown;
	return (struct sym){s.var, (uint8_t)(size * 8), (int64_t)((uint64_t)s.off + (uint64_t)k)};
}

/* The comparison the jump reads, as the flag-setting instruction computes it. */
struct setter {
	bool ok;
	uint8_t flags;
	struct sym a, b;
	bool b_const;
	int64_t k;
};

/* Two-byte opcodes (SDM Table A-3): NOP Ev; CMOVcc, IMUL, MOVZX, MOVSX write Gv; SETcc Eb. */
static bool step_0f(struct eval *e, const struct x86_insn *in)
{
	unsigned op = in->opcode;
	if (op == 0x1f)
		return true;
	if ((op >= 0x40 && op <= 0x4f) || op == 0xaf || op == 0xb6 || op == 0xb7 || op == 0xbe ||
	    op == 0xbf) {
		write_loc(e, in, (int)x86_modrm_reg(in), unknown, in->operand_size);
		return true;
	}
	if (op >= 0x90 && op <= 0x9f) {
		write_loc(e, in, x86_byte_register(in, modrm_location(e, in, false)), unknown, 1);
		return true;
	}
	return false;
}

/* 00-3D: ADD OR ADC SBB AND SUB XOR (their destination) and CMP (the flags of a - b). */
static bool step_alu(struct eval *e, const struct x86_insn *in, struct setter *set)
{
	unsigned op = in->opcode, form = op & 7;
	bool cmp = (op >> 3) == 7, byte = !(op & 1);
	unsigned size = byte ? 1 : in->operand_size;
	int rm = form < 4 ? modrm_location(e, in, true) : 0; /* 04/05: AL/eAX */
	int reg = form < 4 ? (int)x86_modrm_reg(in) : 0;
	if (cmp && !byte) { /* 39 Ev,Gv: Ev - Gv; 3B Gv,Ev: Gv - Ev; 3D eAX,Iz */
		struct sym r = read_loc(e, reg, size), m = read_loc(e, rm, size);
		if (form == 5)
			*set = (struct setter){true,	X86_LOOP_SUB, r,
					       unknown, true,	      x86_imm_signed(in)};
		else
			*set = (struct setter){
			    true, X86_LOOP_SUB, form == 1 ? m : r, form == 1 ? r : m, false, 0};
		return true;
	}
	if (cmp)
		return true;
	int dst = form == 0 || form == 1 ? rm : reg;
	write_loc(e, in, byte ? x86_byte_register(in, dst) : dst, unknown, size);
	return true;
}

/* 80, 81, 83 (group 1, Ev with an immediate): /0 ADD and /5 SUB followed, /7 CMP. */
static bool step_group1(struct eval *e, const struct x86_insn *in, struct setter *set)
{
	unsigned ext = (in->modrm >> 3) & 7;
	bool byte = in->opcode == 0x80;
	unsigned size = byte ? 1 : in->operand_size;
	int loc = modrm_location(e, in, true);
	struct sym before = read_loc(e, loc, size);
	int64_t k = x86_imm_signed(in);
	if (ext == 7) {
		if (!byte)
			*set = (struct setter){true, X86_LOOP_SUB, before, unknown, true, k};
		return true;
	}
	struct sym after = unknown;
	if (!byte && (ext == 0 || ext == 5)) {
		after = plus(before, ext == 0 ? k : -k, size);
		*set = (struct setter){
		    true, ext == 0 ? X86_LOOP_ADD : X86_LOOP_SUB, before, unknown, true, k};
	}
	write_loc(e, in, byte ? x86_byte_register(in, loc) : loc, after, size);
	return true;
}

/* F6, F7 (group 3): TEST writes no register; NOT, NEG their operand; MUL, IMUL, DIV, IDIV
 * rAX (AX for a byte) and rDX. */
static bool step_group3(struct eval *e, const struct x86_insn *in)
{
	unsigned ext = (in->modrm >> 3) & 7, os = in->operand_size;
	bool byte = in->opcode == 0xf6;
	int loc = modrm_location(e, in, true);
	if (ext <= 1)
		return true;
	if (ext <= 3) {
		write_loc(e, in, byte ? x86_byte_register(in, loc) : loc, unknown, byte ? 1 : os);
		return true;
	}
	write_loc(e, in, 0, unknown, byte ? 2 : os);
	if (!byte)
		write_loc(e, in, 2, unknown, os);
	return true;
}

/* FE, FF /0 INC and /1 DEC, followed (the rest of groups 4 and 5 are branches and PUSH). */
static bool step_incdec(struct eval *e, const struct x86_insn *in, struct setter *set)
{
	unsigned ext = (in->modrm >> 3) & 7;
	if (ext > 1)
		return false;
	bool byte = in->opcode == 0xfe;
	unsigned size = byte ? 1 : in->operand_size;
	int loc = modrm_location(e, in, true);
	struct sym before = read_loc(e, loc, size), after = unknown;
	if (!byte) {
		after = plus(before, ext == 0 ? 1 : -1, size);
		*set = (struct setter){true, X86_LOOP_INCDEC,  before, unknown,
				       true, ext == 0 ? 1 : -1};
	}
	write_loc(e, in, byte ? x86_byte_register(in, loc) : loc, after, size);
	return true;
}

/* The other one-byte opcodes followed: MOVSXD, IMUL, TEST, MOV, LEA, NOP, CBW/CWD and kin,
 * shifts and rotates, MOV Ev, imm. */
static bool step_other(struct eval *e, const struct x86_insn *in)
{
	unsigned os = in->operand_size, op = in->opcode, ext = (in->modrm >> 3) & 7;
	switch (op) {
	case 0x63: /* MOVSXD Gv, Ed */
	case 0x69: /* IMUL Gv, Ev, Iz */
	case 0x6b:
		write_loc(e, in, (int)x86_modrm_reg(in), unknown, os);
		return true;
	case 0x84: /* TEST */
	case 0x85:
	case 0xa8:
	case 0xa9:
		return true;
	case 0x88: /* MOV Eb, Gb */
		write_loc(e, in, x86_byte_register(in, modrm_location(e, in, false)), unknown, 1);
		return true;
	case 0x89: { /* MOV Ev, Gv */
		struct sym s = read_loc(e, (int)x86_modrm_reg(in), os);
		write_loc(e, in, modrm_location(e, in, false), s, os);
		return true;
	}
	case 0x8a: /* MOV Gb, Eb */
		write_loc(e, in, x86_byte_register(in, (int)x86_modrm_reg(in)), unknown, 1);
		return true;
	case 0x8b: { /* MOV Gv, Ev */
		struct sym s = read_loc(e, modrm_location(e, in, true), os);
		write_loc(e, in, (int)x86_modrm_reg(in), s, os);
		return true;
	}
	case 0x8d: { /* LEA Gv, M: the address, no memory access */
		uint8_t base;
		int32_t disp;
		struct sym s = unknown;
		if (simple_memory(in, &base, &disp))
			s = plus(e->v[base], disp, os);
		write_loc(e, in, (int)x86_modrm_reg(in), s, os);
		return true;
	}
	case 0x90: /* NOP; with REX.B it is XCHG r8, rAX */
		return !(in->rex & REX_B);
	case 0x98: /* CBW/CWDE/CDQE */
		write_loc(e, in, 0, unknown, os);
		return true;
	case 0x99: /* CWD/CDQ/CQO */
		write_loc(e, in, 2, unknown, os);
		return true;
	case 0xc0: /* shifts and rotates, group 2 */
	case 0xc1:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3: {
		bool byte = !(op & 1);
		int loc = modrm_location(e, in, true);
		write_loc(e, in, byte ? x86_byte_register(in, loc) : loc, unknown, byte ? 1 : os);
		return true;
	}
	case 0xc6: /* MOV Ev, I (group 11 /0; /7 is XABORT/XBEGIN) */
	case 0xc7:
		if (ext != 0)
			return false;
		write_loc(e, in,
			  op == 0xc6 ? x86_byte_register(in, modrm_location(e, in, false))
				     : modrm_location(e, in, false),
			  unknown, op == 0xc6 ? 1 : os);
		return true;
	default:
		return false;
	}
}

/* Evaluate body instruction i (SDM Vol. 2 instruction pages); false where the body is not
 * followed (an instruction whose register writes this does not know). */
static bool step(struct eval *e, const struct x86_insn *in, struct setter *set)
{
	if (in->prefixes & (X86_PFX_LOCK | X86_PFX_REP | X86_PFX_REPNE | X86_PFX_VEX |
			    X86_PFX_EVEX | X86_PFX_XOP | X86_PFX_3DNOW))
		return false;
	struct x86_mem_use u = x86_mem_use_of(in);
	if (u.unknown || (u.store != X86_MEM_NONE && u.store != X86_MEM_MODRM))
		return false;
	unsigned os = in->operand_size, op = in->opcode;
	*set = (struct setter){0};
	if (in->opcode_map == X86_MAP_0F)
		return step_0f(e, in);
	if (in->opcode_map != X86_MAP_ONE_BYTE)
		return false;
	if (op < 0x40 && (op & 7) < 6) /* ADD OR ADC SBB AND SUB XOR CMP (SDM Table A-2) */
		return step_alu(e, in, set);
	if (op == 0x80 || op == 0x81 || op == 0x83)
		return step_group1(e, in, set);
	if (op == 0xf6 || op == 0xf7)
		return step_group3(e, in);
	if (op == 0xfe || op == 0xff)
		return step_incdec(e, in, set);
	if (op >= 0xb0 && op <= 0xb7) { /* MOV r8, imm8 */
		write_loc(e, in, x86_byte_register(in, x86_opcode_reg(in)), unknown, 1);
		return true;
	}
	if (op >= 0xb8 && op <= 0xbf) { /* MOV r, imm */
		write_loc(e, in, (int)(x86_opcode_reg(in)), unknown, os);
		return true;
	}
	return step_other(e, in);
}

/* A side of the comparison in terms of the counter x, or false. */
static bool operand(const struct eval *e, struct sym s, unsigned x, struct x86_loop_operand *o)
{
	if (s.var == UNKNOWN)
		return false;
	if (s.var == x) {
		*o = (struct x86_loop_operand){X86_LOOP_COUNTER, 0, s.bits, s.off};
		return true;
	}
	if (s.var == X86_LOOP_SLOT || e->writes[s.var])
		return false; /* the word itself as a bound, or a register the body changes */
	*o = (struct x86_loop_operand){X86_LOOP_INVARIANT, s.var, s.bits, s.off};
	return true;
}

/* Whether location x is a counter: at the run's end itself plus a constant step (however many
 * instructions wrote it on the way: witnesses say where it is in between). */
static bool counter(const struct eval *e, unsigned x)
{
	if (x >= LOCATIONS)
		return false;
	const struct sym *end = &e->v[x];
	if (e->writes[x] == 0 || end->var != x || end->off == 0)
		return false;
	if (x != X86_LOOP_SLOT)
		return true;
	if (e->slot_bad || e->writes[e->slot_base])
		return false;
	for (unsigned i = 0; i < e->stores; i++) {
		int64_t lo = e->store[i].disp, hi = lo + e->store[i].size;
		if (!e->store[i].simple || e->store[i].base != e->slot_base ||
		    (hi > e->slot_disp && lo < (int64_t)e->slot_disp + e->slot_size))
			return false; /* it may write the word */
	}
	return true;
}

/* Where counter x (its value X at the run's start; `bits` its width at the end) is in state e:
 * x itself where it holds X + off there, else the first register that does (the slot only as
 * the counter itself: its conditions, counter(), hold for it alone). A location of 32 bits
 * tells X's run apart only where the counter has 32 bits too. */
static bool witness_of(const struct eval *e, unsigned x, unsigned bits, struct x86_loop_witness *w)
{
	for (unsigned k = 0; k <= X86_LOOP_SLOT; k++) {
		unsigned loc = k == 0 ? x : k - 1;
		const struct sym *v = &e->v[loc];
		if ((k > 0 && (loc == x || loc == X86_LOOP_SLOT)) || v->var != x ||
		    (v->bits == 32 && bits != 32) || v->off < INT8_MIN || v->off > INT8_MAX)
			continue;
		*w = (struct x86_loop_witness){
		    (uint8_t)(loc | (v->bits == 32 ? X86_LOOP_WITNESS_32 : 0)), (int8_t)v->off};
		return true;
	}
	return false;
}

/* The body evaluated from its start; with a counter (l->counter), its witness before each
 * instruction into l. */
static bool evaluate(const struct x86_insn *const *body, unsigned n, struct eval *e,
		     struct setter *set, struct x86_loop *l)
{
	*e = (struct eval){0};
	for (unsigned r = 0; r < LOCATIONS; r++)
		e->v[r] = (struct sym){(uint8_t)r, 64, 0};
	*set = (struct setter){0};
	for (unsigned i = 0; i < n; i++) {
		if (l && !witness_of(e, l->counter, l->bits, &l->witness[i]))
			return false;
		if (body[i]->mode != X86_MODE_64 || !step(e, body[i], set))
			return false;
	}
	return !l || witness_of(e, l->counter, l->bits, &l->witness[n]);
}

bool x86_loop_analyze(const struct x86_insn *const *body, unsigned n, const struct x86_insn *jcc,
		      struct x86_loop *l)
{
	if (n == 0 || n > X86_LOOP_MAX_INSNS || jcc->branch != X86_BR_JCC)
		return false;
	struct eval e;
	struct setter set;
	if (!evaluate(body, n, &e, &set, NULL))
		return false;
	/* the flags the jump reads are those of the last instruction (set from its state) */
	unsigned cc = jcc->opcode & 0xf, size = body[n - 1]->operand_size;
	if (!set.ok || (size != 4 && size != 8) || cc == CC_P || cc == CC_NP ||
	    (set.flags == X86_LOOP_INCDEC &&
	     (cc == CC_B || cc == CC_AE || cc == CC_BE || cc == CC_A))) /* INC/DEC keep CF */
		return false;
	for (unsigned side = 0; side < 2; side++) {
		struct sym c = side ? set.b : set.a;
		if (c.var == UNKNOWN || !counter(&e, c.var))
			continue;
		struct x86_loop_operand a, b;
		if (!operand(&e, set.a, c.var, &a))
			continue;
		if (set.b_const)
			b = (struct x86_loop_operand){X86_LOOP_CONSTANT, 0, 64, set.k};
		else if (!operand(&e, set.b, c.var, &b))
			continue;
		*l = (struct x86_loop){.counter = c.var,
				       .bits = e.v[c.var].bits,
				       .step = e.v[c.var].off,
				       .flags = set.flags,
				       .size = (uint8_t)size,
				       .cc = (uint8_t)cc,
				       .a = a,
				       .b = b,
				       .slot_base = e.slot_base,
				       .slot_size = e.slot_size,
				       .slot_disp = e.slot_disp};
		/* the same evaluation again, to say where the counter is at each instruction */
		struct eval again;
		struct setter unused;
		return evaluate(body, n, &again, &unused, l);
	}
	return false;
}

uint64_t x86_loop_witness_value(const struct x86_loop *l, unsigned i, uint64_t x)
{
	const struct x86_loop_witness *w = &l->witness[i];
	uint64_t v = x + (uint64_t)(int64_t)w->off;
	return w->at & X86_LOOP_WITNESS_32 ? (uint32_t)v : v;
}

static uint64_t truncated(uint64_t v, unsigned bits)
{
	return bits == 32 ? (uint32_t)v : v;
}

uint64_t x86_loop_next(const struct x86_loop *l, uint64_t x)
{
	return truncated(x + (uint64_t)l->step, l->bits);
}

uint64_t x86_loop_after(const struct x86_loop *l, uint64_t x, uint64_t runs)
{
	return truncated(x + runs * (uint64_t)l->step, l->bits); /* truncation commutes with + */
}

static uint64_t value(const struct x86_loop_operand *o, uint64_t x, const struct x86_gprs *g)
{
	switch (o->kind) {
	case X86_LOOP_COUNTER:
		return truncated(x + (uint64_t)o->off, o->bits);
	case X86_LOOP_INVARIANT:
		return truncated(g->r[o->reg] + (uint64_t)o->off, o->bits);
	default:
		return (uint64_t)o->off;
	}
}

bool x86_loop_taken(const struct x86_loop *l, uint64_t x, const struct x86_gprs *g)
{
	uint64_t mask = l->size == 8 ? ~0ull : 0xffffffffull;
	uint64_t sign = l->size == 8 ? 1ull << 63 : 1ull << 31;
	uint64_t a = value(&l->a, x, g) & mask, b = value(&l->b, x, g) & mask, r;
	bool cf, of;
	if (l->flags == X86_LOOP_SUB) { /* SUB, CMP: a - b (SDM Vol. 1 Appendix A, B) */
		r = (a - b) & mask;
		cf = a < b;
		of = ((a ^ b) & (a ^ r) & sign) != 0;
	} else { /* ADD, INC (+1), DEC (+ -1): a + b */
		r = (a + b) & mask;
		cf = r < a;
		of = (~(a ^ b) & (a ^ r) & sign) != 0;
	}
	bool zf = r == 0, sf = (r & sign) != 0, t;
	switch (l->cc >> 1) {
	case 0:
		t = of;
		break;
	case 1:
		t = cf;
		break;
	case 2:
		t = zf;
		break;
	case 3:
		t = cf || zf;
		break;
	case 4:
		t = sf;
		break;
	case 6:
		t = sf != of;
		break;
	case 7:
		t = zf || sf != of;
		break;
	default: /* parity: refused by x86_loop_analyze */
		t = false;
		break;
	}
	return (l->cc & 1) ? !t : t; /* odd tttn: the condition negated (Table B-1) */
}

/* What closed_trips found. */
enum closed { CLOSED_NO, CLOSED_FINITE, CLOSED_ENDLESS };

/* An ordered or equality comparison of a side that moves by one a run with a fixed side, as an
 * unsigned comparison of a with b (tttn 2-7): the signed ones (12-15) with both sign bits
 * flipped (x ^ sign keeps the order of x + 2^(n-1), and still moves by one a run), a comparison
 * of the fixed side with the moving one turned round. */
static int unsigned_cc(int cc, bool swapped)
{
	static const int flip[16] = {[2] = 7, [3] = 6, [4] = 4, [5] = 5, [6] = 3, [7] = 2};
	static const int from_signed[16] = {[12] = 2, [13] = 3, [14] = 6, [15] = 7};
	if (cc >= 12)
		cc = from_signed[cc];
	return swapped ? flip[cc] : cc;
}

/*
 * The count in closed form, where the compared side moves by +-1 a run modulo 2^n (n = 8 x the
 * comparison's size; the counter's own width at least n) and the other side is fixed: its
 * values run through the residues in order, so the condition holds for one unbroken stretch of
 * runs from the first, whose length follows from where it starts. CLOSED_NO: count by steps.
 */
static enum closed closed_trips(const struct x86_loop *l, uint64_t x0, const struct x86_gprs *g,
				uint64_t *trips)
{
	const struct x86_loop_operand *mv = &l->a, *fixed = &l->b;
	bool swapped = l->a.kind != X86_LOOP_COUNTER;
	if (swapped) {
		mv = &l->b;
		fixed = &l->a;
	}
	unsigned n = 8u * l->size;
	if (mv->kind != X86_LOOP_COUNTER || fixed->kind == X86_LOOP_COUNTER ||
	    (l->step != 1 && l->step != -1) || l->bits < n || mv->bits < n)
		return CLOSED_NO;
	uint64_t mask = n == 64 ? ~0ull : (1ull << n) - 1, sign = 1ull << (n - 1);
	uint64_t a = value(mv, x0, g) & mask, b = value(fixed, x0, g) & mask;
	int cc = l->cc;
	if (l->flags != X86_LOOP_SUB) { /* a + b: only its ZF, a == -b */
		if ((cc != CC_E && cc != CC_NE) || swapped)
			return CLOSED_NO;
		b = (0 - b) & mask;
	} else if (cc >= CC_L) {
		a ^= sign;
		b ^= sign;
	} else if (cc < CC_B || cc > CC_A) {
		return CLOSED_NO; /* overflow, sign */
	}
	cc = unsigned_cc(cc, swapped && l->flags == X86_LOOP_SUB);
	bool up = l->step == 1;
	uint64_t t;
	switch (cc) {
	case CC_E: /* a == b: once, then a moved off it */
		t = a == b;
		break;
	case CC_NE: /* until a reaches b */
		t = ((b - a) * (uint64_t)l->step) & mask;
		break;
	case CC_B: /* a < b: up to b, or down to 0 and round to 2^n - 1 >= b */
		t = a >= b ? 0 : up ? b - a : a + 1;
		break;
	case CC_AE: /* a >= b: up round to 0, or down to b; always where b = 0 */
		if (a < b)
			t = 0;
		else if (b == 0)
			return CLOSED_ENDLESS;
		else
			t = up ? ((0 - a) & mask) : a - b + 1;
		break;
	case CC_BE: /* a <= b: up past b, or down round to 2^n - 1; always where b = 2^n - 1 */
		if (a > b)
			t = 0;
		else if (b == mask)
			return CLOSED_ENDLESS;
		else
			t = up ? b - a + 1 : a + 1;
		break;
	default: /* CC_A, a > b: up round to 0, or down to b */
		t = a <= b ? 0 : up ? ((0 - a) & mask) : a - b;
		break;
	}
	*trips = t;
	return CLOSED_FINITE;
}

bool x86_loop_trips(const struct x86_loop *l, uint64_t x0, const struct x86_gprs *g, uint64_t max,
		    uint64_t *trips)
{
	uint64_t t;
	switch (closed_trips(l, x0, g, &t)) {
	case CLOSED_FINITE:
		*trips = t;
		return t <= max;
	case CLOSED_ENDLESS:
		return false;
	default:
		return x86_loop_trips_by_runs(l, x0, g, max, trips);
	}
}

bool x86_loop_trips_by_runs(const struct x86_loop *l, uint64_t x0, const struct x86_gprs *g,
			    uint64_t max, uint64_t *trips)
{
	uint64_t x = x0;
	for (uint64_t k = 0; k <= max; k++) {
		if (!x86_loop_taken(l, x, g)) {
			*trips = k;
			return true;
		}
		x = x86_loop_next(l, x);
	}
	return false;
}
