/* SPDX-License-Identifier: MIT */
/*
 * LBR sampling (option lbr.period=N), as `perf record -b` samples (Linux arch/x86/events/
 * intel/lbr.c intel_pmu_lbr_read, called from the PMI handler): general-purpose counter 0
 * counts branch instructions retired (the architectural event C4H, umask 00H, SDM Vol. 3B
 * Table 20-1 "UMask and Event Select Encodings for Pre-Defined Architectural Performance
 * Events") with INT set; every N branches its overflow raises a PMI, which finds the LBR stack
 * frozen (DEBUGCTL.FREEZE_LBRS_ON_PMI, SDM Vol. 3B 18.4.7 "Freezing LBR and Performance
 * Counters on PMI") and takes the whole of it, newest first, as one sample with the
 * interrupted IP and the TSC. Branches rather than instructions: a sample then holds the same
 * number of new branches whatever the code's branch density, so each branch is seen about
 * depth / N times over (N >= depth: each at most once), which is what AutoFDO and BOLT weigh
 * a stack by.
 *
 * The sample's first entry carries the IP and TSC in the stream (lib/stream.h BT_LBR_SAMPLE).
 */
#include "arch/x86/drivers/driver.h"
#include "arch/x86/drivers/lbr.h"
#include "arch/x86/drivers/pmc_plan.h"
#include "arch/x86/caps/pmi_ack.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/pmu/isr_hook.h"
#include "lib/bits.h"
#include "lib/fmt.h"

#define SAMPLED		 0 /* general-purpose counter 0 */
#define PMI_MAX_LOOPS	 100
#define LIVE_BATCH	 64
#define SAMPLE_MAX_DEPTH 64 /* Architectural LBR's deepest (CPUID.1CH:EAX, 8 * 8) */

/* A sample in the store: the interrupted IP, the TSC, the stack as read (raw MSRs). */
struct lbr_sample_rec {
	uint64_t ip, tsc;
	uint32_t n, pad;
	struct {
		uint64_t from, to, info;
	} e[SAMPLE_MAX_DEPTH];
};
_Static_assert(sizeof(struct lbr_sample_rec) % RECORD_STORE_ALIGN == 0, "whole quadwords");

/* In the PMI, while the stack is frozen: the whole stack into the next slot. */
static void snapshot(void *ctx)
{
	struct facility_run *r = ctx;
	struct lbr_sampling *s = &r->u.lbr.sampling;
	const struct trace_caps *c = r->caps;
	struct lbr_sample_rec *rec = record_store_reserve(&r->store);
	s->slot = rec;
	if (!rec)
		return;
	rec->n = 0;
	bool arch = c->lbr.kind == TC_LBR_ARCH;
	uint64_t tos = 0;
	if (!arch && pmu_rdmsr(MSR_LBR_TOS, &tos) != STATUS_OK) {
		s->snapshot_failed++;
		return;
	}
	for (unsigned i = 0; i < r->u.lbr.depth; i++) {
		unsigned idx = arch ? i : lbr_index_newest((unsigned)tos, i, r->u.lbr.depth);
		uint32_t from_msr = arch ? MSR_IA32_LBR_FROM0 + idx : c->lbr.from_base + idx;
		uint32_t to_msr = arch ? MSR_IA32_LBR_TO0 + idx : c->lbr.to_base + idx;
		uint32_t info_msr = arch ? MSR_IA32_LBR_INFO0 + idx : c->lbr.info_base + idx;
		uint64_t from = 0, to = 0, info = 0;
		if (pmu_rdmsr(from_msr, &from) || pmu_rdmsr(to_msr, &to) ||
		    ((arch || c->lbr.info_base) && pmu_rdmsr(info_msr, &info))) {
			s->snapshot_failed++;
			return;
		}
		if (from == 0)
			break; /* no more entries */
		rec->e[rec->n].from = from;
		rec->e[rec->n].to = to;
		rec->e[rec->n].info = info;
		rec->n++;
	}
}

