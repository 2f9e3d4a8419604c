/* SPDX-License-Identifier: MIT */
/*
 * What the facility sessions share (arch/x86/session/session.c): one capture of one workload on
 * one CPU, through the PMU accessor — on the hardware when it has the facility, else on the
 * software PMU, whose model the single-step engine feeds. A session (capture.c) programs its
 * facility through its driver, runs the workload, stops, drains and writes its report with
 * tprintf (arch/x86/session/output.h): "trace-begin FACILITY LABEL key=value...", one line per
 * record, "trace-end FACILITY LABEL".
 */
#ifndef ARCH_X86_SESSION_SESSION_H
#define ARCH_X86_SESSION_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/step/singlestep.h"
#include "arch/x86/model/model.h"
#include "arch/x86/session/output.h"
#include "arch/x86/caps/caps.h"
#include "kernel/arch_trace.h"

/* A session's SKIP or refusal message: a capability reason with the words around it. */
#define TS_WHY_LEN (TRACE_CAPS_REASON_LEN + 128)

struct trace_ctx {
	const struct trace_request *req;
	const struct trace_caps *caps; /* the model's when it runs, else this CPU's */
	struct spmu *model;	       /* NULL on the hardware */
	char label[64];		       /* "workload@personality|hardware cpu=N" */
	bool ok;
	bool skipped; /* the session said SKIP (ts_skip) */
};

/* Before ts_run, outside its time: this CPU's decodings of the last run forgotten (code may
 * differ at the same addresses from run to run). */
void ts_run_prepare(void);
/* Run the workload (single-stepped into the model when there is one); its result must be
 * the expected one, else the session fails. *steps = instructions stepped (0 on hardware). */
uint64_t ts_run(struct trace_ctx *t, bool interrupts, uint64_t *steps);
/* "SKIP: <facility>: <reason>" into the report; the session counts as skipped. */
void ts_skip(struct trace_ctx *t, const char *facility, const char *reason);
/* A per-step hook for the next ts_run (BTF): on the model, called for each step BTF turns
 * into a #DB; on the hardware, for each #DB. NULL to remove. */
void ts_set_step_hook(ss_step_fn fn, void *ctx);
/* This CPU's scratch memory for the records a session drains during a run. */
void *ts_scratch(uint64_t *bytes);
/* PMIs the model requested during the last run, and those LVTPC's mask held back. */
uint64_t ts_virtual_pmis(uint64_t *masked);
/* Stepped instructions of the last run whose memory operand lib/x86_mem.c does not classify
 * (counted while the model counted memory events; their accesses are not reported). */
uint64_t ts_mem_unknown(void);
/* Every exception the running workload takes (arch/x86/cpu/trap.c): its last exception record. */
struct trap_frame;
void trace_note_exception(struct trap_frame *f);
/* Last exception records taken during the run (the sessions print them). */
void ts_print_exceptions(struct trace_ctx *t);

/* Boot CPU, before a run: CPU cpu's decode cache, output and DS buffers (allocated once). */
bool ts_prepare_cpu(unsigned cpu, const struct trace_options *o);
/* Before the first session: the default buffers sized from the memory that is free, for
 * `cpus` traced CPUs each needing `other_pages` besides their ts_cpu_pages (circular BTS with
 * bts.records=0: the buffer). */
void ts_size_defaults(const struct trace_options *o, unsigned cpus, uint64_t other_pages);
/* The pages ts_prepare_cpu takes for one CPU with options o. */
uint64_t ts_cpu_pages(const struct trace_options *o);
/* Boot CPU, once every traced CPU has its other buffers: CPU cpu's record store (allocated
 * once), trace.store's KiB or its share, with `sharing` CPUs, of what is free less the
 * boot's reserve, in one piece. */
bool ts_prepare_store(unsigned cpu, const struct trace_options *o, unsigned sharing);
/* The pages the boot keeps free for later when `free` are free. */
uint64_t ts_reserve_pages(uint64_t free);

#endif
