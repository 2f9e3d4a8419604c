/* SPDX-License-Identifier: MIT */
/*
 * The BTS driver (arch/x86/drivers/bts.c; the pure decisions: bts_plan.h): circular mode, a
 * buffer whose threshold lies above the absolute maximum, read once the run is over; interrupt
 * mode (btsint), a small buffer whose threshold leaves headroom, drained by the PMI/DS service
 * routine at every threshold PMI and the rest after the run. Records crossing out of the traced
 * ring are filtered or flagged (option bts.leak).
 */
#ifndef ARCH_X86_DRIVERS_BTS_H
#define ARCH_X86_DRIVERS_BTS_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/drivers/bts_plan.h"
#include "arch/x86/pmu/ds_area.h"

#define BTS_FLAG_LEAK BIT(63) /* in the store's copy only: the record left the traced ring */

struct bts_state {
	struct bts_plan plan;
	bool counted;		    /* the backend counts what it stored (not silicon) */
	uint64_t stored_before;	    /* its count before the run */
	uint64_t filtered, flagged; /* outside the traced ring: dropped / kept and marked */
	uint64_t at_end;	    /* records drained after the run */
	bool wrapped;		    /* circular mode: the buffer went round */
	uint64_t overwritten;	    /* ... and this many were overwritten (when counted) */
	uint64_t dropped;	    /* records the backend could not store */
};

/* The service routine's sink for BTS records (ctx: the struct facility_run): the traced ring's
 * filter, then the store. The path make bench's bench-isr measures. */
void bts_isr_record(void *ctx, const struct bts_record *r);

/* Bench only: `records` BTS records in CPU d's buffer as the hardware leaves them at a
 * threshold PMI (the threshold one record above the base), DS_AREA programmed. */
void bts_fake_records(struct ds_percpu *d, unsigned records, uint64_t base_ip);

#endif
