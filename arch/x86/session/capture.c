/* SPDX-License-Identifier: MIT */
/*
 * One capture of one workload on one CPU, the same for every facility (the driver interface:
 * arch/x86/drivers/driver.h): plan -> arm -> run the workload -> disarm -> drain -> the summary
 * line -> every stored record through the one sink -> the self-check -> the last exception
 * record and the workload's exceptions -> the driver's last words. A plan the CPU cannot follow
 * SKIPs with its reason; a request that cannot work fails before anything is programmed.
 */
#include "arch/x86/session/capture.h"
#include "arch/x86/drivers/driver.h"
#include "arch/x86/drivers/ler.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/pmu/ds_area.h"
#include "arch/x86/session/output.h"
#include "arch/x86/session/session.h"
#include "arch/x86/session/sink.h"
#include "arch/x86/smp/timer.h"
#include "kernel/arch_cpu.h"
#include "kernel/memory.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define SELF_DELIVERY_BATCH 4096 /* records a full store hands on at once without a drainer */

/* The session's state: per CPU (sessions run on several at once), not on the stack, allocated
 * with the CPU's other buffers. */
struct capture {
	struct facility_run run;
	struct session_sink sink;
	enum trace_full full; /* option capture.full */
	bool served;	      /* a live drainer takes the records while the run goes on */
	bool running;	      /* the run goes on: a full store may wait or hand records on */
	uint64_t live;	      /* records the drainer delivered during the run */
	uint64_t early;	      /* records the session handed on itself during the run */
	uint64_t wrapped;     /* the oldest records a full store gave up (capture.full=wrap) */
	uint64_t held_tsc;    /* TSC cycles the workload was held while the store made room */
	uint64_t peak;	      /* the most records the store held at once, as its consumer saw */
};
static struct capture *captures[MAX_CPUS];

/* The sessions that did not deliver every record, for the run's summary (arch_trace_losses). */
#define LOSSES_KEPT 32
#define LOSS_LINE   192
static char losses[LOSSES_KEPT][LOSS_LINE];
static uint32_t nlosses;

uint64_t capture_pages(void)
{
	return (sizeof(struct capture) + PAGE_SIZE - 1) / PAGE_SIZE;
}

bool capture_prepare_cpu(unsigned cpu)
{
	if (cpu >= MAX_CPUS)
		return false;
	if (!captures[cpu])
		captures[cpu] = page_alloc_virt(sizeof(struct capture));
	return captures[cpu] != NULL;
}

uint64_t capture_records_kept(unsigned cpu)
{
	const struct capture *c = cpu < MAX_CPUS ? captures[cpu] : NULL;
	return c && c->running ? __atomic_load_n(&c->run.store.n, __ATOMIC_RELAXED) : 0;
}

/* Up to `max` stored records, oldest first, through the driver to the sink; how many were
 * delivered. */
static uint64_t deliver_stored(struct capture *c, uint64_t max)
{
	struct facility_run *r = &c->run;
	uint64_t delivered = 0, pending = record_store_pending(&r->store);
	c->peak = pending > c->peak ? pending : c->peak;
	for (uint64_t i = 0; i < max; i++) {
		const void *rec = record_store_oldest(&r->store);
		if (!rec)
			break;
		delivered += r->drv->deliver(r, rec, &c->sink.sink);
		record_store_drop(&r->store);
	}
	return delivered;
}

/* The store is full (its producer: the PMI/DS service routine, a single-step hook, a drain).
 * capture.full=wait: while the run goes on, the workload waits — for the live drainer to take
 * records, or, with none, while this CPU hands the oldest records on itself (their lines or
 * frames then come before the session's summary); after the run the session takes them as it
 * goes. stop: the capture ends here, what follows is counted. wrap: the oldest record makes
 * room, counted. */
static bool store_full(struct record_store *s)
{
	struct capture *c = s->full_ctx;
	if (c->full == TRACE_FULL_STOP)
		return false;
	if (c->full == TRACE_FULL_WRAP) {
		record_store_drop(s);
		c->wrapped++;
		return true;
	}
	uint64_t t0 = arch_timestamp();
	if (c->served)
		while (s->n == __atomic_load_n(&s->limit, __ATOMIC_ACQUIRE))
			cpu_pause();
	else
		c->early += deliver_stored(c, SELF_DELIVERY_BATCH);
	c->held_tsc += arch_timestamp() - t0;
	return true;
}

/* stream.live: the drainer's round, on the drainer's CPU with the source's lock held. */
static void live_pump(void *ctx)
{
	struct capture *c = ctx;
	c->live += deliver_stored(c, c->run.live_batch);
}

/* Records that wait for the run's end (stream.live=off): the drainer's round hands them on only
 * when the store is full, as the CPU would itself, so that the frames of its stream have one
 * writer while the drainer also takes a user program's output (output.c, after the pump). */
