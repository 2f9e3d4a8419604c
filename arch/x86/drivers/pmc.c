/* SPDX-License-Identifier: MIT */
/*
 * Counter programming through the PMU accessor (SDM Vol. 3B 18.2; references.md 7.1, 8) and the
 * counter-sampling driver: general-purpose counter 0 on instructions retired with INT set, a PMI
 * per pmc.period, the service routine (arch/x86/pmu/isr_hook.c) recording the interrupted
 * instruction pointer and re-arming the period; fixed counter 0 alongside as a cross-check; the
 * freeze option applies, and the routine undoes a legacy freeze or acknowledges a streamlined
 * one.
 */
#include "arch/x86/drivers/pmc.h"
#include "arch/x86/drivers/driver.h"
#include "arch/x86/drivers/lbr.h"
#include "arch/x86/caps/pmi_ack.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/pmu/isr_hook.h"
#include "lib/bits.h"
#include "lib/fmt.h"

#define PMC_SAMPLED	  0
#define PMC_PMI_MAX_LOOPS 100
#define PMC_LIVE_BATCH	  1024

/* ---- the counter-sampling driver ----------------------------------------------------------- */

/* A sample in the store: the interrupted IP and the LBR snapshot's newest entry (or 0s). */
struct pmc_sample {
	uint64_t ip, lbr_from, lbr_to, tsc;
};

/* In the PMI, before the ack unfreezes the stack: the sample's newest branch. */
static void snapshot(void *ctx)
{
	struct facility_run *r = ctx;
	struct pmc_state *p = &r->u.pmc;
	p->snapshots++;
	if (lbr_newest(r->caps, &p->from, &p->to) != STATUS_OK)
		p->snapshot_failed++;
}

static void sample(void *ctx, unsigned counter, uint64_t ip)
{
	struct facility_run *r = ctx;
	struct pmc_state *p = &r->u.pmc;
	if (counter != PMC_SAMPLED) {
		p->other_counters++;
		return;
	}
	struct pmc_sample s = {ip, p->from, p->to, rdtsc()};
	record_store_put(&r->store, &s);
}

static enum status pmc_available(const struct trace_caps *c, const char **why)
{
	*why = "no architectural performance monitoring (CPUID.0AH:EAX[7:0] = 0)";
	return c->perfmon.version >= 1 ? STATUS_OK : STATUS_UNSUPPORTED;
}

static enum status pmc_plan(struct facility_run *r, char *why, size_t n)
{
	const struct trace_caps *c = r->caps;
	struct pmc_state *p = &r->u.pmc;
	p->ev = (struct pmc_event){
	    .event = ARCH_EVENT_INSTRUCTIONS,
	    .usr = true,
	    .os = true,
	    .pmi = true,
	    .period = r->opt->pmc_period,
	};
	struct pmc_freeze fr;
	pmc_freeze_from_options(r->opt->freeze, &fr);
	if (pmc_check_gp(c, PMC_SAMPLED, &p->ev, why, n) != STATUS_OK ||
	    pmc_freeze_bits(c, &fr, &p->freeze, why, n) != STATUS_OK)
		return STATUS_UNSUPPORTED;
	p->fixed = pmc_check_fixed(c, 0, 0, why, n) == STATUS_OK;
	why[0] = 0;
	p->enable = BIT(PMC_SAMPLED) | (p->fixed ? GLOBAL_STATUS_FIXED(0) : 0);
	/* With freeze=lbrs the LBRs run and every sample reads its newest branch while frozen. */
	p->with_lbr = fr.lbrs && c->lbr.kind != TC_LBR_NONE;
	p->isr = (struct ds_isr_config){
	    .perfmon_version = c->perfmon.version,
	    .debugctl = p->freeze,
	    .global_ctrl = p->enable,
	    .n_gp = 1,
	    .max_loops = PMC_PMI_MAX_LOOPS,
	    .lbr_snapshot = p->with_lbr,
	};
	if (p->with_lbr && c->lbr.kind == TC_LBR_LEGACY)
		p->isr.debugctl |= DEBUGCTL_LBR; /* what the routine restores: a legacy freeze
						    clears it */
	uint32_t msr;
	uint64_t reload;
	pmc_gp_write_target(c, PMC_SAMPLED, pmc_period_value(c->perfmon.gp_width, p->ev.period),
			    &msr, &reload);
	p->isr.gp_reload[PMC_SAMPLED] = reload;
	p->isr.full_width = msr != MSR_IA32_PMC0 + PMC_SAMPLED; /* IA32_A_PMCx chosen */
	r->record_size = sizeof(struct pmc_sample);
	r->interrupts = true;
	r->live = true; /* samples come during the run */
	r->live_batch = PMC_LIVE_BATCH;
	r->check = CHECK_SAMPLES;
	r->check_every = p->ev.period;
	return STATUS_OK;
}

