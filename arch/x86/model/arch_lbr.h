/* SPDX-License-Identifier: MIT */
/*
 * The software PMU's Architectural LBR (CPUID.07H.0:EDX[19]; enumeration in CPUID.1CH):
 * IA32_LBR_CTL's positive-sense filters, IA32_LBR_DEPTH (a write clears every entry),
 * FROM/TO/INFO with BR_TYPE, cycle count and its valid bit. Entry 0 is the newest (there is no
 * TOS register; the ordering follows Linux, the SDM's wording is unconfirmed in our sources).
 * Sources: references.md 1.4, 4.1-4.3 (SDM Vol. 3B chapter "Architectural Last Branch Records").
 */
#ifndef ARCH_X86_MODEL_ARCH_LBR_H
#define ARCH_X86_MODEL_ARCH_LBR_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/status.h"
#include "arch/x86/model/lbr.h"
#include "lib/bits.h"

struct arch_lbr_caps {
	uint32_t depth_mask; /* CPUID.1CH:EAX[7:0]: bit n => depth 8 * (n + 1) */
	bool cpl_filter, branch_filter, call_stack, timed;
};

struct arch_lbr {
	struct arch_lbr_caps caps;
	uint64_t ctl, depth;
	uint64_t from[ARCH_LBR_MAX_DEPTH], to[ARCH_LBR_MAX_DEPTH], info[ARCH_LBR_MAX_DEPTH];
};

void arch_lbr_init(struct arch_lbr *a, const struct arch_lbr_caps *caps);
/* IA32_LBR_DEPTH / IA32_LBR_CTL writes: 0, or -1 with a reason (model #GP). */
enum status arch_lbr_write_depth(struct arch_lbr *a, uint64_t depth, const char **reason);
enum status arch_lbr_write_ctl(struct arch_lbr *a, uint64_t ctl, const char **reason);
bool arch_lbr_allows(uint64_t ctl, bool cpl_filter, bool branch_filter, const struct lbr_branch *b);
/* Record one branch (when LBREn and the filters allow it): entry 0 becomes the newest; in
 * call-stack mode a near return pops the newest record instead. */
bool arch_lbr_record(struct arch_lbr *a, const struct lbr_branch *b);
enum arch_lbr_br_type arch_lbr_br_type(enum lbr_class cls);

#endif
