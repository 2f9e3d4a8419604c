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
#include "kernel/arch_workloads.h"

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
