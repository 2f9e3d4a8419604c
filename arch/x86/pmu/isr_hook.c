/* SPDX-License-Identifier: MIT */
#include "arch/x86/pmu/isr_hook.h"
#include "arch/x86/smp/lapic.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/pmu/pmi.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/step/singlestep.h"
#include "arch/x86/cpu/trap.h"
#include "kernel/arch_cpu.h"
#include "lib/string.h"

struct pmi_session {
	struct ds_isr_config cfg;
	struct trace_pmi_sinks sinks;
	struct trace_pmi_stats stats;
	struct ds_isr_ops ops;
	uint64_t ip; /* interrupted instruction of the PMI being serviced */
};

static struct pmi_session sessions[MAX_CPUS];

static int trace_pmi_rdmsr(void *ctx, uint32_t msr, uint64_t *v)
{
	(void)ctx;
	return pmu_rdmsr(msr, v);
}

static int trace_pmi_wrmsr(void *ctx, uint32_t msr, uint64_t v)
{
	(void)ctx;
	return pmu_wrmsr(msr, v);
}

void *trace_pmi_at(void *ctx, uint64_t linear)
{
	(void)ctx;
	return arch_phys_to_virt(linear); /* DS area and buffers: identity map (ds_area.h) */
}

static void lbr_sink(void *ctx)
{
	struct pmi_session *s = ctx;
	s->sinks.lbr_snapshot(s->sinks.ctx);
}

static void unmask_mid(void *ctx)
{
	(void)ctx;
	lapic_unmask_pmi();
}

static bool lvtpc_masked(void)
{
	return (lapic_read(APIC_LVT_PMC) & APIC_LVT_MASKED) != 0;
}

static void overflow_sink(void *ctx, unsigned counter)
{
	struct pmi_session *s = ctx;
	if (s->sinks.overflow)
		s->sinks.overflow(s->sinks.ctx, counter, s->ip);
}

void trace_pmi_service(struct trap_frame *f)
{
	struct pmi_session *s = &sessions[this_cpu()->index];
	struct ds_isr_report r;
	s->ip = ss_workload_ip(f);
	struct trace_pmi_stats *st = &s->stats;
	st->masked_at_entry += lvtpc_masked();
	ds_isr_service(&s->ops, &s->cfg, &r);
	st->masked_at_exit += lvtpc_masked();
	st->pmis++;
	st->idle += r.loops == 0;
	st->bts_drains += r.bts_threshold;
	st->bts_drained += r.bts_drained;
	st->pebs_drains += r.pebs_threshold;
	st->pebs_drained += r.pebs_drained;
	st->pebs_skipped += r.pebs_skipped;
	st->overflows += r.overflows;
	st->lbr_snapshots += r.lbr_snapshots;
	st->status_seen |= r.status_seen;
	st->frozen += r.frozen;
	st->storms += r.storm;
	st->msr_errors += r.msr_errors;
	if (r.loops > st->max_loops)
		st->max_loops = r.loops;
}

void trace_pmi_begin(const struct ds_isr_config *cfg, const struct trace_pmi_sinks *sinks,
		     enum pmi_ack ack)
{
	struct pmi_session *s = &sessions[this_cpu()->index];
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->sinks = *sinks;
	s->ops = (struct ds_isr_ops){
	    .rdmsr = trace_pmi_rdmsr,
	    .wrmsr = trace_pmi_wrmsr,
	    .at = trace_pmi_at,
	    .bts_record = sinks->bts_record, /* straight to the session: the per-record path */
	    .pebs_record = sinks->pebs_record,
	    .overflow = overflow_sink,
	    .lbr_snapshot = sinks->lbr_snapshot ? lbr_sink : 0,
	    .unmask_mid = ack == PMI_ACK_MID ? unmask_mid : 0,
	    .ctx = s,
	    .sink_ctx = sinks->ctx,
	};
	pmi_set_ack(ack);
	pmi_set_service_routine(trace_pmi_service);
}

void trace_pmi_end(struct trace_pmi_stats *out)
{
	pmi_set_service_routine(0);
	pmi_set_ack(PMI_ACK_EARLY);
	*out = sessions[this_cpu()->index].stats;
}

uint64_t trace_pmi_drain_bts(struct ds_area64 *ds)
{
	return ds_bts_drain(&sessions[this_cpu()->index].ops, ds);
}

uint64_t trace_pmi_pebs_skipped(const struct ds_area64 *ds)
{
	struct pmi_session *s = &sessions[this_cpu()->index];
	uint64_t status = 0;
	unsigned errors = 0;
	if (s->cfg.perfmon_version < 2 || s->ops.rdmsr(s, MSR_IA32_PERF_GLOBAL_STATUS, &status))
		return 0;
	uint64_t n = ds_pebs_skipped(&s->ops, &s->cfg, ds, status, false, &errors);
	s->stats.msr_errors += errors;
	return n;
}

uint64_t trace_pmi_drain_pebs(struct ds_area64 *ds, size_t record_size)
{
	return ds_pebs_drain(&sessions[this_cpu()->index].ops, ds, record_size);
}

void trace_pmi_clear_bts(struct ds_area64 *ds)
{
	ds_bts_clear(&sessions[this_cpu()->index].ops, ds);
}

uint64_t trace_pmi_drain_bts_circular(struct ds_area64 *ds, bool *wrapped)
{
	return ds_bts_drain_circular(&sessions[this_cpu()->index].ops, ds, wrapped);
}
