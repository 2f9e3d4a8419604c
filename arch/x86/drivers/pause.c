/* SPDX-License-Identifier: MIT */
#include "arch/x86/drivers/pause.h"
#include "arch/x86/hw/lbr_regs.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/pmu/access.h"

#define PAUSE_DEBUGCTL_BITS (DEBUGCTL_LBR | DEBUGCTL_BTF | DEBUGCTL_TR | DEBUGCTL_BTS)

static enum status rd(uint32_t msr, uint64_t *v, uint32_t *refused)
{
	enum status st = pmu_rdmsr(msr, v);
	if (st != STATUS_OK)
		*refused = msr;
	return st;
}

static enum status wr(uint32_t msr, uint64_t v, uint32_t *refused)
{
	enum status st = pmu_wrmsr(msr, v);
	if (st != STATUS_OK)
		*refused = msr;
	return st;
}

enum status facility_pause(const struct trace_caps *c, struct facility_pause *p, uint32_t *msr)
{
	if (p->paused)
		return STATUS_OK;
	p->global = c->perfmon.version >= 2;
	p->lbr_ctl = c->arch_lbr.present;
	p->paused = true;
	enum status st;
	if ((st = rd(MSR_IA32_DEBUGCTL, &p->debugctl, msr)) ||
	    (st = wr(MSR_IA32_DEBUGCTL, p->debugctl & ~PAUSE_DEBUGCTL_BITS, msr)))
		return st;
	if (p->global && ((st = rd(MSR_IA32_PERF_GLOBAL_CTRL, &p->global_ctrl, msr)) ||
			  (st = wr(MSR_IA32_PERF_GLOBAL_CTRL, 0, msr))))
		return st;
	if (p->lbr_ctl && ((st = rd(MSR_IA32_LBR_CTL, &p->arch_lbr_ctl, msr)) ||
			   (st = wr(MSR_IA32_LBR_CTL, p->arch_lbr_ctl & ~LBR_CTL_LBREN, msr))))
		return st;
	return STATUS_OK;
}

enum status facility_resume(struct facility_pause *p, uint32_t *msr)
{
	if (!p->paused)
		return STATUS_OK;
	p->paused = false;
	enum status st;
	if (p->lbr_ctl && (st = wr(MSR_IA32_LBR_CTL, p->arch_lbr_ctl, msr)))
		return st;
	if (p->global && (st = wr(MSR_IA32_PERF_GLOBAL_CTRL, p->global_ctrl, msr)))
		return st;
	return wr(MSR_IA32_DEBUGCTL, p->debugctl, msr);
}
