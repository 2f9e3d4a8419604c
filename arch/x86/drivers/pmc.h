/* SPDX-License-Identifier: MIT */
/*
 * The counters (arch/x86/drivers/pmc.c; the pure decisions: pmc_plan.h): programming a general-
 * purpose or fixed counter through the PMU accessor, resetting them all, reading one back; and
 * the counter-sampling driver: general-purpose counter 0 counts instructions retired
 * (architectural event C0H) with INT set and a period of pmc.period, each overflow's PMI records
 * the interrupted instruction pointer (and, with freeze=lbrs, the frozen LBR stack's newest
 * entry) and re-arms the period; fixed counter 0 counts alongside as a cross-check.
 */
#ifndef ARCH_X86_DRIVERS_PMC_H
#define ARCH_X86_DRIVERS_PMC_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/drivers/pmc_plan.h"
#include "arch/x86/pmu/ds_isr.h"
#include "lib/status.h"

struct pmc_state {
	struct pmc_event ev;
	uint64_t freeze; /* DEBUGCTL freeze bits */
	bool fixed;	 /* fixed counter 0 counts alongside */
	bool with_lbr;	 /* freeze=lbrs: each sample carries the LBR stack's newest entry */
	uint64_t enable; /* IA32_PERF_GLOBAL_CTRL */
	struct ds_isr_config isr;
	uint64_t from, to; /* the newest branch of the last LBR snapshot */
	uint64_t other_counters, snapshots, snapshot_failed;
	int64_t left;	      /* the sampled counter after the run: -(events to the overflow) */
	uint64_t fixed_count; /* fixed counter 0 after the run */
};

/* Program GP counter n (EVTSEL cleared, the period's value, then EVTSEL): the refused MSR in
 * *msr. */
enum status pmc_program_gp(const struct trace_caps *c, unsigned n, const struct pmc_event *e,
			   uint32_t *msr);
/* Program fixed counter m (its FIXED_CTR_CTRL field and the period's value). */
enum status pmc_program_fixed(const struct trace_caps *c, unsigned m, bool usr, bool os, bool pmi,
			      uint64_t period, uint32_t *msr);
/* Stop and clear every counter the CPU has (GLOBAL_CTRL, EVTSELs, FIXED_CTR_CTRL, counts, the
 * status bits this driver owns). */
enum status pmc_reset_all(const struct trace_caps *c, uint32_t *msr);
/* GP counter n, sign-extended from the counter's width. */
enum status pmc_read_gp(const struct trace_caps *c, unsigned n, int64_t *value);

#endif
