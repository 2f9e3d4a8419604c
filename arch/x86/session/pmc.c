/* SPDX-License-Identifier: MIT */
/*
 * Counter sampling without PEBS (driver: arch/x86/drivers/pmc.c): general-purpose counter 0 counts
 * instructions retired (architectural event C0H) with INT set and a period of pmc.period;
 * each overflow raises a PMI whose service routine (arch/x86/pmu/isr_hook.c) records the
 * interrupted instruction pointer and re-arms the period. Fixed counter 0 (instructions
 * retired too, where present) counts alongside without sampling, as a cross-check; the
 * freeze option applies, and the routine undoes a legacy freeze or acknowledges a
 * streamlined one.
 */
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/drivers/pmc.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/session/output.h"
#include "lib/stream.h"
#include "arch/x86/pmu/isr_hook.h"
#include "arch/x86/session/facility.h"
#include "arch/x86/session/session.h"
#include "arch/x86/session/selfcheck.h"

#define PMC_SAMPLED	  0
#define PMC_PMI_MAX_LOOPS 100

struct pmc_store {
	struct trace_ctx *t;
	uint64_t *ip, *lbr_from, *lbr_to;
	uint64_t n, cap, lost_full, other_counters, snapshots, snapshot_failed;
	uint64_t from, to; /* the newest branch of the last snapshot */
};

/* In the PMI, before the ack unfreezes the stack: the sample's newest branch. */
static void snapshot(void *ctx)
{
	struct pmc_store *s = ctx;
	s->snapshots++;
	if (!lbr_newest(s->t, &s->from, &s->to))
		s->snapshot_failed++;
}

static void sample(void *ctx, unsigned counter, uint64_t ip)
{
	struct pmc_store *s = ctx;
	if (counter != PMC_SAMPLED)
		s->other_counters++;
	else if (s->n < s->cap) {
		s->lbr_from[s->n] = s->from;
		s->lbr_to[s->n] = s->to;
		s->ip[s->n++] = ip;
	} else
		s->lost_full++;
}

