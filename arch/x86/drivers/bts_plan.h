/* SPDX-License-Identifier: MIT */
/*
 * The Branch Trace Store driver (SDM Vol. 3B 17.4.5-17.4.9; references.md 5): which IA32_DEBUGCTL
 * encoding of Table 17-6 a configuration needs (CPL-qualified only with DS-CPL), how the BTS
 * buffer of a DS area is laid out for circular or interrupt mode, and what to do with the
 * records that cross a CPL boundary (a user-only trace still records the kernel TO of a
 * SYSCALL: references.md 5.5 / 8, Linux filters them). Pure: host-tested.
 */
#ifndef ARCH_X86_DRIVERS_BTS_PLAN_H
#define ARCH_X86_DRIVERS_BTS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/status.h"
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/caps/caps.h"
#include "kernel/arch_trace.h"

/* The rings and the leak treatment are option bts.ring's and bts.leak's (kernel/arch_trace.h). */
enum bts_mode { BTS_CIRCULAR, BTS_INTERRUPT };

/* Linux's BTS buffer: 64 KiB (arch/x86/events/intel/ds.c, BTS_BUFFER_SIZE; references.md 5.3).
 * Interrupt mode's default: its threshold PMI drains it, an NMI no kernel path holds off. The
 * circular buffer keeps only what fits: by default it is sized from free memory
 * (arch/x86/session/session.c), this its floor. */
#define BTS_CIRCULAR_RECORDS  2730
#define BTS_INTERRUPT_RECORDS 2730
#define BTS_HEADROOM_DIVISOR  4 /* interrupt mode: a quarter of the buffer past the threshold */

struct bts_config {
	enum trace_ring ring;
	enum trace_leak leak;
	enum bts_mode mode;
	uint64_t records;  /* buffer size in records */
	uint64_t headroom; /* interrupt mode: records the buffer still holds past the threshold */
};

/* What the driver does; `software_ring` when the CPU lacks DS-CPL and the ring is filtered
 * from the records instead (said in the session header). */
struct bts_plan {
	struct bts_config cfg;
	uint64_t debugctl; /* TR | BTS [| BTINT] [| BTS_OFF_OS | BTS_OFF_USR] */
	bool software_ring;
};

/* The DEBUGCTL encoding for b (Table 17-6): STATUS_UNSUPPORTED with why when the CPU has no
 * BTS. out->cfg is b. */
enum status bts_plan(const struct trace_caps *c, const struct bts_config *b, struct bts_plan *out,
		     char *why, size_t why_size);
/* The session's plan from the options (bts.ring, bts.leak, bts.records) for circular or
 * interrupt mode, with a buffer of ds_bytes (circular mode's default: all of it, at least
 * BTS_CIRCULAR_RECORDS): STATUS_UNSUPPORTED as bts_plan, STATUS_INVALID
 * when the buffer does not fit or its geometry is refused. */
enum status bts_plan_options(const struct trace_caps *c, const struct trace_options *o,
			     enum bts_mode mode, uint64_t ds_bytes, struct bts_plan *out, char *why,
			     size_t why_size);
/* Whether b's buffer geometry works (at least 2 records; interrupt mode with headroom of 1 to
 * records - 1): STATUS_INVALID with why when not. */
enum status bts_buffer_check(const struct bts_config *b, char *why, size_t why_size);
/* Lay out the buffer at `base` (linear) in the DS area, for a geometry bts_buffer_check
 * accepts (else STATUS_INVALID with why). */
enum status bts_buffer_setup(struct ds_area64 *ds, uint64_t base, const struct bts_config *b,
			     char *why, size_t why_size);

/* A record with an address outside the traced ring (canonical halves: the kernel's is the
 * upper one). */
static inline bool bts_record_leaks(const struct bts_record *r, enum trace_ring ring)
{
	uint64_t kernel_half = BIT(63); /* upper canonical half: where kernels live */
	bool from_k = r->from & kernel_half, to_k = r->to & kernel_half;
	return ring == TRACE_RING_USER ? from_k || to_k
				       : ring == TRACE_RING_KERNEL && (!from_k || !to_k);
}
const char *bts_ring_name(enum trace_ring r);

#endif
