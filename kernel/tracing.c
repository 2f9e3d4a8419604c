/* SPDX-License-Identifier: MIT */
#include "kernel/tracing.h"
#include <stdarg.h>
#include "kernel/options.h"
#include "kernel/workloads.h"
#include "kernel/console.h"
#include "kernel/program.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_trace.h"
#include "kernel/arch_workloads.h"
#include "lib/fmt.h"

struct trace_ctx {
	enum trace_facility facility;
	int personality;
	const struct kernel_options *all;
	unsigned passed, failed, skipped, incomplete;
};

void tracing_print_table(const struct tracing_summary *sum, workload_print_fn put)
{
	put("%-8s %8s %6s %6s %7s %10s %10s  %s", "facility", "sessions", "passed", "failed",
	    "skipped", "incomplete", "selfchecks", "where");
	for (unsigned f = 0; f < sum->n; f++) {
		const struct tracing_row *r = &sum->row[f];
		unsigned cpus = arch_cpu_count(), hw = r->hw_cpus;
		char checks[24], where[96];
		fmt_snprintf(checks, sizeof(checks), "%u/%u",
			     r->checks.checks - r->checks.failed - r->checks.skipped,
			     r->checks.checks);
		if (hw == cpus)
			fmt_snprintf(where, sizeof(where), "hardware (%u of %u CPUs)", hw, cpus);
		else if (sum->model_allowed)
			fmt_snprintf(where, sizeof(where),
				     "SOFTWARE PMU on %u of %u CPUs (model-verified, not silicon)",
				     cpus - hw, cpus);
		else
			fmt_snprintf(where, sizeof(where),
				     "hardware on %u of %u CPUs, skipped elsewhere", hw, cpus);
		put("%-8s %8u %6u %6u %7u %10u %10s  %s", options_facility_name(r->facility),
		    r->passed + r->failed + r->skipped + r->incomplete, r->passed, r->failed,
		    r->skipped, r->incomplete, checks, where);
	}
}

__attribute__((format(printf, 1, 2))) static void summary_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kvprintf_line("summary: ", fmt, ap);
	va_end(ap);
}

static bool trace_one(const struct workload *w, void *ctx)
{
	struct trace_ctx *t = ctx;
	struct workload_signature sig;
	uint64_t arg = workload_arg(w, t->all);
	if (w->signature)
		w->signature(arg, &sig);
	struct trace_request r = {
	    .facility = t->facility,
	    .facility_name = options_facility_name(t->facility),
	    .personality = t->personality,
	    .workload = w->name,
	    .fn = w->fn,
	    .arg = arg,
	    .expect = workload_expect(w, arg),
	    .expect_native = w->expect_native,
	    .reset = w->reset,
	    .done = w->done,
	    .concurrent = w->concurrent,
	    .threads = w->threads && program_linux_loaded(), /* its threads: hosts */
	    .signature = w->signature ? &sig : NULL,
	    .opt = &t->all->tr,
	};
	struct trace_session_tally each = {0};
	r.sessions = &each;
	enum trace_outcome out = arch_trace_workload(&r);
	if (each.passed + each.failed + each.skipped + each.incomplete == 0) /* none began */
		each = (struct trace_session_tally){.passed = out == TRACE_PASSED,
						    .failed = out == TRACE_FAILED,
						    .skipped = out == TRACE_SKIPPED,
						    .incomplete = out == TRACE_INCOMPLETE};
	t->passed += each.passed;
	t->failed += each.failed;
	t->skipped += each.skipped;
	t->incomplete += each.incomplete;
	return out != TRACE_FAILED;
}

static const char *given_options, *given_config;

void tracing_given_options(const char *load_options, const char *config)
{
	given_options = load_options;
	given_config = config;
}

/* "key=" and the text's settings: '#' comments dropped, runs of blanks and line ends as one
 * space, cut at size with "..." (the HEADER frame has room for about two such pairs). */
#define STREAM_OPTIONS_MAX 224
static bool flatten(char *out, size_t size, const char *key, const char *text)
{
	size_t n = (size_t)fmt_snprintf(out, size, "%s", key), start = n;
	bool comment = false, space = false;
	for (; text && *text && n + 4 < size; text++) {
		char ch = *text;
		if (ch == '\n' || ch == '\r')
			comment = false;
		if (ch == '#')
			comment = true;
		if (comment)
			continue;
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch < ' ') {
			space = n > start;
			continue;
		}
		if (space)
			out[n++] = ' ';
		space = false;
		out[n++] = ch;
	}
	if (text && *text && !comment)
		n += (size_t)fmt_snprintf(out + n, size - n, "...");
	out[n] = 0;
	return n > start;
}

/* The run's own HEADER frames: what it was asked (options), and the program it traces (its
 * build id and where it was placed: btdecode --program finds its symbols by them). */
