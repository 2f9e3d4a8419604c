/* SPDX-License-Identifier: MIT */
/*
 * BTF capture (SDM Vol. 3B 17.4.3 "Single-Stepping on Branches"): with IA32_DEBUGCTL.BTF and
 * the workload's TF set, the single-step #DB comes after each taken branch rather than after
 * each instruction, so the handler sees every branch target. The #DB clears DEBUGCTL.LBR
 * (17.4.2) and, on the processors Linux knows, BTF too; the driver sets BTF again after every
 * trap. The session's single-step hook brings each trap here (where the backend single-steps
 * every instruction, each step it says BTF would have trapped on).
 */
#include "arch/x86/drivers/btf.h"
#include "arch/x86/drivers/driver.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/pmu/access.h"
#include "lib/fmt.h"

#define BTF_LIVE_BATCH 1024

/* Every processor with an LBR stack has DEBUGCTL.BTF (SDM Vol. 3B 17.4.1); a KVM guest's
 * writes of it are dropped. */
static enum status btf_available(const struct trace_caps *c, const char **why)
{
	if (c->btf_dropped) {
		*why = TC_KVM_RULE_BTF;
		return STATUS_UNSUPPORTED;
	}
	*why = c->lbr.reason;
	return c->lbr.kind != TC_LBR_NONE ? STATUS_OK : STATUS_UNSUPPORTED;
}

static enum status btf_plan(struct facility_run *r, char *why, size_t n)
{
	const char *reason;
	if (btf_available(r->caps, &reason) != STATUS_OK) {
		fmt_snprintf(why, n, "%s", reason);
		return STATUS_UNSUPPORTED;
	}
	r->record_size = sizeof(uint64_t); /* the branch target */
	r->live = true;			   /* targets come during the run */
	r->live_batch = BTF_LIVE_BATCH;
	r->check = CHECK_NONE;
	return STATUS_OK;
}

static enum status btf_arm(struct facility_run *r)
{
	if (!drv_check(r, pmu_wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_BTF), MSR_IA32_DEBUGCTL, "btf"))
		return STATUS_REFUSED;
	/* Read it back: a hypervisor may drop the write without a fault (KVM does), and a
	 * capture that never traps would look like a workload without branches. */
	uint64_t back = 0;
	if (pmu_rdmsr(MSR_IA32_DEBUGCTL, &back) != STATUS_OK || !(back & DEBUGCTL_BTF)) {
		r->print(
		    "error: btf: %s: IA32_DEBUGCTL reads %#lx after BTF was written: the write "
		    "was dropped\n",
		    r->label, back);
		r->ok = false;
		return STATUS_REFUSED;
	}
	return STATUS_OK;
}

/* On silicon the trap cannot tell the branch itself: only its target. */
static void btf_step(struct facility_run *r, uint64_t retired, uint64_t next)
{
	(void)retired;
	record_store_put(&r->store, &next);
	if (pmu_wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_BTF) != STATUS_OK)
		r->u.btf.rearm_failed++;
}

static enum status btf_disarm(struct facility_run *r)
{
	return drv_check(r, pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "btf")
		   ? STATUS_OK
		   : STATUS_REFUSED;
}

static enum status btf_drain(struct facility_run *r)
{
	r->end_lost = r->store.lost_full;
	if (r->end_lost)
		fmt_snprintf(r->end_why, sizeof(r->end_why), "store-full");
	return STATUS_OK;
}

static void btf_describe(struct facility_run *r, const struct run_facts *f)
{
	r->print("trace-begin btf %s steps=%lu traps=%lu lost=%lu rearm-failed=%lu store-peak=%lu "
		 "result=%lu\n",
		 r->label, f->steps, r->store.n + r->store.lost_full, r->store.lost_full,
		 r->u.btf.rearm_failed, f->store_peak, f->result);
}

static bool btf_deliver(struct facility_run *r, const void *stored, const struct record_sink *k)
{
	(void)r;
	struct trace_record t = {.kind = TREC_BTF, .sample = {.ip = *(const uint64_t *)stored}};
	k->put(k->ctx, &t);
	return true;
}

/* Targets lost leave the capture incomplete (the session says so); a refused re-arm fails. */
static bool btf_finish(struct facility_run *r)
{
	if (!r->u.btf.rearm_failed)
		return true;
	r->print("error: btf: %s: %lu re-arms refused\n", r->label, r->u.btf.rearm_failed);
	return false;
}

const struct facility_driver btf_driver = {
    .name = "btf",
    .available = btf_available,
    .plan = btf_plan,
    .arm = btf_arm,
    .disarm = btf_disarm,
    .drain = btf_drain,
    .describe = btf_describe,
    .deliver = btf_deliver,
    .step = btf_step,
    .finish = btf_finish,
};
