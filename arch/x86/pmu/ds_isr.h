/* SPDX-License-Identifier: MIT */
/*
 * The one PMI / DS interrupt service routine (SDM Vol. 3B 17.4.9.5 "Writing the DS Interrupt
 * Service Routine"; references.md 7.3-7.4): stop BTS and PEBS on entry, find every cause (a BTS
 * index at its threshold, which sets no status bit; OvfDSBuffer for PEBS; counter overflows;
 * LBR_Frz / CTR_Frz), drain what is due, re-arm overflowed counters, acknowledge (OVF_CTRL on
 * perfmon v2/v3, STATUS_RESET on v4+, which also unfreezes), restore what was disabled or
 * frozen, and loop while causes remain, bounded against a PMI storm. Every record drained is
 * handed to a sink; nothing is dropped silently. Pure: MSRs and DS memory come through
 * callbacks, so host tests drive it against the software PMU.
 */
#ifndef ARCH_X86_PMU_DS_ISR_H
#define ARCH_X86_PMU_DS_ISR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/hw/ds_layout.h"

#define DS_ISR_MAX_GP	 8
#define DS_ISR_MAX_FIXED 4

struct ds_isr_ops {
	int (*rdmsr)(void *ctx, uint32_t msr, uint64_t *value); /* 0 or an error */
	int (*wrmsr)(void *ctx, uint32_t msr, uint64_t value);
	void *(*at)(void *ctx, uint64_t linear); /* DS area and buffers */
	void (*bts_record)(void *ctx, const struct bts_record *r);
	void (*pebs_record)(void *ctx, const void *record, size_t size);
	void (*overflow)(void *ctx, unsigned counter); /* GLOBAL_STATUS bit of the counter */
	void (*lbr_snapshot)(void *ctx); /* read the (frozen) LBR stack; NULL: not asked */
	/* The mid ack (arch/x86/caps/pmi_ack.h): unmask LVTPC once the causes are handled, before
	 * the enables are restored; NULL for early or late. */
	void (*unmask_mid)(void *ctx);
	void *ctx;
	void *sink_ctx; /* for bts_record and pebs_record, when not ctx (NULL: ctx) */
};

/* What the session wants while it runs: restored on exit, whatever a freeze cleared. */
struct ds_isr_config {
	unsigned perfmon_version;
	uint64_t ds_area; /* linear address, 0 if no DS */
	bool bts, pebs;	  /* which DS facilities are on */
	size_t pebs_record_size;
	uint64_t debugctl, global_ctrl, pebs_enable;
	unsigned n_gp, n_fixed;
	uint64_t gp_reload[DS_ISR_MAX_GP]; /* counter value that re-arms the period */
	bool full_width;		   /* re-arm through IA32_A_PMCx (PERF_CAPABILITIES[13]) */
	uint64_t fixed_reload[DS_ISR_MAX_FIXED];
	/* PEBS counters' widths and the record format (where the fixed counters' reset slots are):
	 * a skipped assist's loss is reckoned from its counter (ds_pebs_skipped) */
	unsigned gp_width, fixed_width, pebs_format;
	unsigned max_loops; /* PMI-storm bound */
	bool lbr_snapshot;  /* read the LBR stack at every counter overflow, before the ack */
};

struct ds_isr_report {
	unsigned loops;
	uint64_t bts_drained, pebs_drained, overflows, lbr_snapshots;
	uint64_t pebs_skipped; /* PEBS records not written: the buffer was full (ds_pebs_skipped) */
	uint64_t status_seen;  /* union of the GLOBAL_STATUS values handled */
	bool bts_threshold, pebs_threshold, frozen;
	bool storm;	     /* still busy after max_loops: PMU left disabled */
	unsigned msr_errors; /* refused accesses (a driver bug if ever non-zero) */
};

void ds_isr_service(const struct ds_isr_ops *ops, const struct ds_isr_config *cfg,
		    struct ds_isr_report *r);
/* Hand every BTS record from base to index to ops->bts_record and reset the index (BTS must
 * be stopped); returns how many. The service routine uses it at the threshold, a session at
 * the end of a run. */
uint64_t ds_bts_drain(const struct ds_isr_ops *ops, struct ds_area64 *ds);
/*
 * Circular BTS (SDM Vol. 3B 17.4.9.3: at the absolute maximum the index goes back to the
 * base and older records are overwritten, with no interrupt and no count). ds_bts_clear
 * zeroes the buffer's last record slot before the run; after it, ds_bts_drain_circular tells
 * whether the buffer went round (the records are written in order from the base, so the last
 * slot is written once a lap is whole: it is no longer zero, as no branch goes from 0 to 0,
 * while the index has not reached the absolute maximum: a buffer exactly full did not go
 * round) and hands every record to ops->bts_record oldest first: the index
 * to the absolute maximum, then the base to the index. Returns how many; resets the index.
 */
void ds_bts_clear(const struct ds_isr_ops *ops, struct ds_area64 *ds);
uint64_t ds_bts_drain_circular(const struct ds_isr_ops *ops, struct ds_area64 *ds, bool *wrapped);
/*
 * PEBS assists the buffer's bounds check skipped: "If the bounds checks fail, the PEBS will be
 * skipped entirely" (SDM Vol. 3B 18.4.4.1), so the record is not written, the counter's
 * overflow bit stays set and the counter is not reloaded: it counts on from the overflow. For
 * each PEBS counter of c->pebs_enable with its bit in `status` and a count past the overflow
 * (0 is an assist still to come), the records it would have written since are reckoned from
 * that count and its period (the DS area's reset value: a record every period + 1 events), and
 * with `rearm` the counter is reloaded where it would stand had none been skipped, so that the
 * next record comes at the event it would have come at. Returns the records not written.
 */
uint64_t ds_pebs_skipped(const struct ds_isr_ops *ops, const struct ds_isr_config *c,
			 const struct ds_area64 *ds, uint64_t status, bool rearm,
			 unsigned *msr_errors);
/* The same for PEBS records of `record_size` bytes, to ops->pebs_record. */
uint64_t ds_pebs_drain(const struct ds_isr_ops *ops, struct ds_area64 *ds, size_t record_size);

#endif
