/* SPDX-License-Identifier: MIT */
#include "arch/x86/pmu/ds_isr.h"
#include "arch/x86/hw/pmu_regs.h"
#include "lib/string.h"

/* Not overflows: handled as state, never dispatched (references.md 7.2, Linux masks 63/60/58). */
#define STATUS_NOT_OVERFLOWS                                                                       \
	(GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_ASCI |                      \
	 GLOBAL_STATUS_COND_CHGD | GLOBAL_STATUS_DS_BUFFER)

static uint64_t rd(const struct ds_isr_ops *o, struct ds_isr_report *r, uint32_t msr)
{
	uint64_t v = 0;
	if (o->rdmsr(o->ctx, msr, &v) != 0)
		r->msr_errors++;
	return v;
}

static void wr(const struct ds_isr_ops *o, struct ds_isr_report *r, uint32_t msr, uint64_t v)
{
	if (o->wrmsr(o->ctx, msr, v) != 0)
		r->msr_errors++;
}

uint64_t ds_bts_drain(const struct ds_isr_ops *o, struct ds_area64 *ds)
{
	/* The buffer is one linear range (references.md 5.3): mapped once, walked by pointer — the
	 * per-record cost is the sink call (make bench counts it). */
	uint64_t n = ds->bts_index > ds->bts_base
			 ? (ds->bts_index - ds->bts_base) / sizeof(struct bts_record)
			 : 0;
	const struct bts_record *r = n ? o->at(o->ctx, ds->bts_base) : NULL;
	void (*sink)(void *, const struct bts_record *) = o->bts_record;
	void *ctx = o->sink_ctx ? o->sink_ctx : o->ctx;
	for (uint64_t i = 0; i < n; i++)
		sink(ctx, &r[i]);
	ds->bts_index = ds->bts_base;
	return n;
}

/* The buffer's last whole record slot, or 0 when it holds none. */
static uint64_t last_slot(const struct ds_area64 *ds)
{
	uint64_t rec = sizeof(struct bts_record);
	uint64_t slots =
	    ds->bts_abs_max > ds->bts_base ? (ds->bts_abs_max - ds->bts_base) / rec : 0;
	return slots ? ds->bts_base + (slots - 1) * rec : 0;
}

void ds_bts_clear(const struct ds_isr_ops *o, struct ds_area64 *ds)
{
	uint64_t last = last_slot(ds);
	if (last)
		memset(o->at(o->ctx, last), 0, sizeof(struct bts_record));
}

uint64_t ds_bts_drain_circular(const struct ds_isr_ops *o, struct ds_area64 *ds, bool *wrapped)
{
	uint64_t rec = sizeof(struct bts_record), n = 0, last = last_slot(ds);
	*wrapped = false;
	if (last && ds->bts_index >= ds->bts_base && ds->bts_index + rec <= ds->bts_abs_max) {
		const struct bts_record *old = o->at(o->ctx, ds->bts_index);
		const struct bts_record *end = o->at(o->ctx, last);
		uint64_t count = (last - ds->bts_index) / rec + 1;
		*wrapped = end->from || end->to;
		void *ctx = o->sink_ctx ? o->sink_ctx : o->ctx;
		for (uint64_t i = 0; *wrapped && i < count; i++, n++)
			o->bts_record(ctx, &old[i]);
	}
	return n + ds_bts_drain(o, ds);
}

/* A BTS PMI sets no GLOBAL_STATUS bit: its only sign is the index at the threshold. */
static bool drain_bts(const struct ds_isr_ops *o, struct ds_area64 *ds, struct ds_isr_report *r)
{
	if (ds->bts_index < ds->bts_threshold)
		return false;
	r->bts_drained += ds_bts_drain(o, ds);
	r->bts_threshold = true;
	return true;
}

uint64_t ds_pebs_drain(const struct ds_isr_ops *o, struct ds_area64 *ds, size_t record_size)
{
	uint64_t n = 0;
	void *ctx = o->sink_ctx ? o->sink_ctx : o->ctx;
	for (uint64_t a = ds->pebs_base; a + record_size <= ds->pebs_index; a += record_size, n++)
		o->pebs_record(ctx, o->at(o->ctx, a), record_size);
	ds->pebs_index = ds->pebs_base;
	return n;
}

