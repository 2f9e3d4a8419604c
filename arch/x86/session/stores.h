/* SPDX-License-Identifier: MIT */
/*
 * Where the PMI/DS service routine hands drained records (arch/x86/pmu/isr_hook.h sinks): the
 * stores of the BTS and PEBS sessions, shared with the service-routine bench
 * (arch/x86/session/isr_bench.c) so that it measures the very path a session runs.
 */
#ifndef ARCH_X86_SESSION_STORES_H
#define ARCH_X86_SESSION_STORES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/drivers/bts.h"

#define BTS_FLAG_LEAK BIT(63) /* in our copy only: the record left the traced ring */

struct bts_store {
	struct bts_record *rec;
	uint64_t n, cap;
	uint64_t lost_full; /* drained, but the store was full */
	uint64_t filtered;  /* outside the traced ring, dropped on request */
	uint64_t flagged;   /* outside the traced ring, kept and marked */
	enum bts_ring ring; /* the ring the user asked for */
	enum bts_leak leak;
};
void bts_store_record(void *ctx, const struct bts_record *r);

struct pebs_store {
	unsigned format;
	bool adaptive, trap_like;
	uint64_t data_cfg;
	uint64_t n, bad;
	uint64_t first_error; /* -(enum pebs_err) of the first undecodable record */
	uint64_t *ev, *next, *status;
	uint64_t *lbr_from, *lbr_to; /* the LBR group's newest entry, or NULL arrays */
	uint64_t *dla, *dse, *lat;   /* data address, source, latency, or NULL arrays */
	uint8_t *kind;		     /* enum pebs_ip_kind */
	uint64_t cap, lost_full;
};
void pebs_store_record(void *ctx, const void *record, size_t size);

#endif
