/* SPDX-License-Identifier: MIT */
#include "arch/x86/drivers/bts_plan.h"
#include "lib/fmt.h"

const char *bts_ring_name(enum trace_ring r)
{
	switch (r) {
	case TRACE_RING_USER:
		return "user";
	case TRACE_RING_KERNEL:
		return "kernel";
	default:
		return "all";
	}
}

/*
 * Table 17-6 (SDM Vol. 3B 17.4.9.4; references.md 5.5), TR = BTS = 1:
 *   BTS_OFF_OS BTS_OFF_USR BTINT
 *        0         0         0    every CPL, circular buffer
 *        1         0         0    CPL > 0 only
 *        0         1         0    CPL = 0 only
 *        1         1         x    generated but not stored (never asked for here)
 *   BTINT = 1 variants: the same, with an interrupt when the threshold is reached.
 */
enum status bts_plan(const struct trace_caps *c, const struct bts_config *b, struct bts_plan *out,
		     char *why, size_t why_size)
{
	*out = (struct bts_plan){.cfg = *b, .debugctl = DEBUGCTL_TR | DEBUGCTL_BTS};
	if (!c || c->bts.kind == TC_BTS_NO) {
		fmt_snprintf(why, why_size, "no BTS: %s",
			     c ? c->bts.reason : "no capability record");
		return STATUS_UNSUPPORTED;
	}
	if (b->mode == BTS_INTERRUPT)
		out->debugctl |= DEBUGCTL_BTINT;
	if (b->ring != TRACE_RING_ALL) {
		if (!c->ds_cpl) /* BTS_OFF_OS/USR are reserved without DS-CPL (17.4.9.4) */
			out->software_ring = true;
		else
			out->debugctl |=
			    b->ring == TRACE_RING_USER ? DEBUGCTL_BTS_OFF_OS : DEBUGCTL_BTS_OFF_USR;
	}
	return STATUS_OK;
}

enum status bts_buffer_check(const struct bts_config *b, char *why, size_t why_size)
{
	/* abs-max below base + 1 record is undefined (references.md 5.3); interrupt mode needs the
	 * threshold at least one record above base and headroom below abs-max. */
	/* Interrupt mode without headroom would lose the records that land between the
	 * threshold and the PMI (references.md 5.5, 8). */
	if (b->records < 2 ||
	    (b->mode == BTS_INTERRUPT && (b->headroom == 0 || b->headroom >= b->records))) {
		fmt_snprintf(why, why_size,
			     "BTS buffer of %lu records with %lu of headroom; accepted: at least 2 "
			     "records, interrupt mode with 1 to records - 1 of headroom",
			     b->records, b->headroom);
		return STATUS_INVALID;
	}
	return STATUS_OK;
}

enum status bts_buffer_setup(struct ds_area64 *ds, uint64_t base, const struct bts_config *b,
			     char *why, size_t why_size)
{
	if (bts_buffer_check(b, why, why_size) != STATUS_OK)
		return STATUS_INVALID;
	uint64_t rec = sizeof(struct bts_record);
	ds->bts_base = ds->bts_index = base;
	ds->bts_abs_max = base + b->records * rec;
	/* Circular: clearing BTINT is not enough, the threshold must lie above the absolute
	 * maximum (SDM 17.4.9.3 note). Interrupt: records keep landing after the threshold
	 * until the PMI is taken, hence the headroom (references.md 5.5). */
	ds->bts_threshold =
	    b->mode == BTS_CIRCULAR ? ds->bts_abs_max + rec : ds->bts_abs_max - b->headroom * rec;
	return STATUS_OK;
}

enum status bts_plan_options(const struct trace_caps *c, const struct trace_options *o,
			     enum bts_mode mode, uint64_t ds_bytes, struct bts_plan *out, char *why,
			     size_t why_size)
{
	struct bts_config cfg = {
	    .ring = (enum trace_ring)o->bts_ring,
	    .leak = (enum trace_leak)o->bts_leak,
	    .mode = mode,
	    .records = mode == BTS_INTERRUPT && o->btsint_records ? o->btsint_records
		       : o->bts_records				  ? o->bts_records
		       : mode == BTS_INTERRUPT			  ? BTS_INTERRUPT_RECORDS
					       : ds_bytes / sizeof(struct bts_record),
	};
	if (mode == BTS_CIRCULAR && !o->bts_records && cfg.records < BTS_CIRCULAR_RECORDS)
		cfg.records = BTS_CIRCULAR_RECORDS; /* and refused below: the buffer lacks it */
	cfg.headroom = mode == BTS_INTERRUPT ? cfg.records / BTS_HEADROOM_DIVISOR : 0;
	enum status st = bts_plan(c, &cfg, out, why, why_size);
	if (st != STATUS_OK)
		return st;
	if (cfg.records * sizeof(struct bts_record) > ds_bytes) {
		fmt_snprintf(why, why_size,
			     "BTS buffer of %lu records does not fit the DS area's %lu bytes",
			     cfg.records, ds_bytes);
		return STATUS_INVALID;
	}
	return bts_buffer_check(&cfg, why, why_size);
}
