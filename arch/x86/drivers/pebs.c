/* SPDX-License-Identifier: MIT */
/*
 * The PEBS driver (SDM Vol. 3B 18.4.4 and the later PEBS sections; references.md 6): the DS
 * buffer and the counter's reset slot (its offset depends on the format), the counter programmed
 * without INT (its PMI is the buffer's, references.md 6.1), MSR_PEBS_DATA_CFG for adaptive
 * groups, MSR_PEBS_LD_LAT for load latency, IA32_PEBS_ENABLE, then IA32_PERF_GLOBAL_CTRL; the
 * PMI/DS service routine copies the records into the store, the rest is drained after the run.
 */
#include "arch/x86/drivers/pebs.h"
#include "arch/x86/drivers/driver.h"
#include "arch/x86/drivers/lbr.h"
#include "arch/x86/drivers/pmc.h"
#include "arch/x86/caps/pmi_ack.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/pmu/isr_hook.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_trace.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define PEBS_PMI_MAX_LOOPS   100
#define PEBS_LBR_ENTRIES     4 /* LBR group entries per record (DATA_CFG[31:24] + 1) */
#define PERFMON_V5	     5
#define PEBS_CORE2_MAX_BYTES 4096 /* one page: see the quirk in plan_buffer */
#define PEBS_LIVE_BATCH	     256

/* The stream's IP semantics are the decoder's, value for value. */
_Static_assert((int)BT_PEBS_EXACT == (int)PEBS_IP_EXACT && (int)BT_PEBS_TRAP == (int)PEBS_IP_TRAP &&
		   (int)BT_PEBS_FAULT == (int)PEBS_IP_FAULT,
	       "lib/stream.h's enum bt_pebs_ip follows enum pebs_ip_kind");

/* The drain's sink, inside the PMI/DS service routine: a copy and nothing more (REP MOVSQ: the
 * record's quadwords, SDM Vol. 2B "MOVS/MOVSB/MOVSW/MOVSD/MOVSQ"; decoding waits until after
 * the run). A record of another size than the session's is not the session's: lost. */
void pebs_isr_record(void *ctx, const void *record, size_t size)
{
	struct facility_run *r = ctx;
	if (size != r->store.size) {
		r->store.lost_full++;
		return;
	}
	void *dst = record_store_reserve(&r->store);
	if (!dst)
		return; /* counted lost by the store */
	size_t quads = size / sizeof(uint64_t);
	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(record), "+c"(quads) : : "memory");
	record_store_commit(&r->store);
}

/* ---- plan ---------------------------------------------------------------------------------- */

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

static enum status pebs_available(const struct trace_caps *c, const char **why)
{
	*why = c->pebs.reason;
	return c->pebs.kind == TC_PEBS_YES ? STATUS_OK : STATUS_UNSUPPORTED;
}

/* The event, the counter and their enable bits: STATUS_UNSUPPORTED where the CPU lacks one. */
static enum status plan_event(struct facility_run *r, char *why, size_t n)
{
	const struct trace_caps *c = r->caps;
	const struct trace_options *o = r->opt;
	struct pebs_state *p = &r->u.pebs;
	struct pebs_choice ch = pebs_events[o->pebs_event];
	if (c->pebs.kind != TC_PEBS_YES) {
		fmt_snprintf(why, n, "%s", c->pebs.reason);
		return STATUS_UNSUPPORTED;
	}
	if (ch.mem >= 0 && pebs_memory_event(c, (enum pebs_mem_event)ch.mem, &ch.event, &ch.umask,
					     why, n) != STATUS_OK)
		return STATUS_UNSUPPORTED;
	p->fixed = ch.fixed;
	p->event = ch.event;
	p->umask = ch.umask;
	p->load_latency = ch.load_latency;
	p->mem = ch.mem;
	/* The load-latency enables (PEBS_ENABLE bits 32+n) exist before perfmon v5 only; from v5
	 * the event alone selects load latency (references.md 6.1). */
	bool ll_enable = ch.load_latency && c->perfmon.version < PERFMON_V5;
	/* The counter: GP counter pebs.counter, or fixed counter 0 (extended PEBS). */
	p->counter = ch.fixed ? 0 : (unsigned)o->pebs_counter;
	uint32_t gp = ch.fixed ? 0 : (uint32_t)BIT(p->counter);
	if (pebs_enable_bits(c, gp, ch.fixed ? BIT(0) : 0, ll_enable ? gp : 0, &p->enable, why,
			     n) != STATUS_OK ||
	    (ch.load_latency && pebs_ld_lat_value((unsigned)o->pebs_ldlat, &p->ldlat) != STATUS_OK))
		return STATUS_UNSUPPORTED;
	struct pmc_event ev = {
	    .event = ch.event, .usr = true, .os = true, .period = o->pebs_period};
	if (!ch.fixed && pmc_check_gp(c, p->counter, &ev, why, n) != STATUS_OK)
		return STATUS_UNSUPPORTED;
	p->global = ch.fixed ? GLOBAL_STATUS_FIXED(0) : BIT(p->counter);
	return STATUS_OK;
}