static void drain_pebs(const struct ds_isr_ops *o, const struct ds_isr_config *c,
		       struct ds_area64 *ds, struct ds_isr_report *r)
{
	r->pebs_drained += ds_pebs_drain(o, ds, c->pebs_record_size);
	r->pebs_threshold = true;
}

/* Counter n (GLOBAL_STATUS bit: GP below GLOBAL_FIXED_SHIFT, fixed above): its MSR for reads
 * and for writes, its width and its PEBS reset slot in the DS area. */
struct pebs_counter {
	uint32_t read_msr, write_msr;
	unsigned width;
	size_t reset_off;
};

static struct pebs_counter pebs_counter_of(const struct ds_isr_config *c, unsigned bit)
{
	if (bit < GLOBAL_FIXED_SHIFT)
		return (struct pebs_counter){
		    MSR_IA32_PMC0 + bit, (c->full_width ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0) + bit,
		    c->gp_width, DS_PEBS_RESET_GP(bit)};
	unsigned m = bit - GLOBAL_FIXED_SHIFT;
	return (struct pebs_counter){MSR_IA32_FIXED_CTR0 + m, MSR_IA32_FIXED_CTR0 + m,
				     c->fixed_width, DS_PEBS_RESET_FIXED(c->pebs_format, m)};
}

uint64_t ds_pebs_skipped(const struct ds_isr_ops *o, const struct ds_isr_config *c,
			 const struct ds_area64 *ds, uint64_t status, bool rearm,
			 unsigned *msr_errors)
{
	uint64_t lost = 0;
	struct ds_isr_report r = {0};
	for (uint64_t bits = status & c->pebs_enable & ~STATUS_NOT_OVERFLOWS; bits && ds;
	     bits &= bits - 1) {
		unsigned bit = (unsigned)__builtin_ctzll(bits);
		struct pebs_counter k = pebs_counter_of(c, bit);
		if (!k.width || k.width >= 64)
			continue;
		uint64_t mask = genmask(k.width - 1, 0), reset;
		memcpy(&reset, (const uint8_t *)ds + k.reset_off, sizeof(reset));
		reset &= mask;
		uint64_t every = ((mask - reset) & mask) + 2; /* period + 1 events per record */
		uint64_t count = rd(o, &r, k.read_msr) & mask;
		if (count >= reset || every < 2 || (!count && !rearm))
			continue; /* no overflow since the reload, or the session is over */
		/* count - 1 events since the skipped assist (0: none skipped yet, the counter just
		 * overflowed); phase: into the next period */
		uint64_t since = count ? count - 1 : every - 1, phase = since % every;
		lost += count ? 1 + since / every : 0;
		if (!rearm)
			continue;
		uint64_t value = reset + phase;
		if (phase == every - 1) {
			/* It stands (or would stand) at 0, armed, its record due at the next event,
			 * and the routine's own IA32_PEBS_ENABLE write on entry disarms it: a
			 * reload cannot arm it, so that record is lost too, and the next comes a
			 * period and one event later, as it would have. */
			lost++;
			value = reset - 1;
		}
		value &= mask;
		wr(o, &r, k.write_msr,
		   k.write_msr == MSR_IA32_PMC0 + bit ? value & GENMASK(31, 0) : value);
	}
	*msr_errors += r.msr_errors;
	return lost;
}

