/* SPDX-License-Identifier: MIT */
/*
 * LBR sessions: the model-specific LBR stack (MSR bases and depth per microarchitecture,
 * LBR_SELECT filters in their suppress sense, TOS, every record format of
 * IA32_PERF_CAPABILITIES[5:0]) and Architectural LBR (depth from CPUID.1CH, LBR_CTL filters
 * in their positive sense, entry 0 newest). Decoding and filter values come from
 * arch/x86/drivers/lbr.c; this file moves them through the PMU accessor.
 */
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/drivers/lbr.h"
#include "arch/x86/drivers/pmc.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/session/output.h"
#include "arch/x86/session/facility.h"
#include "lib/stream.h"
#include "arch/x86/session/session.h"
#include "arch/x86/session/selfcheck.h"
#include "kernel/arch_cpu.h"
#include "lib/bits.h"
#include "lib/x86_decode.h"

struct lbr_msrs {
	uint32_t from, to, info; /* info 0: no LBR_INFO MSRs */
	bool select;		 /* MSR_LBR_SELECT exists */
};

/* Where the stack lives comes from the capability record (caps.c, from the per-model table
 * lbr_models.c), the same for silicon and for the software PMU's recorded processors. */
static struct lbr_msrs lbr_msrs_of(const struct trace_ctx *t)
{
	const struct trace_caps *c = t->caps;
	return (struct lbr_msrs){c->lbr.from_base, c->lbr.to_base, c->lbr.info_base,
				 c->lbr.has_select};
}

/* The LBR_F_* class of the record from `from` (decoded), or 0 if it cannot be decoded. A
 * record from an instruction that is no branch is an exception's delivery (or an interrupt's):
 * the far class (SDM Vol. 3B Table 17-13, FAR_BRANCH; Linux arch/x86/events/utils.c calls it
 * X86_BR_IRQ). */
static unsigned branch_class(uint64_t from)
{
	struct x86_insn in;
	if (ts_decode_recorded(from, &in) != 0)
		return 0;
	return in.branch == X86_BR_NONE ? LBR_F_FAR : (unsigned)BIT(lbr_class_of_branch(in.branch));
}

static void print_entry(struct trace_ctx *t, unsigned i, const struct lbr_entry *e)
{
	if (t->stream)
		bt_write_lbr(t->stream, &(struct bt_lbr){.index = i,
							 .from = e->from,
							 .to = e->to,
							 .cycles_valid = e->cycles_valid,
							 .cycles = e->cycles,
							 .mispred_valid = e->mispred_valid,
							 .mispred = e->mispred,
							 .in_tx = e->in_tx,
							 .abort = e->abort,
							 .br_type = e->br_type});
	tprintf("lbr %u %#lx %#lx cycles=%u%s mispred=%d br_type=%d%s%s\n", i, e->from, e->to,
		e->cycles, e->cycles_valid ? "" : "(n/a)", e->mispred_valid ? e->mispred : -1,
		e->br_type, e->in_tx ? " in_tx" : "", e->abort ? " abort" : "");
}

/* 1 done, 0 failed, -1 skipped (said why). */
static int arch_lbr(struct trace_ctx *t, const struct lbr_filter *f, uint64_t freeze,
		    struct selfcheck *sc)
{
	const struct trace_caps *c = t->caps;
	char why[TS_WHY_LEN];
	uint64_t ctl;
	if (arch_lbr_ctl_value(c, f, &ctl, why, sizeof(why)) != 0) {
		ts_skip(t, "lbr", why);
		return -1;
	}
	unsigned wanted = (unsigned)t->req->opt->lbr_depth;
	unsigned depth = arch_lbr_pick_depth(c->arch_lbr.depth_mask, wanted);
	if (wanted && depth != wanted)
		tprintf("note: lbr: %s: lbr.depth=%u is not a depth this CPU has (CPUID.1CH:EAX "
			"%#x): using %u, %s\n",
			t->label, wanted, c->arch_lbr.depth_mask, depth,
			depth < wanted ? "the deepest below it" : "the shallowest it has");
	/* Writing the depth also clears every entry (references.md 4.1). */
	bool ok = ts_check(t, pmu_wrmsr(MSR_IA32_LBR_DEPTH, depth), MSR_IA32_LBR_DEPTH, "lbr") &&
		  ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, freeze), MSR_IA32_DEBUGCTL, "lbr") &&
		  ts_check(t, pmu_wrmsr(MSR_IA32_LBR_CTL, ctl), MSR_IA32_LBR_CTL, "lbr");
	uint64_t steps = 0, t0 = arch_timestamp();
	uint64_t result = ok ? ts_run(t, false, &steps) : 0;
	uint64_t tsc_cycles = arch_timestamp() - t0;
	ok &= ts_check(t, pmu_wrmsr(MSR_IA32_LBR_CTL, 0), MSR_IA32_LBR_CTL, "lbr");
	tprintf("trace-begin lbr %s steps=%lu depth=%u format=arch ctl=%#lx result=%lu "
		"tsc-cycles=%lu\n",
		t->label, steps, depth, ctl, result, tsc_cycles);
	for (unsigned i = 0; i < depth && ok; i++) {
		uint64_t from = 0, to = 0, info = 0;
		ok = ts_check(t, pmu_rdmsr(MSR_IA32_LBR_FROM0 + i, &from), MSR_IA32_LBR_FROM0 + i,
			      "lbr") &&
		     ts_check(t, pmu_rdmsr(MSR_IA32_LBR_TO0 + i, &to), MSR_IA32_LBR_TO0 + i,
			      "lbr") &&
		     ts_check(t, pmu_rdmsr(MSR_IA32_LBR_INFO0 + i, &info), MSR_IA32_LBR_INFO0 + i,
			      "lbr");
		if (!ok || from == 0)
			break; /* FROM = 0: no more entries (references.md 4.1) */
		struct lbr_entry e;
		arch_lbr_decode(from, to, info, &e);
		print_entry(t, i, &e);
		selfcheck_record(sc, e.from, e.to);
	}
	return ok;
}

