/* SPDX-License-Identifier: MIT */
/*
 * A facility as the session runner (runner.c) sees it: whether a CPU's capability record has
 * it, and its session. Each facility's file defines its ops; the runner reaches them only
 * through facility_ops_of(), never by name, so the facility files depend on the session
 * helpers (session.h) and nothing depends back on them but the table.
 */
#ifndef ARCH_X86_SESSION_FACILITY_H
#define ARCH_X86_SESSION_FACILITY_H

#include <stdbool.h>
#include "arch/x86/caps/caps.h"
#include "arch/x86/session/session.h"
#include "kernel/arch_trace.h"

/* A session's SKIP or refusal message: a capability reason with the words around it. */
#define TS_WHY_LEN (TRACE_CAPS_REASON_LEN + 128)

struct facility_ops {
	/* Whether this capability record has the facility; if not, *why says why. */
	bool (*available)(const struct trace_caps *c, const char **why);
	/* Program, run the workload, drain, report, disable; false on failure. */
	bool (*run)(struct trace_ctx *t);
};

extern const struct facility_ops facility_lbr, facility_bts, facility_btsint, facility_pebs,
    facility_btf, facility_pmc;

/* The ops of facility f (never NULL). */
const struct facility_ops *facility_ops_of(enum trace_facility f);

#endif
