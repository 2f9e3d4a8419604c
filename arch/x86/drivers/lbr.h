/* SPDX-License-Identifier: MIT */
/*
 * The LBR drivers (arch/x86/drivers/lbr.c; the pure decisions and decoding: lbr_plan.h): the
 * model-specific LBR stack (MSR bases and depth per microarchitecture, LBR_SELECT filters in
 * their suppress sense, TOS, every record format of IA32_PERF_CAPABILITIES[5:0]) and
 * Architectural LBR (depth from CPUID.1CH, LBR_CTL filters in their positive sense, entry 0
 * newest): two values of the driver interface, one picked per CPU. The stack is read once the
 * run is over. And the LBRs for sessions that sample them (PEBS's LBR group, counter sampling
 * with freeze=lbrs).
 */
#ifndef ARCH_X86_DRIVERS_LBR_H
#define ARCH_X86_DRIVERS_LBR_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/drivers/lbr_plan.h"
#include "arch/x86/drivers/pmc_plan.h"
#include "arch/x86/pmu/ds_isr.h"
#include "lib/status.h"

/* LBR sampling (option lbr.period, lbr_sample.c): a PMI every period branches. */
struct lbr_sampling {
	struct pmc_event ev;
	uint64_t enable; /* IA32_PERF_GLOBAL_CTRL */
	struct ds_isr_config isr;
	void *slot; /* the record the PMI's snapshot is filling */
	uint64_t other_counters, snapshot_failed;
	int64_t left; /* the counter after the run: -(events to the overflow) */
};

struct lbr_state {
	struct lbr_filter filter;
	bool filtering;	 /* the filter leaves something out */
	uint64_t freeze; /* DEBUGCTL freeze bits (option freeze) */
	unsigned depth, format;
	uint64_t select; /* legacy: MSR_LBR_SELECT, when filtering */
	bool sw_filter;	 /* legacy: the Nehalem erratum widened the filter, software narrows it */
	uint64_t ctl;	 /* Architectural: IA32_LBR_CTL */
	uint64_t tos;	 /* legacy: MSR_LBR_TOS after the run */
	unsigned sw_dropped;
	struct lbr_sampling sampling;
};

/* LBRs on with every branch kept, DEBUGCTL's other bits `debugctl_extra` (a freeze); the
 * refused MSR in *msr. */
enum status lbr_enable_for_sampling(const struct trace_caps *c, uint64_t debugctl_extra,
				    uint32_t *msr);
/* The newest entry's FROM and TO (decoded), read while the stack is frozen or stopped. */
enum status lbr_newest(const struct trace_caps *c, uint64_t *from, uint64_t *to);
/* Architectural LBR off (legacy LBR goes off with DEBUGCTL). */
enum status lbr_disable(const struct trace_caps *c, uint32_t *msr);

#endif