static int legacy_lbr(struct trace_ctx *t, const struct lbr_filter *f, uint64_t freeze,
		      struct selfcheck *sc)
{
	const struct trace_caps *c = t->caps;
	char why[TS_WHY_LEN];
	struct lbr_msrs r = lbr_msrs_of(t);
	uint64_t select = 0;
	bool sw_filter = false;
	bool filtering = !(f->user && f->kernel && f->branch_types == LBR_F_ALL && !f->call_stack);
	if (filtering && lbr_select_value(c, f, &select, &sw_filter, why, sizeof(why)) != 0) {
		ts_skip(t, "lbr", why); /* among the reasons: no LBR_SELECT (Core 2, Bonnell) */
		return -1;
	}
	if (lbr_check_quirks(c, f, freeze | DEBUGCTL_LBR, why, sizeof(why)) != 0) {
		ts_skip(t, "lbr", why);
		return -1;
	}
	unsigned depth = c->lbr.depth, format = c->lbr.format, dropped = 0;
	if (t->req->opt->lbr_depth)
		tprintf("note: lbr: %s: lbr.depth=%lu ignored: legacy LBR has a fixed depth of %u "
			"(the option sets Architectural LBR's)\n",
			t->label, t->req->opt->lbr_depth, depth);
	bool ok = true;
	for (unsigned i = 0; i < depth && ok; i++) /* reset (references.md 3.5) */
		ok = ts_check(t, pmu_wrmsr(r.from + i, 0), r.from + i, "lbr") &&
		     ts_check(t, pmu_wrmsr(r.to + i, 0), r.to + i, "lbr") &&
		     (!r.info || ts_check(t, pmu_wrmsr(r.info + i, 0), r.info + i, "lbr"));
	ok = ok &&
	     (!r.select || ts_check(t, pmu_wrmsr(MSR_LBR_SELECT, select), MSR_LBR_SELECT, "lbr")) &&
	     ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_LBR | freeze), MSR_IA32_DEBUGCTL,
		      "lbr");
	uint64_t steps = 0, t0 = arch_timestamp();
	uint64_t result = ok ? ts_run(t, false, &steps) : 0;
	uint64_t tsc_cycles = arch_timestamp() - t0;
	ok &= ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "lbr");
	uint64_t tos = 0;
	ok &= ts_check(t, pmu_rdmsr(MSR_LBR_TOS, &tos), MSR_LBR_TOS, "lbr");
	tprintf("trace-begin lbr %s steps=%lu depth=%u format=%u select=%#lx%s result=%lu "
		"tsc-cycles=%lu\n",
		t->label, steps, depth, format, select, sw_filter ? " software-filter" : "", result,
		tsc_cycles);
	for (unsigned i = 0; i < depth && ok; i++) {
		unsigned idx = lbr_index_newest((unsigned)tos, i, depth);
		uint64_t from = 0, to = 0, info = 0;
		ok = ts_check(t, pmu_rdmsr(r.from + idx, &from), r.from + idx, "lbr") &&
		     ts_check(t, pmu_rdmsr(r.to + idx, &to), r.to + idx, "lbr") &&
		     (!r.info || ts_check(t, pmu_rdmsr(r.info + idx, &info), r.info + idx, "lbr"));
		if (!ok || from == 0)
			break; /* FROM = 0: an empty slot, and all older ones too */
		struct lbr_entry e;
		lbr_decode_legacy(format, from, to, info, &e);
		/* Nehalem/Westmere LBR_SELECT erratum (references.md 8): the hardware filter had to
		 * be widened; drop the surplus classes here, as Linux does, and count them. */
		if (sw_filter && !(branch_class(e.from) & f->branch_types)) {
			dropped++;
			continue;
		}
		print_entry(t, i, &e);
		selfcheck_record(sc, e.from, e.to);
	}
	if (dropped)
		tprintf("lbr-software-filtered %u\n", dropped);
	return ok;
}

