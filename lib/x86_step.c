/* SPDX-License-Identifier: MIT */
#include "lib/x86_step.h"

/* RFLAGS bits the conditions read (SDM Vol. 1 3.4.3). */
#define FLAG_CF (1u << 0)
#define FLAG_PF (1u << 2)
#define FLAG_ZF (1u << 6)
#define FLAG_SF (1u << 7)
#define FLAG_OF (1u << 11)

bool x86_condition_holds(unsigned cc, uint64_t rflags)
{
	bool cf = rflags & FLAG_CF, pf = rflags & FLAG_PF, zf = rflags & FLAG_ZF;
	bool sf = rflags & FLAG_SF, of = rflags & FLAG_OF;
	bool holds;
	/* SDM Vol. 2 Table B-10: the even code is the condition, the odd one its negation. */
	switch ((cc & 0xf) >> 1) {
	case 0: /* O */
		holds = of;
		break;
	case 1: /* B, C, NAE */
		holds = cf;
		break;
	case 2: /* E, Z */
		holds = zf;
		break;
	case 3: /* BE, NA */
		holds = cf || zf;
		break;
	case 4: /* S */
		holds = sf;
		break;
	case 5: /* P, PE */
		holds = pf;
		break;
	case 6: /* L, NGE */
		holds = sf != of;
		break;
	default: /* 7: LE, NG */
		holds = zf || sf != of;
		break;
	}
	return (cc & 1) ? !holds : holds;
}

bool x86_is_rep_string(const struct x86_step_insn *in)
{
	if (!(in->prefixes & (X86_PFX_REP | X86_PFX_REPNE)) || in->opcode_map != X86_MAP_ONE_BYTE ||
	    (in->prefixes & (X86_PFX_VEX | X86_PFX_EVEX | X86_PFX_XOP)))
		return false;
	uint8_t op = in->opcode;
	/* INS/OUTS 6C-6F, MOVS/CMPS A4-A7, STOS/LODS/SCAS AA-AF (SDM Vol. 2 Table A-2). */
	return (op >= 0x6c && op <= 0x6f) || (op >= 0xa4 && op <= 0xa7) ||
	       (op >= 0xaa && op <= 0xaf);
}

struct path_search {
	x86_path_decode_fn decode;
	void *ctx;
	uint64_t to;
	const struct x86_step_regs *after;
	unsigned length; /* of the paths sought */
	unsigned found;	 /* paths of that length that reach `to` */
	struct x86_path_step cur[X86_PATH_MAX], first_found[X86_PATH_MAX];
};

static void extend(struct path_search *s, unsigned depth, uint64_t ip,
		   const struct x86_step_insn *in);

/* Instruction `depth` of the path goes on at `next` (outcome o): the rest from there. */
static void go_on(struct path_search *s, unsigned depth, uint64_t next, enum x86_step_outcome o)
{
	struct x86_step_insn in;
	s->cur[depth].next = next;
	s->cur[depth].outcome = (uint8_t)o;
	if (s->decode(s->ctx, next, &in) == 0)
		extend(s, depth + 1, next, &in);
}

static void extend(struct path_search *s, unsigned depth, uint64_t ip,
		   const struct x86_step_insn *in)
{
	struct x86_path_step *p = &s->cur[depth];
	p->ip = ip;
	p->insn = *in;
	if (depth + 1 == s->length) {
		/* The last instruction: the trap after it is the one that came, its registers
		 * are the trap's. */
		enum x86_step_outcome o = x86_step_classify(in, ip, s->to, s->after);
		if (o != X86_STEP_SEQUENTIAL && o != X86_STEP_TAKEN && o != X86_STEP_NOT_TAKEN)
			return;
		p->next = s->to;
		p->outcome = (uint8_t)o;
		if (s->found++ == 0)
			for (unsigned i = 0; i < s->length; i++)
				s->first_found[i] = s->cur[i];
		return;
	}
	uint64_t sequential = ip + in->length;
	switch (in->branch) {
	case X86_BR_NONE:
	case X86_BR_XBEGIN:
		go_on(s, depth, sequential, X86_STEP_SEQUENTIAL);
		return;
	case X86_BR_JMP_REL:
	case X86_BR_CALL_REL:
		go_on(s, depth, x86_step_target(in, ip), X86_STEP_TAKEN);
		return;
	case X86_BR_JCC:
	case X86_BR_JCXZ_LOOP: /* its registers are gone: both ways */
		go_on(s, depth, sequential, X86_STEP_NOT_TAKEN);
		go_on(s, depth, x86_step_target(in, ip), X86_STEP_TAKEN);
		return;
	default:
		return; /* the target is data: only the last instruction of a path */
	}
}

int x86_path_rebuild(x86_path_decode_fn decode, void *ctx, uint64_t from,
		     const struct x86_step_insn *first, uint64_t to,
		     const struct x86_step_regs *after, struct x86_path_step path[X86_PATH_MAX])
{
	struct path_search s = {.decode = decode, .ctx = ctx, .to = to, .after = after};
	for (s.length = 2; s.length <= X86_PATH_MAX; s.length++) {
		s.found = 0;
		extend(&s, 0, from, first);
		if (s.found > 1)
			return -1;
		if (s.found == 1) {
			for (unsigned i = 0; i < s.length; i++)
				path[i] = s.first_found[i];
			return (int)s.length;
		}
	}
	return 0;
}
