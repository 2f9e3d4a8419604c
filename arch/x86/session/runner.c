/* SPDX-License-Identifier: MIT */
/*
 * The session runner: pick the backend (the hardware when it has the facility, else the
 * software PMU, said loudly), run the facility's session through its driver (capture.c,
 * arch/x86/drivers/driver.h) on the
 * CPUs the options ask for — the boot CPU, each CPU in turn, or all CPUs at once — and print
 * every CPU's report from the boot CPU (arch/x86/session/output.h).
 */
#include "arch/x86/drivers/driver.h"
#include "arch/x86/session/capture.h"
#include "arch/x86/caps/report.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/session/output.h"
#include "arch/x86/session/session.h"
#include "arch/x86/session/selfcheck.h"
#include "arch/x86/session/threads.h"
#include "arch/x86/user/linux_thread.h"
#include "kernel/arch_cpu.h"
#include "arch/x86/smp/smp.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/smp/timer.h"
#include "kernel/console.h"
#include "kernel/memory.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define TRACE_CALL_TIMEOUT_US 60000000 /* a CPU that shows no progress this long is stuck */

struct cpu_job {
	const struct trace_request *req;
	enum trace_outcome outcome[MAX_CPUS];
	/* the CPU that writes the console while the workload runs (a Linux program's threads go
	 * to the CPUs that neither run it nor write: threads.c) */
	unsigned drainer;
};

enum trace_outcome runner_session(const struct trace_request *q, const char *suffix)
{
	unsigned cpu = this_cpu()->index;
	struct trace_ctx t = {.req = q, .ok = true};
	const struct trace_caps *hw = caps_of_cpu(cpu);
	const char *why = "no capability record";
	if (hw && facility_driver_of(q->facility, hw)->available(hw, &why) == STATUS_OK) {
		pmu_use_hardware();
		t.caps = hw;
	} else {
		const struct spmu_personality *p =
		    q->personality < 0 ? NULL : spmu_personality_at((unsigned)q->personality);
		if (!p) { /* spmu=none: the hardware or nothing */
			tprintf("SKIP: %s: CPU %u has none: %s (spmu=none: no software PMU)\n",
				q->facility_name, cpu, why);
			return TRACE_SKIPPED;
		}
		pmu_use_model(p);
		t.model = pmu_model();
		t.caps = spmu_caps(t.model);
		tprintf("trace: CPU %u has no %s (%s): using the SOFTWARE PMU as '%s' (%s); "
			"results are model-verified, not silicon\n",
			cpu, q->facility_name, why, spmu_personality_name(p),
			spmu_personality_what(p));
	}
	fmt_snprintf(t.label, sizeof(t.label), "%s@%s cpu=%u%s", q->workload,
		     t.model ? spmu_personality_name(spmu_personality_of(t.model)) : "hardware",
		     cpu, suffix);
	enum trace_outcome out =
	    capture_session(&t, facility_driver_for(q->facility, t.caps, q->opt));
	pmu_use_hardware();
	return out == TRACE_FAILED || !t.ok ? TRACE_FAILED : out;
}

static void one_cpu(void *arg)
{
	struct cpu_job *job = arg;
	const struct trace_request *q = job->req;
	unsigned cpu = this_cpu()->index;
	/* A user program's expected result is its native run's on this CPU (it may ask which CPU
	 * it is on), before any facility is programmed. Its time is the yardstick of the traced
	 * run's (make bench: "slower than untraced"), on its own line. Its threads run natively
	 * too, on the CPUs that will trace them. */
	struct trace_request own = *q;
	if (q->expect_native) {
		if (q->reset)
			q->reset();
		threads_start(q, false, job->drainer);
		uint64_t t0 = arch_timestamp();
		own.expect = q->fn(q->arg);
		uint64_t cycles = arch_timestamp() - t0;
		if (q->done)
			q->done(NULL);
		threads_finish(TRACE_PASSED, NULL);
		tprintf("native %s %s cpu=%u tsc-cycles=%lu\n", q->facility_name, q->workload, cpu,
			cycles);
	}
	threads_start(q, true, job->drainer);
	enum trace_outcome out = runner_session(&own, "");
	job->outcome[cpu] = threads_finish(out, tprintf);
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
		hw += caps && facility_driver_of(f, caps)->available(caps, &why) == STATUS_OK;
	}
	return hw;
}

