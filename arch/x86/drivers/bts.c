/* SPDX-License-Identifier: MIT */
/*
 * The BTS driver (SDM Vol. 3B 17.4.5-17.4.9; references.md 5): the DS buffer laid out for
 * circular or interrupt mode (bts_plan.c), IA32_DS_AREA and IA32_DEBUGCTL (TR | BTS [| BTINT]
 * [| BTS_OFF_OS/USR]) written, the PMI/DS service routine routed to the store, and after the run
 * the rest of the buffer drained through the routine's own ops — in circular mode oldest first,
 * with whether older records were overwritten. Records that cross out of the traced ring are
 * filtered or flagged here (option bts.leak).
 */
#include "arch/x86/drivers/bts.h"
#include "arch/x86/drivers/driver.h"
#include "arch/x86/caps/pmi_ack.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/pmu/isr_hook.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_trace.h"
#include "lib/fmt.h"

#define BTS_PMI_MAX_LOOPS 100 /* PMI-storm bound, as Linux's (references.md 7.4) */
#define BTS_LIVE_BATCH	  1024

/* The store's layout of a record: the hardware's three fields (SDM Vol. 3B 17.4.8.2), the
 * leak mark in the flags' top bit. */
_Static_assert(sizeof(struct bts_record) == 3 * sizeof(uint64_t), "a BTS record is 24 bytes");

/* A record outside the traced ring (filtered or flagged), or a full store: bts_isr_record's
 * way for all but the common record, kept out of its path (make bench's bound). */
static __attribute__((noinline, cold)) void bts_isr_record_slow(struct facility_run *r,
								const struct bts_record *rec)
{
	struct bts_state *b = &r->u.bts;
	uint64_t flags = rec->flags;
	if (bts_record_leaks(rec, b->plan.cfg.ring)) {
		if (b->plan.cfg.leak == TRACE_LEAK_FILTER) {
			b->filtered++;
			return;
		}
		b->flagged++;
		flags |= BTS_FLAG_LEAK;
	}
	uint64_t *slot = record_store_reserve(&r->store);
	if (!slot)
		return; /* counted lost by the store */
	slot[0] = rec->from;
	slot[1] = rec->to;
	slot[2] = flags;
	record_store_commit(&r->store);
}

void bts_isr_record(void *ctx, const struct bts_record *rec)
{
	struct facility_run *r = ctx;
	struct record_store *s = &r->store;
	if (r->u.bts.plan.cfg.ring != TRACE_RING_ALL ||
	    s->n == __atomic_load_n(&s->limit, __ATOMIC_ACQUIRE)) {
		bts_isr_record_slow(r, rec);
		return;
	}
	/* every ring traced, room in the store: as record_store_reserve and _commit */
	uint64_t *slot = (uint64_t *)(void *)s->at;
	slot[0] = rec->from;
	slot[1] = rec->to;
	slot[2] = rec->flags;
	record_store_commit(s);
}

static enum status bts_available(const struct trace_caps *c, const char **why)
{
	*why = c->bts.reason;
	return c->bts.kind != TC_BTS_NO ? STATUS_OK : STATUS_UNSUPPORTED;
}

static enum status plan_mode(struct facility_run *r, enum bts_mode mode, char *why, size_t n)
{
	struct bts_state *b = &r->u.bts;
	enum status st =
	    bts_plan_options(r->caps, r->opt, mode, r->ds ? r->ds->bts_bytes : 0, &b->plan, why, n);
	if (st != STATUS_OK)
		return st;
	r->record_size = sizeof(struct bts_record);
	r->interrupts = mode == BTS_INTERRUPT;
	/* Interrupt mode drains during the run: its records may leave while it goes on. */
	r->live = mode == BTS_INTERRUPT;
	r->live_drain = b->plan.cfg.records;
	r->live_batch = BTS_LIVE_BATCH;
	r->live_remedy = "a larger trace.store";
	r->ler = true;
	r->check = CHECK_EXACT;
	return STATUS_OK;
}

