/* SPDX-License-Identifier: MIT */
#include "arch/x86/drivers/pmc_plan.h"
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/hw/pmu_regs.h"
#include "kernel/arch_trace.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define LEGACY_PERIOD_MAX ((1ull << 31) - 1) /* IA32_PMCx writes sign-extend bit 31 */

uint64_t pmc_period_value(unsigned width, uint64_t period)
{
	return (0 - period) & genmask(width - 1, 0);
}

int64_t pmc_sign_extend(uint64_t raw, unsigned width)
{
	unsigned shift = 64 - width;
	return (int64_t)(raw << shift) >> shift;
}

static uint64_t period_max(const struct trace_caps *c, unsigned width, bool fixed)
{
	/* Full-width writes (fixed counters always are) reach half the counter range: the
	 * overflow is the sign change (references.md 8). */
	if (fixed || c->perf_cap.full_width_write)
		return genmask(width - 2, 0);
	return LEGACY_PERIOD_MAX;
}

enum status pmc_check_gp(const struct trace_caps *c, unsigned n, const struct pmc_event *e,
			 char *why, size_t why_size)
{
	if (c->perfmon.version == 0 || n >= c->perfmon.gp_counters) {
		fmt_snprintf(why, why_size,
			     "general-purpose counter %u: this CPU has %u (CPUID.0AH:EAX[15:8], "
			     "perfmon version %u)",
			     n, c->perfmon.gp_counters, c->perfmon.version);
		return STATUS_INVALID;
	}
	uint64_t max = period_max(c, c->perfmon.gp_width, false);
	if (e->period > max) {
		fmt_snprintf(why, why_size,
			     "period %lu too large for counter %u; accepted: 1..%lu%s", e->period,
			     n, max, c->perf_cap.full_width_write ? "" : " (no full-width writes)");
		return STATUS_INVALID;
	}
	if (!e->usr && !e->os) {
		fmt_snprintf(why, why_size, "counter %u counts in no ring; accepted: user, kernel",
			     n);
		return STATUS_INVALID;
	}
	return STATUS_OK;
}

enum status pmc_check_fixed(const struct trace_caps *c, unsigned m, uint64_t period, char *why,
			    size_t why_size)
{
	if (c->perfmon.version < 2 || !(c->perfmon.fixed_mask & BIT(m))) {
		fmt_snprintf(why, why_size,
			     "fixed counter %u: not present (supported mask %#x, perfmon version "
			     "%u)",
			     m, c->perfmon.fixed_mask, c->perfmon.version);
		return STATUS_INVALID;
	}
	uint64_t max = period_max(c, c->perfmon.fixed_width, true);
	if (period > max) {
		fmt_snprintf(why, why_size,
			     "period %lu too large for fixed counter %u; accepted: "
			     "1..%lu",
			     period, m, max);
		return STATUS_INVALID;
	}
	return STATUS_OK;
}

void pmc_gp_write_target(const struct trace_caps *c, unsigned n, uint64_t value, uint32_t *msr,
			 uint64_t *out)
{
	if (c->perf_cap.full_width_write) {
		*msr = MSR_IA32_A_PMC0 + n;
		*out = value & genmask(c->perfmon.gp_width - 1, 0);
	} else {
		*msr = MSR_IA32_PMC0 + n;
		*out = value & GENMASK(31, 0);
	}
}

uint64_t pmc_evtsel(const struct pmc_event *e)
{
	return FIELD_PREP(EVTSEL_EVENT, e->event) | FIELD_PREP(EVTSEL_UMASK, e->umask) |
	       (e->usr ? EVTSEL_USR : 0) | (e->os ? EVTSEL_OS : 0) | (e->pmi ? EVTSEL_INT : 0) |
	       EVTSEL_EN | e->extra;
}

enum status pmc_freeze_bits(const struct trace_caps *c, const struct pmc_freeze *f, uint64_t *bits,
			    char *why, size_t why_size)
{
	*bits = 0;
	if ((f->lbrs || f->perfmon) && c->freeze.kind == TC_FREEZE_NONE) {
		fmt_snprintf(why, why_size, "freeze on PMI: %s", c->freeze.reason);
		return STATUS_UNSUPPORTED;
	}
	if (f->perfmon && c->freeze.perfmon_refused) {
		fmt_snprintf(why, why_size, "freeze on PMI (perfmon): %s", TC_KVM_RULE_DEBUGCTL);
		return STATUS_UNSUPPORTED;
	}
	if (f->smm && !c->freeze.while_smm) {
		/* DEBUGCTL[14] is valid only with IA32_PERF_CAPABILITIES[12] (references.md
		 * 2, 7.6). */
		fmt_snprintf(
		    why, why_size,
		    "freeze while in SMM: IA32_PERF_CAPABILITIES[12] is clear on this CPU");
		return STATUS_UNSUPPORTED;
	}
	*bits = (f->lbrs ? DEBUGCTL_FREEZE_LBRS_ON_PMI : 0) |
		(f->perfmon ? DEBUGCTL_FREEZE_PERFMON_ON_PMI : 0) |
		(f->smm ? DEBUGCTL_FREEZE_WHILE_SMM : 0);
	return STATUS_OK;
}

void pmc_freeze_from_options(uint64_t mask, struct pmc_freeze *f)
{
	f->lbrs = mask & TRACE_FREEZE_LBRS;
	f->perfmon = mask & TRACE_FREEZE_PERFMON;
	f->smm = mask & TRACE_FREEZE_SMM;
}
