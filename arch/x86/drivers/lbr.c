/* SPDX-License-Identifier: MIT */
/*
 * The LBR drivers: legacy LBR (the stack at the per-model MSR bases of the capability record,
 * caps/lbr_models.c; reset, LBR_SELECT, DEBUGCTL.LBR; read newest first from TOS after the run)
 * and Architectural LBR (IA32_LBR_DEPTH, which also clears the entries, and IA32_LBR_CTL; entry
 * 0 newest). Values and decoding come from lbr_plan.c; this file moves them through the PMU
 * accessor. A session's entries go into its store after the run and out as the stream's LBR
 * entries.
 */
#include "arch/x86/drivers/lbr.h"
#include "arch/x86/drivers/driver.h"
#include "arch/x86/drivers/pmc_plan.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/pmu/access.h"
#include "kernel/arch_trace.h"
#include "lib/bits.h"
#include "lib/fmt.h"
#include "lib/x86_decode.h"

/* Entries are stored as the stream carries them (lib/stream.h), whole quadwords. */
_Static_assert(sizeof(struct bt_lbr) % RECORD_STORE_ALIGN == 0, "an LBR entry is whole quadwords");

/* ---- the stack's MSRs (legacy: from the capability record) ---------------------------------- */

static bool rd(struct facility_run *r, uint32_t msr, uint64_t *v)
{
	return drv_check(r, pmu_rdmsr(msr, v), msr, "lbr");
}

static bool wr(struct facility_run *r, uint32_t msr, uint64_t v)
{
	return drv_check(r, pmu_wrmsr(msr, v), msr, "lbr");
}

/* The LBR_F_* class of the record from `from` (decoded), or 0 if it cannot be decoded. A
 * record from an instruction that is no branch is an exception's delivery (or an interrupt's):
 * the far class (SDM Vol. 3B Table 17-13, FAR_BRANCH; Linux arch/x86/events/utils.c calls it
 * X86_BR_IRQ). */
static unsigned branch_class(uint64_t from)
{
	struct x86_insn in;
	if (usermode_decode_recorded(from, &in) != 0)
		return 0;
	return in.branch == X86_BR_NONE ? LBR_F_FAR : (unsigned)BIT(lbr_class_of_branch(in.branch));
}

static void store_entry(struct facility_run *r, unsigned i, const struct lbr_entry *e)
{
	struct bt_lbr s = {.index = i,
			   .from = e->from,
			   .to = e->to,
			   .cycles_valid = e->cycles_valid,
			   .cycles = e->cycles,
			   .mispred_valid = e->mispred_valid,
			   .mispred = e->mispred,
			   .in_tx = e->in_tx,
			   .abort = e->abort,
			   .br_type = e->br_type};
	record_store_put(&r->store, &s);
}

/* ---- what both share ------------------------------------------------------------------------ */

static enum status lbr_available(const struct trace_caps *c, const char **why)
{
	*why = c->lbr.reason;
	return c->lbr.kind != TC_LBR_NONE ? STATUS_OK : STATUS_UNSUPPORTED;
}

/* The filter and the freeze bits of the options; the session's fields. */
static enum status plan_common(struct facility_run *r, char *why, size_t n)
{
	struct lbr_state *l = &r->u.lbr;
	struct pmc_freeze fr;
	if (r->caps->lbr.kind == TC_LBR_NONE) {
		fmt_snprintf(why, n, "%s", r->caps->lbr.reason);
		return STATUS_UNSUPPORTED;
	}
	lbr_filter_from_options(r->opt->lbr_filter, &l->filter);
	const struct lbr_filter *f = &l->filter;
	l->filtering = !(f->user && f->kernel && f->branch_types == LBR_F_ALL && !f->call_stack);
	pmc_freeze_from_options(r->opt->freeze, &fr);
	enum status st = pmc_freeze_bits(r->caps, &fr, &l->freeze, why, n);
	if (st != STATUS_OK)
		return st;
	r->record_size = sizeof(struct bt_lbr);
	r->ler = true;
	r->check = CHECK_WINDOW;
	r->check_skip = l->filtering ? "lbr.filter leaves branches out" : NULL;
	return STATUS_OK;
}

static bool lbr_deliver(struct facility_run *r, const void *stored, const struct record_sink *k)
{
	(void)r;
	struct trace_record t = {.kind = TREC_LBR};
	t.lbr = *(const struct bt_lbr *)stored;
	k->put(k->ctx, &t);
	return true;
}

static bool lbr_finish(struct facility_run *r)
{
	if (r->u.lbr.sw_dropped)
		r->print("lbr-software-filtered %u\n", r->u.lbr.sw_dropped);
	return true;
}

/* ---- Architectural LBR ---------------------------------------------------------------------- */