/* Counter overflows that are not PEBS counters: hand each over and re-arm its period. */
static void handle_overflows(const struct ds_isr_ops *o, const struct ds_isr_config *c,
			     uint64_t status, struct ds_isr_report *r)
{
	uint64_t counters = status & ~STATUS_NOT_OVERFLOWS & ~c->pebs_enable;
	for (unsigned n = 0; n < c->n_gp; n++) {
		if (!(counters & BIT(n)))
			continue;
		o->overflow(o->ctx, n);
		/* Full-width alias where IA32_PERF_CAPABILITIES[13] has it; else the legacy
		 * alias, which takes bits 31:0 sign-extended (periods below 2^31). */
		if (c->full_width)
			wr(o, r, MSR_IA32_A_PMC0 + n, c->gp_reload[n]);
		else
			wr(o, r, MSR_IA32_PMC0 + n, c->gp_reload[n] & GENMASK(31, 0));
		r->overflows++;
	}
	for (unsigned m = 0; m < c->n_fixed; m++) {
		if (!(counters & BIT(GLOBAL_FIXED_SHIFT + m)))
			continue;
		o->overflow(o->ctx, GLOBAL_FIXED_SHIFT + m);
		wr(o, r, MSR_IA32_FIXED_CTR0 + m, c->fixed_reload[m]);
		r->overflows++;
	}
}

void ds_isr_service(const struct ds_isr_ops *o, const struct ds_isr_config *c,
		    struct ds_isr_report *r)
{
	memset(r, 0, sizeof(*r));
	bool global = c->perfmon_version >= 2;
	/* Entry (17.4.9.5): no BTMs and no PEBS while the DS area is touched; counters off. */
	uint64_t debugctl = rd(o, r, MSR_IA32_DEBUGCTL);
	wr(o, r, MSR_IA32_DEBUGCTL, debugctl & ~DEBUGCTL_TR);
	if (c->pebs)
		wr(o, r, MSR_IA32_PEBS_ENABLE, 0);
	if (global)
		wr(o, r, MSR_IA32_PERF_GLOBAL_CTRL, 0);
	struct ds_area64 *ds = c->ds_area ? o->at(o->ctx, c->ds_area) : NULL;

	for (r->loops = 0; r->loops < c->max_loops; r->loops++) {
		bool busy = c->bts && ds && drain_bts(o, ds, r);
		uint64_t status = global ? rd(o, r, MSR_IA32_PERF_GLOBAL_STATUS) : 0;
		if (!status && !busy)
			break;
		r->status_seen |= status;
		if (status & (GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ))
			r->frozen = true;
		/* The LBR stack while it is still frozen, before the acknowledgement below
		 * unfreezes it (references.md 7.4 step 5): for samples that want their branches. */
		if (c->lbr_snapshot && o->lbr_snapshot && (status & ~STATUS_NOT_OVERFLOWS)) {
			o->lbr_snapshot(o->ctx);
			r->lbr_snapshots++;
		}
		if ((status & GLOBAL_STATUS_DS_BUFFER) && c->pebs && ds)
			drain_pebs(o, c, ds, r);
		if (c->pebs && ds && (status & c->pebs_enable))
			r->pebs_skipped += ds_pebs_skipped(o, c, ds, status, true, &r->msr_errors);
		handle_overflows(o, c, status, r);
		/* Acknowledge: v4+ STATUS_RESET also clears LBR_Frz/CTR_Frz (unfreezes); v2/v3
		 * OVF_CTRL takes the overflow bits and OvfDSBuffer / CondChgd. */
		uint64_t ack = status;
		if (c->perfmon_version < 4)
			ack &=
			    ~(GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_ASCI);
		if (ack)
			wr(o, r, MSR_IA32_PERF_GLOBAL_OVF_CTRL, ack);
	}
	if (r->loops == c->max_loops) {
		/* A PMI storm: leave the PMU disabled rather than re-arm it (Linux resets the
		 * PMU after 100 loops, references.md 7.4); the report says so. */
		r->storm = true;
		return;
	}
	if (o->unmask_mid)
		o->unmask_mid(o->ctx);
	/* Exit: what the session wants, including what a legacy freeze cleared (DEBUGCTL.LBR,
	 * GLOBAL_CTRL) — SDM 17.4.7: software must set them again. */
	if (c->pebs)
		wr(o, r, MSR_IA32_PEBS_ENABLE, c->pebs_enable);
	if (global)
		wr(o, r, MSR_IA32_PERF_GLOBAL_CTRL, c->global_ctrl);
	wr(o, r, MSR_IA32_DEBUGCTL, c->debugctl);
}
