/* SPDX-License-Identifier: MIT */
#include "kernel/sstrace.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/workloads.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "lib/x86_decode.h"

#define SSTRACE_MAX_BRANCHES 16384
#define X86_MAX_INSN_LEN     15

struct branch_rec {
	uint64_t from, to;
};

struct sstrace {
	struct branch_rec recs[SSTRACE_MAX_BRANCHES];
	unsigned count;
	uint64_t dropped;     /* branches beyond the buffer: counted, never silently lost */
	uint64_t undecodable; /* retired instructions the decoder refused */
};

static struct sstrace trace;

static void on_step(void *ctx, uint64_t retired, uint64_t next)
{
	struct sstrace *t = ctx;
	struct x86_insn in;
	if (x86_decode((const uint8_t *)retired, X86_MAX_INSN_LEN, &in) != 0) {
		t->undecodable++;
		return;
	}
	if (next == retired + in.length)
		return;
	if (t->count == SSTRACE_MAX_BRANCHES) {
		t->dropped++;
		return;
	}
	t->recs[t->count].from = retired;
	t->recs[t->count].to = next;
	t->count++;
}

/* Calls fn for each selected workload; returns false on an unknown name (name in *bad). */
static bool for_each_selected(const char *selection, bool (*fn)(const struct workload *),
			      const char **bad, size_t *bad_len)
{
	bool all = strcmp(selection, "all") == 0, ok = true;
	if (strcmp(selection, "none") == 0)
		return true;
	if (all) {
		for (unsigned i = 0; workload_at(i); i++)
			if (!workload_at(i)->bench)
				ok &= fn ? fn(workload_at(i)) : true;
		return ok;
	}
	for (const char *p = selection; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const struct workload *w = NULL;
		for (unsigned i = 0; workload_at(i); i++)
			if (strlen(workload_at(i)->name) == len &&
			    strncmp(workload_at(i)->name, p, len) == 0)
				w = workload_at(i);
		if (!w) {
			*bad = p;
			*bad_len = len;
			return false;
		}
		ok &= fn ? fn(w) : true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return ok;
}

bool sstrace_validate(const char *selection, char *err, size_t err_size)
{
	const char *bad = NULL;
	size_t bad_len = 0;
	if (for_each_selected(selection, NULL, &bad, &bad_len))
		return true;
	size_t pos = (size_t)fmt_snprintf(err, err_size,
					  "option 'ss': unknown workload '%.*s'; accepted: all, "
					  "none, or a comma-separated list of:",
					  (int)bad_len, bad);
	for (unsigned i = 0; workload_at(i) && pos < err_size; i++)
		pos += (size_t)fmt_snprintf(err + pos, err_size - pos, " %s", workload_at(i)->name);
	return false;
}

/* Decode and count only: what a step costs with the decoder but no record keeping. */
static void on_step_count(void *ctx, uint64_t retired, uint64_t next)
{
	struct sstrace *t = ctx;
	struct x86_insn in;
	if (x86_decode((const uint8_t *)retired, X86_MAX_INSN_LEN, &in) != 0)
		t->undecodable++;
	else if (next != retired + in.length)
		t->dropped++; /* counted as branches seen; bench runs keep no records */
}

static bool trace_one(const struct workload *w)
{
	uint64_t plain = w->fn(w->arg);
	memset(&trace, 0, sizeof(trace));
	uint64_t steps = 0, t0 = arch_timestamp();
	uint64_t stepped =
	    arch_single_step(w->fn, w->arg, w->bench ? on_step_count : on_step, &trace, &steps);
	uint64_t cycles = arch_timestamp() - t0;
	bool ok = plain == w->expect && stepped == w->expect && trace.undecodable == 0;
	kprintf("ss-begin %s steps=%lu branches=%u dropped=%lu undecodable=%lu result=%lu "
		"expected=%lu tsc-cycles=%lu\n",
		w->name, steps, trace.count, trace.dropped, trace.undecodable, stepped, w->expect,
		cycles);
	for (unsigned i = 0; i < trace.count; i++)
		kprintf("ss-branch %#lx %#lx\n", trace.recs[i].from, trace.recs[i].to);
	kprintf("ss-end %s %s\n", w->name, ok ? "ok" : "MISMATCH");
	return ok;
}

bool sstrace_run(const char *selection)
{
	const char *bad;
	size_t bad_len;
	kprintf("ss: workload range [%p, %p)\n", (const void *)__workload_start,
		(const void *)__workload_end);
	return for_each_selected(selection, trace_one, &bad, &bad_len);
}
