/* SPDX-License-Identifier: MIT */
/*
 * The PEBS driver (arch/x86/drivers/pebs.c; record layouts, decoding and the enable rules:
 * pebs_record.h): one PEBS counter — PMC pebs.counter on instructions, branches, loads (load
 * latency), all loads or stores retired, or fixed counter 0 (extended PEBS) — reloaded from its
 * DS counter-reset slot after every record, a buffer of pebs.kib whose threshold leaves one
 * record of room per PEBS counter (references.md 6.5), drained by the PMI/DS service routine at
 * every threshold PMI and after the run. Records are stored as the hardware wrote them and
 * decoded when they are delivered.
 */
#ifndef ARCH_X86_DRIVERS_PEBS_H
#define ARCH_X86_DRIVERS_PEBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/drivers/pebs_record.h"
#include "arch/x86/pmu/ds_area.h"

struct pebs_state {
	bool fixed; /* extended PEBS on fixed counter 0, else GP counter `counter` */
	unsigned counter;
	uint8_t event, umask;
	bool load_latency;
	int mem;	 /* enum pebs_mem_event, or -1: no data address */
	uint64_t enable; /* IA32_PEBS_ENABLE */
	uint64_t ldlat;	 /* MSR_PEBS_LD_LAT */
	uint64_t global; /* IA32_PERF_GLOBAL_CTRL */
	unsigned format;
	bool adaptive, trap_like;
	uint64_t data_cfg;		/* MSR_PEBS_DATA_CFG (adaptive only) */
	bool with_lbr;			/* the LBR group: the LBRs run */
	size_t size;			/* bytes per record */
	uint32_t reset_off;		/* the counter's reset slot in the DS area */
	uint64_t buffer_bytes, records; /* the buffer, and the records it holds */
	bool core2_cap;			/* format 0: capped to one page (the quirk in pebs.c) */
	uint64_t at_end;		/* records drained after the run */
	uint64_t dropped;		/* records the backend could not store */
	uint64_t bad;			/* undecodable */
	enum pebs_defect first_defect;	/* what was wrong with the first of them */
	bool drained;			/* the drain decoded every record left once (bad counted) */
};

/* The service routine's sink for PEBS records (ctx: the struct facility_run): a copy, nothing
 * more (decoding waits until delivery). The path make bench's bench-isr measures. */
void pebs_isr_record(void *ctx, const void *record, size_t size);

/* Bench only: `records` format-3 PEBS records in CPU d's buffer and the DS buffer-overflow
 * status a threshold would have set, DS_AREA programmed. */
void pebs_fake_records(struct ds_percpu *d, unsigned records, uint64_t base_ip);

#endif
