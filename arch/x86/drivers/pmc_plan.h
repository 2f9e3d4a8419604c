/* SPDX-License-Identifier: MIT */
/*
 * The performance-counter driver (SDM Vol. 3B 18.2 architectural performance monitoring;
 * references.md 7.1 and 8 "Counters / PMI"): general-purpose counters from a raw event select and
 * unit mask with USR/OS/INT, fixed counters, periods as negative counts of the counter's
 * width, full-width writes through IA32_A_PMCx when IA32_PERF_CAPABILITIES[13] says so (the
 * legacy IA32_PMCx alias takes 32 bits sign-extended, so its periods stop at 2^31 - 1),
 * sign-extended reads; and the freeze controls of IA32_DEBUGCTL. Pure decisions are separate
 * from the MSR writes so host tests check them.
 */
#ifndef ARCH_X86_DRIVERS_PMC_PLAN_H
#define ARCH_X86_DRIVERS_PMC_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/status.h"
#include "arch/x86/caps/caps.h"

struct pmc_event {
	uint8_t event, umask; /* IA32_PERFEVTSELx[7:0], [15:8] */
	bool usr, os;	      /* count at CPL > 0 / CPL 0 */
	bool pmi;	      /* INT: a PMI on overflow (sampling); off for PEBS counters */
	uint64_t period;      /* overflow after this many events; 0 = count only */
	uint64_t extra;	      /* further EVTSEL bits (e.g. adaptive PEBS, bit 34) */
};

/* Counter value that overflows after `period` events: -period in `width` bits. */
uint64_t pmc_period_value(unsigned width, uint64_t period);
/* Sign-extend a raw `width`-bit counter reading (references.md 8: shift = 64 - width). */
int64_t pmc_sign_extend(uint64_t raw, unsigned width);
/* Checks a GP counter request against the capability record; 0 or -1 with a message. */
enum status pmc_check_gp(const struct trace_caps *c, unsigned n, const struct pmc_event *e,
			 char *why, size_t why_size);
enum status pmc_check_fixed(const struct trace_caps *c, unsigned m, uint64_t period, char *why,
			    size_t why_size);
/* The MSR a counter value is written through, and the value: full width via IA32_A_PMCx, else
 * the low 32 bits to IA32_PMCx (which sign-extends bit 31). */
void pmc_gp_write_target(const struct trace_caps *c, unsigned n, uint64_t value, uint32_t *msr,
			 uint64_t *out);
uint64_t pmc_evtsel(const struct pmc_event *e);

/* Freeze requests (SDM 17.4.7, references.md 7.3 and 7.6). */
struct pmc_freeze {
	bool lbrs, perfmon, smm;
};
/* IA32_DEBUGCTL bits for the request; STATUS_UNSUPPORTED with a message when the CPU lacks
 * one. */
enum status pmc_freeze_bits(const struct trace_caps *c, const struct pmc_freeze *f, uint64_t *bits,
			    char *why, size_t why_size);
/* The request of option freeze (TRACE_FREEZE_* bits, kernel/arch_trace.h). */
void pmc_freeze_from_options(uint64_t mask, struct pmc_freeze *f);

#endif
