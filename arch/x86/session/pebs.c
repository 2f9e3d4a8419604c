/* SPDX-License-Identifier: MIT */
/*
 * PEBS sessions (record layouts and checks: arch/x86/drivers/pebs.c): one PEBS counter —
 * PMC0 on instructions, branches, loads (load latency), all loads or stores retired, or fixed
 * counter 0 (extended PEBS) — reloaded
 * from its DS counter-reset slot after every record (the slot's offset depends on the
 * format), a buffer of pebs.kib whose threshold leaves one record of room per PEBS counter
 * (references.md 6.5), drained by the PMI/DS service routine at every threshold PMI and after
 * the run. PEBS counters are programmed without INT: their PMI is the buffer's (reference
 * 6.1). Adaptive PEBS records carry the memory-info and GPR groups. Every record is decoded
 * and printed with its IP semantics (exact, trap-like or fault-like), or counted.
 */
#include "arch/x86/pmu/ds_area.h"
#include "arch/x86/drivers/pebs.h"
#include "arch/x86/drivers/pmc.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/session/output.h"
#include "arch/x86/pmu/isr_hook.h"
#include "arch/x86/session/facility.h"
#include "arch/x86/session/session.h"
#include "arch/x86/session/selfcheck.h"
#include "arch/x86/session/stores.h"
#include "lib/fmt.h"
#include "lib/stream.h"
#include "lib/string.h"

#define PEBS_PMI_MAX_LOOPS   100
#define PEBS_LBR_ENTRIES     4 /* LBR group entries per record (DATA_CFG[31:24] + 1) */
#define PERFMON_V5	     5
#define PEBS_CORE2_MAX_BYTES 4096 /* one page: see the quirk in session_pebs */

/* The stream's IP semantics are the decoder's, value for value. */
_Static_assert((int)BT_PEBS_EXACT == (int)PEBS_IP_EXACT && (int)BT_PEBS_TRAP == (int)PEBS_IP_TRAP &&
		   (int)BT_PEBS_FAULT == (int)PEBS_IP_FAULT,
	       "lib/stream.h's enum bt_pebs_ip follows enum pebs_ip_kind");

/* The drain's sink, inside the PMI/DS service routine: a copy and nothing more (REP MOVSQ: the
 * record's quadwords, SDM Vol. 2B "MOVS/MOVSB/MOVSW/MOVSD/MOVSQ"; decoding waits until after
 * the run). A record of another size than the session's is not the session's: lost. */
static inline void pebs_append(struct pebs_store *s, uint64_t n, const void *record, size_t size)
{
	void *dst = s->at;
	size_t quads = size / sizeof(uint64_t);
	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(record), "+c"(quads) : : "memory");
	s->at = dst == s->end ? s->raw : dst;
	__atomic_store_n(&s->n, n + 1, __ATOMIC_RELEASE);
}

/* A full ring: out of line, so that the common path saves no registers (make bench's
 * bench-isr counts its instructions per record). */
static __attribute__((noinline)) void pebs_append_when_room(struct pebs_store *s, uint64_t n,
							    const void *record, size_t size)
{
	if (!store_wait_room(&s->limit, n, &s->room_wait_us)) {
		s->lost_full++;
		return;
	}
	pebs_append(s, n, record, size);
}

void pebs_store_record(void *ctx, const void *record, size_t size)
{
	struct pebs_store *s = ctx;
	uint64_t n = s->n;
	if (size != s->size)
		s->lost_full++;
	else if (n == __atomic_load_n(&s->limit, __ATOMIC_ACQUIRE))
		pebs_append_when_room(s, n, record, size);
	else
		pebs_append(s, n, record, size);
}

void pebs_store_init(struct pebs_store *s, void *mem, uint64_t bytes)
{
	s->raw = s->at = mem;
	s->cap = s->limit = bytes / s->size;
	s->end = s->raw + s->cap * s->size;
	s->n = s->taken = s->room_wait_us = 0;
}

/* Kept record number i (of all kept) through the session's layout: PEBS_OK or the decoder's
 * error. */
static int decode_kept(const struct pebs_store *s, uint64_t i, struct pebs_decoded *d)
{
	return pebs_decode(s->format, s->adaptive, s->trap_like, s->data_cfg,
			   s->raw + i % s->cap * s->size, s->size, d);
}

static void count_bad(struct pebs_store *s, int err)
{
	if (!s->bad++)
		s->first_error = (uint64_t)-err;
}

