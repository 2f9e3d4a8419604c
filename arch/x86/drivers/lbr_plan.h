/* SPDX-License-Identifier: MIT */
/*
 * LBR configuration and record decoding, pure (no MSR access): one filter spec for legacy and
 * Architectural LBR, the MSR_LBR_SELECT value (suppress sense) and the IA32_LBR_CTL value
 * (positive sense) it means on a given CPU, Arch LBR depth choice, FROM/TO/INFO decoding per
 * legacy format and for Arch LBR, and the configuration quirks of reference section 8.
 *
 * Sources: docs/references.md topics 1.4, 1.5, 2, 3.1-3.5,
 * 4.1-4.3, 8; SDM Vol. 3B (2016-era numbering, as the reference's SDM editions): 17.4.8.1
 * (LBR formats), 17.7.2 Table 17-11 (Nehalem MSR_LBR_SELECT), 17.8 Table 17-12 (Sandy Bridge),
 * 17.9 Table 17-13 (Haswell call-stack mode), 17.12 (Skylake LBR_INFO), and the chapter
 * "Architectural Last Branch Records" (its number is not in our sources).
 *
 * Register bits come from the hardware contract: hw/lbr_regs.h (LBR_SELECT_*, LBR_CTL_*,
 * record fields, enum lbr_format, the branch classes) and hw/pmu_regs.h (DEBUGCTL_*).
 */
#ifndef ARCH_X86_DRIVERS_LBR_PLAN_H
#define ARCH_X86_DRIVERS_LBR_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/caps/caps.h"
#include "arch/x86/hw/lbr_regs.h"
#include "kernel/arch_trace.h"
#include "lib/status.h"

/* ---- filter spec --------------------------------------------------------------------------- */

/* Branch classes: LBR_F_* of hw/lbr_regs.h. */

struct lbr_filter {
	bool user, kernel;     /* branches ending in ring > 0 / ring 0 (references.md 3.2) */
	unsigned branch_types; /* LBR_F_* */
	bool call_stack;       /* LIFO call-stack mode; branch_types must be within
				  LBR_F_CALL_STACK (0 allowed): the hardware records exactly those */
};

/*
 * The filter of option lbr.filter (TRACE_LBR_* bits, kernel/arch_trace.h; kernel/options.c parses
 * the words): no ring bit means both rings; no class bit means every class, except with call
 * stack (which implies its own classes).
 */
void lbr_filter_from_options(uint64_t mask, struct lbr_filter *out);

/* ---- register values ----------------------------------------------------------------------- */

/*
 * MSR_LBR_SELECT (1C8H) for the filter on a legacy-LBR CPU (references.md 3.2: bits 0-8 SUPPRESS a
 * class, bit 9 EN_CALLSTACK enables). Refuses Arch LBR / no LBR, CPUs without LBR_SELECT (Core 2,
 * Bonnell/Saltwell, references.md 3.3), call-stack mode before Haswell, and an empty selection. On
 * Nehalem/Westmere the erratum of references.md 8 widens the hardware filter; *sw_filter (may be
 * NULL) is then true: the caller must drop the surplus classes in software.
 */
enum status lbr_select_value(const struct trace_caps *c, const struct lbr_filter *f, uint64_t *out,
			     bool *sw_filter, char *why, size_t n);

/* IA32_LBR_CTL (14CEH, references.md 4.2, positive sense) with LBREn set; refuses what CPUID.1CH
 * does not enumerate (references.md 1.4: CPL filter EBX[0], branch filter EBX[1], call stack
 * EBX[2]). */
enum status arch_lbr_ctl_value(const struct trace_caps *c, const struct lbr_filter *f,
			       uint64_t *out, char *why, size_t n);

/* IA32_LBR_DEPTH choice from CPUID.1CH:EAX[7:0] (bit n => 8 * (n + 1), references.md 1.4): the
 * largest supported depth <= wanted (wanted 0: the largest); else the smallest; 0 for an empty
 * mask. */
unsigned arch_lbr_pick_depth(uint32_t depth_mask, unsigned wanted);

/*
 * Configuration quirks of references.md 8 checkable from the capability record and the
 * IA32_DEBUGCTL value about to be written: call stack + FREEZE_LBRS_ON_PMI, Bonnell below stepping
 * 10, and FREEZE_LBRS_ON_PMI clearing TR on Bonnell/Saltwell Atoms. 0, or -1 with a message.
 */
enum status lbr_check_quirks(const struct trace_caps *c, const struct lbr_filter *f,
			     uint64_t debugctl, char *why, size_t n);

/* ---- decoding ------------------------------------------------------------------------------ */

struct lbr_entry {
	uint64_t from, to; /* addresses, sign-extended where the format packs flags above them */
	bool mispred, mispred_valid;
	bool in_tx, abort, tsx_valid;
	unsigned cycles; /* core cycles since the previous LBR update */
	bool cycles_valid;
	int br_type; /* Arch LBR BR_TYPE (enum arch_lbr_br_type values), -1 unknown */
};

/* One legacy record (references.md 3.4, 1.5 table). Formats 0-7; an unknown format yields the raw
 * FROM/TO with nothing valid. info_msr is read only for formats 5 and 7. */
void lbr_decode_legacy(unsigned format, uint64_t from_msr, uint64_t to_msr, uint64_t info_msr,
		       struct lbr_entry *e);
/* One Architectural LBR record (references.md 4.3). The flags are decoded as the layout has them; a
 * CPU that does not enumerate CPUID.1CH:ECX[0] (mispredict) / ECX[2] (branch type) leaves those
 * fields meaningless, and Linux also requires ECX[1] (timed LBR) for the cycle count. */
void arch_lbr_decode(uint64_t from, uint64_t to, uint64_t info, struct lbr_entry *e);
/* "jcc", "near_ind_jmp", ... for BR_TYPE 0-5, "other" for 6-15, "unknown" otherwise. */
const char *arch_lbr_br_type_name(int br_type);

/* Slot of the i-th newest legacy record: (tos - i) mod depth (references.md 3.4; depth 0 yields 0).
 */
unsigned lbr_index_newest(unsigned tos, unsigned i, unsigned depth);

#endif
