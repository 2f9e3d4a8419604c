/* SPDX-License-Identifier: MIT */
/*
 * The door to trace sessions: the facilities and their options, one request (a facility over
 * a workload) and its outcome, the self-check tally, the record stream's header and the
 * service routine's bench. Implemented in arch/x86/session/ (the software PMU's names in
 * arch/x86/model/personality.c).
 */
#ifndef KERNEL_ARCH_TRACE_H
#define KERNEL_ARCH_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/arch_workloads.h"

/*
 * Trace sessions (option `trace` and its companions, kernel/options.c): typed values, parsed
 * and checked once at boot; the architecture's drivers turn them into register values.
 */
enum trace_facility {
	TRACE_BTS,    /* circular BTS, read after the run */
	TRACE_BTSINT, /* BTS drained by its threshold PMIs */
	TRACE_LBR,    /* legacy or Architectural LBR, as the CPU has */
	TRACE_PEBS,
	TRACE_BTF, /* single-step on branches */
	TRACE_PMC, /* counter-overflow sampling */
	TRACE_FACILITIES,
};
enum trace_cpus { TRACE_CPUS_BOOT, TRACE_CPUS_EACH, TRACE_CPUS_ALL };
enum trace_ring { TRACE_RING_ALL, TRACE_RING_USER, TRACE_RING_KERNEL };
enum trace_leak { TRACE_LEAK_FILTER, TRACE_LEAK_FLAG };
/* stream: the records also as the checked record stream (lib/stream.h, tools/btdecode). */
enum trace_stream { TRACE_STREAM_OFF, TRACE_STREAM_TEXT, TRACE_STREAM_BINARY };
/* capture.full: what a full record store does. */
enum trace_full {
	TRACE_FULL_WAIT, /* the workload waits while records are handed on (the default) */
	TRACE_FULL_STOP, /* the capture ends at a record boundary; the rest is counted */
	TRACE_FULL_WRAP, /* the oldest record makes room (the newest kept, as circular BTS) */
};
/* stream.live */
enum trace_live { TRACE_LIVE_AUTO, TRACE_LIVE_ON, TRACE_LIVE_OFF };
/* trace.out: where the record stream goes: auto = the USB stick's trace partition
 * and the serial line where the stick is found, else the serial line alone. */
enum trace_out { TRACE_OUT_AUTO, TRACE_OUT_SERIAL, TRACE_OUT_STICK, TRACE_OUT_BOTH };

/* lbr.filter: the seven branch classes of LBR_SELECT bits 2-8 and LBR_CTL bits 16-22 (SDM Vol.
 * 3B 17.7.2 Table 17-11, 17.8 Table 17-12; Architectural LBR: IA32_LBR_CTL), the rings, and
 * call-stack mode (SDM 17.9). No ring means both; no class means every class. */
#define TRACE_LBR_COND		0x001u /* Jcc */
#define TRACE_LBR_NEAR_REL_CALL 0x002u
#define TRACE_LBR_NEAR_IND_CALL 0x004u
#define TRACE_LBR_NEAR_RET	0x008u
#define TRACE_LBR_NEAR_IND_JMP	0x010u
#define TRACE_LBR_NEAR_REL_JMP	0x020u
#define TRACE_LBR_FAR		0x040u /* far branches, interrupts, exceptions, SYSCALL */
#define TRACE_LBR_CLASSES	0x07fu
#define TRACE_LBR_USER		0x100u /* branches ending in ring > 0 */
#define TRACE_LBR_KERNEL	0x200u /* branches ending in ring 0 */
#define TRACE_LBR_CALL_STACK	0x400u /* LIFO call-stack mode: near calls and returns only */

/* freeze: DEBUGCTL bits 11, 12, 14 (SDM Vol. 3B 17.4.7). */
#define TRACE_FREEZE_LBRS    0x1u
#define TRACE_FREEZE_PERFMON 0x2u
#define TRACE_FREEZE_SMM     0x4u

/* pebs.event */
enum trace_pebs_event {
	TRACE_PEBS_INSTRUCTIONS, /* on pebs.counter */
	TRACE_PEBS_BRANCHES,	 /* on pebs.counter */
	TRACE_PEBS_LOADS,	 /* on pebs.counter, load latency with pebs.ldlat */
	TRACE_PEBS_FIXED0,	 /* extended PEBS on fixed counter 0 */
	TRACE_PEBS_ALL_LOADS,	 /* every retired load instruction, with its data address */
	TRACE_PEBS_STORES,	 /* every retired store instruction, with its data address */
};

/* pebs.groups: adaptive PEBS record groups after the basic one. */
#define TRACE_PEBS_MEMINFO 0x1u
#define TRACE_PEBS_GPR	   0x2u
#define TRACE_PEBS_XMM	   0x4u
#define TRACE_PEBS_LBR	   0x8u

struct trace_options {
	uint64_t cpus;		 /* enum trace_cpus */
	uint64_t bts_ring;	 /* enum trace_ring */
	uint64_t bts_leak;	 /* enum trace_leak */
	uint64_t bts_records;	 /* 0: the mode's default */
	uint64_t btsint_records; /* interrupt mode's buffer; 0: bts_records, else the default */
	uint64_t bts_circular;	 /* the run has circular BTS sessions (trace=bts): 1 or 0 */
	uint64_t lbr_filter;	 /* TRACE_LBR_* */
	uint64_t lbr_depth;	 /* Architectural LBR; 0 = the deepest */
	uint64_t lbr_period;  /* branches per LBR sample (a PMI's snapshot); 0 = one at the end */
	uint64_t freeze;      /* TRACE_FREEZE_* */
	uint64_t pebs_event;  /* enum trace_pebs_event */
	uint64_t pebs_groups; /* TRACE_PEBS_* adaptive groups */
	uint64_t pebs_counter;
	uint64_t pebs_period;
	uint64_t pebs_kib;
	uint64_t pebs_ldlat; /* load-latency threshold in cycles; 0 = off */
	uint64_t pmc_period;
	uint64_t spmu_drop; /* test only: the model misses the Nth taken branch of a run; 0 = off */
	uint64_t stream;    /* enum trace_stream */
	uint64_t stream_path;  /* BTS records along the code (lib/stream_path.h): 1 on, 0 off */
	uint64_t stream_live;  /* enum trace_live: records streamed during the run (output.h) */
	uint64_t store_kib;    /* per CPU store of a run's records; 0: sized from free memory */
	uint64_t capture_full; /* enum trace_full */
	uint64_t out;	       /* enum trace_out */
};