/* The record layout, the reset slot and the buffer: STATUS_INVALID when they do not fit. */
static enum status plan_buffer(struct facility_run *r, char *why, size_t n)
{
	const struct trace_caps *c = r->caps;
	struct pebs_state *p = &r->u.pebs;
	p->format = c->pebs.format;
	p->adaptive = c->pebs.adaptive;
	p->trap_like = c->pebs.trap_like;
	/* groups exist in adaptive PEBS only */
	p->data_cfg = p->adaptive ? pebs_data_cfg(r->opt->pebs_groups) : 0;
	/* The LBR group copies the LBR stack into each record: the LBRs must run. */
	p->with_lbr = (p->data_cfg & PEBS_DATACFG_LBRS) && c->lbr.kind != TC_LBR_NONE;
	p->size = pebs_record_bytes(p->format, p->adaptive, p->data_cfg);
	p->reset_off = pebs_counter_reset_offset(p->format, p->fixed, p->counter);
	if (!p->size || !r->ds || !p->reset_off || r->ds->pebs_bytes < 2 * p->size) {
		fmt_snprintf(
		    why, n,
		    "format %u (adaptive %d) has no record layout here, or the buffer (%lu "
		    "bytes) holds fewer than 2 records",
		    p->format, p->adaptive, r->ds ? r->ds->pebs_bytes : 0);
		return STATUS_INVALID;
	}
	/* Core 2 (format 0) quirk: a PEBS buffer larger than one page made the WRMSR to
	 * GLOBAL_CTRL hang; Linux uses 4 KiB there (references.md 6.4, 8). */
	p->buffer_bytes = r->opt->pebs_kib * 1024;
	p->core2_cap = p->format == 0 && p->buffer_bytes > PEBS_CORE2_MAX_BYTES;
	if (p->core2_cap)
		p->buffer_bytes = PEBS_CORE2_MAX_BYTES;
	p->records = p->buffer_bytes / p->size;
	return STATUS_OK;
}

static enum status pebs_plan(struct facility_run *r, char *why, size_t n)
{
	struct pebs_state *p = &r->u.pebs;
	enum status st = plan_event(r, why, n);
	if (st == STATUS_OK)
		st = plan_buffer(r, why, n);
	if (st != STATUS_OK)
		return st;
	why[0] = 0;
	r->record_size = p->size;
	r->interrupts = true;
	r->live = true;
	r->live_drain = p->records;
	r->live_batch = PEBS_LIVE_BATCH;
	r->live_remedy = "a larger trace.store, or a smaller pebs.kib,";
	r->check = CHECK_SAMPLES;
	/* the record is written on the event after the overflow (SDM Vol. 3B 18.4.4) */
	r->check_every = r->opt->pebs_period + 1;
	return STATUS_OK;
}

/* ---- arm, disarm, drain --------------------------------------------------------------------- */

