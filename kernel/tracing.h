/* SPDX-License-Identifier: MIT */
/* Capture sessions from the options: `trace` (facilities) over the workloads, on `spmu` when
 * the CPU lacks a facility. */
#ifndef KERNEL_TRACING_H
#define KERNEL_TRACING_H

#include "kernel/arch.h"

struct kernel_options;
/* Every listed facility, with each listed personality, over the selected workloads. Failed if
 * any capture failed; skipped if every one was skipped (or nothing was asked); else passed. */
enum trace_outcome tracing_run(const struct kernel_options *o);

#endif
