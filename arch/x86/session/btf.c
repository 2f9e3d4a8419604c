/* SPDX-License-Identifier: MIT */
/*
 * BTF capture (SDM Vol. 3B 17.4.3 "Single-Stepping on Branches"): with IA32_DEBUGCTL.BTF and
 * the workload's TF set, the single-step #DB comes after each taken branch rather than after
 * each instruction, so the handler sees every branch target. The #DB clears DEBUGCTL.LBR
 * (17.4.2) and, on the processors Linux knows, BTF too; the handler sets BTF again after every
 * trap. On the software PMU the engine steps every instruction and the model says which step
 * BTF would have trapped on.
 */
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/session/output.h"
#include "lib/stream.h"
#include "arch/x86/session/facility.h"
#include "arch/x86/session/session.h"

struct btf_store {
	struct trace_ctx *t;
	uint64_t *to;
	uint64_t n, cap, lost_full, rearm_failed;
};

static void btf_trap(void *ctx, uint64_t retired, uint64_t next)
{
	(void)retired; /* on silicon the engine cannot know the branch itself: only its target */
	struct btf_store *s = ctx;
	if (s->n < s->cap)
		s->to[s->n++] = next;
	else
		s->lost_full++;
	if (pmu_wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_BTF) != STATUS_OK)
		s->rearm_failed++;
}

static bool btf_available(const struct trace_caps *c, const char **why);

static bool session_btf(struct trace_ctx *t)
{
	const char *why;
	if (!btf_available(t->caps, &why)) {
		ts_skip(t, "btf", why);
		return true;
	}
	uint64_t bytes;
	struct btf_store s = {.t = t, .to = ts_scratch(&bytes)};
	s.cap = bytes / sizeof(uint64_t);
	bool ok = ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, DEBUGCTL_BTF), MSR_IA32_DEBUGCTL, "btf");
	/* Read it back: a hypervisor may drop the write without a fault (KVM does), and a
	 * capture that never traps would look like a workload without branches. */
	uint64_t back = 0;
	if (ok && (pmu_rdmsr(MSR_IA32_DEBUGCTL, &back) != STATUS_OK || !(back & DEBUGCTL_BTF))) {
		tprintf("error: btf: %s: IA32_DEBUGCTL reads %#lx after BTF was written: the write "
			"was dropped\n",
			t->label, back);
		ok = false;
	}
	ts_set_step_hook(btf_trap, &s);
	uint64_t steps = 0, result = ok ? ts_run(t, false, &steps) : 0;
	ts_set_step_hook(0, 0);
	ok &= ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "btf");
	tprintf("trace-begin btf %s steps=%lu traps=%lu lost=%lu rearm-failed=%lu result=%lu\n",
		t->label, steps, s.n + s.lost_full, s.lost_full, s.rearm_failed, result);
	struct bt_writer *stream =
	    t->req->opt->stream != TRACE_STREAM_OFF ? trace_stream_begin("btf", t->label) : NULL;
	for (uint64_t i = 0; i < s.n; i++) {
		tprintf("btf %#lx\n", s.to[i]);
		if (stream)
			bt_write_sample(stream, &(struct bt_sample){.ip = s.to[i]});
	}
	if (stream)
		bt_write_end(stream, s.lost_full, s.lost_full ? "store-full" : "");
	ts_print_exceptions(t);
	if (s.lost_full || s.rearm_failed) {
		tprintf("error: btf: %s: %lu targets lost (store full), %lu re-arms refused\n",
			t->label, s.lost_full, s.rearm_failed);
		ok = false;
	}
	tprintf("trace-end btf %s\n", t->label);
	return ok;
}

/* Every processor with an LBR stack has DEBUGCTL.BTF (SDM Vol. 3B 17.4.1); a KVM guest's
 * writes of it are dropped. */
static bool btf_available(const struct trace_caps *c, const char **why)
{
	if (c->btf_dropped) {
		*why = TC_KVM_RULE_BTF;
		return false;
	}
	*why = c->lbr.reason;
	return c->lbr.kind != TC_LBR_NONE;
}

const struct facility_ops facility_btf = {.available = btf_available, .run = session_btf};