/* The buffer, its threshold one record below the end, and the counter's reset value. */
static void buffer_setup(struct facility_run *r)
{
	struct pebs_state *p = &r->u.pebs;
	struct ds_area64 *ds = r->ds->area;
	unsigned width = p->fixed ? r->caps->perfmon.fixed_width : r->caps->perfmon.gp_width;
	uint64_t reload = pmc_period_value(width, r->opt->pebs_period);
	ds->pebs_base = ds->pebs_index = r->ds->pebs_phys;
	ds->pebs_abs_max = r->ds->pebs_phys + p->records * p->size;
	ds->pebs_threshold = pebs_threshold_multi(ds->pebs_base, ds->pebs_abs_max, p->size, 1);
	memcpy((uint8_t *)ds + p->reset_off, &reload, sizeof(reload));
}

/* The counter, without INT; adaptive records on a fixed counter need its adaptive bit. */
static enum status program_counter(struct facility_run *r, uint32_t *msr)
{
	const struct trace_caps *c = r->caps;
	struct pebs_state *p = &r->u.pebs;
	enum status st = pmc_reset_all(c, msr);
	if (st != STATUS_OK)
		return st;
	if (!p->fixed) {
		struct pmc_event ev = {
		    .event = p->event,
		    .umask = p->umask,
		    .usr = true,
		    .os = true,
		    .period = r->opt->pebs_period,
		    .extra = p->adaptive ? EVTSEL_ADAPTIVE : 0,
		};
		return pmc_program_gp(c, p->counter, &ev, msr);
	}
	st = pmc_program_fixed(c, 0, true, true, false, r->opt->pebs_period, msr);
	uint64_t ctrl = 0;
	*msr = MSR_IA32_FIXED_CTR_CTRL;
	if (st == STATUS_OK && p->adaptive && (st = pmu_rdmsr(MSR_IA32_FIXED_CTR_CTRL, &ctrl)) == 0)
		st = pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, ctrl | FIXED_CTRL_ADAPTIVE(0));
	return st;
}

static bool wr(struct facility_run *r, uint32_t msr, uint64_t v)
{
	return drv_check(r, pmu_wrmsr(msr, v), msr, "pebs");
}

/* The LBR group copies the stack into each record: the LBRs run with every branch kept. */
static bool lbr_on(struct facility_run *r)
{
	uint32_t msr = 0;
	enum status st = lbr_enable_for_sampling(r->caps, 0, &msr);
	return drv_check(r, st, msr, "lbr");
}

