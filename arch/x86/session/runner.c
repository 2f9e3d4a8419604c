/* SPDX-License-Identifier: MIT */
/*
 * The session runner: pick the backend (the hardware when it has the facility, else the
 * software PMU, said loudly), run the facility's session through its ops (facility.h) on the
 * CPUs the options ask for — the boot CPU, each CPU in turn, or all CPUs at once — and print
 * every CPU's report from the boot CPU (arch/x86/session/output.h).
 */
#include "arch/x86/session/facility.h"
#include "arch/x86/caps/report.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/session/output.h"
#include "arch/x86/session/session.h"
#include "arch/x86/session/selfcheck.h"
#include "kernel/arch_cpu.h"
#include "arch/x86/smp/smp.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/smp/timer.h"
#include "kernel/console.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define TRACE_CALL_TIMEOUT_US 60000000 /* single-stepped workloads on a busy host */

static const struct facility_ops *const facilities[TRACE_FACILITIES] = {
    [TRACE_LBR] = &facility_lbr,   [TRACE_BTS] = &facility_bts, [TRACE_BTSINT] = &facility_btsint,
    [TRACE_PEBS] = &facility_pebs, [TRACE_BTF] = &facility_btf, [TRACE_PMC] = &facility_pmc,
};

const struct facility_ops *facility_ops_of(enum trace_facility f)
{
	return f < TRACE_FACILITIES && facilities[f] ? facilities[f] : &facility_lbr;
}

struct cpu_job {
	const struct trace_request *req;
	enum trace_outcome outcome[MAX_CPUS];
};

static void one_cpu(void *arg)
{
	struct cpu_job *job = arg;
	const struct trace_request *q = job->req;
	unsigned cpu = this_cpu()->index;
	/* A user program's expected result is its native run's on this CPU (it may ask which CPU
	 * it is on), before any facility is programmed. */
	struct trace_request own = *q;
	if (q->expect_native) {
		if (q->reset)
			q->reset();
		own.expect = q->fn(q->arg);
		if (q->done)
			q->done(NULL);
	}
	struct trace_ctx t = {.req = &own, .ok = true};
	const struct trace_caps *hw = caps_of_cpu(cpu);
	const char *why;
	const struct facility_ops *ops = facility_ops_of(q->facility);
	if (hw ? ops->available(hw, &why) : (why = "no capability record", false)) {
		pmu_use_hardware();
		t.caps = hw;
	} else {
		const struct spmu_personality *p =
		    q->personality < 0 ? NULL : spmu_personality_at((unsigned)q->personality);
		if (!p) { /* spmu=none: the hardware or nothing */
			tprintf("SKIP: %s: CPU %u has none: %s (spmu=none: no software PMU)\n",
				q->facility_name, cpu, why);
			job->outcome[cpu] = TRACE_SKIPPED;
			return;
		}
		pmu_use_model(p);
		t.model = pmu_model();
		t.caps = spmu_caps(t.model);
		tprintf("trace: CPU %u has no %s (%s): using the SOFTWARE PMU as '%s' (%s); "
			"results are model-verified, not silicon\n",
			cpu, q->facility_name, why, spmu_personality_name(p),
			spmu_personality_what(p));
	}
	fmt_snprintf(t.label, sizeof(t.label), "%s@%s cpu=%u", q->workload,
		     t.model ? spmu_personality_name(spmu_personality_of(t.model)) : "hardware",
		     cpu);
	bool ok = ops->run(&t);
	pmu_use_hardware();
	job->outcome[cpu] = !(ok && t.ok) ? TRACE_FAILED : t.skipped ? TRACE_SKIPPED : TRACE_PASSED;
}

static struct arch_selfcheck_tally tally;

/* One TAP line per (workload, facility, CPU) whose workload has a signature, numbered here on
 * the boot CPU in the order the reports are printed. */
static void report_selfcheck(const struct trace_request *req, unsigned cpu,
			     enum trace_outcome outcome)
{
	char line[256];
	enum selfcheck_verdict v = selfcheck_take(cpu, line, sizeof(line));
	if (!req->signature)
		return;
	if (v == SELFCHECK_NONE && outcome == TRACE_SKIPPED) {
		fmt_snprintf(line, sizeof(line), "%s %s cpu=%u # SKIP the CPU has no %s",
			     req->facility_name, req->workload, cpu, req->facility_name);
		v = SELFCHECK_SKIP;
	}
	if (v == SELFCHECK_NONE)
		return; /* a facility with no check (btf) */
	tally.checks++;
	tally.failed += v == SELFCHECK_FAIL;
	tally.skipped += v == SELFCHECK_SKIP;
	kprintf("%s %u - selfcheck %s\n", v == SELFCHECK_FAIL ? "not ok" : "ok", tally.checks,
		line);
}

void arch_selfcheck_tally(struct arch_selfcheck_tally *out)
{
	*out = tally;
}

unsigned arch_facility_hardware_cpus(enum trace_facility f)
{
	unsigned hw = 0;
	const char *why;
	for (unsigned c = 0; c < arch_cpu_count(); c++) {
		const struct trace_caps *caps = caps_of_cpu(c);
		hw += caps && facility_ops_of(f)->available(caps, &why);
	}
	return hw;
}

