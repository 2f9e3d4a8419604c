/* SPDX-License-Identifier: MIT */
/*
 * BTS sessions (driver: arch/x86/drivers/bts.c). Circular mode: a buffer whose threshold lies above
 * the absolute maximum, read once the run is over. Interrupt mode: a small buffer whose
 * threshold leaves headroom, drained by the PMI/DS service routine at every threshold PMI
 * (arch/x86/pmu/isr_hook.c), the rest after the run. Records crossing out of the traced ring are
 * filtered or flagged (option bts.leak); each record is printed, or counted with the reason
 * it was not.
 */
#include "arch/x86/drivers/bts.h"
#include "arch/x86/pmu/ds_area.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/session/output.h"
#include "arch/x86/pmu/isr_hook.h"
#include "arch/x86/session/facility.h"
#include "lib/stream.h"
#include "arch/x86/session/session.h"
#include "arch/x86/session/selfcheck.h"
#include "arch/x86/session/stores.h"
#include "arch/x86/smp/timer.h"
#include "kernel/arch_trace.h"
#include "lib/fmt.h"

#define BTS_CIRCULAR_RECORDS  2730 /* 64 KiB, Linux's size (references.md 5.3) */
#define BTS_INTERRUPT_RECORDS 32   /* small, so a workload takes several threshold PMIs */
#define BTS_HEADROOM_DIVISOR  4	   /* interrupt mode: a quarter of the buffer past the threshold */
#define BTS_PMI_MAX_LOOPS     100  /* PMI-storm bound, as Linux's (references.md 7.4) */

static inline void bts_append(struct bts_store *s, uint64_t n, uint64_t from, uint64_t to,
			      uint64_t flags)
{
	struct bts_record *at = s->at, *next = at + 1;
	*at = (struct bts_record){.from = from, .to = to, .flags = flags};
	s->at = next == s->end ? s->rec : next;
	__atomic_store_n(&s->n, n + 1, __ATOMIC_RELEASE);
}

/* A full ring: out of line, so that the common path saves no registers (make bench's
 * bench-isr counts its instructions per record). */
static __attribute__((noinline)) void
bts_append_when_room(struct bts_store *s, uint64_t n, uint64_t from, uint64_t to, uint64_t flags)
{
	if (!store_wait_room(&s->limit, n, &s->room_wait_us)) {
		s->lost_full++;
		return;
	}
	bts_append(s, n, from, to, flags);
}

void bts_store_record(void *ctx, const struct bts_record *r)
{
	struct bts_store *s = ctx;
	struct bts_record c = *r;
	if (bts_record_leaks(&c, s->ring)) {
		if (s->leak == BTS_LEAK_FILTER) {
			s->filtered++;
			return;
		}
		s->flagged++;
		c.flags |= BTS_FLAG_LEAK;
	}
	uint64_t n = s->n;
	if (n == __atomic_load_n(&s->limit, __ATOMIC_ACQUIRE))
		bts_append_when_room(s, n, c.from, c.to, c.flags);
	else
		bts_append(s, n, c.from, c.to, c.flags);
}

bool store_wait_room(const uint64_t *limit, uint64_t n, uint64_t *room_wait_us)
{
	if (!*room_wait_us)
		return false;
	uint64_t deadline = tsc_deadline(*room_wait_us);
	while (n == __atomic_load_n(limit, __ATOMIC_ACQUIRE)) {
		if (tsc_passed(deadline)) {
			*room_wait_us = 0;
			return false;
		}
		cpu_pause();
	}
	return true;
}

void bts_store_init(struct bts_store *s, void *mem, uint64_t bytes)
{
	s->rec = s->at = mem;
	s->cap = s->limit = bytes / sizeof(struct bts_record);
	s->end = s->rec + s->cap;
	s->n = s->taken = s->room_wait_us = 0;
}

bool bts_store_take(struct bts_store *s, struct bts_record *out)
{
	uint64_t taken = s->taken;
	if (taken == __atomic_load_n(&s->n, __ATOMIC_ACQUIRE))
		return false;
	*out = s->rec[taken % s->cap];
	s->taken = taken + 1;
	__atomic_store_n(&s->limit, taken + 1 + s->cap, __ATOMIC_RELEASE);
	return true;
}

/* Where a session's records go: text lines (not when they stream live: those are written by the
 * drainer, which has no tprintf of this CPU), the selfcheck and the record stream. */
struct bts_delivery {
	struct bts_store *store;
	struct selfcheck *sc;
	struct bt_writer *stream;
	bool text;
	uint64_t live; /* records taken by the drainer during the run */
};

