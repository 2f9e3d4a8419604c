/* SPDX-License-Identifier: MIT */
/*
 * LBR filter -> register values, record decoding, configuration quirks. Pure; see the header
 * for the sources; "references.md N.M" is a topic of docs/references.md.
 */
#include "arch/x86/drivers/lbr_plan.h"
#include "arch/x86/caps/lbr_models.h"
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/hw/pmu_regs.h"
#include "lib/bits.h"
#include "lib/status.h"
#include "lib/fmt.h"
#include "lib/string.h"

/* Per-model facts (no LBR_SELECT, the Nehalem LBR_SELECT erratum, the Bonnell stepping and
 * DEBUGCTL.TR quirks) come from the capability record: caps/lbr_models.c holds them. */

static bool has_no_lbr_select(const struct trace_caps *c)
{
	return !c->lbr.has_select;
}

/* Legacy call-stack mode (LBR_SELECT bit 9): references.md 3.2 "HSW+ cores, GLM+ Atoms";
 * references.md 3.3 the Haswell/Broadwell, Skylake+ and Goldmont/GLP/Tremont rows. The format is
 * the test: those rows report formats 4-7 (recorded Haswell/Broadwell 4, Skylake/ Ice Lake 5,
 * Goldmont Plus 7; Goldmont 6 per references.md 3.3, unconfirmed), the others at most 3 (recorded
 * Core 2 2, Bonnell 1, Silvermont 1, Nehalem 3 composed; KNL 1, raised to 3). */
static bool has_legacy_call_stack(const struct trace_caps *c)
{
	return c->lbr.format >= LBR_FMT_EIP_FLAGS2 && !has_no_lbr_select(c);
}

static const char *uarch_of(const struct trace_caps *c)
{
	return c->lbr.uarch ? c->lbr.uarch : "this CPU";
}

/* ---- filter spec --------------------------------------------------------------------------- */

/* The option's classes are the register classes, bit for bit. */
_Static_assert(TRACE_LBR_COND == LBR_F_COND && TRACE_LBR_NEAR_REL_CALL == LBR_F_NEAR_REL_CALL &&
		   TRACE_LBR_NEAR_IND_CALL == LBR_F_NEAR_IND_CALL &&
		   TRACE_LBR_NEAR_RET == LBR_F_NEAR_RET &&
		   TRACE_LBR_NEAR_IND_JMP == LBR_F_NEAR_IND_JMP &&
		   TRACE_LBR_NEAR_REL_JMP == LBR_F_NEAR_REL_JMP && TRACE_LBR_FAR == LBR_F_FAR &&
		   TRACE_LBR_CLASSES == LBR_F_ALL,
	       "lbr.filter classes are LBR_F_* classes");

void lbr_filter_from_options(uint64_t mask, struct lbr_filter *out)
{
	memset(out, 0, sizeof(*out));
	out->user = mask & TRACE_LBR_USER;
	out->kernel = mask & TRACE_LBR_KERNEL;
	out->call_stack = mask & TRACE_LBR_CALL_STACK;
	out->branch_types = (unsigned)(mask & TRACE_LBR_CLASSES);
	if (!out->user && !out->kernel)
		out->user = out->kernel = true;
	if (!out->branch_types && !out->call_stack)
		out->branch_types = LBR_F_ALL;
}

/* The checks legacy and Arch LBR share: something to record, and call-stack mode's classes. */
static enum status check_filter(const struct lbr_filter *f, char *why, size_t n)
{
	if (!f->user && !f->kernel) {
		fmt_snprintf(why, n, "LBR filter selects no ring: add user and/or kernel");
		return STATUS_INVALID;
	}
	if (f->branch_types & ~LBR_F_ALL) {
		fmt_snprintf(why, n, "LBR filter: unknown branch-class bits %#x",
			     (unsigned)(f->branch_types & ~LBR_F_ALL));
		return STATUS_INVALID;
	}
	if (f->call_stack && (f->branch_types & ~LBR_F_CALL_STACK)) {
		fmt_snprintf(why, n,
			     "LBR filter: call_stack records near calls and returns only (SDM 17.9 "
			     "Table 17-13, references.md 3.2); drop cond/jmp/far");
		return STATUS_INVALID;
	}
	if (!f->call_stack && !f->branch_types) {
		fmt_snprintf(why, n, "LBR filter selects no branch class");
		return STATUS_INVALID;
	}
	return STATUS_OK;
}