static enum status arch_plan(struct facility_run *r, char *why, size_t n)
{
	struct lbr_state *l = &r->u.lbr;
	enum status st = plan_common(r, why, n);
	if (st != STATUS_OK)
		return st;
	if (arch_lbr_ctl_value(r->caps, &l->filter, &l->ctl, why, n) != STATUS_OK)
		return STATUS_UNSUPPORTED;
	unsigned wanted = (unsigned)r->opt->lbr_depth;
	l->depth = arch_lbr_pick_depth(r->caps->arch_lbr.depth_mask, wanted);
	why[0] = 0;
	if (wanted && l->depth != wanted)
		fmt_snprintf(why, n,
			     "lbr.depth=%u is not a depth this CPU has (CPUID.1CH:EAX %#x): using "
			     "%u, %s",
			     wanted, r->caps->arch_lbr.depth_mask, l->depth,
			     l->depth < wanted ? "the deepest below it" : "the shallowest it has");
	return STATUS_OK;
}

static enum status arch_arm(struct facility_run *r)
{
	struct lbr_state *l = &r->u.lbr;
	/* Writing the depth also clears every entry (references.md 4.1). */
	bool ok = wr(r, MSR_IA32_LBR_DEPTH, l->depth) && wr(r, MSR_IA32_DEBUGCTL, l->freeze) &&
		  wr(r, MSR_IA32_LBR_CTL, l->ctl);
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status arch_disarm(struct facility_run *r)
{
	return wr(r, MSR_IA32_LBR_CTL, 0) ? STATUS_OK : STATUS_REFUSED;
}

static enum status arch_drain(struct facility_run *r)
{
	for (unsigned i = 0; i < r->u.lbr.depth && r->ok; i++) {
		uint64_t from = 0, to = 0, info = 0;
		if (!rd(r, MSR_IA32_LBR_FROM0 + i, &from) || !rd(r, MSR_IA32_LBR_TO0 + i, &to) ||
		    !rd(r, MSR_IA32_LBR_INFO0 + i, &info))
			return STATUS_REFUSED;
		if (from == 0)
			break; /* FROM = 0: no more entries (references.md 4.1) */
		struct lbr_entry e;
		arch_lbr_decode(from, to, info, &e);
		store_entry(r, i, &e);
	}
	return STATUS_OK;
}

static void arch_describe(struct facility_run *r, const struct run_facts *f)
{
	const struct lbr_state *l = &r->u.lbr;
	r->print(
	    "trace-begin lbr %s steps=%lu depth=%u entries=%lu format=arch ctl=%#lx store-peak=%lu "
	    "result=%lu "
	    "tsc-cycles=%lu\n",
	    r->label, f->steps, l->depth, r->store.n, l->ctl, f->store_peak, f->result,
	    f->tsc_cycles);
}

const struct facility_driver lbr_arch_driver = {
    .name = "lbr",
    .available = lbr_available,
    .plan = arch_plan,
    .arm = arch_arm,
    .disarm = arch_disarm,
    .drain = arch_drain,
    .describe = arch_describe,
    .deliver = lbr_deliver,
    .finish = lbr_finish,
};

/* ---- legacy LBR ----------------------------------------------------------------------------- */

static enum status legacy_plan(struct facility_run *r, char *why, size_t n)
{
	struct lbr_state *l = &r->u.lbr;
	enum status st = plan_common(r, why, n);
	if (st != STATUS_OK)
		return st;
	const struct trace_caps *c = r->caps;
	/* Among the reasons: no LBR_SELECT (Core 2, Bonnell). */
	if (l->filtering &&
	    lbr_select_value(c, &l->filter, &l->select, &l->sw_filter, why, n) != STATUS_OK)
		return STATUS_UNSUPPORTED;
	if (lbr_check_quirks(c, &l->filter, l->freeze | DEBUGCTL_LBR, why, n) != STATUS_OK)
		return STATUS_UNSUPPORTED;
	l->depth = c->lbr.depth;
	l->format = c->lbr.format;
	why[0] = 0;
	if (r->opt->lbr_depth)
		fmt_snprintf(
		    why, n,
		    "lbr.depth=%lu ignored: legacy LBR has a fixed depth of %u (the option "
		    "sets Architectural LBR's)",
		    r->opt->lbr_depth, l->depth);
	return STATUS_OK;
}

static enum status legacy_arm(struct facility_run *r)
{
	struct lbr_state *l = &r->u.lbr;
	const struct trace_caps *c = r->caps;
	bool ok = true;
	for (unsigned i = 0; i < l->depth && ok; i++) /* reset (references.md 3.5) */
		ok = wr(r, c->lbr.from_base + i, 0) && wr(r, c->lbr.to_base + i, 0) &&
		     (!c->lbr.info_base || wr(r, c->lbr.info_base + i, 0));
	ok = ok && (!c->lbr.has_select || wr(r, MSR_LBR_SELECT, l->select)) &&
	     wr(r, MSR_IA32_DEBUGCTL, DEBUGCTL_LBR | l->freeze);
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status legacy_disarm(struct facility_run *r)
{
	bool ok = wr(r, MSR_IA32_DEBUGCTL, 0);
	ok &= rd(r, MSR_LBR_TOS, &r->u.lbr.tos);
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status legacy_drain(struct facility_run *r)
{
	struct lbr_state *l = &r->u.lbr;
	const struct trace_caps *c = r->caps;
	for (unsigned i = 0; i < l->depth && r->ok; i++) {
		unsigned idx = lbr_index_newest((unsigned)l->tos, i, l->depth);
		uint64_t from = 0, to = 0, info = 0;
		if (!rd(r, c->lbr.from_base + idx, &from) || !rd(r, c->lbr.to_base + idx, &to) ||
		    (c->lbr.info_base && !rd(r, c->lbr.info_base + idx, &info)))
			return STATUS_REFUSED;
		if (from == 0)
			break; /* FROM = 0: an empty slot, and all older ones too */
		struct lbr_entry e;
		lbr_decode_legacy(l->format, from, to, info, &e);
		/* Nehalem/Westmere LBR_SELECT erratum (references.md 8): the hardware filter had to
		 * be widened; drop the surplus classes here, as Linux does, and count them. */
		if (l->sw_filter && !(branch_class(e.from) & l->filter.branch_types)) {
			l->sw_dropped++;
			continue;
		}
		store_entry(r, i, &e);
	}
	return STATUS_OK;
}

static void legacy_describe(struct facility_run *r, const struct run_facts *f)
{
	const struct lbr_state *l = &r->u.lbr;
	r->print("trace-begin lbr %s steps=%lu depth=%u entries=%lu format=%u select=%#lx%s "
		 "store-peak=%lu result=%lu tsc-cycles=%lu\n",
		 r->label, f->steps, l->depth, r->store.n, l->format, l->select,
		 l->sw_filter ? " software-filter" : "", f->store_peak, f->result, f->tsc_cycles);
}

const struct facility_driver lbr_legacy_driver = {
    .name = "lbr",
    .available = lbr_available,
    .plan = legacy_plan,
    .arm = legacy_arm,
    .disarm = legacy_disarm,
    .drain = legacy_drain,
    .describe = legacy_describe,
    .deliver = lbr_deliver,
    .finish = lbr_finish,
};

/* ---- the LBRs for sampling sessions --------------------------------------------------------- */

static enum status write_or(uint32_t msr, uint64_t v, uint32_t *refused)
{
	enum status st = pmu_wrmsr(msr, v);
	if (st != STATUS_OK)
		*refused = msr;
	return st;
}

enum status lbr_enable_for_sampling(const struct trace_caps *c, uint64_t debugctl_extra,
				    uint32_t *msr)
{
	enum status st;
	if (c->lbr.kind == TC_LBR_ARCH) {
		if ((st = write_or(MSR_IA32_LBR_DEPTH, c->arch_lbr.max_depth, msr)) ||
		    (st = write_or(MSR_IA32_DEBUGCTL, debugctl_extra, msr)))
			return st;
		return write_or(MSR_IA32_LBR_CTL,
				LBR_CTL_LBREN | LBR_CTL_OS | LBR_CTL_USR | LBR_CTL_BRANCHES, msr);
	}
	if (c->lbr.has_select && (st = write_or(MSR_LBR_SELECT, 0, msr)))
		return st;
	return write_or(MSR_IA32_DEBUGCTL, DEBUGCTL_LBR | debugctl_extra, msr);
}

enum status lbr_newest(const struct trace_caps *c, uint64_t *from, uint64_t *to)
{
	*from = *to = 0;
	if (c->lbr.kind == TC_LBR_ARCH) {
		enum status st = pmu_rdmsr(MSR_IA32_LBR_FROM0, from);
		return st ? st : pmu_rdmsr(MSR_IA32_LBR_TO0, to);
	}
	if (c->lbr.kind != TC_LBR_LEGACY)
		return STATUS_UNSUPPORTED;
	uint64_t tos = 0, info = 0;
	enum status st = pmu_rdmsr(MSR_LBR_TOS, &tos);
	if (st != STATUS_OK)
		return st;
	unsigned idx = lbr_index_newest((unsigned)tos, 0, c->lbr.depth);
	if ((st = pmu_rdmsr(c->lbr.from_base + idx, from)) ||
	    (st = pmu_rdmsr(c->lbr.to_base + idx, to)))
		return st;
	struct lbr_entry e;
	lbr_decode_legacy(c->lbr.format, *from, *to, info, &e);
	*from = e.from;
	*to = e.to;
	return STATUS_OK;
}

enum status lbr_disable(const struct trace_caps *c, uint32_t *msr)
{
	return c->lbr.kind == TC_LBR_ARCH ? write_or(MSR_IA32_LBR_CTL, 0, msr) : STATUS_OK;
}