static void overflow(void *ctx, unsigned counter, uint64_t ip)
{
	struct facility_run *r = ctx;
	struct lbr_sampling *s = &r->u.lbr.sampling;
	if (counter != SAMPLED) {
		s->other_counters++;
		return;
	}
	struct lbr_sample_rec *rec = s->slot;
	s->slot = 0;
	if (!rec)
		return; /* the store was full: counted lost */
	rec->ip = ip;
	rec->tsc = rdtsc();
	record_store_commit(&r->store);
}

static enum status lbr_sample_available(const struct trace_caps *c, const char **why)
{
	*why = c->lbr.reason;
	return c->lbr.kind != TC_LBR_NONE ? STATUS_OK : STATUS_UNSUPPORTED;
}

static enum status lbr_sample_plan(struct facility_run *r, char *why, size_t n)
{
	const struct trace_caps *c = r->caps;
	struct lbr_state *l = &r->u.lbr;
	struct lbr_sampling *s = &l->sampling;
	if (c->lbr.kind == TC_LBR_NONE) {
		fmt_snprintf(why, n, "%s", c->lbr.reason);
		return STATUS_UNSUPPORTED;
	}
	if (r->opt->lbr_filter) {
		fmt_snprintf(why, n, "lbr.period samples every branch: lbr.filter does not apply");
		return STATUS_INVALID;
	}
	s->ev = (struct pmc_event){
	    .event = ARCH_EVENT_BRANCHES,
	    .usr = true,
	    .os = true,
	    .pmi = true,
	    .period = r->opt->lbr_period,
	};
	struct pmc_freeze fr;
	pmc_freeze_from_options(r->opt->freeze | TRACE_FREEZE_LBRS, &fr);
	if (pmc_check_gp(c, SAMPLED, &s->ev, why, n) != STATUS_OK ||
	    pmc_freeze_bits(c, &fr, &l->freeze, why, n) != STATUS_OK)
		return STATUS_UNSUPPORTED;
	why[0] = 0;
	l->depth = c->lbr.kind == TC_LBR_ARCH ? c->arch_lbr.max_depth : c->lbr.depth;
	if (l->depth > SAMPLE_MAX_DEPTH)
		l->depth = SAMPLE_MAX_DEPTH;
	l->format = c->lbr.format;
	s->enable = BIT(SAMPLED);
	s->isr = (struct ds_isr_config){
	    .perfmon_version = c->perfmon.version,
	    .debugctl = l->freeze | (c->lbr.kind == TC_LBR_LEGACY ? DEBUGCTL_LBR : 0),
	    .global_ctrl = s->enable,
	    .n_gp = 1,
	    .max_loops = PMI_MAX_LOOPS,
	    .lbr_snapshot = true,
	};
	uint32_t msr;
	uint64_t reload;
	pmc_gp_write_target(c, SAMPLED, pmc_period_value(c->perfmon.gp_width, s->ev.period), &msr,
			    &reload);
	s->isr.gp_reload[SAMPLED] = reload;
	s->isr.full_width = msr != MSR_IA32_PMC0 + SAMPLED;
	r->record_size = sizeof(struct lbr_sample_rec);
	r->interrupts = true;
	r->live = true;
	r->live_batch = LIVE_BATCH;
	r->ler = true;
	r->check = CHECK_NONE;
	r->check_skip = "lbr.period: samples of the stack, not one window of it";
	return STATUS_OK;
}