static void full_pump(void *ctx)
{
	struct capture *c = ctx;
	if (record_store_pending(&c->run.store) >= c->run.store.cap)
		c->early += deliver_stored(c, SELF_DELIVERY_BATCH);
}

/* A session that writes no frame during the run (its records wait for the drain, go as lines
 * with stream=off, or stop or wrap where the store fills): the drainer's round takes only a
 * user program's output, which is no record and goes whole whatever the records do. */
static void output_pump(void *ctx)
{
	(void)ctx;
}

static void stream_begin(struct capture *c, struct trace_ctx *t)
{
	c->sink.stream = trace_stream_begin(c->run.drv->name, t->label);
	if (c->run.drv == &bts_driver || c->run.drv == &btsint_driver)
		trace_stream_path(c->sink.stream, t->req->opt->stream_path);
}

/* A single-step trap of the run, to the driver that asked for them (BTF). */
static void step_hook(void *ctx, uint64_t retired, uint64_t next)
{
	struct facility_run *r = ctx;
	r->drv->step(r, retired, next);
}

/* plan and the store; false when the session ends here (*out says how). */
static bool prepare(struct capture *c, struct trace_ctx *t, const struct facility_driver *drv,
		    enum trace_outcome *out)
{
	struct facility_run *r = &c->run;
	const struct trace_options *o = t->req->opt;
	char why[TS_WHY_LEN] = "";
	memset(c, 0, sizeof(*c));
	*r = (struct facility_run){.drv = drv,
				   .caps = t->caps,
				   .opt = o,
				   .ds = ds_area_this_cpu(),
				   .label = t->label,
				   .print = tprintf,
				   .ok = true};
	enum status st = drv->plan(r, why, sizeof(why));
	*out = st == STATUS_UNSUPPORTED ? TRACE_SKIPPED : TRACE_FAILED;
	if (st == STATUS_UNSUPPORTED) {
		ts_skip(t, drv->name, why);
		/* The stream says so too: a session the decoder knows was skipped, not missing. */
		if (o->stream != TRACE_STREAM_OFF) {
			stream_begin(c, t);
			bt_write_end(c->sink.stream, 0, "skipped");
		}
	} else if (st != STATUS_OK)
		tprintf("error: %s: %s: %s\n", drv->name, t->label, why);
	else if (why[0])
		tprintf("note: %s: %s: %s\n", drv->name, t->label, why);
	if (st != STATUS_OK)
		return false;
	uint64_t bytes;
	void *mem = ts_scratch(&bytes);
	if (r->record_size && !record_store_init(&r->store, mem, bytes, r->record_size)) {
		tprintf("error: %s: %s: no room for one record of %zu bytes in the store\n",
			drv->name, t->label, r->record_size);
		return false;
	}
	c->full = (enum trace_full)o->capture_full;
	r->store.full = store_full;
	r->store.full_ctx = c;
	return true;
}

/* arm, the workload, disarm, and what the drainer left; the run's facts. Records go once: as
 * stream frames when the session streams (its BEGIN first, so that they may leave at any time),
 * else as text lines. */
static void run(struct capture *c, struct trace_ctx *t, struct run_facts *f)
{
	struct facility_run *r = &c->run;
	const struct trace_options *o = t->req->opt;
	bool stream = o->stream != TRACE_STREAM_OFF;
	session_sink_init(&c->sink, t, !stream);
	if (stream)
		stream_begin(c, t);
	/* wrap gives up the oldest records itself: no drainer may take them meanwhile */
	bool live =
	    r->live && stream && o->stream_live != TRACE_LIVE_OFF && c->full != TRACE_FULL_WRAP;
	/* A drainer serving this CPU takes a program's output during the run in every case */
	if (live)
		c->served = trace_live_open(live_pump, c);
	else if (r->live && stream && c->full == TRACE_FULL_WAIT)
		c->served = trace_live_open(full_pump, c);
	else
		trace_live_open(output_pump, c);
	if (r->drv->step)
		ts_set_step_hook(step_hook, r);
	enum status armed = r->drv->arm(r);
	c->running = true;
	ts_run_prepare();
	uint64_t t0 = arch_timestamp();
	f->result = armed == STATUS_OK ? ts_run(t, r->interrupts, &f->steps) : 0;
	f->tsc_cycles = arch_timestamp() - t0;
	ts_set_step_hook(0, 0);
	r->drv->disarm(r);
	trace_live_close();
	c->served = false; /* no drainer from here on: the session takes the rest */
	c->running = false;
	f->streamed_live = c->live;
	f->virtual_pmis = ts_virtual_pmis(&f->virtual_pmis_masked);
	f->mem_unknown = ts_mem_unknown();
}

