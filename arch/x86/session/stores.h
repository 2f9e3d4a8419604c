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

/* PEBS records are kept as the hardware wrote them (a copy: the drain stays short, as make
 * bench measures) and decoded after the run. */
struct pebs_store {
	unsigned format;
	bool adaptive, trap_like;
	uint64_t data_cfg;
	uint8_t *raw; /* cap records of size bytes (a multiple of 8: every layout's is) */
	size_t size;
	uint64_t n, cap, lost_full;
	uint64_t bad;	      /* undecodable (pebs_store_check) */
	uint64_t first_error; /* -(enum pebs_err) of the first of them */
};
void pebs_store_record(void *ctx, const void *record, size_t size);

/* One kept record, decoded: what a session prints of it. */
struct pebs_sample {
	uint64_t ev, next, status;
	uint64_t lbr_from, lbr_to; /* the LBR group's newest entry, or 0 */
	uint64_t dla, dse, lat;	   /* data address, source, latency, or 0 */
	uint8_t kind;		   /* enum pebs_ip_kind */
};
/* Record i decoded into *out: false if it does not decode. */
bool pebs_store_get(const struct pebs_store *s, uint64_t i, struct pebs_sample *out);
/* Decodes every kept record once: sets bad and first_error; returns the good ones. */
uint64_t pebs_store_check(struct pebs_store *s);

#endif