int pebs_store_take(struct pebs_store *s, struct pebs_sample *out)
{
	uint64_t i = s->taken;
	if (i == __atomic_load_n(&s->n, __ATOMIC_ACQUIRE))
		return 0;
	struct pebs_decoded d;
	int err = decode_kept(s, i, &d);
	s->taken = i + 1;
	__atomic_store_n(&s->limit, i + 1 + s->cap, __ATOMIC_RELEASE);
	if (err != PEBS_OK)
		return err; /* counted by pebs_store_check, or by the live pump */
	struct pebs_lbr_entry e = {0};
	pebs_lbr_get(&d, 0, &e); /* entry 0: the newest branch, if the record has the group */
	*out = (struct pebs_sample){
	    .ev = d.has_eventing_ip ? d.eventing_ip : d.gprs.ip,
	    .next = d.has_next_ip ? d.next_ip : d.gprs.ip,
	    .status = d.status,
	    .kind = (uint8_t)d.ip_kind,
	    .lbr_from = e.from,
	    .lbr_to = e.to,
	    .dla = d.has_meminfo ? d.data_addr : 0,
	    .dse = d.has_meminfo ? d.data_src : 0,
	    .lat = d.has_meminfo ? d.latency : 0,
	};
	return 1;
}

uint64_t pebs_store_check(struct pebs_store *s)
{
	for (uint64_t i = s->taken; i < s->n; i++) {
		struct pebs_decoded d;
		int err = decode_kept(s, i, &d);
		if (err != PEBS_OK)
			count_bad(s, err);
	}
	return s->n - s->bad;
}

/* Where a session's samples go (struct bts_delivery's twin): text lines unless they stream
 * live, the selfcheck, the record stream. */
struct pebs_delivery {
	struct pebs_store *s;
	struct selfcheck *sc;
	struct bt_writer *stream;
	bool text, with_lbr, mem;
	uint64_t live;
};

static void deliver(struct pebs_delivery *d, const struct pebs_sample *p)
{
	selfcheck_record(d->sc, p->ev, p->next);
	if (d->stream)
		bt_write_pebs(d->stream, &(struct bt_pebs){.ev = p->ev,
							   .next = p->next,
							   .status = p->status,
							   .size = (uint32_t)d->s->size,
							   .ip = p->kind,
							   .has_lbr = d->with_lbr,
							   .lbr_from = p->lbr_from,
							   .lbr_to = p->lbr_to,
							   .has_mem = d->mem,
							   .dla = p->dla,
							   .dse = p->dse,
							   .lat = p->lat});
	if (!d->text)
		return;
	tprintf("pebs %#lx %#lx applicable=%#lx size=%zu ip=%s", p->ev, p->next, p->status,
		d->s->size, pebs_ip_kind_name((enum pebs_ip_kind)p->kind));
	if (d->with_lbr)
		tprintf(" lbr %#lx %#lx", p->lbr_from, p->lbr_to);
	if (d->mem)
		tprintf(" dla=%#lx src=%#lx lat=%lu", p->dla, p->dse, p->lat);
	tprintf("\n");
}

#define LIVE_BATCH 256 /* samples a drainer round takes: a bounded hold of the lock */

/* Up to `max` records from the store, oldest first: the decodable delivered (their number
 * returned), the undecodable counted. */
static uint64_t deliver_taken(struct pebs_delivery *d, uint64_t max)
{
	struct pebs_sample p;
	uint64_t delivered = 0;
	int got = 1;
	for (uint64_t i = 0; i < max && got; i++) {
		got = pebs_store_take(d->s, &p);
		if (got > 0) {
			deliver(d, &p);
			delivered++;
		} else if (got < 0) {
			count_bad(d->s, got);
		}
	}
	return delivered;
}

static void live_pump(void *ctx)
{
	struct pebs_delivery *d = ctx;
	d->live += deliver_taken(d, LIVE_BATCH);
}

struct pebs_choice {
	bool fixed;
	uint8_t event, umask;
	bool load_latency;
	int mem; /* enum pebs_mem_event (the event and umask come from the processor), or -1 */
};

