/* SPDX-License-Identifier: MIT */
/*
 * Counter programming through the PMU accessor (SDM Vol. 3B 18.2 architectural performance
 * monitoring; references.md 7.1, 8): a general-purpose counter's event select and period (full
 * width through IA32_A_PMCx where PERF_CAPABILITIES[13] says so), a fixed counter's control field
 * and period, every counter stopped and cleared, a counter read back sign-extended. The values
 * come from pmc_plan.c; the counter-sampling driver (pmc.c) and the PEBS driver use these.
 */
#include "arch/x86/drivers/pmc.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/pmu/access.h"
#include "lib/bits.h"

/* One write; its MSR in *refused when it was refused. */
static enum status wr(uint32_t msr, uint64_t v, uint32_t *refused)
{
	enum status st = pmu_wrmsr(msr, v);
	if (st != STATUS_OK)
		*refused = msr;
	return st;
}

enum status pmc_program_gp(const struct trace_caps *c, unsigned n, const struct pmc_event *e,
			   uint32_t *msr)
{
	uint32_t target;
	uint64_t v;
	enum status st;
	pmc_gp_write_target(c, n, pmc_period_value(c->perfmon.gp_width, e->period), &target, &v);
	if ((st = wr(MSR_IA32_PERFEVTSEL0 + n, 0, msr)) || (st = wr(target, v, msr)))
		return st;
	return wr(MSR_IA32_PERFEVTSEL0 + n, pmc_evtsel(e), msr);
}

enum status pmc_program_fixed(const struct trace_caps *c, unsigned m, bool usr, bool os, bool pmi,
			      uint64_t period, uint32_t *msr)
{
	uint64_t ctrl = 0;
	enum status st = pmu_rdmsr(MSR_IA32_FIXED_CTR_CTRL, &ctrl);
	if (st != STATUS_OK) {
		*msr = MSR_IA32_FIXED_CTR_CTRL;
		return st;
	}
	ctrl &= ~FIXED_CTRL_FIELD(m);
	ctrl |= (os ? FIXED_CTRL_OS(m) : 0) | (usr ? FIXED_CTRL_USR(m) : 0) |
		(pmi ? FIXED_CTRL_PMI(m) : 0);
	if ((st = wr(MSR_IA32_FIXED_CTR0 + m, pmc_period_value(c->perfmon.fixed_width, period),
		     msr)))
		return st;
	return wr(MSR_IA32_FIXED_CTR_CTRL, ctrl, msr);
}

/* Clear what is left in GLOBAL_STATUS: overflow bits of an earlier session, the PEBS buffer and
 * CondChgd bits, and on v4+ the freeze bits (references.md 7.2-7.3); never bits this driver does
 * not own (metrics, PT, ASCI, uncore). */
static enum status clear_status(const struct trace_caps *c, uint32_t *msr)
{
	uint64_t owned = genmask(c->perfmon.gp_counters ? c->perfmon.gp_counters - 1 : 0, 0) |
			 ((uint64_t)c->perfmon.fixed_mask << 32) | GLOBAL_STATUS_DS_BUFFER |
			 GLOBAL_STATUS_COND_CHGD;
	if (c->perfmon.version >= 4)
		owned |= GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ;
	uint64_t status = 0;
	if (pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS, &status) != STATUS_OK || !(status & owned))
		return STATUS_OK;
	return wr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, status & owned, msr);
}

enum status pmc_reset_all(const struct trace_caps *c, uint32_t *msr)
{
	enum status st;
	if (c->perfmon.version >= 2 && (st = wr(MSR_IA32_PERF_GLOBAL_CTRL, 0, msr)))
		return st;
	for (unsigned n = 0; n < c->perfmon.gp_counters; n++)
		if ((st = wr(MSR_IA32_PERFEVTSEL0 + n, 0, msr)) ||
		    (st = wr(MSR_IA32_PMC0 + n, 0, msr)))
			return st;
	if (c->perfmon.version < 2)
		return STATUS_OK;
	if (c->perfmon.fixed_counters && (st = wr(MSR_IA32_FIXED_CTR_CTRL, 0, msr)))
		return st;
	for (unsigned m = 0; m < c->perfmon.fixed_counters; m++)
		if ((c->perfmon.fixed_mask & BIT(m)) && (st = wr(MSR_IA32_FIXED_CTR0 + m, 0, msr)))
			return st;
	return clear_status(c, msr);
}

enum status pmc_read_gp(const struct trace_caps *c, unsigned n, int64_t *value)
{
	uint64_t raw = 0;
	enum status st = pmu_rdmsr(MSR_IA32_PMC0 + n, &raw);
	if (st == STATUS_OK)
		*value = pmc_sign_extend(raw, c->perfmon.gp_width);
	return st;
}