/* ---- MSR_LBR_SELECT -------------------------------------------------------------------------
 * LBR_F_* class -> LBR_SELECT suppress bit (references.md 3.2; SDM 17.7.2 Table 17-11, 17.8 Table
 * 17-12) and -> LBR_CTL capture bit (references.md 4.2). */
static const struct {
	unsigned f;
	uint64_t select, ctl;
} classes[] = {
    {LBR_F_COND, LBR_SELECT_JCC, LBR_CTL_JCC},
    {LBR_F_NEAR_REL_CALL, LBR_SELECT_NEAR_REL_CALL, LBR_CTL_NEAR_REL_CALL},
    {LBR_F_NEAR_IND_CALL, LBR_SELECT_NEAR_IND_CALL, LBR_CTL_NEAR_IND_CALL},
    {LBR_F_NEAR_RET, LBR_SELECT_NEAR_RET, LBR_CTL_NEAR_RET},
    {LBR_F_NEAR_IND_JMP, LBR_SELECT_NEAR_IND_JMP, LBR_CTL_NEAR_IND_JMP},
    {LBR_F_NEAR_REL_JMP, LBR_SELECT_NEAR_REL_JMP, LBR_CTL_NEAR_REL_JMP},
    {LBR_F_FAR, LBR_SELECT_FAR_BRANCH, LBR_CTL_OTHER_BRANCH},
};

/*
 * Nehalem/Westmere erratum (references.md 8, Linux nhm_lbr_sel_map): near calls are captured only
 * if near relative and indirect jumps are captured too (Linux adds FAR as well, which we follow:
 * whether the erratum itself needs FAR is unconfirmed); near indirect calls need near indirect
 * jumps. Linux's map also widens "any return" by REL_JMP | IND_JMP | FAR, which references.md 8
 * does not list as an erratum: not applied here.
 */
static unsigned nhm_widen(unsigned capture)
{
	if (capture & LBR_F_NEAR_REL_CALL)
		capture |= LBR_F_JMPS | LBR_F_FAR;
	if (capture & LBR_F_NEAR_IND_CALL)
		capture |= LBR_F_NEAR_IND_JMP;
	return capture;
}

enum status lbr_select_value(const struct trace_caps *c, const struct lbr_filter *f, uint64_t *out,
			     bool *sw_filter, char *why, size_t n)
{
	unsigned capture, hw;
	uint64_t v = 0;

	if (sw_filter)
		*sw_filter = false;
	if (c->lbr.kind == TC_LBR_ARCH) {
		fmt_snprintf(why, n,
			     "Architectural LBR has no MSR_LBR_SELECT: program IA32_LBR_CTL");
		return STATUS_UNSUPPORTED;
	}
	if (c->lbr.kind != TC_LBR_LEGACY) {
		fmt_snprintf(why, n, "no legacy LBR: %s", c->lbr.reason);
		return STATUS_UNSUPPORTED;
	}
	if (has_no_lbr_select(c)) {
		fmt_snprintf(why, n,
			     "%s has no MSR_LBR_SELECT (references.md 3.3: software filtering "
			     "only): leave it "
			     "unwritten, record every branch and filter the records",
			     uarch_of(c));
		return STATUS_UNSUPPORTED;
	}
	if (check_filter(f, why, n))
		return STATUS_INVALID;
	if (f->call_stack && !has_legacy_call_stack(c)) {
		fmt_snprintf(
		    why, n,
		    "call_stack (LBR_SELECT.EN_CALLSTACK, SDM 17.9) needs Haswell or later "
		    "(LBR format >= 4, references.md 3.2/3.3); %s reports format %u",
		    uarch_of(c), c->lbr.format);
		return STATUS_UNSUPPORTED;
	}
	/* SDM 17.9: call-stack mode needs JCC, NEAR_IND_JMP, NEAR_REL_JMP, FAR_BRANCH suppressed
	 * and the calls and returns captured (hw/lbr_regs.h LBR_SELECT_CALLSTACK_MUST_*). */
	capture = f->call_stack ? LBR_F_CALL_STACK : f->branch_types;
	hw = (c->lbr.quirks & LBR_QUIRK_NHM_SELECT) ? nhm_widen(capture) : capture;
	if (!f->kernel)
		v |= LBR_SELECT_CPL_EQ_0;
	if (!f->user)
		v |= LBR_SELECT_CPL_NEQ_0;
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		if (!(hw & classes[i].f))
			v |= classes[i].select; /* suppress sense: set = not recorded */
	if (f->call_stack)
		v |= LBR_SELECT_EN_CALLSTACK; /* positive sense */
	if (sw_filter)
		*sw_filter = hw != capture;
	*out = v;
	return STATUS_OK;
}

