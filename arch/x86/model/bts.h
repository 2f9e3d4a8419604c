/* SPDX-License-Identifier: MIT */
/*
 * The software PMU's branch trace store: what the processor does with a taken branch under
 * IA32_DEBUGCTL's TR/BTS/BTS_OFF_OS/BTS_OFF_USR/BTINT (SDM Vol. 3B 17.4.9.4, Table 17-6), and
 * how a BTS record lands in the DS buffer (17.4.9, 17.4.9.3). Pure: host-tested entry by entry.
 */
#ifndef ARCH_X86_MODEL_BTS_H
#define ARCH_X86_MODEL_BTS_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/hw/ds_layout.h"

enum bts_disposition {
	BTS_NO_BTM,	    /* TR = 0: no branch trace message */
	BTS_BTM_NOT_STORED, /* a BTM is generated (to the bus) but not stored */
	BTS_STORED,	    /* stored in the BTS buffer */
};

/*
 * Table 17-6 for a branch taken at `cpl`. The CPL that qualifies a branch is the one it was
 * taken at (its source): so a user -> kernel transition is stored under BTS_OFF_OS, with a
 * kernel TO address (the "leak" Linux filters; docs/references.md 5.5).
 */
enum bts_disposition bts_disposition(uint64_t debugctl, unsigned cpl);

struct bts_store_result {
	bool stored;
	bool wrapped;	    /* circular mode went back to the base */
	bool dropped_full;  /* interrupt mode, no room left: record lost (counted by the caller) */
	bool threshold_hit; /* the index reached the interrupt threshold with this record */
};

/*
 * Store rec at ds->bts_index: the buffer is reached through `at` (linear address -> pointer,
 * NULL if unmapped). With BTINT = 0 the buffer is circular: a record that would pass the
 * absolute maximum goes to the base instead. With BTINT = 1 it is dropped there (whether real
 * hardware stops or wraps is unconfirmed; stopping is what Linux's drivers assume). The
 * threshold interrupt is requested when the index reaches the threshold, whatever BTINT says:
 * the SDM (17.4.9.3 note) requires a threshold above the absolute maximum to avoid it.
 */
struct bts_store_result bts_store(struct ds_area64 *ds, uint64_t debugctl,
				  const struct bts_record *rec, void *(*at)(uint64_t lin));

#endif
