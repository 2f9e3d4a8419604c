/* SPDX-License-Identifier: MIT */
/*
 * The facility driver interface: one ops table per trace facility (BTS, BTS with threshold
 * interrupts, legacy LBR, Architectural LBR, PEBS, BTF, counter sampling), as Linux keeps each
 * facility's set-up, enable/disable and interrupt-time drain behind one (arch/x86/events/intel/
 * bts.c pmu ops, lbr.c's x86_pmu.lbr_* installed once at init). A session
 * (arch/x86/session/capture.c) runs every facility through it the same way:
 *
 *   available -> plan -> arm -> the workload runs -> disarm -> drain -> describe
 *   -> every stored record through deliver to the session's sink -> finish
 *
 * The driver owns its registers: only this folder calls the PMU accessor (arch/x86/pmu/access.h)
 * for a facility. What a facility records goes into the session's record store
 * (lib/record_store.h; the PMI/DS service routine's sinks and the drivers' drains fill it) as the
 * driver lays it out, and leaves through deliver in the record stream's layouts (lib/stream.h),
 * which the session's one sink turns into text, stream frames and self-check counts.
 *
 * Every entry returns enum status (lib/status.h) but deliver (a record or none) and the
 * printing ones. plan decides from data alone — the capability record, the options and the DS
 * buffer's size — so the register values it yields are host-tested (tests/unit).
 */
#ifndef ARCH_X86_DRIVERS_DRIVER_H
#define ARCH_X86_DRIVERS_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/caps/caps.h"
#include "arch/x86/drivers/bts.h"
#include "arch/x86/drivers/btf.h"
#include "arch/x86/drivers/lbr.h"
#include "arch/x86/drivers/pebs.h"
#include "arch/x86/drivers/pmc.h"
#include "arch/x86/pmu/isr_hook.h"
#include "kernel/arch_trace.h"
#include "lib/record_store.h"
#include "lib/status.h"
#include "lib/stream.h"

/* A record on its way to the session's sink: the stream's layouts (defined once, lib/stream.h). */
enum trace_record_kind {
	TREC_BTS,    /* a BTS record */
	TREC_LBR,    /* an LBR stack entry */
	TREC_PEBS,   /* a PEBS record, decoded */
	TREC_SAMPLE, /* a counter-overflow sample */
	TREC_BTF,    /* a BTF trap: the branch target, in sample.ip */
};
struct trace_record {
	enum trace_record_kind kind;
	union {
		struct bt_bts bts;
		struct bt_lbr lbr;
		struct bt_pebs pebs;
		struct bt_sample sample;
	};
};
struct record_sink {
	void (*put)(void *ctx, const struct trace_record *r);
	void *ctx;
};

/* How a capture is checked against the workload's branch signature (session/selfcheck.h). */
enum facility_check {
	CHECK_NONE,    /* no check (BTF: targets only) */
	CHECK_EXACT,   /* every taken branch, class by class (BTS) */
	CHECK_WINDOW,  /* the newest entries: no class above the signature (LBR) */
	CHECK_SAMPLES, /* one sample every check_every instructions (PEBS, counters) */
};

struct facility_driver;

/* One session of one facility on the running CPU, shared by the session and the driver. */
struct facility_run {
	/* The session's, before plan. */
	const struct facility_driver *drv;
	const struct trace_caps *caps; /* this CPU's, or the backend's (pmu/access.h) */
	const struct trace_options *opt;
	const struct ds_percpu *ds; /* this CPU's DS area and buffers (pmu/ds_area.h), or NULL */
	const char *label;	    /* "workload@personality cpu=N", for messages */
	workload_print_fn print;    /* the session's report */
	struct record_store store;  /* made by the session once plan has said record_size */
	bool ok; /* a driver clears it when a register or its records went wrong */

	/* plan's, for the session. */
	size_t record_size;  /* bytes per stored record (a multiple of 8); 0: nothing stored */
	bool interrupts;     /* the workload runs with interrupts on (PMIs) */
	bool live;	     /* its records may leave while the run goes on (option stream.live) */
	uint64_t live_drain; /* records one drain of the hardware buffer brings at once */
	uint64_t live_batch; /* records a drainer round takes: a bounded hold of the lock */
	const char *live_remedy; /* what keeps records when the store is smaller than a drain */
	bool ler;		 /* the last exception record is read after the session */
	enum facility_check check;

