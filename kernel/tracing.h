/* SPDX-License-Identifier: MIT */
/* Capture sessions from the options: `trace` (facilities) over the workloads, on `spmu` when
 * the CPU lacks a facility. */
#ifndef KERNEL_TRACING_H
#define KERNEL_TRACING_H

#include "kernel/arch_trace.h"
#include "kernel/arch_workloads.h"
#include "lib/config.h"

struct kernel_options;

/* What the sessions of one facility came to (the summary table's row; the hardware report's). */
struct tracing_row {
	enum trace_facility facility;
	unsigned passed, failed, skipped, incomplete;
	unsigned hw_cpus; /* CPUs whose own facility it ran on (the rest: the software PMU) */
	struct arch_selfcheck_tally checks;
};
struct tracing_summary {
	unsigned n; /* rows, one per facility asked for, in order */
	struct tracing_row row[CFG_LIST_MAX];
	struct arch_selfcheck_tally checks; /* all of them */
	bool model_allowed;		    /* an spmu personality was given */
	char personalities[96];		    /* their names, comma-separated */
};

/* Every listed facility, with each listed personality, over the selected workloads. Failed if
 * any capture failed; skipped if every one was skipped (or nothing was asked); else passed.
 * *sum (may be NULL) gets the summary table's rows. */
/* The options as given (UEFI load options, the config file's text), for the record stream's
 * HEADER (stream=text): "options=..." and "config=...", comments dropped, lines joined. */
void tracing_given_options(const char *load_options, const char *config);
/* Before the first session (after tracing_given_options): where the record stream goes, the
 * USB stick's trace partition looked for as option trace.out asks. False, with why, when the
 * stick was asked for (stick, both) and none was found: the run is bad input (status 2). */
bool tracing_stream_out(const struct kernel_options *o, char *why, size_t size);
enum trace_outcome tracing_run(const struct kernel_options *o, struct tracing_summary *sum);
/* The table of sum's rows, a header line then one line per facility (sessions, self-checks,
 * where they ran), each through put: the run's summary and the hardware report print it. */
void tracing_print_table(const struct tracing_summary *sum, workload_print_fn put);

#endif
