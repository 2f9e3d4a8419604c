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

/* A ring of cap records: the service routine appends at `at` (n counts every record kept) while
 * n is below limit, the session or the live drainer takes them oldest first (taken counts them)
 * and moves limit to taken + cap: the appending side compares two numbers and nothing more.
 * When a drainer serves the CPU (trace_live_serve), a full ring waits for it to take some, up
 * to room_wait_us once in the session; without one, or past that, the record is lost and
 * counted. */
struct bts_store {
	struct bts_record *rec, *at, *end;
	uint64_t n, limit, cap, taken;
	uint64_t room_wait_us; /* 0: a full ring loses the record at once */
	uint64_t lost_full;    /* drained, but the store was full */
	uint64_t filtered;     /* outside the traced ring, dropped on request */
	uint64_t flagged;      /* outside the traced ring, kept and marked */
	enum bts_ring ring;    /* the ring the user asked for */
	enum bts_leak leak;
};
/* A live drainer that has not made room in this long is not coming: the session stops waiting. */
#define STORE_ROOM_WAIT_US 2000000
/* The appending side of a full ring (n == *limit): waits for the drainer to move *limit, up to
 * *room_wait_us, which a wait in vain sets to 0. True when there is room. */
bool store_wait_room(const uint64_t *limit, uint64_t n, uint64_t *room_wait_us);

/* An empty store in `bytes` of memory at `mem` (the ring, the counts, not the ring options). */
void bts_store_init(struct bts_store *s, void *mem, uint64_t bytes);
void bts_store_record(void *ctx, const struct bts_record *r);
/* The oldest record not yet taken, into *out: false when there is none. */
bool bts_store_take(struct bts_store *s, struct bts_record *out);

/* PEBS records are kept as the hardware wrote them (a copy: the drain stays short, as make
 * bench measures) and decoded when they are delivered, after the run or by the live drainer. A
 * ring like struct bts_store's. */
struct pebs_store {
	unsigned format;
	bool adaptive, trap_like;
	uint64_t data_cfg;
	uint8_t *raw; /* cap records of size bytes (a multiple of 8: every layout's is) */
	uint8_t *at, *end;
	size_t size;
	uint64_t n, limit, cap, taken, lost_full;
	uint64_t room_wait_us; /* as struct bts_store's */
	uint64_t bad;	       /* undecodable */
	uint64_t first_error;  /* -(enum pebs_err) of the first of them */
};
/* An empty store of records of s->size bytes in `bytes` of memory at `mem`. */
void pebs_store_init(struct pebs_store *s, void *mem, uint64_t bytes);
void pebs_store_record(void *ctx, const void *record, size_t size);

/* One kept record, decoded: what a session prints of it. */
struct pebs_sample {
	uint64_t ev, next, status;
	uint64_t lbr_from, lbr_to; /* the LBR group's newest entry, or 0 */
	uint64_t dla, dse, lat;	   /* data address, source, latency, or 0 */
	uint8_t kind;		   /* enum pebs_ip_kind */
};
/* Takes the oldest record not yet taken: 1 decoded into *out, the decoder's negative error
 * (enum pebs_err) when it does not decode, 0 when there is none. */
int pebs_store_take(struct pebs_store *s, struct pebs_sample *out);
/* Decodes every record not yet taken once, counting the undecodable in bad; returns the good
 * ones among all kept. */
uint64_t pebs_store_check(struct pebs_store *s);

#endif