/* ---- running the CPUs, with records streamed while they run (option stream.live) ---------- */

struct cpu_runs {
	uint64_t seq[MAX_CPUS];
	bool posted[MAX_CPUS];
	bool live;
};

/* The drainer an idle CPU runs while the boot CPU traces: it owns the console meanwhile and
 * writes the boot CPU's output (a user program's too, and, when live, streams its records)
 * until told to stop. */
static volatile bool drainer_stop;

static void drainer(void *arg)
{
	unsigned cpu = *(const unsigned *)arg;
	while (!__atomic_load_n(&drainer_stop, __ATOMIC_ACQUIRE)) {
		threads_drain();
		if (!trace_live_drain(cpu))
			cpu_pause();
	}
	trace_live_drain(cpu);
}

/* A CPU's sign of life: what it has written, and the instructions it has stepped. */
static uint64_t progress(unsigned c)
{
	return trace_out_produced(c) + ss_steps_of(c);
}

/* Waits for CPU c's call, writing out its output (and, when live, streaming its records)
 * meanwhile; false when it shows no progress for TRACE_CALL_TIMEOUT_US. */
static bool wait_cpu(struct cpu_runs *r, unsigned c)
{
	uint64_t seen = progress(c), deadline = tsc_deadline(TRACE_CALL_TIMEOUT_US);
	while (!smp_call_finished(c, r->seq[c])) {
		uint64_t now = progress(c);
		if (now != seen) {
			seen = now;
			deadline = tsc_deadline(TRACE_CALL_TIMEOUT_US);
		} else if (tsc_passed(deadline)) {
			return false;
		}
		threads_drain();
		if (!trace_live_drain(c))
			cpu_pause();
	}
	return true;
}

/* The CPU that writes the console while the boot CPU traces (none when it is the only one). */
static unsigned boot_drainer(unsigned self)
{
	return self == 0 ? 1 : 0;
}

unsigned arch_trace_cpus(const struct trace_options *o, bool threads)
{
	unsigned n = arch_cpu_count();
	if (o->cpus != TRACE_CPUS_BOOT)
		return n;
	return threads && n > 2 ? n - 1 : 1; /* all but the drainer: the program's threads */
}

