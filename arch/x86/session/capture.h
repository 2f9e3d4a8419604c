/* SPDX-License-Identifier: MIT */
/* One capture of one workload by one facility's driver on the running CPU (capture.c). */
#ifndef ARCH_X86_SESSION_CAPTURE_H
#define ARCH_X86_SESSION_CAPTURE_H

#include <stdbool.h>

struct trace_ctx;
struct facility_driver;

/* Boot CPU, before a run: CPU cpu's session state (allocated once); false when memory runs out. */
bool capture_prepare_cpu(unsigned cpu);
/* false: the session failed (said); a SKIP is a success (t->skipped). */
bool capture_session(struct trace_ctx *t, const struct facility_driver *drv);

#endif