static bool session_pmc(struct trace_ctx *t)
{
	const struct trace_caps *c = t->caps;
	const struct trace_options *o = t->req->opt;
	char why[TS_WHY_LEN];
	struct pmc_event ev = {
	    .event = ARCH_EVENT_INSTRUCTIONS,
	    .usr = true,
	    .os = true,
	    .pmi = true,
	    .period = o->pmc_period,
	};
	struct pmc_freeze fr;
	uint64_t freeze = 0;
	pmc_freeze_from_options(o->freeze, &fr);
	if (pmc_check_gp(c, PMC_SAMPLED, &ev, why, sizeof(why)) != 0 ||
	    pmc_freeze_bits(c, &fr, &freeze, why, sizeof(why)) != 0) {
		ts_skip(t, "pmc", why);
		return true;
	}
	bool fixed = pmc_check_fixed(c, 0, 0, why, sizeof(why)) == 0;
	uint64_t enable = BIT(PMC_SAMPLED) | (fixed ? GLOBAL_STATUS_FIXED(0) : 0);
	uint64_t bytes;
	struct pmc_store s = {.t = t, .ip = ts_scratch(&bytes)};
	s.cap = bytes / (3 * sizeof(uint64_t));
	s.lbr_from = s.ip + s.cap;
	s.lbr_to = s.lbr_from + s.cap;
	/* With freeze=lbrs the LBRs run and every sample reads its newest branch while frozen. */
	bool with_lbr = fr.lbrs && c->lbr.kind != TC_LBR_NONE;
	struct ds_isr_config isr = {
	    .perfmon_version = c->perfmon.version,
	    .debugctl = freeze,
	    .global_ctrl = enable,
	    .n_gp = 1,
	    .max_loops = PMC_PMI_MAX_LOOPS,
	    .lbr_snapshot = with_lbr,
	};
	if (with_lbr && c->lbr.kind == TC_LBR_LEGACY)
		isr.debugctl |=
		    DEBUGCTL_LBR; /* what the routine restores: a legacy freeze clears it */
	uint32_t msr;
	uint64_t reload;
	pmc_gp_write_target(c, PMC_SAMPLED, pmc_period_value(c->perfmon.gp_width, ev.period), &msr,
			    &reload);
	isr.gp_reload[PMC_SAMPLED] = reload;
	isr.full_width = msr != MSR_IA32_PMC0 + PMC_SAMPLED; /* the driver chose IA32_A_PMCx */
	struct trace_pmi_sinks sinks = {
	    .overflow = sample,
	    .lbr_snapshot = with_lbr ? snapshot : 0,
	    .ctx = &s,
	};
	uint32_t bad = pmc_reset_all(c);
	if (!bad)
		bad = pmc_program_gp(c, PMC_SAMPLED, &ev);
	if (!bad && fixed)
		bad = pmc_program_fixed(c, 0, true, true, false, 0);
	bool ok = ts_check(t, bad ? STATUS_REFUSED : STATUS_OK, bad, "pmc") &&
		  (with_lbr ? lbr_enable_for_sampling(t, freeze)
			    : ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, freeze), MSR_IA32_DEBUGCTL,
				       "pmc"));
	trace_pmi_begin(&isr, &sinks, pmi_ack_for(t->caps));
	ok = ok && ts_check(t, pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, enable),
			    MSR_IA32_PERF_GLOBAL_CTRL, "pmc");
	uint64_t steps = 0, result = ok ? ts_run(t, true, &steps) : 0;
	ok &=
	    ts_check(t, pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0), MSR_IA32_PERF_GLOBAL_CTRL, "pmc");
	struct trace_pmi_stats st;
	trace_pmi_end(&st);
	int64_t left = 0;
	uint64_t fixed_count = 0;
	ok &= pmc_read_gp(c, PMC_SAMPLED, &left);
	if (fixed)
		ok &= ts_check(t, pmu_rdmsr(MSR_IA32_FIXED_CTR0, &fixed_count), MSR_IA32_FIXED_CTR0,
			       "pmc");
	ok &= ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "pmc");
	if (with_lbr)
		lbr_disable(t);
	bad = pmc_reset_all(c);
	ok &= ts_check(t, bad ? STATUS_REFUSED : STATUS_OK, bad, "pmc");
	uint64_t masked, vpmis = ts_virtual_pmis(&masked);
	/* left is -(events to the next overflow): the run's events are samples * period plus
	 * period + left. */
	tprintf("trace-begin pmc %s steps=%lu samples=%lu period=%lu pmis=%lu virtual-pmis=%lu "
		"masked=%lu overflows=%lu frozen=%lu freeze=%#lx remainder=%ld fixed0=%lu "
		"lost=%lu storms=%lu snapshots=%lu ack=%s masked-at-entry=%lu masked-at-exit=%lu "
		"result=%lu\n",
		t->label, steps, s.n, ev.period, st.pmis, vpmis, masked, st.overflows, st.frozen,
		freeze, (int64_t)ev.period + left, fixed_count, s.lost_full, st.storms, s.snapshots,
		pmi_ack_name(pmi_ack_for(c)), st.masked_at_entry, st.masked_at_exit, result);
	struct selfcheck sc;
	selfcheck_begin(&sc, t);
	for (uint64_t i = 0; i < s.n; i++)
		selfcheck_record(&sc, s.ip[i], 0);
	selfcheck_samples(t, &sc, "pmc", ev.period,
			  s.lost_full || st.storms ? "samples were lost" : NULL);
	struct bt_writer *stream =
	    t->req->opt->stream != TRACE_STREAM_OFF ? trace_stream_begin("pmc", t->label) : NULL;
	for (uint64_t i = 0; i < s.n; i++) {
		if (with_lbr)
			tprintf("sample %#lx lbr %#lx %#lx\n", s.ip[i], s.lbr_from[i], s.lbr_to[i]);
		else
			tprintf("sample %#lx\n", s.ip[i]);
		if (stream)
			bt_write_sample(
			    stream, &(struct bt_sample){.ip = s.ip[i],
							.has_lbr = with_lbr,
							.lbr_from = with_lbr ? s.lbr_from[i] : 0,
							.lbr_to = with_lbr ? s.lbr_to[i] : 0});
	}
	if (stream)
		bt_write_end(stream, s.lost_full, s.lost_full ? "store-full" : "");
	ts_print_exceptions(t);
	if (s.lost_full || st.storms || st.msr_errors || s.other_counters || s.snapshot_failed) {
		tprintf(
		    "error: pmc: %s: %lu samples lost (store full), %lu storms, %lu refused MSR "
		    "accesses, %lu overflows of counters not sampled\n",
		    t->label, s.lost_full, st.storms, st.msr_errors, s.other_counters);
		ok = false;
	}
	tprintf("trace-end pmc %s\n", t->label);
	return ok;
}

static bool pmc_available(const struct trace_caps *c, const char **why)
{
	*why = "no architectural performance monitoring (CPUID.0AH:EAX[7:0] = 0)";
	return c->perfmon.version >= 1;
}

const struct facility_ops facility_pmc = {.available = pmc_available, .run = session_pmc};