/* ---- running the CPUs, with records streamed while they run (option stream.live) ---------- */

struct cpu_runs {
	uint64_t seq[MAX_CPUS];
	bool posted[MAX_CPUS];
	uint64_t deadline;
	bool live;
};

/* The drainer an idle CPU runs while the boot CPU traces: it streams the boot CPU's records
 * until told to stop. */
static volatile bool drainer_stop;

static void drainer(void *arg)
{
	unsigned cpu = *(const unsigned *)arg;
	while (!__atomic_load_n(&drainer_stop, __ATOMIC_ACQUIRE)) {
		if (!trace_live_drain(cpu))
			cpu_pause();
	}
}

/* Waits for CPU c's call; meanwhile the records it streams are written out when live. */
static bool wait_cpu(struct cpu_runs *r, unsigned c)
{
	while (!smp_call_finished(c, r->seq[c])) {
		if (tsc_passed(r->deadline))
			return false;
		if (!(r->live && trace_live_drain(c)))
			cpu_pause();
	}
	return true;
}

/* The boot CPU's own session, an idle CPU draining it when live and there is one. */
static void run_here(struct cpu_runs *r, struct cpu_job *job)
{
	static unsigned self;
	self = this_cpu()->index;
	unsigned idle = self == 0 ? 1 : 0;
	uint64_t seq = 0;
	bool drained = false;
	if (r->live && idle < arch_cpu_count()) {
		__atomic_store_n(&drainer_stop, false, __ATOMIC_RELEASE);
		drained = smp_call_post(idle, drainer, &self, &seq);
	}
	trace_live_serve(self, drained);
	one_cpu(job);
	trace_live_serve(self, false);
	if (!drained)
		return;
	/* The drainer ends after its current write, which waits for the console as long as the
	 * host takes to read it: the boot CPU must not write (its flush, its lines) meanwhile. */
	__atomic_store_n(&drainer_stop, true, __ATOMIC_RELEASE);
	if (!smp_call_wait(idle, seq, tsc_deadline(TRACE_CALL_TIMEOUT_US)))
		kprintf("error: trace: the drainer on CPU %u did not stop in time\n", idle);
}

enum trace_outcome arch_trace_workload(const struct trace_request *req)
{
	static struct cpu_job job; /* large: not on the stack */
	static struct cpu_runs runs;
	unsigned n = arch_cpu_count(), self = this_cpu()->index;
	enum trace_cpus mode = (enum trace_cpus)req->opt->cpus;
	if (mode == TRACE_CPUS_ALL && !req->concurrent) {
		kprintf("trace: workload '%s' keeps one shared slot (stack or page): it runs on "
			"each CPU in turn, not on all at once\n",
			req->workload);
		mode = TRACE_CPUS_EACH;
	}
	unsigned first = 0, last = mode == TRACE_CPUS_BOOT ? 0 : n - 1;
	memset(&job, 0, sizeof(job));
	memset(&runs, 0, sizeof(runs));
	job.req = req;
	for (unsigned c = first; c <= last; c++) {
		if (!ts_prepare_cpu(c, req->opt)) {
			kprintf("error: trace: out of memory for CPU %u's buffers\n", c);
			return TRACE_FAILED;
		}
	}
	runs.live = req->opt->stream_live && req->opt->stream != TRACE_STREAM_OFF;
	if (runs.live && !trace_live_prepare()) {
		kprintf("warning: trace: no memory for the live stream's buffer: records are "
			"streamed after the run\n");
		runs.live = false;
	}
	bool ok = true;
	runs.deadline = tsc_deadline(TRACE_CALL_TIMEOUT_US);
	if (mode == TRACE_CPUS_ALL) {
		for (unsigned c = first; c <= last; c++)
			runs.posted[c] = c != self && smp_call_post(c, one_cpu, &job, &runs.seq[c]);
		one_cpu(&job); /* every CPU traces: none is idle to drain this one */
	}
	bool all_skipped = true;
	for (unsigned c = first; c <= last; c++) {
		if (mode != TRACE_CPUS_ALL) {
			runs.deadline = tsc_deadline(TRACE_CALL_TIMEOUT_US);
			trace_live_serve(c, runs.live && c != self); /* this CPU drains it below */
			runs.posted[c] = c != self && smp_call_post(c, one_cpu, &job, &runs.seq[c]);
			if (c == self)
				run_here(&runs, &job);
		}
		if (c != self && !(runs.posted[c] && wait_cpu(&runs, c))) {
			kprintf("error: trace: CPU %u did not finish in time\n", c);
			ok = false;
		}
		trace_live_serve(c, false);
		if (runs.live)
			kprintf("trace: CPU %u: %lu bytes of its output written while it ran "
				"(stream.live)\n",
				c, trace_live_written(c));
		trace_out_flush(c);
		report_selfcheck(req, c, job.outcome[c]);
		ok &= job.outcome[c] != TRACE_FAILED;
		all_skipped &= job.outcome[c] == TRACE_SKIPPED;
	}
	return !ok ? TRACE_FAILED : all_skipped ? TRACE_SKIPPED : TRACE_PASSED;
}