/* ---- IA32_LBR_CTL -------------------------------------------------------------------------- */

enum status arch_lbr_ctl_value(const struct trace_caps *c, const struct lbr_filter *f,
			       uint64_t *out, char *why, size_t n)
{
	const struct tc_arch_lbr *a = &c->arch_lbr;
	unsigned capture;
	uint64_t v = LBR_CTL_LBREN;

	if (c->lbr.kind != TC_LBR_ARCH) {
		fmt_snprintf(why, n, "no Architectural LBR (CPUID.07H.0:EDX[19]): %s",
			     c->lbr.kind == TC_LBR_LEGACY ? "legacy LBR, program MSR_LBR_SELECT"
							  : c->lbr.reason);
		return STATUS_UNSUPPORTED;
	}
	if (check_filter(f, why, n))
		return STATUS_INVALID;
	if (!(f->user && f->kernel) && !a->cpl_filter) {
		fmt_snprintf(why, n,
			     "user-only or kernel-only LBR needs CPL filtering, which "
			     "CPUID.1CH:EBX[0] does not enumerate (references.md 1.4)");
		return STATUS_UNSUPPORTED;
	}
	/* Linux offers call-stack mode only with all three of EBX[2:0] (references.md 1.4). */
	if (f->call_stack && !(a->call_stack && a->cpl_filter && a->branch_filter)) {
		fmt_snprintf(
		    why, n,
		    "call_stack needs CPUID.1CH:EBX[2] call-stack mode with EBX[0] CPL and "
		    "EBX[1] branch filtering (references.md 1.4); enumerated: %u/%u/%u",
		    a->call_stack, a->cpl_filter, a->branch_filter);
		return STATUS_UNSUPPORTED;
	}
	capture = f->call_stack ? LBR_F_CALL_STACK : f->branch_types;
	if (capture != LBR_F_ALL && !a->branch_filter) {
		fmt_snprintf(why, n,
			     "branch-class filtering not enumerated (CPUID.1CH:EBX[1]=0, "
			     "references.md 1.4): only 'any' can be recorded");
		return STATUS_UNSUPPORTED;
	}
	/* Bits the CPU does not enumerate stay clear (a write setting them may #GP). What the
	 * hardware records with OS = USR = 0 when EBX[0] = 0 is unconfirmed in our sources;
	 * references.md 1.4 only says Linux then refuses the one-ring requests. */
	if (a->cpl_filter) {
		if (f->kernel)
			v |= LBR_CTL_OS;
		if (f->user)
			v |= LBR_CTL_USR;
	}
	if (f->call_stack)
		v |= LBR_CTL_CALL_STACK;
	if (a->branch_filter)
		for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
			if (capture & classes[i].f)
				v |= classes[i].ctl;
	*out = v;
	return STATUS_OK;
}

unsigned arch_lbr_pick_depth(uint32_t depth_mask, unsigned wanted)
{
	unsigned smallest = 0, largest = 0, best = 0;
	for (unsigned bit = 0; bit < 32; bit++) {
		unsigned d = 8 * (bit + 1);
		if (!(depth_mask & (UINT32_C(1) << bit)))
			continue;
		if (!smallest)
			smallest = d;
		largest = d;
		if (d <= wanted)
			best = d;
	}
	if (wanted == 0)
		return largest;
	return best ? best : smallest;
}