static bool session_lbr(struct trace_ctx *t)
{
	const struct trace_caps *c = t->caps;
	char why[TS_WHY_LEN];
	struct lbr_filter f;
	struct pmc_freeze fr;
	uint64_t freeze = 0;
	if (c->lbr.kind == TC_LBR_NONE) {
		ts_skip(t, "lbr", c->lbr.reason);
		return true;
	}
	lbr_filter_from_options(t->req->opt->lbr_filter, &f);
	pmc_freeze_from_options(t->req->opt->freeze, &fr);
	if (pmc_freeze_bits(c, &fr, &freeze, why, sizeof(why)) != 0) {
		ts_skip(t, "lbr", why);
		return true;
	}
	struct selfcheck sc;
	selfcheck_begin(&sc, t);
	if (t->req->opt->stream != TRACE_STREAM_OFF)
		t->stream = trace_stream_begin("lbr", t->label);
	int done = c->lbr.kind == TC_LBR_ARCH ? arch_lbr(t, &f, freeze, &sc)
					      : legacy_lbr(t, &f, freeze, &sc);
	if (t->stream) {
		bt_write_end(t->stream, 0, done < 0 ? "skipped" : "");
		t->stream = NULL;
	}
	if (done < 0)
		return true;
	bool ok = done;
	bool filtered = !(f.user && f.kernel && f.branch_types == LBR_F_ALL && !f.call_stack);
	selfcheck_window(t, &sc, "lbr", filtered ? "lbr.filter leaves branches out" : NULL);
	uint64_t ler_from = 0, ler_to = 0;
	if (ok && ts_check(t, pmu_rdmsr(MSR_LER_FROM, &ler_from), MSR_LER_FROM, "lbr") &&
	    ts_check(t, pmu_rdmsr(MSR_LER_TO, &ler_to), MSR_LER_TO, "lbr"))
		tprintf("ler %#lx %#lx\n", ler_from, ler_to);
	ts_print_exceptions(t);
	tprintf("trace-end lbr %s\n", t->label);
	return ok;
}

bool lbr_newest(const struct trace_ctx *t, uint64_t *from, uint64_t *to)
{
	const struct trace_caps *c = t->caps;
	*from = *to = 0;
	if (c->lbr.kind == TC_LBR_ARCH)
		return pmu_rdmsr(MSR_IA32_LBR_FROM0, from) == STATUS_OK &&
		       pmu_rdmsr(MSR_IA32_LBR_TO0, to) == STATUS_OK;
	if (c->lbr.kind != TC_LBR_LEGACY)
		return false;
	struct lbr_msrs r = lbr_msrs_of(t);
	uint64_t tos = 0, info = 0;
	if (pmu_rdmsr(MSR_LBR_TOS, &tos) != STATUS_OK)
		return false;
	unsigned idx = lbr_index_newest((unsigned)tos, 0, c->lbr.depth);
	if (pmu_rdmsr(r.from + idx, from) != STATUS_OK || pmu_rdmsr(r.to + idx, to) != STATUS_OK)
		return false;
	struct lbr_entry e;
	lbr_decode_legacy(c->lbr.format, *from, *to, info, &e);
	*from = e.from;
	*to = e.to;
	return true;
}

/* Turn the LBRs on for a session that samples them (counter sampling with freeze=lbrs). */
bool lbr_enable_for_sampling(struct trace_ctx *t, uint64_t debugctl_extra)
{
	const struct trace_caps *c = t->caps;
	if (c->lbr.kind == TC_LBR_ARCH)
		return ts_check(t, pmu_wrmsr(MSR_IA32_LBR_DEPTH, c->arch_lbr.max_depth),
				MSR_IA32_LBR_DEPTH, "lbr") &&
		       ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, debugctl_extra), MSR_IA32_DEBUGCTL,
				"lbr") &&
		       ts_check(t,
				pmu_wrmsr(MSR_IA32_LBR_CTL, LBR_CTL_LBREN | LBR_CTL_OS |
								LBR_CTL_USR | LBR_CTL_BRANCHES),
				MSR_IA32_LBR_CTL, "lbr");
	struct lbr_msrs r = lbr_msrs_of(t);
	return (!r.select || ts_check(t, pmu_wrmsr(MSR_LBR_SELECT, 0), MSR_LBR_SELECT, "lbr")) &&
	       ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_LBR | debugctl_extra),
			MSR_IA32_DEBUGCTL, "lbr");
}

void lbr_disable(struct trace_ctx *t)
{
	if (t->caps->lbr.kind == TC_LBR_ARCH)
		ts_check(t, pmu_wrmsr(MSR_IA32_LBR_CTL, 0), MSR_IA32_LBR_CTL, "lbr");
}

/* Every processor with an LBR stack has it (legacy or Architectural). */
static bool lbr_available(const struct trace_caps *c, const char **why)
{
	*why = c->lbr.reason;
	return c->lbr.kind != TC_LBR_NONE;
}

const struct facility_ops facility_lbr = {.available = lbr_available, .run = session_lbr};