	/* disarm's and drain's, for the session. */
	struct trace_pmi_stats pmi; /* the service routine's counts over the run */
	uint64_t end_lost;	    /* records written and not delivered (the stream's END) */
	char end_why[128];	    /* why, "key=count ..." ("" when none were lost) */
	const char *check_skip;	    /* the self-check does not apply: why (NULL: it does) */
	uint64_t check_every;	    /* CHECK_SAMPLES: instructions per sample */

	/* The driver's own. */
	union {
		struct bts_state bts;
		struct lbr_state lbr;
		struct pebs_state pebs;
		struct pmc_state pmc;
		struct btf_state btf;
	} u;
};

/* What the session measured of the run, for describe's line. */
struct run_facts {
	uint64_t steps;	       /* instructions single-stepped (0 on the hardware) */
	uint64_t result;       /* the workload's return value */
	uint64_t virtual_pmis; /* PMIs the backend asked for, and those LVTPC held back */
	uint64_t virtual_pmis_masked;
	uint64_t mem_unknown;	/* stepped instructions whose memory operand is not classified */
	uint64_t streamed_live; /* records the live drainer delivered during the run */
	uint64_t tsc_cycles;	/* the run, in TSC cycles */
	uint64_t store_peak;	/* the most records the store held at once */
};

struct facility_driver {
	const char *name; /* as option trace spells it */
	/* STATUS_OK when the capability record has the facility; else STATUS_UNSUPPORTED and
	 * *why, the record's reason. */
	enum status (*available)(const struct trace_caps *c, const char **why);
	/* Every register value of the session from r->caps, r->opt and r->ds's sizes alone (pure:
	 * host-tested); sets plan's fields of r.
	 * STATUS_UNSUPPORTED: the CPU cannot do what the options ask (the session SKIPs with
	 * why); STATUS_INVALID: a request that cannot work (the session fails with why). On
	 * STATUS_OK a non-empty why is a note the session prints. */
	enum status (*plan)(struct facility_run *r, char *why, size_t why_size);
	/* Program and enable: STATUS_REFUSED when a register refused (said through r->print). */
	enum status (*arm)(struct facility_run *r);
	/* Disable (whatever arm managed), and the service routine's counts into r->pmi. */
	enum status (*disarm)(struct facility_run *r);
	/* What the hardware still holds, into r->store; the losses into end_lost/end_why and
	 * the self-check's applicability. */
	enum status (*drain)(struct facility_run *r);
	/* The session's summary line ("trace-begin FACILITY LABEL key=value...") and notes. */
	void (*describe)(struct facility_run *r, const struct run_facts *f);
	/* One stored record to the sink; false when it was not delivered (counted by the driver).
	 */
	bool (*deliver)(struct facility_run *r, const void *stored, const struct record_sink *k);
	/* A single-step trap of the run (BTF: one per taken branch), or NULL. */
	void (*step)(struct facility_run *r, uint64_t retired, uint64_t next);
	/* Last words: what went wrong with the records, said; false if anything did. */
	bool (*finish)(struct facility_run *r);
};

extern const struct facility_driver bts_driver, btsint_driver, lbr_legacy_driver, lbr_arch_driver,
    lbr_sample_driver, pebs_driver, btf_driver, pmc_driver;

/* The driver of facility f on a CPU with capability record c (NULL: any): legacy or
 * Architectural LBR as c has, picked here once. */
const struct facility_driver *facility_driver_of(enum trace_facility f, const struct trace_caps *c);

/* The driver of a session of facility f with options o: facility_driver_of's, or LBR sampling
 * (lbr_sample.c) for lbr with lbr.period. */
const struct facility_driver *facility_driver_for(enum trace_facility f, const struct trace_caps *c,
						  const struct trace_options *o);

/* A register access of the run: true when it went through; else "error: LABEL: WHAT: MSR x
 * refused (#GP)[: reason]" is said and the run is no longer ok. */
bool drv_check(struct facility_run *r, enum status st, uint32_t msr, const char *what);

#endif