/* ---- quirks (references.md 8)
 * ------------------------------------------------------------------------ */

enum status lbr_check_quirks(const struct trace_caps *c, const struct lbr_filter *f,
			     uint64_t debugctl, char *why, size_t n)
{
	/* references.md 3.2, 8 (Linux intel/lbr.c __intel_pmu_lbr_enable): in call-stack mode the
	 * near calls and returns of the PMI path move TOS while frozen: Linux never combines the
	 * two, for legacy and Arch LBR alike (references.md 4.2 enable sequence). */
	if (f->call_stack && (debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI)) {
		fmt_snprintf(
		    why, n,
		    "call_stack with DEBUGCTL.FREEZE_LBRS_ON_PMI corrupts the LBR TOS "
		    "(references.md 3.2, 8; Linux clears the freeze bit in call-stack mode)");
		return STATUS_UNSUPPORTED;
	}
	/* references.md 3.3, 8: Bonnell below stepping 10, LBR with freeze-on-PMI is not
	 * operational and Linux disables LBR altogether; so do we. */
	if ((c->lbr.quirks & LBR_QUIRK_STEPPING_10) && c->stepping < LBR_MIN_STEPPING_10) {
		fmt_snprintf(why, n,
			     "Atom (Bonnell) stepping %u < %u: LBR with freeze-on-PMI not "
			     "operational, Linux disables LBR (references.md 3.3, 8)",
			     c->stepping, LBR_MIN_STEPPING_10);
		return STATUS_UNSUPPORTED;
	}
	/* references.md 2, 8 (SDM 16.5 of 253668-032US): the Atom family clears DEBUGCTL.TR when
	 * FREEZE_LBRS_ON_PMI is set, so branch trace messages / BTS would silently stop. Applied
	 * to the Bonnell/Saltwell rows that edition covers; later Atoms are unconfirmed. */
	if ((c->lbr.quirks & LBR_QUIRK_FREEZE_CLEARS_TR) &&
	    (debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI) && (debugctl & DEBUGCTL_TR)) {
		fmt_snprintf(
		    why, n,
		    "%s clears DEBUGCTL.TR when FREEZE_LBRS_ON_PMI is set (references.md 2, 8): "
		    "BTS and LBR freeze cannot be combined",
		    uarch_of(c));
		return STATUS_UNSUPPORTED;
	}
	return STATUS_OK;
}

/* ---- decoding ------------------------------------------------------------------------------ */

/* Bits 63..top become copies of bit `top`. */
static uint64_t sign_extend(uint64_t v, unsigned top)
{
	unsigned shift = 63 - top;
	return (uint64_t)((int64_t)(v << shift) >> shift);
}

