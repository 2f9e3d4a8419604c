/* SPDX-License-Identifier: MIT */
/*
 * The one PMI hook every trace session shares: while a session runs on a CPU, that CPU's PMI
 * entry (arch/x86/pmu/pmi.c) calls the PMI/DS service routine (arch/x86/pmu/ds_isr.c) with the
 * session's configuration and record sinks, and keeps the counts a session reports. LVTPC is
 * unmasked by the PMI entry after the routine has re-armed the counters (the "late" ack Linux
 * uses on Haswell and later big cores, references.md 7.4), then EOI.
 */
#ifndef ARCH_X86_PMU_ISR_HOOK_H
#define ARCH_X86_PMU_ISR_HOOK_H

#include <stdint.h>
#include "arch/x86/pmu/ds_isr.h"
#include "arch/x86/caps/pmi_ack.h"

struct trace_pmi_sinks {
	void (*bts_record)(void *ctx, const struct bts_record *r);
	void (*pebs_record)(void *ctx, const void *record, size_t size);
	/* A counter overflow (GLOBAL_STATUS bit), with the interrupted instruction pointer. */
	void (*overflow)(void *ctx, unsigned counter, uint64_t ip);
	void (*lbr_snapshot)(void *ctx); /* with ds_isr_config.lbr_snapshot */
	void *ctx;
};

struct trace_pmi_stats {
	uint64_t pmis; /* service routine calls */
	uint64_t idle; /* PMIs that found no cause (back-to-back, already handled) */
	uint64_t bts_drains, bts_drained, pebs_drains, pebs_drained, overflows, lbr_snapshots;
	uint64_t pebs_skipped; /* PEBS records a full buffer skipped, reckoned by the routine */
	uint64_t status_seen;
	uint64_t frozen;			  /* PMIs that found LBR_Frz / CTR_Frz */
	uint64_t storms;			  /* PMI storms: PMU left disabled */
	uint64_t msr_errors;			  /* refused MSR accesses inside the routine */
	unsigned max_loops;			  /* most loop iterations one PMI took */
	uint64_t masked_at_entry, masked_at_exit; /* LVTPC still masked around the routine */
};

/* On the running CPU: route its PMIs to the service routine with `cfg` and `sinks`. */
void trace_pmi_begin(const struct ds_isr_config *cfg, const struct trace_pmi_sinks *sinks,
		     enum pmi_ack ack);
/* Stop routing (PMIs are then only counted) and return the counts. */
void trace_pmi_end(struct trace_pmi_stats *out);
/* After trace_pmi_end, with the facility stopped: what is left in the DS buffers goes to the
 * same sinks through the same service-routine ops the PMIs used (one record path); returns
 * how many records. */
uint64_t trace_pmi_drain_bts(struct ds_area64 *ds);
/* Circular mode: zero the buffer before the run; after it, every record oldest first and
 * whether the buffer went round (pmu/ds_isr.h). */
void trace_pmi_clear_bts(struct ds_area64 *ds);
uint64_t trace_pmi_drain_bts_circular(struct ds_area64 *ds, bool *wrapped);
uint64_t trace_pmi_drain_pebs(struct ds_area64 *ds, size_t record_size);
/* After the run, before the counters are reset: the PEBS records a full buffer skipped since
 * the routine last looked (ds_pebs_skipped on GLOBAL_STATUS as it stands, no reload). */
uint64_t trace_pmi_pebs_skipped(const struct ds_area64 *ds);
/* The routine itself, as the PMI entry calls it (the bench calls it directly). */
struct trap_frame;
void trace_pmi_service(struct trap_frame *f);
/* How the routine reaches DS memory, for sessions that drain after the run. */
void *trace_pmi_at(void *ctx, uint64_t linear);

#endif