static void stream_run_header(void)
{
	static char opt[STREAM_OPTIONS_MAX], cfg[STREAM_OPTIONS_MAX];
	static char prog[3][PROGRAM_PAIR_MAX];
	const char *pairs[3];
	unsigned n = 0;
	if (flatten(opt, sizeof(opt), "options=", given_options))
		pairs[n++] = opt;
	if (flatten(cfg, sizeof(cfg), "config=", given_config))
		pairs[n++] = cfg;
	if (n)
		arch_trace_stream_pairs(pairs, n);
	n = program_stream_pairs(prog);
	for (unsigned i = 0; i < n; i++)
		pairs[i] = prog[i];
	if (n)
		arch_trace_stream_pairs(pairs, n);
}

/* The sessions a run holds: facility x personality x workload x CPU, each ending in its
 * trace-end line or its SKIP line (scripts/progress counts them). */
static bool count_workload(const struct workload *w, void *ctx)
{
	(void)w;
	(*(unsigned *)ctx)++;
	return true;
}

static unsigned sessions_of(const struct kernel_options *o)
{
	unsigned workloads = 0;
	workload_for_each(&o->workload, count_workload, &workloads);
	unsigned cpus = o->tr.cpus == TRACE_CPUS_BOOT ? 1 : arch_cpu_count();
	return o->trace.n * (o->spmu.n ? o->spmu.n : 1) * workloads * cpus;
}

bool tracing_stream_out(const struct kernel_options *o, char *why, size_t size)
{
	if (o->tr.stream == TRACE_STREAM_OFF || o->tr.out == TRACE_OUT_SERIAL)
		return true;
	static char about[STREAM_OPTIONS_MAX];
	if (!flatten(about, sizeof(about), "", given_config))
		flatten(about, sizeof(about), "", given_options);
	if (arch_trace_stream_out(o->tr.out, about))
		return true;
	fmt_snprintf(why, size,
		     "option 'trace.out': %s: no USB stick with a trace partition was found (the "
		     "stick: lines above); accepted: trace.out=auto or serial on this machine, or "
		     "a boot from a stick made by make usb",
		     o->tr.out == TRACE_OUT_STICK ? "stick" : "both");
	return false;
}

enum trace_outcome tracing_run(const struct kernel_options *o, struct tracing_summary *out)
{
	struct trace_ctx t = {.all = o};
	static struct tracing_summary local;
	struct tracing_summary *sum = out ? out : &local;
	if (o->tr.stream != TRACE_STREAM_OFF) {
		arch_trace_stream_header(o->tr.stream == TRACE_STREAM_BINARY);
		stream_run_header();
	}
	sum->n = o->trace.n;
	sum->model_allowed = o->spmu.n != 0;
	sum->personalities[0] = 0;
	for (unsigned p = 0, len = 0; p < o->spmu.n && len < sizeof(sum->personalities); p++) {
		bool explicit_only;
		len +=
		    fmt_snprintf(sum->personalities + len, sizeof(sum->personalities) - len, "%s%s",
				 p ? "," : "", arch_spmu_name(o->spmu.item[p], &explicit_only));
	}
	kprintf("trace: %u sessions\n", sessions_of(o));
	for (unsigned f = 0; f < o->trace.n; f++) {
		t.facility = (enum trace_facility)o->trace.item[f];
		struct trace_ctx before = t;
		struct arch_selfcheck_tally checks_before;
		arch_selfcheck_tally(&checks_before);
		/* Each personality in turn; spmu=none: the hardware only, once. */
		unsigned np = o->spmu.n ? o->spmu.n : 1;
		for (unsigned p = 0; p < np; p++) {
			t.personality = o->spmu.n ? o->spmu.item[p] : TRACE_NO_PERSONALITY;
			workload_for_each(&o->workload, trace_one, &t);
		}
		struct arch_selfcheck_tally after;
		arch_selfcheck_tally(&after);
		sum->row[f] = (struct tracing_row){
		    .facility = t.facility,
		    .hw_cpus = arch_facility_hardware_cpus(t.facility),
		    .passed = t.passed - before.passed,
		    .failed = t.failed - before.failed,
		    .skipped = t.skipped - before.skipped,
		    .incomplete = t.incomplete - before.incomplete,
		    .checks = {after.checks - checks_before.checks,
			       after.failed - checks_before.failed,
			       after.skipped - checks_before.skipped},
		};
	}
	if (o->tr.stream != TRACE_STREAM_OFF)
		arch_trace_stream_end();
	tracing_print_table(sum, summary_line);
	arch_trace_losses(summary_line);
	struct arch_selfcheck_tally sc;
	arch_selfcheck_tally(&sc);
	sum->checks = sc;
	if (sc.checks)
		kprintf(
		    "selfcheck: %u checks against the workloads' signatures: %u passed, %u failed, "
		    "%u skipped\n",
		    sc.checks, sc.checks - sc.failed - sc.skipped, sc.failed, sc.skipped);
	if (t.failed)
		return TRACE_FAILED;
	if (t.incomplete || arch_trace_stick_lost())
		return TRACE_INCOMPLETE;
	return t.passed ? TRACE_PASSED : TRACE_SKIPPED;
}