/* The events of option pebs.event. */
static const struct pebs_choice pebs_events[] = {
    [TRACE_PEBS_INSTRUCTIONS] = {false, ARCH_EVENT_INSTRUCTIONS, 0, false, -1},
    [TRACE_PEBS_BRANCHES] = {false, ARCH_EVENT_BRANCHES, 0, false, -1},
    [TRACE_PEBS_LOADS] = {false, 0, 0, true, PEBS_MEM_LOAD_LATENCY},
    [TRACE_PEBS_FIXED0] = {true, 0, 0, false, -1},
    [TRACE_PEBS_ALL_LOADS] = {false, 0, 0, false, PEBS_MEM_ALL_LOADS},
    [TRACE_PEBS_STORES] = {false, 0, 0, false, PEBS_MEM_STORES},
};

/* MSR_PEBS_DATA_CFG for option pebs.groups (TRACE_PEBS_* bits; references.md 6.3). */
static uint64_t pebs_data_cfg(uint64_t groups)
{
	return (groups & TRACE_PEBS_MEMINFO ? PEBS_DATACFG_MEMINFO : 0) |
	       (groups & TRACE_PEBS_GPR ? PEBS_DATACFG_GP : 0) |
	       (groups & TRACE_PEBS_XMM ? PEBS_DATACFG_XMMS : 0) |
	       (groups & TRACE_PEBS_LBR
		    ? PEBS_DATACFG_LBRS | FIELD_PREP(PEBS_DATACFG_LBR_COUNT, PEBS_LBR_ENTRIES - 1)
		    : 0);
}