/* The software PMU's personalities (option spmu), by index: the name, or NULL past the last.
 * *explicit_only: left out of spmu=all (a guest's view rather than a processor: kvm). Pure data:
 * the host build of the option parser links it too. */
const char *arch_spmu_name(unsigned i, bool *explicit_only);
#define TRACE_NO_PERSONALITY (-1) /* spmu=none: the hardware or SKIP */

/* One facility over one workload, with the options (kernel/tracing.c builds it). */
struct trace_request {
	enum trace_facility facility;
	const char *facility_name; /* bts btsint lbr pebs btf pmc */
	int personality;	   /* arch_spmu_name()'s index, or TRACE_NO_PERSONALITY */
	const char *workload;
	uint64_t (*fn)(uint64_t);
	uint64_t arg;
	uint64_t expect;    /* fn(arg)'s result: a run that returns another is a failure */
	bool expect_native; /* expect is instead what a native run on the same CPU returns */
	/* what a capture of one run must hold, from the workload's source; NULL: none */
	const struct workload_signature *signature;
	void (*reset)(void); /* before each run, on the CPU that runs it; or NULL */
	/* after each run, on that CPU: says how it ended with print (NULL: a native run, quiet) */
	void (*done)(workload_print_fn print);
	bool concurrent; /* may run on several CPUs at once */
	/* a Linux program: the CPUs that neither run it nor write the console meanwhile wait
	 * for its threads, each traced by its own session (arch/x86/session/threads.c) */
	bool threads;
	const struct trace_options *opt;
	/* NULL, or each CPU's session counted by how it went (a session is one workload on one
	 * CPU, as "trace: N sessions" and the trace-begin lines count them) */
	struct trace_session_tally *sessions;
};

struct trace_session_tally {
	unsigned passed, failed, skipped, incomplete;
};

/* How a capture went: every CPU's session passed, one failed, or every one was skipped (the
 * facility is absent and no software PMU stands in), or one did not deliver every record
 * (incomplete: lost or withheld, said with the count and the reason). */
enum trace_outcome { TRACE_PASSED, TRACE_FAILED, TRACE_SKIPPED, TRACE_INCOMPLETE };

/* Capture the workload with the facility on the CPUs the options ask for: on the hardware
 * when it has the facility, else on the software PMU presenting as `personality` (or SKIP
 * with the reason). Prints the records. */
enum trace_outcome arch_trace_workload(const struct trace_request *req);
/* Whether the trace options' buffers and stores fit the memory that is free, on the CPUs that
 * trace at once (threads: a Linux program is loaded, arch_trace_cpus); false with the sizes and
 * what to change in why. Before the first session. */
bool arch_trace_check_memory(const struct trace_options *o, bool threads, char *why, size_t size);
/* The CPUs whose sessions may trace at once: with threads (a Linux program), every CPU that
 * may run one of its threads. */
unsigned arch_trace_cpus(const struct trace_options *o, bool threads);

/* The self-checks printed so far (a TAP line each: "ok N - selfcheck FACILITY LABEL ..."). */
struct arch_selfcheck_tally {
	unsigned checks, failed, skipped;
};
void arch_selfcheck_tally(struct arch_selfcheck_tally *out);
/* Each session so far that did not deliver every record, a line through put: which, how many
 * records, why ("bts loop@skylake cpu=0: 12 records not delivered (store-full=12)"). */
void arch_trace_losses(workload_print_fn put);
/* How many CPUs have facility f in hardware (the rest use the software PMU, or skip). */
unsigned arch_facility_hardware_cpus(enum trace_facility f);

/* Bench: the PMI/DS service routine's path length in instructions per PMI and per record
 * (arch/x86/session/isr_bench.c); false if it misbehaves or exceeds its bound. */
bool arch_bench_isr(void);

/* stream=text or binary: the wire (binary true: raw frames; else "@BT1 " base64 lines) and the
 * record stream's HEADER frames (lib/stream.h), from the boot CPU. */
void arch_trace_stream_header(bool binary);
/* The boot's END frame, after every session: how many frames each CPU sent (lib/stream.h);
 * the stick's copy then ends with its commit block. */
void arch_trace_stream_end(void);
/* Before the HEADER: trace.out (enum trace_out) other than serial looks for the USB stick's
 * trace partition (arch/x86/usb/), said on the console; `about` (the run's options) goes in
 * its head. Stick alone: the frames leave the serial line. False when the stick was asked for
 * (stick, both) and is not there: the caller refuses the run (kernel/tracing.c). */
bool arch_trace_stream_out(uint64_t out, const char *about);
/* The stick's copy lost frames (write failure, vanished, full): the run is INCOMPLETE. */
bool arch_trace_stick_lost(void);
/* Another HEADER frame, of the run's own "key=value" strings (options, program). */
void arch_trace_stream_pairs(const char *const *pairs, unsigned n);

#endif
