/* SPDX-License-Identifier: MIT */
/*
 * What the facility sessions share (arch/x86/session/session.c): one capture of one workload on
 * one CPU, through the PMU accessor — on the hardware when it has the facility, else on the
 * software PMU, whose model the single-step engine feeds. A session programs its facility
 * with the drivers, runs the workload, stops, drains and writes its report with tprintf
 * (arch/x86/session/output.h): "trace-begin FACILITY LABEL key=value...", one line per record,
 * "trace-end FACILITY LABEL".
 */
#ifndef ARCH_X86_SESSION_SESSION_H
#define ARCH_X86_SESSION_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/spmu/singlestep.h"
#include "arch/x86/spmu/model.h"
#include "arch/x86/session/output.h"
#include "arch/x86/caps/caps.h"
#include "kernel/arch_trace.h"

struct trace_ctx {
	const struct trace_request *req;
	const struct trace_caps *caps; /* the model's when it runs, else this CPU's */
	struct spmu *model;	       /* NULL on the hardware */
	char label[64];		       /* "workload@personality|hardware cpu=N" */
	bool ok;
	bool skipped;		  /* the session said SKIP (ts_skip) */
	struct bt_writer *stream; /* stream=text: the session's record stream, else NULL */
};

/* A refused access fails the session, with the MSR and the model's reason. */
bool ts_check(struct trace_ctx *t, int rc, uint32_t msr, const char *what);
/* Run the workload (single-stepped into the model when there is one); its result must be
 * the expected one, else the session fails. *steps = instructions stepped (0 on hardware). */
uint64_t ts_run(struct trace_ctx *t, bool interrupts, uint64_t *steps);
/* "SKIP: <facility>: <reason>" into the report; the session counts as skipped. */
void ts_skip(struct trace_ctx *t, const char *facility, const char *reason);
/* stream.live: registers the session's pump (trace_live_open). With a drainer serving this CPU,
 * a full store waits for it (*room_wait_us); without one, a store's ring (records) smaller than
 * one drain of the DS buffer loses records, which is said. */
void ts_live_open(const struct trace_ctx *t, const char *facility, uint64_t ring, uint64_t drain,
		  const char *remedy, trace_live_fn pump, void *ctx, uint64_t *room_wait_us);
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

/* The LBRs for sessions that sample them (arch/x86/session/lbr.c): on with every branch kept,
 * the newest entry, off. */
bool lbr_enable_for_sampling(struct trace_ctx *t, uint64_t debugctl_extra);
bool lbr_newest(const struct trace_ctx *t, uint64_t *from, uint64_t *to);
void lbr_disable(struct trace_ctx *t);

/* Decode the instruction at an address a capture recorded, after the run (lib/x86_decode.c's
 * status): ring 3 code too, with user access open for the read (SMAP, cpu/usermode.h). */
struct x86_insn;
int ts_decode_recorded(uint64_t ip, struct x86_insn *in);

/* Boot CPU, before a run: CPU cpu's decode cache, scratch, output and DS buffers. */
bool ts_prepare_cpu(unsigned cpu, const struct trace_options *o);

#endif