static bool session_pebs(struct trace_ctx *t)
{
	const struct trace_caps *c = t->caps;
	const struct trace_options *o = t->req->opt;
	char why[TS_WHY_LEN];
	struct pebs_choice ch = pebs_events[o->pebs_event];
	if (c->pebs.kind != TC_PEBS_YES) {
		ts_skip(t, "pebs", c->pebs.reason);
		return true;
	}
	if (ch.mem >= 0 && pebs_memory_event(c, (enum pebs_mem_event)ch.mem, &ch.event, &ch.umask,
					     why, sizeof(why)) != PEBS_OK) {
		ts_skip(t, "pebs", why);
		return true;
	}
	uint64_t enable = 0, ldlat = 0;
	/* The load-latency enables (PEBS_ENABLE bits 32+n) exist before perfmon v5 only; from v5
	 * the event alone selects load latency (references.md 6.1). */
	bool ll_enable = ch.load_latency && c->perfmon.version < PERFMON_V5;
	/* The counter: GP counter pebs.counter, or fixed counter 0 (extended PEBS). */
	unsigned n = ch.fixed ? 0 : (unsigned)o->pebs_counter;
	if (pebs_enable_bits(c, ch.fixed ? 0 : (uint32_t)BIT(n), ch.fixed ? BIT(0) : 0,
			     ll_enable ? (uint32_t)BIT(n) : 0, &enable, why,
			     sizeof(why)) != PEBS_OK ||
	    (ch.load_latency && pebs_ld_lat_value((unsigned)o->pebs_ldlat, &ldlat) != PEBS_OK)) {
		ts_skip(t, "pebs", why);
		return true;
	}
	uint64_t groups = pebs_data_cfg(o->pebs_groups);
	struct pebs_store s = {
	    .format = c->pebs.format,
	    .adaptive = c->pebs.adaptive,
	    .trap_like = c->pebs.trap_like,
	    .data_cfg = c->pebs.adaptive ? groups : 0, /* groups exist in adaptive PEBS only */
	};
	/* The LBR group copies the LBR stack into each record: the LBRs must run. */
	bool with_lbr = (s.data_cfg & PEBS_DATACFG_LBRS) && c->lbr.kind != TC_LBR_NONE;
	size_t size = pebs_record_bytes(s.format, s.adaptive, s.data_cfg);
	struct ds_percpu *d = ds_area_this_cpu();
	uint32_t reset_off = pebs_counter_reset_offset(s.format, ch.fixed, n);
	if (!size || !d || !reset_off || d->pebs_bytes < 2 * size) {
		tprintf(
		    "error: pebs: %s: format %u (adaptive %d) has no record layout here, or the "
		    "buffer (%lu bytes) holds fewer than 2 records\n",
		    t->label, s.format, s.adaptive, d ? d->pebs_bytes : 0);
		return false;
	}
	/* The store: the records as written, in the scratch pages. */
	uint64_t bytes;
	void *scratch = ts_scratch(&bytes);
	s.size = size;
	pebs_store_init(&s, scratch, bytes);

	struct ds_area64 *ds = d->area;
	/* Core 2 (format 0) quirk: a PEBS buffer larger than one page made the WRMSR to
	 * GLOBAL_CTRL hang; Linux uses 4 KiB there (references.md 6.4, 8). */
	uint64_t buffer_bytes = o->pebs_kib * 1024;
	bool core2_cap = s.format == 0 && buffer_bytes > PEBS_CORE2_MAX_BYTES;
	if (core2_cap)
		buffer_bytes = PEBS_CORE2_MAX_BYTES;
	uint64_t nrec = buffer_bytes / size;
	unsigned width = ch.fixed ? c->perfmon.fixed_width : c->perfmon.gp_width;
	uint64_t reload = pmc_period_value(width, o->pebs_period);
	ds->pebs_base = ds->pebs_index = d->pebs_phys;
	ds->pebs_abs_max = d->pebs_phys + nrec * size;
	ds->pebs_threshold = pebs_threshold_multi(ds->pebs_base, ds->pebs_abs_max, size, 1);
	memcpy((uint8_t *)ds + reset_off, &reload, sizeof(reload));

	uint64_t global = ch.fixed ? GLOBAL_STATUS_FIXED(0) : BIT(n);
	struct ds_isr_config isr = {
	    .perfmon_version = c->perfmon.version,
	    .ds_area = d->area_phys,
	    .pebs = true,
	    .pebs_record_size = size,
	    .global_ctrl = global,
	    .pebs_enable = enable,
	    .max_loops = PEBS_PMI_MAX_LOOPS,
	    /* what the routine restores on exit: the LBRs stay on (legacy enable bit) */
	    .debugctl = with_lbr && c->lbr.kind == TC_LBR_LEGACY ? DEBUGCTL_LBR : 0,
	};
	struct trace_pmi_sinks sinks = {.pebs_record = pebs_store_record, .ctx = &s};
	uint32_t bad = pmc_reset_all(c);
	if (!bad && ch.fixed) {
		bad = pmc_program_fixed(c, 0, true, true, false, o->pebs_period);
		uint64_t ctrl = 0;
		if (!bad && s.adaptive &&
		    (pmu_rdmsr(MSR_IA32_FIXED_CTR_CTRL, &ctrl) != STATUS_OK ||
		     pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, ctrl | FIXED_CTRL_ADAPTIVE(0)) !=
			 STATUS_OK))
			bad = MSR_IA32_FIXED_CTR_CTRL;
	} else if (!bad) {
		struct pmc_event ev = {
		    .event = ch.event,
		    .umask = ch.umask,
		    .usr = true,
		    .os = true,
		    .period = o->pebs_period,
		    .extra = s.adaptive ? EVTSEL_ADAPTIVE : 0,
		};
		bad = pmc_check_gp(c, n, &ev, why, sizeof(why)) ? MSR_IA32_PERFEVTSEL0 + n
								: pmc_program_gp(c, n, &ev);
	}
	trace_pmi_begin(&isr, &sinks, pmi_ack_for(t->caps));
	bool ok =
	    ts_check(t, bad ? STATUS_REFUSED : STATUS_OK, bad, "pebs") &&
	    (!with_lbr || lbr_enable_for_sampling(t, 0)) &&
	    ts_check(t, ds_area_install(d), MSR_IA32_DS_AREA, "pebs") &&
	    (!s.adaptive ||
	     ts_check(t, pmu_wrmsr(MSR_PEBS_DATA_CFG, s.data_cfg), MSR_PEBS_DATA_CFG, "pebs")) &&
	    (!ch.load_latency ||
	     ts_check(t, pmu_wrmsr(MSR_PEBS_LD_LAT, ldlat), MSR_PEBS_LD_LAT, "pebs")) &&
	    ts_check(t, pmu_wrmsr(MSR_IA32_PEBS_ENABLE, enable), MSR_IA32_PEBS_ENABLE, "pebs") &&
	    ts_check(t, pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, global), MSR_IA32_PERF_GLOBAL_CTRL,
		     "pebs");
	struct selfcheck sc;
	selfcheck_begin(&sc, t);
	bool live = o->stream_live && o->stream != TRACE_STREAM_OFF;
	struct pebs_delivery dl = {
	    .s = &s, .sc = &sc, .text = !live, .with_lbr = with_lbr, .mem = ch.mem >= 0};
	if (live) {
		dl.stream = trace_stream_begin("pebs", t->label);
		ts_live_open(t, "pebs", s.cap, nrec, "a larger trace.store, or a smaller pebs.kib,",
			     live_pump, &dl, &s.room_wait_us);
	}
	uint64_t steps = 0, result = ok ? ts_run(t, true, &steps) : 0;
	s.room_wait_us = 0; /* no drainer from here on: the session takes the rest */
	if (live) {
		trace_live_close();
		/* What the drainer left in the ring, to make room for the rest. */
		deliver_taken(&dl, UINT64_MAX);
	}
	ok &= ts_check(t, pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0), MSR_IA32_PERF_GLOBAL_CTRL,
		       "pebs") &&
	      ts_check(t, pmu_wrmsr(MSR_IA32_PEBS_ENABLE, 0), MSR_IA32_PEBS_ENABLE, "pebs") &&
	      ts_check(t, pmu_wrmsr(MSR_IA32_DEBUGCTL, 0), MSR_IA32_DEBUGCTL, "pebs");
	if (with_lbr)
		lbr_disable(t);
	struct trace_pmi_stats st;
	trace_pmi_end(&st);
	/* What is left after the run (PEBS stopped above), through the routine's own ops. */
	uint64_t at_end = trace_pmi_drain_pebs(ds, size);
	bad = pmc_reset_all(c);
	ok &= ts_check(t, bad ? STATUS_REFUSED : STATUS_OK, bad, "pebs");
	static const char *const counter_names[] = {"pmc0", "pmc1", "pmc2", "pmc3",
						    "pmc4", "pmc5", "pmc6", "pmc7"};
	uint64_t masked, vpmis = ts_virtual_pmis(&masked);
	uint64_t bts_dropped, dropped;
	pmu_backend_drops(&bts_dropped, &dropped);
	uint64_t good = pebs_store_check(&s);
	tprintf("trace-begin pebs %s steps=%lu records=%lu format=%u adaptive=%d trap=%d "
		"event=%#x umask=%#x mem-unknown=%lu period=%lu counter=%s enable=%#lx "
		"data-cfg=%#lx size=%zu pmis=%lu virtual-pmis=%lu "
		"masked=%lu drains=%lu drained-in-pmi=%lu drained-at-end=%lu dropped=%lu lost=%lu "
		"bad=%lu buffer=%lu%s storms=%lu streamed-live=%lu result=%lu\n",
		t->label, steps, good, s.format, s.adaptive, s.trap_like, ch.event, ch.umask,
		ts_mem_unknown(), o->pebs_period, ch.fixed ? "fixed0" : counter_names[n], enable,
		s.data_cfg, size, st.pmis, vpmis, masked, st.pebs_drains, st.pebs_drained, at_end,
		dropped, s.lost_full, s.bad, buffer_bytes, core2_cap ? "(core2-cap)" : "",
		st.storms, dl.live, result);
	if (!live && o->stream != TRACE_STREAM_OFF)
		dl.stream = trace_stream_begin("pebs", t->label);
	struct bt_writer *stream = dl.stream;
	struct pebs_sample p;
	for (int got; (got = pebs_store_take(&s, &p)) != 0;)
		if (got > 0)
			deliver(&dl, &p); /* the undecodable: counted in bad above */
	selfcheck_samples(t, &sc, "pebs", o->pebs_period + 1,
			  o->pebs_event != TRACE_PEBS_INSTRUCTIONS
			      ? "pebs.event is not instructions"
			  : s.lost_full || dropped || s.bad ? "records were lost"
							    : NULL);
	if (stream) {
		/* every sample the hardware or the model wrote and this session does not deliver,
		 * with its reason */
		char loss[128];
		fmt_snprintf(loss, sizeof(loss), "store-full=%lu dropped=%lu undecodable=%lu",
			     s.lost_full, dropped, s.bad);
		bt_write_end(stream, s.lost_full + dropped + s.bad,
			     s.lost_full || dropped || s.bad ? loss : "");
	}
	ts_print_exceptions(t);
	if (s.lost_full || s.bad || st.storms || st.msr_errors) {
		tprintf("error: pebs: %s: %lu records lost (store full), %lu undecodable (first: "
			"%s), %lu storms, %lu refused MSR accesses\n",
			t->label, s.lost_full, s.bad,
			s.bad ? pebs_error_name(-(int)s.first_error) : "-", st.storms,
			st.msr_errors);
		ok = false;
	}
	tprintf("trace-end pebs %s\n", t->label);
	return ok;
}

static bool pebs_available(const struct trace_caps *c, const char **why)
{
	*why = c->pebs.reason;
	return c->pebs.kind == TC_PEBS_YES;
}

const struct facility_ops facility_pebs = {.available = pebs_available, .run = session_pebs};
