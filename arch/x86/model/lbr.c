/* SPDX-License-Identifier: MIT */
#include "arch/x86/model/lbr.h"
#include <stddef.h>

static const uint64_t class_suppress[] = {
    [LBR_CLASS_JCC] = LBR_SELECT_JCC,
    [LBR_CLASS_NEAR_REL_CALL] = LBR_SELECT_NEAR_REL_CALL,
    [LBR_CLASS_NEAR_IND_CALL] = LBR_SELECT_NEAR_IND_CALL,
    [LBR_CLASS_NEAR_RET] = LBR_SELECT_NEAR_RET,
    [LBR_CLASS_NEAR_IND_JMP] = LBR_SELECT_NEAR_IND_JMP,
    [LBR_CLASS_NEAR_REL_JMP] = LBR_SELECT_NEAR_REL_JMP,
    [LBR_CLASS_FAR] = LBR_SELECT_FAR_BRANCH,
};

bool lbr_select_allows(uint64_t select, const struct lbr_branch *b)
{
	if ((b->cpl_to == 0 && (select & LBR_SELECT_CPL_EQ_0)) ||
	    (b->cpl_to != 0 && (select & LBR_SELECT_CPL_NEQ_0)))
		return false;
	return !(select & class_suppress[b->cls]);
}

bool lbr_format_supported(enum lbr_format f)
{
	return f >= LBR_FMT_EIP_FLAGS && f <= LBR_FMT_INFO2;
}

void lbr_encode(enum lbr_format f, const struct lbr_branch *b, uint64_t *from, uint64_t *to,
		uint64_t *info)
{
	uint64_t mis = b->mispredicted;
	*info = 0;
	switch (f) {
	case LBR_FMT_EIP_FLAGS:
		*from = (b->from & LBR_FMT3_ADDR) | (mis ? LBR_FROM_MISPRED : 0);
		*to = b->to;
		break;
	case LBR_FMT_EIP_FLAGS2: /* not in a transaction, no abort: bits 62:61 clear */
		*from = (b->from & LBR_FMT4_ADDR) | (mis ? LBR_FROM_MISPRED : 0);
		*to = b->to;
		break;
	case LBR_FMT_INFO:
	case LBR_FMT_INFO2:
		*from = b->from;
		*to = b->to;
		*info = (mis ? LBR_INFO_MISPRED : 0) | FIELD_PREP(LBR_INFO_CYCLES, b->cycles);
		break;
	case LBR_FMT_TIME:
		*from = (b->from & LBR_FMT3_ADDR) | (mis ? LBR_FROM_MISPRED : 0);
		*to = (b->to & LBR_FMT6_TO_ADDR) | FIELD_PREP(LBR_FMT6_TO_CYCLES, b->cycles);
		break;
	default: /* formats 0-2: plain addresses */
		*from = b->from;
		*to = b->to;
		break;
	}
}

const char *lbr_select_check(uint64_t select, bool call_stack_supported)
{
	if (select & ~(LBR_SELECT_VALID_NO_CALLSTACK | LBR_SELECT_EN_CALLSTACK))
		return "LBR_SELECT: reserved bits";
	if (!(select & LBR_SELECT_EN_CALLSTACK))
		return NULL;
	if (!call_stack_supported)
		return "LBR_SELECT: call-stack mode (bit 9) needs Haswell or later";
	if ((select & LBR_SELECT_CALLSTACK_MUST_SET) != LBR_SELECT_CALLSTACK_MUST_SET ||
	    (select & LBR_SELECT_CALLSTACK_MUST_CLEAR) ||
	    (select & (LBR_SELECT_CPL_EQ_0 | LBR_SELECT_CPL_NEQ_0)) ==
		(LBR_SELECT_CPL_EQ_0 | LBR_SELECT_CPL_NEQ_0))
		return "LBR_SELECT: call-stack mode needs JCC, NEAR_IND_JMP, NEAR_REL_JMP, FAR "
		       "set, "
		       "calls and returns captured, at most one CPL bit (SDM 17.9)";
	return NULL;
}

/*
 * Nehalem/Westmere LBR_SELECT erratum as Linux describes it (nhm_lbr_sel_map; references.md 8):
 * a near relative call is recorded only if near relative and indirect jumps and far branches
 * are captured too, a near indirect call only if near indirect jumps are. A driver that wants
 * calls alone must widen the filter and drop the jumps in software.
 */
#define NHM_REL_CALL_NEEDS                                                                         \
	(LBR_SELECT_NEAR_REL_JMP | LBR_SELECT_NEAR_IND_JMP | LBR_SELECT_FAR_BRANCH)
#define NHM_IND_CALL_NEEDS LBR_SELECT_NEAR_IND_JMP

static bool nhm_erratum_drops(uint64_t select, enum lbr_class cls)
{
	return (cls == LBR_CLASS_NEAR_REL_CALL && (select & NHM_REL_CALL_NEEDS)) ||
	       (cls == LBR_CLASS_NEAR_IND_CALL && (select & NHM_IND_CALL_NEEDS));
}

bool lbr_record(struct lbr_stack *s, const struct lbr_branch *b)
{
	if (!lbr_select_allows(s->select, b) ||
	    (s->nhm_select_erratum && nhm_erratum_drops(s->select, b->cls)))
		return false;
	if ((s->select & LBR_SELECT_EN_CALLSTACK) && b->cls == LBR_CLASS_NEAR_RET) {
		/* Pop: the newest record (the matching call) is flushed (SDM 17.9). An empty
		 * slot means the stack is already empty: nothing to pop. */
		if (s->from[s->tos] != 0) {
			s->from[s->tos] = s->to[s->tos] = s->info[s->tos] = 0;
			s->tos = (s->tos - 1) & (s->depth - 1);
		}
		return true;
	}
	s->tos = (s->tos + 1) & (s->depth - 1);
	lbr_encode(s->format, b, &s->from[s->tos], &s->to[s->tos], &s->info[s->tos]);
	return true;
}

void lbr_record_again(struct lbr_stack *s, const struct lbr_branch *b, uint64_t k)
{
	uint64_t from, to, info, push = k;
	lbr_encode(s->format, b, &from, &to, &info);
	if (push > s->depth) {
		/* the first k - depth pushes are all overwritten by the last depth: only their
		 * moves of TOS remain (the depth a power of two) */
		s->tos = (unsigned)((s->tos + (push - s->depth)) & (s->depth - 1));
		push = s->depth;
	}
	while (push--) {
		s->tos = (s->tos + 1) & (s->depth - 1);
		s->from[s->tos] = from;
		s->to[s->tos] = to;
		s->info[s->tos] = info;
	}
}