static enum status lbr_sample_arm(struct facility_run *r)
{
	const struct trace_caps *c = r->caps;
	struct lbr_state *l = &r->u.lbr;
	struct lbr_sampling *s = &l->sampling;
	uint32_t msr = 0;
	enum status st = pmc_reset_all(c, &msr);
	if (!st)
		st = pmc_program_gp(c, SAMPLED, &s->ev, &msr);
	bool ok = drv_check(r, st, msr, "lbr");
	if (ok) {
		st = lbr_enable_for_sampling(c, l->freeze, &msr);
		ok = drv_check(r, st, msr, "lbr");
	}
	struct trace_pmi_sinks sinks = {.overflow = overflow, .lbr_snapshot = snapshot, .ctx = r};
	trace_pmi_begin(&s->isr, &sinks, pmi_ack_for(c));
	ok = ok && drv_check(r, pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, s->enable),
			     MSR_IA32_PERF_GLOBAL_CTRL, "lbr");
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status lbr_sample_disarm(struct facility_run *r)
{
	const struct trace_caps *c = r->caps;
	struct lbr_sampling *s = &r->u.lbr.sampling;
	bool ok =
	    drv_check(r, pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0), MSR_IA32_PERF_GLOBAL_CTRL, "lbr");
	trace_pmi_end(&r->pmi);
	ok &= drv_check(r, pmc_read_gp(c, SAMPLED, &s->left), MSR_IA32_PMC0 + SAMPLED, "lbr");
	ok &= drv_check(r, pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "lbr");
	uint32_t msr = 0;
	ok &= drv_check(r, lbr_disable(c, &msr), msr, "lbr");
	ok &= drv_check(r, pmc_reset_all(c, &msr), msr, "lbr");
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status lbr_sample_drain(struct facility_run *r)
{
	uint64_t full = r->store.lost_full;
	r->end_lost = full;
	if (full)
		fmt_snprintf(r->end_why, sizeof(r->end_why), "store-full");
	return STATUS_OK;
}

static void lbr_sample_describe(struct facility_run *r, const struct run_facts *f)
{
	const struct lbr_state *l = &r->u.lbr;
	const struct lbr_sampling *s = &l->sampling;
	r->print("trace-begin lbr %s steps=%lu depth=%u samples=%lu period=%lu event=branches "
		 "pmis=%lu virtual-pmis=%lu overflows=%lu frozen=%lu snapshots=%lu lost=%lu "
		 "storms=%lu remainder=%ld store-peak=%lu result=%lu tsc-cycles=%lu\n",
		 r->label, f->steps, l->depth, r->store.n, s->ev.period, r->pmi.pmis,
		 f->virtual_pmis, r->pmi.overflows, r->pmi.frozen, r->pmi.lbr_snapshots,
		 r->store.lost_full, r->pmi.storms, (int64_t)s->ev.period + s->left, f->store_peak,
		 f->result, f->tsc_cycles);
}

static bool lbr_sample_deliver(struct facility_run *r, const void *stored,
			       const struct record_sink *k)
{
	const struct lbr_sample_rec *rec = stored;
	bool arch = r->caps->lbr.kind == TC_LBR_ARCH;
	for (uint32_t i = 0; i < rec->n; i++) {
		struct lbr_entry e;
		if (arch)
			arch_lbr_decode(rec->e[i].from, rec->e[i].to, rec->e[i].info, &e);
		else
			lbr_decode_legacy(r->u.lbr.format, rec->e[i].from, rec->e[i].to,
					  rec->e[i].info, &e);
		struct trace_record t = {.kind = TREC_LBR,
					 .lbr = {.index = i,
						 .from = e.from,
						 .to = e.to,
						 .cycles_valid = e.cycles_valid,
						 .cycles = e.cycles,
						 .mispred_valid = e.mispred_valid,
						 .mispred = e.mispred,
						 .in_tx = e.in_tx,
						 .abort = e.abort,
						 .br_type = e.br_type,
						 .sample = i == 0,
						 .ip = i == 0 ? rec->ip : 0,
						 .tsc = i == 0 ? rec->tsc : 0}};
		k->put(k->ctx, &t);
	}
	return true;
}

static bool lbr_sample_finish(struct facility_run *r)
{
	const struct lbr_sampling *s = &r->u.lbr.sampling;
	if (!r->pmi.storms && !r->pmi.msr_errors && !s->other_counters && !s->snapshot_failed)
		return true;
	r->print("error: lbr: %s: %lu storms, %lu refused MSR accesses, %lu overflows of counters "
		 "not sampled, %lu LBR snapshots failed\n",
		 r->label, r->pmi.storms, r->pmi.msr_errors, s->other_counters, s->snapshot_failed);
	return false;
}

const struct facility_driver lbr_sample_driver = {
    .name = "lbr",
    .available = lbr_sample_available,
    .plan = lbr_sample_plan,
    .arm = lbr_sample_arm,
    .disarm = lbr_sample_disarm,
    .drain = lbr_sample_drain,
    .describe = lbr_sample_describe,
    .deliver = lbr_sample_deliver,
    .finish = lbr_sample_finish,
};
