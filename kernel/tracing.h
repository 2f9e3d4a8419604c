/* SPDX-License-Identifier: MIT */
/* Capture sessions from the options: `trace` (facilities) over the workloads, on `spmu` when
 * the CPU lacks a facility. */
#ifndef KERNEL_TRACING_H
#define KERNEL_TRACING_H

#include <stdbool.h>
#include <stddef.h>

struct trace_options;
bool tracing_validate(const char *facilities, const struct trace_options *opt, char *err,
		      size_t err_size);
/* Every listed facility over the selected workloads (kernel/workloads.h selections). */
bool tracing_run(const char *facilities, const char *personality, const char *workloads,
		 const struct trace_options *opt);

#endif
