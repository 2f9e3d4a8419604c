/* SPDX-License-Identifier: MIT */
#include "arch/x86/model/arch_lbr.h"
#include "lib/string.h"

#define DEPTH_STEP 8

void arch_lbr_init(struct arch_lbr *a, const struct arch_lbr_caps *caps)
{
	memset(a, 0, sizeof(*a));
	a->caps = *caps;
	/* Reset value: the largest supported depth (an assumption: the SDM sections cited here do
	 * not settle it; Linux always writes the depth it wants before enabling). */
	for (unsigned n = 0; n < 8; n++)
		if (caps->depth_mask & BIT(n))
			a->depth = DEPTH_STEP * (n + 1);
}

enum status arch_lbr_write_depth(struct arch_lbr *a, uint64_t depth, const char **reason)
{
	if (depth == 0 || depth % DEPTH_STEP || depth / DEPTH_STEP > 8 ||
	    !(a->caps.depth_mask & BIT(depth / DEPTH_STEP - 1))) {
		*reason = "IA32_LBR_DEPTH: not a depth enumerated in CPUID.1CH:EAX[7:0]";
		return STATUS_REFUSED;
	}
	a->depth = depth;
	/* Any write resets all LBR entries (references.md 4.1). */
	memset(a->from, 0, sizeof(a->from));
	memset(a->to, 0, sizeof(a->to));
	memset(a->info, 0, sizeof(a->info));
	return STATUS_OK;
}

enum status arch_lbr_write_ctl(struct arch_lbr *a, uint64_t ctl, const char **reason)
{
	uint64_t valid = LBR_CTL_LBREN | LBR_CTL_CALL_STACK;
	if (a->caps.cpl_filter)
		valid |= LBR_CTL_OS | LBR_CTL_USR;
	if (a->caps.branch_filter)
		valid |= LBR_CTL_BRANCHES;
	if ((ctl & LBR_CTL_CALL_STACK) && !a->caps.call_stack) {
		*reason = "IA32_LBR_CTL: call-stack mode without CPUID.1CH:EBX[2]";
		return STATUS_REFUSED;
	}
	if (ctl & ~valid) {
		*reason = "IA32_LBR_CTL: reserved or unsupported bits";
		return STATUS_REFUSED;
	}
	a->ctl = ctl;
	return STATUS_OK;
}

static const uint64_t class_bit[] = {
    [LBR_CLASS_JCC] = LBR_CTL_JCC,
    [LBR_CLASS_NEAR_REL_CALL] = LBR_CTL_NEAR_REL_CALL,
    [LBR_CLASS_NEAR_IND_CALL] = LBR_CTL_NEAR_IND_CALL,
    [LBR_CLASS_NEAR_RET] = LBR_CTL_NEAR_RET,
    [LBR_CLASS_NEAR_IND_JMP] = LBR_CTL_NEAR_IND_JMP,
    [LBR_CLASS_NEAR_REL_JMP] = LBR_CTL_NEAR_REL_JMP,
    [LBR_CLASS_FAR] = LBR_CTL_OTHER_BRANCH,
};

/* Positive sense: a branch is recorded when its ring and (with branch filtering) its type
 * are selected. The ring is the one the branch ends in, as for LBR_SELECT (unconfirmed for
 * Arch LBR in our sources). */
bool arch_lbr_allows(uint64_t ctl, bool cpl_filter, bool branch_filter, const struct lbr_branch *b)
{
	if (!(ctl & LBR_CTL_LBREN))
		return false;
	/* Without CPL filtering (CPUID.1CH:EBX[0] = 0) OS/USR are reserved: every ring. */
	if (cpl_filter &&
	    !((b->cpl_to == 0 && (ctl & LBR_CTL_OS)) || (b->cpl_to != 0 && (ctl & LBR_CTL_USR))))
		return false;
	return !branch_filter || (ctl & class_bit[b->cls]);
}

enum arch_lbr_br_type arch_lbr_br_type(enum lbr_class cls)
{
	switch (cls) {
	case LBR_CLASS_JCC:
		return ARCH_BR_JCC;
	case LBR_CLASS_NEAR_IND_JMP:
		return ARCH_BR_NEAR_IND_JMP;
	case LBR_CLASS_NEAR_REL_JMP:
		return ARCH_BR_NEAR_REL_JMP;
	case LBR_CLASS_NEAR_IND_CALL:
		return ARCH_BR_NEAR_IND_CALL;
	case LBR_CLASS_NEAR_REL_CALL:
		return ARCH_BR_NEAR_REL_CALL;
	case LBR_CLASS_NEAR_RET:
		return ARCH_BR_NEAR_RET;
	default:
		return ARCH_BR_OTHER;
	}
}

bool arch_lbr_record(struct arch_lbr *a, const struct lbr_branch *b)
{
	if (!arch_lbr_allows(a->ctl, a->caps.cpl_filter, a->caps.branch_filter, b) || a->depth == 0)
		return false;
	if ((a->ctl & LBR_CTL_CALL_STACK) && b->cls == LBR_CLASS_NEAR_RET) {
		/* Call-stack mode: a near return pops the newest record, by analogy with the
		 * legacy mode (SDM 17.9; the Arch LBR wording is unconfirmed in our sources):
		 * entry 0 stays the newest, so the older entries move down and the last clears. */
		if (a->from[0] == 0)
			return true; /* empty: nothing to pop */
		for (uint64_t i = 0; i + 1 < a->depth; i++) {
			a->from[i] = a->from[i + 1];
			a->to[i] = a->to[i + 1];
			a->info[i] = a->info[i + 1];
		}
		a->from[a->depth - 1] = a->to[a->depth - 1] = a->info[a->depth - 1] = 0;
		return true;
	}
	for (uint64_t i = a->depth - 1; i > 0; i--) {
		a->from[i] = a->from[i - 1];
		a->to[i] = a->to[i - 1];
		a->info[i] = a->info[i - 1];
	}
	a->from[0] = b->from;
	a->to[0] = b->to;
	a->info[0] =
	    FIELD_PREP(ARCH_LBR_INFO_BR_TYPE, arch_lbr_br_type(b->cls)) |
	    (b->mispredicted ? ARCH_LBR_INFO_MISPRED : 0) |
	    (a->caps.timed ? ARCH_LBR_INFO_CYC_VALID | FIELD_PREP(ARCH_LBR_INFO_CYC_CNT, b->cycles)
			   : 0);
	return true;
}