void lbr_decode_legacy(unsigned format, uint64_t from_msr, uint64_t to_msr, uint64_t info_msr,
		       struct lbr_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->br_type = -1; /* legacy records carry no branch type */
	e->from = from_msr;
	e->to = to_msr;
	switch (format) {
	case LBR_FMT_32:
		/* references.md 1.5: one MSR per entry, FROM in bits 31:0, TO in 63:32 (Linux reads
		 * only the FROM MSRs). 32-bit offsets, zero-extended; the TO MSR is not used. */
		e->from = FIELD_GET(LBR_FMT0_FROM, from_msr);
		e->to = FIELD_GET(LBR_FMT0_TO, from_msr);
		break;
	case LBR_FMT_LIP: /* 64-bit linear IP, no flags (references.md 1.5) */
	case LBR_FMT_EIP: /* 64-bit effective IP, = LIP in flat long mode, no flags */
		break;
	case LBR_FMT_EIP_FLAGS: /* references.md 3.4: mispredict FROM[63], address 62:0 */
		e->mispred = from_msr & LBR_FROM_MISPRED;
		e->mispred_valid = true;
		e->from = sign_extend(from_msr, 62);
		break;
	case LBR_FMT_EIP_FLAGS2:
		/* references.md 3.4: mispredict 63, IN_TX 62, ABORT 61, address 60:0. On a CPU
		 * without TSX bits 62:61 read 0 (references.md 3.4 quirk); a value software
		 * restored with the write quirk (60:59 copied to 62:61) would need them cleared
		 * first. */
		e->mispred = from_msr & LBR_FROM_MISPRED;
		e->in_tx = from_msr & LBR_FROM_IN_TX;
		e->abort = from_msr & LBR_FROM_ABORT;
		e->mispred_valid = e->tsx_valid = true;
		e->from = sign_extend(from_msr, 60);
		break;
	case LBR_FMT_INFO: /* references.md 3.4: full FROM/TO; flags and cycles in MSR_LBR_INFO_x */
		e->in_tx = info_msr & LBR_INFO_IN_TX;
		e->abort = info_msr & LBR_INFO_ABORT;
		e->tsx_valid = true;
		/* fall through */
	case LBR_FMT_INFO2: /* references.md 1.5, 3.4: like 5 without the TSX bits */
		e->mispred = info_msr & LBR_INFO_MISPRED;
		e->mispred_valid = true;
		e->cycles = (unsigned)FIELD_GET(LBR_INFO_CYCLES, info_msr);
		e->cycles_valid = true;
		break;
	case LBR_FMT_TIME:
		/* references.md 3.4: mispredict FROM[63], FROM address 62:0; cycles TO[63:48], TO
		 * address 47:0 sign-extended from bit 47; no TSX. */
		e->mispred = from_msr & LBR_FROM_MISPRED;
		e->mispred_valid = true;
		e->from = sign_extend(from_msr, 62);
		e->cycles = (unsigned)FIELD_GET(LBR_FMT6_TO_CYCLES, to_msr);
		e->cycles_valid = true;
		e->to = sign_extend(to_msr, 47);
		break;
	default: /* unknown format: raw values, nothing valid */
		break;
	}
}

void arch_lbr_decode(uint64_t from, uint64_t to, uint64_t info, struct lbr_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->from =
	    from; /* full addresses: no flags are packed into FROM/TO (references.md 4.1, 4.3) */
	e->to = to;
	e->mispred = info & ARCH_LBR_INFO_MISPRED;
	e->mispred_valid = true;
	e->in_tx = info & ARCH_LBR_INFO_IN_TX;
	e->abort = info & ARCH_LBR_INFO_ABORT;
	e->tsx_valid = true;
	/* references.md 4.3: the count is meaningful only with CYC_CNT_VALID (Linux zeroes it
	 * otherwise). */
	e->cycles_valid = info & ARCH_LBR_INFO_CYC_VALID;
	e->cycles = e->cycles_valid ? (unsigned)FIELD_GET(ARCH_LBR_INFO_CYC_CNT, info) : 0;
	e->br_type = (int)FIELD_GET(ARCH_LBR_INFO_BR_TYPE, info);
}

const char *arch_lbr_br_type_name(int br_type)
{
	/* references.md 4.3: 0-5 the near branches, larger values "other". */
	static const char *const names[] = {
	    [ARCH_BR_JCC] = "jcc",
	    [ARCH_BR_NEAR_IND_JMP] = "near_ind_jmp",
	    [ARCH_BR_NEAR_REL_JMP] = "near_rel_jmp",
	    [ARCH_BR_NEAR_IND_CALL] = "near_ind_call",
	    [ARCH_BR_NEAR_REL_CALL] = "near_rel_call",
	    [ARCH_BR_NEAR_RET] = "near_ret",
	};
	if (br_type >= 0 && br_type < (int)ARRAY_SIZE(names))
		return names[br_type];
	return br_type > ARCH_BR_NEAR_RET && br_type <= 15 ? "other" : "unknown"; /* 4 bits */
}

unsigned lbr_index_newest(unsigned tos, unsigned i, unsigned depth)
{
	if (depth == 0)
		return 0;
	/* In unsigned arithmetic: no negative intermediate, any depth (references.md 3.4). */
	return (unsigned)(((uint64_t)(tos % depth) + depth - i % depth) % depth);
}
