/* SPDX-License-Identifier: MIT */
/*
 * The Branch Trace Store driver (SDM Vol. 3B 17.4.5-17.4.9; references.md 5): which IA32_DEBUGCTL
 * encoding of Table 17-6 a configuration needs (CPL-qualified only with DS-CPL), how the BTS
 * buffer of a DS area is laid out for circular or interrupt mode, and what to do with the
 * records that cross a CPL boundary (a user-only trace still records the kernel TO of a
 * SYSCALL: references.md 5.5 / 8, Linux filters them). Pure: host-tested.
 */
#ifndef ARCH_X86_DRIVERS_BTS_H
#define ARCH_X86_DRIVERS_BTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/status.h"
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/caps/caps.h"

enum bts_ring { BTS_RING_ALL, BTS_RING_USER, BTS_RING_KERNEL };
enum bts_leak { BTS_LEAK_FILTER, BTS_LEAK_FLAG };
enum bts_mode { BTS_CIRCULAR, BTS_INTERRUPT };

struct bts_config {
	enum bts_ring ring;
	enum bts_leak leak;
	enum bts_mode mode;
	uint64_t records;  /* buffer size in records */
	uint64_t headroom; /* interrupt mode: records the buffer still holds past the threshold */
};

/* What the driver does; `software_ring` when the CPU lacks DS-CPL and the ring is filtered
 * from the records instead (said in the session header). */
struct bts_plan {
	uint64_t debugctl; /* TR | BTS [| BTINT] [| BTS_OFF_OS | BTS_OFF_USR] */
	bool software_ring;
};

int bts_plan(const struct trace_caps *c, const struct bts_config *b, struct bts_plan *out,
	     char *why, size_t why_size);
/* Lay out the buffer at `base` (linear) in the DS area; 0, or -1 with a message. */
enum status bts_buffer_setup(struct ds_area64 *ds, uint64_t base, const struct bts_config *b,
			     char *why, size_t why_size);

/* A record with an address outside the traced ring (canonical halves: the kernel's is the
 * upper one). */
static inline bool bts_record_leaks(const struct bts_record *r, enum bts_ring ring)
{
	uint64_t kernel_half = BIT(63); /* upper canonical half: where kernels live */
	bool from_k = r->from & kernel_half, to_k = r->to & kernel_half;
	return ring == BTS_RING_USER ? from_k || to_k
				     : ring == BTS_RING_KERNEL && (!from_k || !to_k);
}
const char *bts_ring_name(enum bts_ring r);

#endif
