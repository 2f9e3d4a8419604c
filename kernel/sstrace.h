/* SPDX-License-Identifier: MIT */
/*
 * Single-step branch tracing of workloads (option `ss`): the software PMU's ground truth.
 * Every retired instruction is decoded; when execution does not continue at the next
 * instruction, a taken branch (from, to) is recorded. The records are printed as
 * `ss-branch FROM TO` lines so a host test can compare them with QEMU's own execution log.
 */
#ifndef KERNEL_SSTRACE_H
#define KERNEL_SSTRACE_H

#include <stdbool.h>
#include <stddef.h>

struct cfg_list;
/* Run the selected workloads (workload_name()'s indexes) single-stepped and print their
 * branches; false on a mismatch (a workload's result differs when stepped, or an instruction
 * could not be decoded). */
struct kernel_options;
bool sstrace_run(const struct cfg_list *selection, const struct kernel_options *o);

#endif