static enum status pebs_arm(struct facility_run *r)
{
	const struct trace_caps *c = r->caps;
	struct pebs_state *p = &r->u.pebs;
	buffer_setup(r);
	struct ds_isr_config isr = {
	    .perfmon_version = c->perfmon.version,
	    .ds_area = r->ds->area_phys,
	    .pebs = true,
	    .pebs_record_size = p->size,
	    .global_ctrl = p->global,
	    .pebs_enable = p->enable,
	    .max_loops = PEBS_PMI_MAX_LOOPS,
	    .gp_width = c->perfmon.gp_width,
	    .fixed_width = c->perfmon.fixed_width,
	    .pebs_format = p->format,
	    .full_width = c->perf_cap.full_width_write,
	    /* what the routine restores on exit: the LBRs stay on (legacy enable bit) */
	    .debugctl = p->with_lbr && c->lbr.kind == TC_LBR_LEGACY ? DEBUGCTL_LBR : 0,
	};
	struct trace_pmi_sinks sinks = {.pebs_record = pebs_isr_record, .ctx = r};
	uint32_t msr = 0;
	enum status st = program_counter(r, &msr);
	trace_pmi_begin(&isr, &sinks, pmi_ack_for(c));
	bool ok = drv_check(r, st, msr, "pebs") && (!p->with_lbr || lbr_on(r)) &&
		  drv_check(r, ds_area_install(r->ds), MSR_IA32_DS_AREA, "pebs") &&
		  (!p->adaptive || wr(r, MSR_PEBS_DATA_CFG, p->data_cfg)) &&
		  (!p->load_latency || wr(r, MSR_PEBS_LD_LAT, p->ldlat)) &&
		  wr(r, MSR_IA32_PEBS_ENABLE, p->enable) &&
		  wr(r, MSR_IA32_PERF_GLOBAL_CTRL, p->global);
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static enum status pebs_disarm(struct facility_run *r)
{
	struct pebs_state *p = &r->u.pebs;
	bool ok = wr(r, MSR_IA32_PERF_GLOBAL_CTRL, 0) && wr(r, MSR_IA32_PEBS_ENABLE, 0) &&
		  wr(r, MSR_IA32_DEBUGCTL, 0);
	uint32_t msr = 0;
	if (p->with_lbr) {
		enum status st = lbr_disable(r->caps, &msr);
		ok &= drv_check(r, st, msr, "lbr");
	}
	trace_pmi_end(&r->pmi);
	return ok ? STATUS_OK : STATUS_REFUSED;
}

static void count_bad(struct pebs_state *p, enum pebs_defect d)
{
	if (!p->bad++)
		p->first_defect = d;
}

/* Kept record `stored` through the session's layout (d->defect says what is wrong). */
static enum status decode(const struct facility_run *r, const void *stored, struct pebs_decoded *d)
{
	const struct pebs_state *p = &r->u.pebs;
	return pebs_decode(p->format, p->adaptive, p->trap_like, p->data_cfg, stored, p->size, d);
}

static enum status pebs_drain(struct facility_run *r)
{
	struct pebs_state *p = &r->u.pebs;
	/* What is left after the run (PEBS stopped), through the routine's own ops. */
	p->at_end = trace_pmi_drain_pebs(r->ds->area, p->size);
	/* Records a full buffer skipped, from the counter (ds_pebs_skipped), before its reset */
	p->dropped = r->pmi.pebs_skipped + trace_pmi_pebs_skipped(r->ds->area);
	uint32_t msr = 0;
	enum status st = pmc_reset_all(r->caps, &msr);
	drv_check(r, st, msr, "pebs");
	/* Every record not yet taken decoded once, so that the summary counts the undecodable. */
	uint64_t pending = record_store_pending(&r->store);
	for (uint64_t i = 0; i < pending; i++) {
		struct pebs_decoded d;
		if (decode(r, record_store_peek(&r->store, i), &d) != STATUS_OK)
			count_bad(p, d.defect);
	}
	p->drained = true;
	uint64_t full = r->store.lost_full;
	r->end_lost = full + p->dropped + p->bad;
	if (full || p->dropped || p->bad)
		fmt_snprintf(r->end_why, sizeof(r->end_why),
			     "store-full=%lu dropped=%lu undecodable=%lu", full, p->dropped,
			     p->bad);
	r->check_skip = r->opt->pebs_event != TRACE_PEBS_INSTRUCTIONS
			    ? "pebs.event is not instructions"
			: full || p->dropped || p->bad ? "records were lost"
						       : NULL;
	return st;
}

static void pebs_describe(struct facility_run *r, const struct run_facts *f)
{
	static const char *const counter_names[] = {"pmc0", "pmc1", "pmc2", "pmc3",
						    "pmc4", "pmc5", "pmc6", "pmc7"};
	const struct pebs_state *p = &r->u.pebs;
	const struct trace_pmi_stats *st = &r->pmi;
	r->print("trace-begin pebs %s steps=%lu records=%lu format=%u adaptive=%d trap=%d "
		 "event=%#x umask=%#x mem-unknown=%lu period=%lu counter=%s enable=%#lx "
		 "data-cfg=%#lx size=%zu pmis=%lu virtual-pmis=%lu "
		 "masked=%lu drains=%lu drained-in-pmi=%lu drained-at-end=%lu dropped=%lu lost=%lu "
		 "bad=%lu buffer=%lu%s storms=%lu streamed-live=%lu store-peak=%lu result=%lu\n",
		 r->label, f->steps, r->store.n - p->bad, p->format, p->adaptive, p->trap_like,
		 p->event, p->umask, f->mem_unknown, r->opt->pebs_period,
		 p->fixed ? "fixed0" : counter_names[p->counter], p->enable, p->data_cfg, p->size,
		 st->pmis, f->virtual_pmis, f->virtual_pmis_masked, st->pebs_drains,
		 st->pebs_drained, p->at_end, p->dropped, r->store.lost_full, p->bad,
		 p->buffer_bytes, p->core2_cap ? "(core2-cap)" : "", st->storms, f->streamed_live,
		 f->store_peak, f->result);
}

static bool pebs_deliver(struct facility_run *r, const void *stored, const struct record_sink *k)
{
	struct pebs_state *p = &r->u.pebs;
	struct pebs_decoded d;
	if (decode(r, stored, &d) != STATUS_OK) {
		if (!p->drained)
			count_bad(p, d.defect); /* taken live: the drain's pass will not see it */
		return false;
	}
	struct pebs_lbr_entry e = {0};
	pebs_lbr_get(&d, 0, &e); /* entry 0: the newest branch, if the record has the group */
	bool mem = p->mem >= 0;
	struct trace_record t = {.kind = TREC_PEBS,
				 .pebs = {.ev = d.has_eventing_ip ? d.eventing_ip : d.gprs.ip,
					  .next = d.has_next_ip ? d.next_ip : d.gprs.ip,
					  .status = d.status,
					  .size = (uint32_t)p->size,
					  .ip = (uint8_t)d.ip_kind,
					  .has_lbr = p->with_lbr,
					  .lbr_from = e.from,
					  .lbr_to = e.to,
					  .has_mem = mem,
					  .dla = d.has_meminfo ? d.data_addr : 0,
					  .dse = d.has_meminfo ? d.data_src : 0,
					  .lat = d.has_meminfo ? d.latency : 0}};
	k->put(k->ctx, &t);
	return true;
}

/* Records lost leave the capture incomplete (the session says so); an undecodable record, a
 * PMI storm or a refused access in the service routine is a failure. */
static bool pebs_finish(struct facility_run *r)
{
	const struct pebs_state *p = &r->u.pebs;
	const struct trace_pmi_stats *st = &r->pmi;
	if (!p->bad && !st->storms && !st->msr_errors)
		return true;
	r->print("error: pebs: %s: %lu undecodable records (first: %s), %lu storms, %lu refused "
		 "MSR accesses\n",
		 r->label, p->bad, p->bad ? pebs_defect_name(p->first_defect) : "-", st->storms,
		 st->msr_errors);
	return false;
}

const struct facility_driver pebs_driver = {
    .name = "pebs",
    .available = pebs_available,
    .plan = pebs_plan,
    .arm = pebs_arm,
    .disarm = pebs_disarm,
    .drain = pebs_drain,
    .describe = pebs_describe,
    .deliver = pebs_deliver,
    .finish = pebs_finish,
};

void pebs_fake_records(struct ds_percpu *d, unsigned records, uint64_t base_ip)
{
	struct ds_area64 *ds = d->area;
	size_t size = sizeof(struct pebs_record_fmt3);
	uint8_t *buf = arch_phys_to_virt(d->pebs_phys);
	memset(buf, 0, records * size);
	for (unsigned i = 0; i < records; i++) {
		struct pebs_record_fmt3 *p = (struct pebs_record_fmt3 *)(buf + i * size);
		p->f2.eventing_ip = base_ip + i;
		p->f2.f1.g.rip = base_ip + i + 1;
		p->f2.f1.status = BIT(0);
	}
	ds->pebs_base = d->pebs_phys;
	ds->pebs_index = d->pebs_phys + records * size;
	ds->pebs_abs_max = d->pebs_phys + d->pebs_bytes / size * size;
	ds->pebs_threshold = d->pebs_phys;
	ds_area_install(d);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, GLOBAL_STATUS_DS_BUFFER); /* as a threshold */
}
