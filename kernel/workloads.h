/* SPDX-License-Identifier: MIT */
/*
 * Workloads: small, deterministic branchy functions whose taken branches are known by
 * construction; they run under the trace facilities (and the single-step engine). They live
 * in .text.workload (linker.ld) so their address range is known to host-side oracles.
 */
#ifndef KERNEL_WORKLOADS_H
#define KERNEL_WORKLOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/arch.h"

struct workload {
	const char *name;
	const char *what;
	uint64_t (*fn)(uint64_t arg);
	uint64_t arg;
	uint64_t expect;     /* fn(arg)'s result, checked after every run */
	bool bench;	     /* long-running: left out of "all"; traced without keeping records */
	void (*reset)(void); /* run (not traced) before each run, or NULL */
	bool concurrent;     /* may run on several CPUs at once (no shared single slot) */
	bool explicit_only;  /* left out of "all": runs only when named */
	bool expect_native;  /* the expected result is that of a native run just before, on the
			      * same CPU (the user program's exit status); `expect` is unused */
	/* run (not traced) after each run, or NULL: says how it ended with print (NULL: quiet) */
	void (*done)(workload_print_fn print);
	uint64_t (*expect_of)(uint64_t arg); /* the expected result, when not a constant */
	/* the library's branch signature for an argument (kernel/arch.h), or NULL */
	void (*signature)(uint64_t arg, struct workload_signature *s);
	/* offsetof(struct kernel_options, ...) of the option that sets arg (0 there: arg), or 0 */
	size_t arg_option;
};

struct kernel_options;
/* w's argument: its option's value when given, else w->arg. */
uint64_t workload_arg(const struct workload *w, const struct kernel_options *o);
/* w's expected result for arg: w->expect, or w->expect_of(arg). */
uint64_t workload_expect(const struct workload *w, uint64_t arg);

struct cfg_list;
/* The i-th workload's name, NULL past the last; *explicit_only: left out of "all" (bench).
 * The names of options `workload` and `ss` (kernel/options.c). */
const char *workload_name(unsigned i, bool *explicit_only);
const struct workload *workload_at(unsigned i); /* NULL past the last */
int workload_index(const char *name);		/* the index of that name, or -1 */
/* Call fn for each workload of a selection (workload_name()'s indexes, in its order); returns
 * the AND of fn's results. */
bool workload_for_each(const struct cfg_list *selection,
		       bool (*fn)(const struct workload *, void *ctx), void *ctx);
extern const char __workload_start[], __workload_end[];

#endif
