/* SPDX-License-Identifier: MIT */
/* Capture sessions from the options: `trace` (facilities) over the workloads, on `spmu` when
 * the CPU lacks a facility. */
#ifndef KERNEL_TRACING_H
#define KERNEL_TRACING_H

#include <stdbool.h>
#include <stddef.h>

bool tracing_validate(const char *facilities, char *err, size_t err_size);
/* Every listed facility over every workload (the long `bench` one left out). */
bool tracing_run(const char *facilities, const char *personality);

#endif