/* The boot CPU's own session, an idle CPU (when there is one) owning the console meanwhile. */
static void run_here(struct cpu_job *job)
{
	static unsigned self;
	self = this_cpu()->index;
	unsigned idle = boot_drainer(self);
	uint64_t seq = 0;
	job->drainer = idle;
	bool drained = false;
	if (idle < arch_cpu_count()) {
		__atomic_store_n(&drainer_stop, false, __ATOMIC_RELEASE);
		trace_out_owner(idle);
		drained = smp_call_post(idle, drainer, &self, &seq);
		if (!drained)
			trace_out_owner(self);
	}
	trace_live_serve(self, drained); /* its records if they stream live, a program's output */
	one_cpu(job);
	trace_live_serve(self, false);
	if (!drained)
		return;
	/* The drainer ends after its current write, which waits for the console as long as the
	 * host takes to read it: the boot CPU must not write (its flush, its lines) meanwhile. */
	__atomic_store_n(&drainer_stop, true, __ATOMIC_RELEASE);
	if (!smp_call_wait(idle, seq, tsc_deadline(TRACE_CALL_TIMEOUT_US)))
		kprintf("error: trace: the drainer on CPU %u did not stop in time\n", idle);
	trace_out_owner(self);
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
	/* a Linux program's threads trace on the CPUs that neither run it nor write the console
	 * (arch_trace_cpus): their buffers and stores too */
	bool traces[MAX_CPUS] = {0};
	unsigned tracing = 0;
	for (unsigned c = 0; c < n; c++) {
		traces[c] = c <= last || (req->threads && n > 2 && c != boot_drainer(self));
		tracing += traces[c];
	}
	memset(&job, 0, sizeof(job));
	memset(&runs, 0, sizeof(runs));
	job.req = req;
	/* Every traced CPU's buffers first, then the stores from what is left. */
	for (unsigned c = first; c < n; c++) {
		if (traces[c] && (!ts_prepare_cpu(c, req->opt) || !capture_prepare_cpu(c))) {
			kprintf("error: trace: out of memory for CPU %u's buffers\n", c);
			return TRACE_FAILED;
		}
	}
	for (unsigned c = first; c < n; c++)
		if (traces[c] && !ts_prepare_store(c, req->opt, tracing--))
			return TRACE_FAILED;
	runs.live = req->opt->stream_live != TRACE_LIVE_OFF && req->opt->stream != TRACE_STREAM_OFF;
	bool ok = true;
	trace_out_owner(self);
	if (mode == TRACE_CPUS_ALL) {
		for (unsigned c = first; c <= last; c++)
			runs.posted[c] = c != self && smp_call_post(c, one_cpu, &job, &runs.seq[c]);
		one_cpu(&job); /* every CPU traces: none is idle to drain this one */
	}
	bool all_skipped = true, incomplete = false;
	for (unsigned c = first; c <= last; c++) {
		if (mode != TRACE_CPUS_ALL) {
			trace_live_serve(c, c != self); /* this CPU drains it below (wait_cpu) */
			job.drainer = self;		/* it drains CPU c below (wait_cpu) */
			runs.posted[c] = c != self && smp_call_post(c, one_cpu, &job, &runs.seq[c]);
			if (c == self)
				run_here(&job);
		}
		if (c != self && !(runs.posted[c] && wait_cpu(&runs, c))) {
			kprintf("error: trace: CPU %u showed no progress for %u s\n", c,
				TRACE_CALL_TIMEOUT_US / 1000000);
			linux_threads_say(); /* a program's threads: where each one was */
			ok = false;
			job.outcome[c] =
			    TRACE_FAILED; /* never ended: failed, not the zeroed PASSED */
		}
		trace_live_serve(c, false);
		uint64_t live_bytes = trace_live_written(c);
		trace_out_flush(c); /* the CPU's lines whole, before the boot CPU's own */
		threads_flush();    /* then its program's threads', each CPU's in turn */
		if (runs.live)
			kprintf("trace: CPU %u: %lu bytes of its output written while it ran "
				"(stream.live)\n",
				c, live_bytes);
		report_selfcheck(req, c, job.outcome[c]);
		if (req->sessions) {
			struct trace_session_tally *t = req->sessions;
			enum trace_outcome o = job.outcome[c];
			t->passed += o == TRACE_PASSED;
			t->failed += o == TRACE_FAILED;
			t->skipped += o == TRACE_SKIPPED;
			t->incomplete += o == TRACE_INCOMPLETE;
		}
		ok &= job.outcome[c] != TRACE_FAILED;
		incomplete |= job.outcome[c] == TRACE_INCOMPLETE;
		all_skipped &= job.outcome[c] == TRACE_SKIPPED;
	}
	return !ok	     ? TRACE_FAILED
	       : incomplete  ? TRACE_INCOMPLETE
	       : all_skipped ? TRACE_SKIPPED
			     : TRACE_PASSED;
}

bool arch_trace_check_memory(const struct trace_options *o, bool threads, char *why, size_t size)
{
	unsigned cpus = arch_trace_cpus(o, threads);
	uint64_t store = o->store_kib ? (o->store_kib * 1024 + PAGE_SIZE - 1) / PAGE_SIZE : 1;
	ts_size_defaults(o, cpus, capture_pages() + store);
	uint64_t buffers = ts_cpu_pages(o) + capture_pages();
	uint64_t free = memory_allocator()->free_pages, reserve = ts_reserve_pages(free);
	uint64_t need = cpus * (buffers + store) + reserve;
	if (need <= free)
		return true;
	fmt_snprintf(why, size,
		     "the trace options need %lu KiB on %u CPU%s (per CPU: %lu KiB of buffers for "
		     "bts.records, pebs.kib and the output, trace.store %lu KiB; and %lu KiB kept "
		     "for the boot), and %lu KiB are free: a smaller trace.store, bts.records or "
		     "pebs.kib, trace.cpus=boot, or more memory (scripts/run --memory)",
		     need * PAGE_SIZE / 1024, cpus, cpus == 1 ? "" : "s",
		     buffers * PAGE_SIZE / 1024, store * PAGE_SIZE / 1024,
		     reserve * PAGE_SIZE / 1024, free * PAGE_SIZE / 1024);
	return false;
}
