/* SPDX-License-Identifier: MIT */
/* One capture of one workload by one facility's driver on the running CPU (capture.c). */
#ifndef ARCH_X86_SESSION_CAPTURE_H
#define ARCH_X86_SESSION_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/arch_trace.h"

struct trace_ctx;
struct facility_driver;

/* Boot CPU, before a run: CPU cpu's session state (allocated once); false when memory runs out. */
bool capture_prepare_cpu(unsigned cpu);
/* The pages capture_prepare_cpu takes. */
uint64_t capture_pages(void);
/* The records CPU cpu's running session has kept so far (its store's count; 0: none). */
uint64_t capture_records_kept(unsigned cpu);
/* How the session went: passed, failed (said), skipped (said), or incomplete: records were not
 * delivered (said, with how many and why). */
enum trace_outcome capture_session(struct trace_ctx *t, const struct facility_driver *drv);

#endif