static enum status pmc_arm(struct facility_run *r)
{
	const struct trace_caps *c = r->caps;
	struct pmc_state *p = &r->u.pmc;
	uint32_t msr = 0;
	enum status st = pmc_reset_all(c, &msr);
	if (!st)
		st = pmc_program_gp(c, PMC_SAMPLED, &p->ev, &msr);
	if (!st && p->fixed)
		st = pmc_program_fixed(c, 0, true, true, false, 0, &msr);
	bool ok = drv_check(r, st, msr, "pmc");
	if (ok && p->with_lbr) {
		st = lbr_enable_for_sampling(c, p->freeze, &msr);
		ok = drv_check(r, st, msr, "lbr");
	} else if (ok) {
		ok =
		    drv_check(r, pmu_wrmsr(MSR_IA32_DEBUGCTL, p->freeze), MSR_IA32_DEBUGCTL, "pmc");
	}
	struct trace_pmi_sinks sinks = {
	    .overflow = sample,
	    .lbr_snapshot = p->with_lbr ? snapshot : 0,
	    .ctx = r,
	};
	trace_pmi_begin(&p->isr, &sinks, pmi_ack_for(c));
	ok = ok && drv_check(r, pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, p->enable),
			     MSR_IA32_PERF_GLOBAL_CTRL, "pmc");
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status pmc_disarm(struct facility_run *r)
{
	const struct trace_caps *c = r->caps;
	struct pmc_state *p = &r->u.pmc;
	bool ok =
	    drv_check(r, pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0), MSR_IA32_PERF_GLOBAL_CTRL, "pmc");
	trace_pmi_end(&r->pmi);
	ok &=
	    drv_check(r, pmc_read_gp(c, PMC_SAMPLED, &p->left), MSR_IA32_PMC0 + PMC_SAMPLED, "pmc");
	if (p->fixed)
		ok &= drv_check(r, pmu_rdmsr(MSR_IA32_FIXED_CTR0, &p->fixed_count),
				MSR_IA32_FIXED_CTR0, "pmc");
	ok &= drv_check(r, pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "pmc");
	uint32_t msr = 0;
	enum status st = p->with_lbr ? lbr_disable(c, &msr) : STATUS_OK;
	ok &= drv_check(r, st, msr, "lbr");
	st = pmc_reset_all(c, &msr);
	ok &= drv_check(r, st, msr, "pmc");
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status pmc_drain(struct facility_run *r)
{
	uint64_t full = r->store.lost_full;
	r->end_lost = full;
	if (full)
		fmt_snprintf(r->end_why, sizeof(r->end_why), "store-full");
	r->check_skip = full || r->pmi.storms ? "samples were lost" : NULL;
	return STATUS_OK;
}

static void pmc_describe(struct facility_run *r, const struct run_facts *f)
{
	const struct pmc_state *p = &r->u.pmc;
	const struct trace_pmi_stats *st = &r->pmi;
	/* left is -(events to the next overflow): the run's events are samples * period plus
	 * period + left. */
	r->print("trace-begin pmc %s steps=%lu samples=%lu period=%lu pmis=%lu virtual-pmis=%lu "
		 "masked=%lu overflows=%lu frozen=%lu freeze=%#lx remainder=%ld fixed0=%lu "
		 "lost=%lu storms=%lu snapshots=%lu ack=%s masked-at-entry=%lu masked-at-exit=%lu "
		 "store-peak=%lu result=%lu\n",
		 r->label, f->steps, r->store.n, p->ev.period, st->pmis, f->virtual_pmis,
		 f->virtual_pmis_masked, st->overflows, st->frozen, p->freeze,
		 (int64_t)p->ev.period + p->left, p->fixed_count, r->store.lost_full, st->storms,
		 p->snapshots, pmi_ack_name(pmi_ack_for(r->caps)), st->masked_at_entry,
		 st->masked_at_exit, f->store_peak, f->result);
}

static bool pmc_deliver(struct facility_run *r, const void *stored, const struct record_sink *k)
{
	const struct pmc_sample *s = stored;
	bool lbr = r->u.pmc.with_lbr;
	struct trace_record t = {.kind = TREC_SAMPLE,
				 .sample = {.ip = s->ip,
					    .has_lbr = lbr,
					    .lbr_from = lbr ? s->lbr_from : 0,
					    .lbr_to = lbr ? s->lbr_to : 0,
					    .has_tsc = true,
					    .tsc = s->tsc}};
	k->put(k->ctx, &t);
	return true;
}

/* Samples lost leave the capture incomplete (the session says so); a PMI storm, a refused
 * access, an overflow of a counter not sampled or an LBR snapshot that failed is a failure. */
static bool pmc_finish(struct facility_run *r)
{
	const struct pmc_state *p = &r->u.pmc;
	const struct trace_pmi_stats *st = &r->pmi;
	if (!st->storms && !st->msr_errors && !p->other_counters && !p->snapshot_failed)
		return true;
	r->print("error: pmc: %s: %lu storms, %lu refused MSR accesses, %lu overflows of counters "
		 "not sampled, %lu LBR snapshots failed\n",
		 r->label, st->storms, st->msr_errors, p->other_counters, p->snapshot_failed);
	return false;
}

const struct facility_driver pmc_driver = {
    .name = "pmc",
    .available = pmc_available,
    .plan = pmc_plan,
    .arm = pmc_arm,
    .disarm = pmc_disarm,
    .drain = pmc_drain,
    .describe = pmc_describe,
    .deliver = pmc_deliver,
    .finish = pmc_finish,
};