static void deliver(struct bts_delivery *d, const struct bts_record *r)
{
	if (d->text)
		tprintf("bts %#lx %#lx %#lx%s\n", r->from, r->to, r->flags & ~BTS_FLAG_LEAK,
			r->flags & BTS_FLAG_LEAK ? " leak" : "");
	selfcheck_record(d->sc, r->from, r->to);
	if (d->stream)
		bt_write_bts(d->stream, &(struct bt_bts){.from = r->from,
							 .to = r->to,
							 .flags = r->flags & ~BTS_FLAG_LEAK,
							 .leak = r->flags & BTS_FLAG_LEAK});
}

/* Up to `max` records from the store, oldest first, delivered; how many. */
static uint64_t deliver_taken(struct bts_delivery *d, uint64_t max)
{
	struct bts_record r;
	uint64_t n = 0;
	while (n < max && bts_store_take(d->store, &r)) {
		deliver(d, &r);
		n++;
	}
	return n;
}

#define LIVE_BATCH 1024 /* records a drainer round takes: a bounded hold of the lock */

static void live_pump(void *ctx)
{
	struct bts_delivery *d = ctx;
	d->live += deliver_taken(d, LIVE_BATCH);
}

static bool session_bts(struct trace_ctx *t, bool interrupt_mode)
{
	const char *fac = interrupt_mode ? "btsint" : "bts";
	const struct trace_options *o = t->req->opt;
	char why[TS_WHY_LEN];
	struct bts_config cfg = {
	    .ring = (enum bts_ring)o->bts_ring,
	    .leak = (enum bts_leak)o->bts_leak,
	    .mode = interrupt_mode ? BTS_INTERRUPT : BTS_CIRCULAR,
	    .records = o->bts_records	? o->bts_records
		       : interrupt_mode ? BTS_INTERRUPT_RECORDS
					: BTS_CIRCULAR_RECORDS,
	};
	cfg.headroom = interrupt_mode ? cfg.records / BTS_HEADROOM_DIVISOR : 0;
	struct bts_plan plan;
	if (bts_plan(t->caps, &cfg, &plan, why, sizeof(why)) != 0) {
		ts_skip(t, fac, why);
		return true;
	}
	struct ds_percpu *d = ds_area_this_cpu();
	if (!d || cfg.records * sizeof(struct bts_record) > d->bts_bytes) {
		tprintf("error: %s: %s: BTS buffer of %lu records does not fit the DS area's %lu "
			"bytes\n",
			fac, t->label, cfg.records, d ? d->bts_bytes : 0);
		return false;
	}
	if (bts_buffer_setup(d->area, d->bts_phys, &cfg, why, sizeof(why)) != 0) {
		tprintf("error: %s: %s: %s\n", fac, t->label, why);
		return false;
	}
	uint64_t scratch_bytes;
	struct bts_store store = {.ring = cfg.ring, .leak = cfg.leak};
	void *scratch = ts_scratch(&scratch_bytes);
	bts_store_init(&store, scratch, scratch_bytes);
	uint64_t global_ctrl = 0;
	bool global = t->caps->perfmon.version >= 2;
	if (global)
		pmu_rdmsr(MSR_IA32_PERF_GLOBAL_CTRL, &global_ctrl);
	struct ds_isr_config isr = {
	    .perfmon_version = t->caps->perfmon.version,
	    .ds_area = d->area_phys,
	    .bts = true,
	    .debugctl = plan.debugctl,
	    .global_ctrl = global_ctrl, /* left as the session found it */
	    .max_loops = BTS_PMI_MAX_LOOPS,
	};
	struct trace_pmi_sinks sinks = {.bts_record = bts_store_record, .ctx = &store};
	trace_pmi_begin(&isr, &sinks, pmi_ack_for(t->caps));
	if (!interrupt_mode)
		trace_pmi_clear_bts(d->area); /* so that a wrap shows (pmu/ds_isr.h) */
	uint64_t stored_before = 0;
	bool counted = pmu_backend_bts_stored(&stored_before);
	struct selfcheck sc;
	selfcheck_begin(&sc, t);
	/* Interrupt mode drains during the run: with stream.live its records leave while it goes
	 * on (the drainer takes them from the store), and the store is a ring. */
	bool live = interrupt_mode && o->stream_live && o->stream != TRACE_STREAM_OFF;
	struct bts_delivery dl = {.store = &store, .sc = &sc, .text = !live};
	if (live) {
		dl.stream = trace_stream_begin(fac, t->label);
		trace_stream_path(dl.stream, o->stream_path);
		ts_live_open(t, fac, store.cap, cfg.records, "a larger trace.store", live_pump, &dl,
			     &store.room_wait_us);
	}
	bool ok = ts_check(t, ds_area_install(d), MSR_IA32_DS_AREA, fac) &&
		  ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, plan.debugctl), MSR_IA32_DEBUGCTL, fac);
	uint64_t steps = 0, result = ok ? ts_run(t, interrupt_mode, &steps) : 0;
	ok &= ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, fac);
	struct trace_pmi_stats st;
	trace_pmi_end(&st);
	store.room_wait_us = 0; /* no drainer from here on: the session takes the rest */
	if (live) {
		trace_live_close();
		/* What the drainer left in the ring, to make room for the rest. */
		deliver_taken(&dl, UINT64_MAX);
	}
	/* What is left after the run (BTS stopped above), through the routine's own ops; in
	 * circular mode oldest first, and whether older records were overwritten. */
	bool wrapped = false;
	uint64_t at_end = interrupt_mode ? trace_pmi_drain_bts(d->area)
					 : trace_pmi_drain_bts_circular(d->area, &wrapped);
	uint64_t stored_after = 0;
	pmu_backend_bts_stored(&stored_after);
	uint64_t stored = stored_after - stored_before, delivered = st.bts_drained + at_end;
	/* Overwritten in circular mode: known where the backend counts what it stored (the model).
	 */
	uint64_t over = wrapped && counted && stored > delivered ? stored - delivered : 0;
	char overwritten[24] = "0";
	if (wrapped && counted)
		fmt_snprintf(overwritten, sizeof(overwritten), "%lu", over);
	else if (wrapped)
		fmt_snprintf(overwritten, sizeof(overwritten), "unknown");
	uint64_t masked, vpmis = ts_virtual_pmis(&masked), dropped, pebs_dropped;
	pmu_backend_drops(&dropped, &pebs_dropped);
	tprintf("trace-begin %s %s steps=%lu records=%lu pmis=%lu drains=%lu virtual-pmis=%lu "
		"masked=%lu dropped=%lu lost=%lu ring=%s%s leak=%s filtered=%lu flagged=%lu "
		"drained-in-pmi=%lu drained-at-end=%lu storms=%lu wrapped=%s overwritten=%s "
		"streamed-live=%lu result=%lu\n",
		fac, t->label, steps, store.n, st.pmis, st.bts_drains, vpmis, masked, dropped,
		store.lost_full, bts_ring_name(cfg.ring), plan.software_ring ? "(software)" : "",
		cfg.leak == BTS_LEAK_FLAG ? "flag" : "filter", store.filtered, store.flagged,
		st.bts_drained, at_end, st.storms, wrapped ? "yes" : "no", overwritten, dl.live,
		result);
	if (wrapped)
		tprintf("note: %s: %s: the circular buffer of %lu records went round: %s older "
			"records were overwritten (SDM 17.4.9.3; a larger bts.records, or btsint, "
			"keeps them)\n",
			fac, t->label, cfg.records, overwritten);
	if (!live && o->stream != TRACE_STREAM_OFF) {
		dl.stream = trace_stream_begin(fac, t->label);
		trace_stream_path(dl.stream, o->stream_path);
	}
	struct bt_writer *stream = dl.stream;
	deliver_taken(&dl, UINT64_MAX);
	if (stream) {
		/* Every record the hardware or the model wrote and this session does not deliver,
		 * with its reason (the stream's END; the trace-begin line says the same). */
		char loss[128];
		fmt_snprintf(loss, sizeof(loss), "store-full=%lu dropped=%lu overwritten=%lu%s",
			     store.lost_full, dropped, over, wrapped && !counted ? "+unknown" : "");
		bt_write_end(stream, store.lost_full + dropped + over,
			     store.lost_full || dropped || wrapped ? loss : "");
	}
	selfcheck_exact(t, &sc, fac,
			cfg.ring != BTS_RING_ALL     ? "bts.ring leaves a ring out"
			: wrapped		     ? "the circular buffer went round"
			: store.lost_full || dropped ? "records were lost"
						     : NULL);
	uint64_t ler_from = 0, ler_to = 0;
	if (ts_check(t, pmu_rdmsr(MSR_LER_FROM, &ler_from), MSR_LER_FROM, fac) &&
	    ts_check(t, pmu_rdmsr(MSR_LER_TO, &ler_to), MSR_LER_TO, fac))
		tprintf("ler %#lx %#lx\n", ler_from, ler_to);
	ts_print_exceptions(t);
	if (store.lost_full || st.storms || st.msr_errors) {
		tprintf("error: %s: %s: %lu records lost (store of %lu full), %lu PMI storms, %lu "
			"refused MSR accesses in the service routine\n",
			fac, t->label, store.lost_full, store.cap, st.storms, st.msr_errors);
		ok = false;
	}
	tprintf("trace-end %s %s\n", fac, t->label);
	return ok;
}

static bool bts_available(const struct trace_caps *c, const char **why)
{
	*why = c->bts.reason;
	return c->bts.kind != TC_BTS_NO;
}

static bool run_bts(struct trace_ctx *t)
{
	return session_bts(t, false);
}

static bool run_btsint(struct trace_ctx *t)
{
	return session_bts(t, true);
}

const struct facility_ops facility_bts = {.available = bts_available, .run = run_bts};
const struct facility_ops facility_btsint = {.available = bts_available, .run = run_btsint};
