/* SPDX-License-Identifier: MIT */
#include "kernel/tracing.h"
#include "kernel/options.h"
#include "kernel/workloads.h"
#include "kernel/console.h"

struct trace_ctx {
	enum trace_facility facility;
	int personality;
	const struct trace_options *opt;
	unsigned passed, failed, skipped;
};

static bool trace_one(const struct workload *w, void *ctx)
{
	struct trace_ctx *t = ctx;
	struct workload_signature sig;
	if (w->signature)
		w->signature(w->arg, &sig);
	struct trace_request r = {
	    .facility = t->facility,
	    .facility_name = options_facility_name(t->facility),
	    .personality = t->personality,
	    .workload = w->name,
	    .fn = w->fn,
	    .arg = w->arg,
	    .expect = workload_expect(w),
	    .expect_native = w->expect_native,
	    .reset = w->reset,
	    .done = w->done,
	    .concurrent = w->concurrent,
	    .signature = w->signature ? &sig : NULL,
	    .opt = t->opt,
	};
	enum trace_outcome out = arch_trace_workload(&r);
	t->passed += out == TRACE_PASSED;
	t->failed += out == TRACE_FAILED;
	t->skipped += out == TRACE_SKIPPED;
	return out != TRACE_FAILED;
}

enum trace_outcome tracing_run(const struct kernel_options *o)
{
	struct trace_ctx t = {.opt = &o->tr};
	for (unsigned f = 0; f < o->trace.n; f++) {
		t.facility = (enum trace_facility)o->trace.item[f];
		/* Each personality in turn; spmu=none: the hardware only, once. */
		unsigned np = o->spmu.n ? o->spmu.n : 1;
		for (unsigned p = 0; p < np; p++) {
			t.personality = o->spmu.n ? o->spmu.item[p] : TRACE_NO_PERSONALITY;
			workload_for_each(&o->workload, trace_one, &t);
		}
	}
	struct arch_selfcheck_tally sc;
	arch_selfcheck_tally(&sc);
	if (sc.checks)
		kprintf(
		    "selfcheck: %u checks against the workloads' signatures: %u passed, %u failed, "
		    "%u skipped\n",
		    sc.checks, sc.checks - sc.failed - sc.skipped, sc.failed, sc.skipped);
	if (t.failed)
		return TRACE_FAILED;
	return t.passed ? TRACE_PASSED : TRACE_SKIPPED;
}
