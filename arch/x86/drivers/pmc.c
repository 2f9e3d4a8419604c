/* SPDX-License-Identifier: MIT */
#include "arch/x86/drivers/pmc.h"
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/pmu/access.h"
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

int pmc_freeze_bits(const struct trace_caps *c, const struct pmc_freeze *f, uint64_t *bits,
		    char *why, size_t why_size)
{
	*bits = 0;
	if ((f->lbrs || f->perfmon) && c->freeze.kind == TC_FREEZE_NONE) {
		fmt_snprintf(why, why_size, "freeze on PMI: %s", c->freeze.reason);
		return -1;
	}
	if (f->perfmon && c->freeze.perfmon_refused) {
		fmt_snprintf(why, why_size, "freeze on PMI (perfmon): %s", TC_KVM_RULE_DEBUGCTL);
		return -1;
	}
	if (f->smm && !c->freeze.while_smm) {
		/* DEBUGCTL[14] is valid only with IA32_PERF_CAPABILITIES[12] (references.md
		 * 2, 7.6). */
		fmt_snprintf(
		    why, why_size,
		    "freeze while in SMM: IA32_PERF_CAPABILITIES[12] is clear on this CPU");
		return -1;
	}
	*bits = (f->lbrs ? DEBUGCTL_FREEZE_LBRS_ON_PMI : 0) |
		(f->perfmon ? DEBUGCTL_FREEZE_PERFMON_ON_PMI : 0) |
		(f->smm ? DEBUGCTL_FREEZE_WHILE_SMM : 0);
	return 0;
}

void pmc_freeze_from_options(uint64_t mask, struct pmc_freeze *f)
{
	f->lbrs = mask & TRACE_FREEZE_LBRS;
	f->perfmon = mask & TRACE_FREEZE_PERFMON;
	f->smm = mask & TRACE_FREEZE_SMM;
}

uint32_t pmc_program_gp(const struct trace_caps *c, unsigned n, const struct pmc_event *e)
{
	uint32_t msr;
	uint64_t v;
	pmc_gp_write_target(c, n, pmc_period_value(c->perfmon.gp_width, e->period), &msr, &v);
	if (pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + n, 0) != STATUS_OK)
		return MSR_IA32_PERFEVTSEL0 + n;
	if (pmu_wrmsr(msr, v) != STATUS_OK)
		return msr;
	if (pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + n, pmc_evtsel(e)) != STATUS_OK)
		return MSR_IA32_PERFEVTSEL0 + n;
	return 0;
}

uint32_t pmc_program_fixed(const struct trace_caps *c, unsigned m, bool usr, bool os, bool pmi,
			   uint64_t period)
{
	uint64_t ctrl = 0;
	if (pmu_rdmsr(MSR_IA32_FIXED_CTR_CTRL, &ctrl) != STATUS_OK)
		return MSR_IA32_FIXED_CTR_CTRL;
	ctrl &= ~FIXED_CTRL_FIELD(m);
	ctrl |= (os ? FIXED_CTRL_OS(m) : 0) | (usr ? FIXED_CTRL_USR(m) : 0) |
		(pmi ? FIXED_CTRL_PMI(m) : 0);
	if (pmu_wrmsr(MSR_IA32_FIXED_CTR0 + m, pmc_period_value(c->perfmon.fixed_width, period)) !=
	    STATUS_OK)
		return MSR_IA32_FIXED_CTR0 + m;
	if (pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, ctrl) != STATUS_OK)
		return MSR_IA32_FIXED_CTR_CTRL;
	return 0;
}

uint32_t pmc_reset_all(const struct trace_caps *c)
{
	if (c->perfmon.version >= 2 && pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0) != STATUS_OK)
		return MSR_IA32_PERF_GLOBAL_CTRL;
	for (unsigned n = 0; n < c->perfmon.gp_counters; n++) {
		if (pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + n, 0) != STATUS_OK)
			return MSR_IA32_PERFEVTSEL0 + n;
		if (pmu_wrmsr(MSR_IA32_PMC0 + n, 0) != STATUS_OK)
			return MSR_IA32_PMC0 + n;
	}
	if (c->perfmon.version >= 2) {
		if (c->perfmon.fixed_counters && pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0) != STATUS_OK)
			return MSR_IA32_FIXED_CTR_CTRL;
		for (unsigned m = 0; m < c->perfmon.fixed_counters; m++)
			if ((c->perfmon.fixed_mask & BIT(m)) &&
			    pmu_wrmsr(MSR_IA32_FIXED_CTR0 + m, 0) != STATUS_OK)
				return MSR_IA32_FIXED_CTR0 + m;
		/* Clear what is left in GLOBAL_STATUS: overflow bits of an earlier session, the
		 * PEBS buffer and CondChgd bits, and on v4+ the freeze bits
		 * (references.md 7.2-7.3); never bits this driver does not own (metrics, PT, ASCI,
		 * uncore). */
		uint64_t owned =
		    genmask(c->perfmon.gp_counters ? c->perfmon.gp_counters - 1 : 0, 0) |
		    ((uint64_t)c->perfmon.fixed_mask << 32) | GLOBAL_STATUS_DS_BUFFER |
		    GLOBAL_STATUS_COND_CHGD;
		if (c->perfmon.version >= 4)
			owned |= GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ;
		uint64_t status = 0;
		if (pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS, &status) == STATUS_OK &&
		    (status & owned) &&
		    pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, status & owned) != STATUS_OK)
			return MSR_IA32_PERF_GLOBAL_OVF_CTRL;
	}
	return 0;
}

bool pmc_read_gp(const struct trace_caps *c, unsigned n, int64_t *value)
{
	uint64_t raw = 0;
	if (pmu_rdmsr(MSR_IA32_PMC0 + n, &raw) != STATUS_OK)
		return false;
	*value = pmc_sign_extend(raw, c->perfmon.gp_width);
	return true;
}