/* The last exception record, after the sessions that have one. */
static void print_ler(struct facility_run *r)
{
	uint64_t from, to;
	uint32_t msr = 0;
	enum status st = ler_read(&from, &to, &msr);
	if (drv_check(r, st, msr, r->drv->name))
		tprintf("ler %#lx %#lx\n", from, to);
}

static void check(struct capture *c, struct trace_ctx *t)
{
	struct facility_run *r = &c->run;
	const char *fac = r->drv->name;
	switch (r->check) {
	case CHECK_EXACT:
		selfcheck_exact(t, &c->sink.sc, fac, r->check_skip);
		break;
	case CHECK_WINDOW:
		selfcheck_window(t, &c->sink.sc, fac, r->check_skip);
		break;
	case CHECK_SAMPLES:
		selfcheck_samples(t, &c->sink.sc, fac, r->check_every, r->check_skip);
		break;
	case CHECK_NONE:
		break;
	}
}

/* What the session did not deliver, said: how many records and why (the stream's END says the
 * same), and how long the workload waited for room. True when every record was delivered. */
static bool say_losses(struct capture *c, struct trace_ctx *t)
{
	struct facility_run *r = &c->run;
	const char *fac = r->drv->name;
	if (c->held_tsc)
		tprintf("note: %s: %s: the workload was held %lu us while the store made room "
			"(capture.full=wait; %lu records handed on during the run)\n",
			fac, t->label, tsc_to_us(c->held_tsc), c->early + c->live);
	if (!r->end_lost)
		return true;
	tprintf("incomplete: %s: %s: %lu records not delivered (%s)\n", fac, t->label, r->end_lost,
		r->end_why);
	uint32_t i = __atomic_fetch_add(&nlosses, 1, __ATOMIC_RELAXED);
	if (i < LOSSES_KEPT)
		fmt_snprintf(losses[i], LOSS_LINE, "%s %s: %lu records not delivered (%s)", fac,
			     t->label, r->end_lost, r->end_why);
	return false;
}

/* The oldest records capture.full=wrap gave up join the losses, and the self-check cannot hold
 * the capture to the signature. */
static void count_wrapped(struct capture *c)
{
	struct facility_run *r = &c->run;
	if (!c->wrapped)
		return;
	size_t at = strlen(r->end_why);
	fmt_snprintf(r->end_why + at, sizeof(r->end_why) - at, "%swrapped=%lu", at ? " " : "",
		     c->wrapped);
	r->end_lost += c->wrapped;
	r->check_skip = "capture.full=wrap gave up the oldest records";
}

/* A user program's output bytes that could not be delivered (said by output.c's
 * "incomplete: program: ..." lines): a loss of the run's apart from its records, never counted
 * as records not delivered. True when there was none. */
static bool count_output(struct trace_ctx *t)
{
	uint64_t bytes = trace_program_output_lost(this_cpu()->index);
	if (!bytes)
		return true;
	uint32_t i = __atomic_fetch_add(&nlosses, 1, __ATOMIC_RELAXED);
	if (i < LOSSES_KEPT)
		fmt_snprintf(losses[i], LOSS_LINE,
			     "program %s: %lu bytes of its output not delivered (no records)",
			     t->label, bytes);
	return false;
}

enum trace_outcome capture_session(struct trace_ctx *t, const struct facility_driver *drv)
{
	struct capture *c = captures[this_cpu()->index];
	struct facility_run *r = &c->run;
	enum trace_outcome out;
	if (!prepare(c, t, drv, &out))
		return out;
	struct run_facts f = {0};
	run(c, t, &f);
	drv->drain(r);
	uint64_t pending = record_store_pending(&r->store);
	f.store_peak = pending > c->peak ? pending : c->peak;
	drv->describe(r, &f);
	deliver_stored(c, UINT64_MAX);
	count_wrapped(c);
	bool output_whole = count_output(t);
	if (c->sink.stream)
		bt_write_end(c->sink.stream, r->end_lost, r->end_why);
	check(c, t);
	if (r->ler && r->ok)
		print_ler(r);
	ts_print_exceptions(t);
	bool whole = say_losses(c, t) && output_whole;
	bool ok = drv->finish(r) && r->ok;
	tprintf("trace-end %s %s\n", drv->name, t->label);
	return !ok ? TRACE_FAILED : !whole ? TRACE_INCOMPLETE : TRACE_PASSED;
}

void arch_trace_losses(workload_print_fn put)
{
	uint32_t n = __atomic_load_n(&nlosses, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n && i < LOSSES_KEPT; i++)
		put("incomplete: %s", losses[i]);
	if (n > LOSSES_KEPT)
		put("incomplete: and %u more sessions (each said so in its own lines)",
		    n - LOSSES_KEPT);
}
