/* SPDX-License-Identifier: MIT */
#include "kernel/tracing.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/workloads.h"
#include "lib/fmt.h"
#include "lib/list.h"
#include "lib/string.h"

static const char *const facilities_known[] = {"bts", "btsint", "lbr", "pebs", "btf", "pmc"};

static bool known(const char *p, size_t len)
{
	for (size_t i = 0; i < sizeof(facilities_known) / sizeof(facilities_known[0]); i++)
		if (strlen(facilities_known[i]) == len && strncmp(facilities_known[i], p, len) == 0)
			return true;
	return false;
}

bool tracing_validate(const char *facilities, const struct trace_options *opt, char *err,
		      size_t err_size)
{
	if (!arch_trace_validate(opt, err, err_size))
		return false;
	if (strcmp(facilities, "none") == 0)
		return true;
	size_t len;
	for (const char *c = facilities, *p; list_next(&c, &p, &len);) {
		if (!known(p, len)) {
			fmt_snprintf(
			    err, err_size,
			    "option 'trace': unknown facility '%.*s'; accepted: none, or a "
			    "comma-separated list of: bts btsint lbr pebs btf pmc",
			    (int)len, p);
			return false;
		}
	}
	return true;
}

struct trace_ctx {
	const char *facility, *personality;
	const struct trace_options *opt;
};

static bool trace_one(const struct workload *w, void *ctx)
{
	const struct trace_ctx *t = ctx;
	struct trace_request r = {
	    .facility = t->facility,
	    .personality = t->personality,
	    .workload = w->name,
	    .fn = w->fn,
	    .arg = w->arg,
	    .expect = w->expect,
	    .reset = w->reset,
	    .concurrent = w->concurrent,
	    .opt = t->opt,
	};
	return arch_trace_workload(&r);
}

bool tracing_run(const char *facilities, const char *personality, const char *workloads,
		 const struct trace_options *opt)
{
	bool ok = true;
	if (strcmp(facilities, "none") == 0)
		return true;
	size_t len, qlen;
	for (const char *c = facilities, *p; list_next(&c, &p, &len);) {
		char facility[8];
		fmt_snprintf(facility, sizeof(facility), "%.*s", (int)len, p);
		/* Each personality of the comma-separated list in turn. */
		for (const char *qc = personality, *q; list_next(&qc, &q, &qlen);) {
			char one[32];
			fmt_snprintf(one, sizeof(one), "%.*s", (int)qlen, q);
			struct trace_ctx t = {facility, one, opt};
			ok &= workload_for_each(workloads, trace_one, &t);
		}
	}
	return ok;
}