static enum status plan_circular(struct facility_run *r, char *why, size_t n)
{
	return plan_mode(r, BTS_CIRCULAR, why, n);
}

static enum status plan_interrupt(struct facility_run *r, char *why, size_t n)
{
	return plan_mode(r, BTS_INTERRUPT, why, n);
}

static enum status bts_arm(struct facility_run *r)
{
	struct bts_state *b = &r->u.bts;
	char why[8];
	bts_buffer_setup(r->ds->area, r->ds->bts_phys, &b->plan.cfg, why, sizeof(why));
	uint64_t global_ctrl = 0;
	if (r->caps->perfmon.version >= 2)
		pmu_rdmsr(MSR_IA32_PERF_GLOBAL_CTRL, &global_ctrl);
	struct ds_isr_config isr = {
	    .perfmon_version = r->caps->perfmon.version,
	    .ds_area = r->ds->area_phys,
	    .bts = true,
	    .debugctl = b->plan.debugctl,
	    .global_ctrl = global_ctrl, /* left as the session found it */
	    .max_loops = BTS_PMI_MAX_LOOPS,
	};
	struct trace_pmi_sinks sinks = {.bts_record = bts_isr_record, .ctx = r};
	trace_pmi_begin(&isr, &sinks, pmi_ack_for(r->caps));
	if (b->plan.cfg.mode == BTS_CIRCULAR)
		trace_pmi_clear_bts(r->ds->area); /* so that a wrap shows (pmu/ds_isr.h) */
	b->counted = pmu_backend_bts_stored(&b->stored_before);
	const char *name = r->drv->name;
	bool ok =
	    drv_check(r, ds_area_install(r->ds), MSR_IA32_DS_AREA, name) &&
	    drv_check(r, pmu_wrmsr(MSR_IA32_DEBUGCTL, b->plan.debugctl), MSR_IA32_DEBUGCTL, name);
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status bts_disarm(struct facility_run *r)
{
	bool ok = drv_check(r, pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, r->drv->name);
	trace_pmi_end(&r->pmi);
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status bts_drain(struct facility_run *r)
{
	struct bts_state *b = &r->u.bts;
	/* What is left after the run (BTS stopped), through the routine's own ops; in circular
	 * mode oldest first, and whether older records were overwritten. */
	b->at_end = b->plan.cfg.mode == BTS_INTERRUPT
			? trace_pmi_drain_bts(r->ds->area)
			: trace_pmi_drain_bts_circular(r->ds->area, &b->wrapped);
	uint64_t stored_after = 0, pebs_dropped;
	pmu_backend_bts_stored(&stored_after);
	uint64_t stored = stored_after - b->stored_before,
		 delivered = r->pmi.bts_drained + b->at_end;
	/* Overwritten in circular mode: known where the backend counts what it stored. */
	b->overwritten = b->wrapped && b->counted && stored > delivered ? stored - delivered : 0;
	pmu_backend_drops(&b->dropped, &pebs_dropped);
	uint64_t full = r->store.lost_full;
	/* A buffer that went round without a count (silicon keeps none) lost at least the record
	 * its oldest slot held: the capture is incomplete by at least one, said so. */
	bool uncounted = b->wrapped && !b->counted;
	r->end_lost = full + b->dropped + (uncounted ? 1 : b->overwritten);
	if (full || b->dropped || b->wrapped)
		fmt_snprintf(r->end_why, sizeof(r->end_why),
			     "store-full=%lu dropped=%lu overwritten=%s%lu", full, b->dropped,
			     uncounted ? "at-least-" : "", uncounted ? 1 : b->overwritten);
	r->check_skip = b->plan.cfg.ring != TRACE_RING_ALL ? "bts.ring leaves a ring out"
			: b->wrapped			   ? "the circular buffer went round"
			: full || b->dropped		   ? "records were lost"
							   : NULL;
	return STATUS_OK;
}

static void bts_describe(struct facility_run *r, const struct run_facts *f)
{
	const struct bts_state *b = &r->u.bts;
	char overwritten[24] = "0";
	if (b->wrapped && b->counted)
		fmt_snprintf(overwritten, sizeof(overwritten), "%lu", b->overwritten);
	else if (b->wrapped)
		fmt_snprintf(overwritten, sizeof(overwritten), "unknown");
	const struct trace_pmi_stats *st = &r->pmi;
	r->print("trace-begin %s %s steps=%lu records=%lu pmis=%lu drains=%lu virtual-pmis=%lu "
		 "masked=%lu dropped=%lu lost=%lu ring=%s%s leak=%s filtered=%lu flagged=%lu "
		 "drained-in-pmi=%lu drained-at-end=%lu storms=%lu wrapped=%s overwritten=%s "
		 "streamed-live=%lu store-peak=%lu result=%lu\n",
		 r->drv->name, r->label, f->steps, r->store.n, st->pmis, st->bts_drains,
		 f->virtual_pmis, f->virtual_pmis_masked, b->dropped, r->store.lost_full,
		 bts_ring_name(b->plan.cfg.ring), b->plan.software_ring ? "(software)" : "",
		 b->plan.cfg.leak == TRACE_LEAK_FLAG ? "flag" : "filter", b->filtered, b->flagged,
		 st->bts_drained, b->at_end, st->storms, b->wrapped ? "yes" : "no", overwritten,
		 f->streamed_live, f->store_peak, f->result);
	if (b->wrapped)
		r->print("note: %s: %s: the circular buffer of %lu records went round: %s older "
			 "records were overwritten (SDM 17.4.9.3; a larger bts.records, or btsint, "
			 "keeps them)\n",
			 r->drv->name, r->label, b->plan.cfg.records, overwritten);
}

static bool bts_deliver(struct facility_run *r, const void *stored, const struct record_sink *k)
{
	(void)r;
	const struct bts_record *s = stored;
	struct trace_record t = {.kind = TREC_BTS,
				 .bts = {.from = s->from,
					 .to = s->to,
					 .flags = s->flags & ~BTS_FLAG_LEAK,
					 .leak = s->flags & BTS_FLAG_LEAK}};
	k->put(k->ctx, &t);
	return true;
}

/* Records lost or overwritten leave the capture incomplete (the session says so); a PMI storm
 * or a refused access in the service routine is a failure. */
static bool bts_finish(struct facility_run *r)
{
	const struct trace_pmi_stats *st = &r->pmi;
	if (!st->storms && !st->msr_errors)
		return true;
	r->print("error: %s: %s: %lu PMI storms, %lu refused MSR accesses in the service "
		 "routine\n",
		 r->drv->name, r->label, st->storms, st->msr_errors);
	return false;
}

const struct facility_driver bts_driver = {
    .name = "bts",
    .available = bts_available,
    .plan = plan_circular,
    .arm = bts_arm,
    .disarm = bts_disarm,
    .drain = bts_drain,
    .describe = bts_describe,
    .deliver = bts_deliver,
    .finish = bts_finish,
};

const struct facility_driver btsint_driver = {
    .name = "btsint",
    .available = bts_available,
    .plan = plan_interrupt,
    .arm = bts_arm,
    .disarm = bts_disarm,
    .drain = bts_drain,
    .describe = bts_describe,
    .deliver = bts_deliver,
    .finish = bts_finish,
};

void bts_fake_records(struct ds_percpu *d, unsigned records, uint64_t base_ip)
{
	struct ds_area64 *ds = d->area;
	struct bts_record *r = arch_phys_to_virt(d->bts_phys);
	for (unsigned i = 0; i < records; i++)
		r[i] = (struct bts_record){base_ip + i, base_ip + 2 * i, 0};
	ds->bts_base = d->bts_phys;
	ds->bts_index = d->bts_phys + records * sizeof(struct bts_record);
	ds->bts_abs_max =
	    d->bts_phys + d->bts_bytes / sizeof(struct bts_record) * sizeof(struct bts_record);
	/* One record: reached when records are due (a threshold PMI), not after the drain. */
	ds->bts_threshold = d->bts_phys + sizeof(struct bts_record);
	ds_area_install(d);
}
