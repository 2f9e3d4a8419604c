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

/* Check a selection ("none", "all" or workload names separated by commas). */
bool sstrace_validate(const char *selection, char *err, size_t err_size);
/* Run the selected workloads single-stepped and print their branches; false on a mismatch
 * (a workload's result differs when stepped, or an instruction could not be decoded). */
bool sstrace_run(const char *selection);

#endif
