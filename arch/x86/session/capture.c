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
#include "kernel/memory.h"
#include "lib/fmt.h"
#include "lib/string.h"

/* A live drainer that has not made room in this long is not coming: the session stops waiting. */
#define STORE_ROOM_WAIT_US 2000000

/* The session's state: per CPU (sessions run on several at once), not on the stack, allocated
 * with the CPU's other buffers. */
struct capture {
	struct facility_run run;
	struct session_sink sink;
	uint64_t room_wait_us; /* what is left of the wait for a drainer; 0: none serves */
	uint64_t live;	       /* records the drainer delivered during the run */
};
static struct capture *captures[MAX_CPUS];

bool capture_prepare_cpu(unsigned cpu)
{
	if (cpu >= MAX_CPUS)
		return false;
	if (!captures[cpu]) {
		uint64_t pa = page_alloc((sizeof(struct capture) + PAGE_SIZE - 1) / PAGE_SIZE);
		captures[cpu] = pa ? arch_phys_to_virt(pa) : NULL;
	}
	return captures[cpu] != NULL;
}

/* The store's full ring while a drainer serves this CPU: wait for it to take some, up to
 * STORE_ROOM_WAIT_US once in the session; then the record is lost and counted. */
static bool wait_for_drainer(struct record_store *s)
{
	struct capture *c = s->full_ctx;
	if (!c->room_wait_us)
		return false;
	uint64_t deadline = tsc_deadline(c->room_wait_us);
	while (s->n == __atomic_load_n(&s->limit, __ATOMIC_ACQUIRE)) {
		if (tsc_passed(deadline)) {
			c->room_wait_us = 0;
			return false;
		}
		cpu_pause();
	}
	return true;
}

/* Up to `max` stored records, oldest first, through the driver to the sink; how many were
 * delivered. */
static uint64_t deliver_stored(struct capture *c, uint64_t max)
{
	struct facility_run *r = &c->run;
	uint64_t delivered = 0;
	for (uint64_t i = 0; i < max; i++) {
		const void *rec = record_store_oldest(&r->store);
		if (!rec)
			break;
		delivered += r->drv->deliver(r, rec, &c->sink.sink);
		record_store_drop(&r->store);
	}
	return delivered;
}

/* stream.live: the drainer's round, on the drainer's CPU with the source's lock held. */
static void live_pump(void *ctx)
{
	struct capture *c = ctx;
	c->live += deliver_stored(c, c->run.live_batch);
}

static void stream_begin(struct capture *c, struct trace_ctx *t)
{
	c->sink.stream = trace_stream_begin(c->run.drv->name, t->label);
	if (c->run.drv == &bts_driver || c->run.drv == &btsint_driver)
		trace_stream_path(c->sink.stream, t->req->opt->stream_path);
}

/* With a drainer serving this CPU, a full store waits for it; without one, a store smaller
 * than one drain of the hardware buffer loses records, which is said. */
static void live_open(struct capture *c, struct trace_ctx *t)
{
	struct facility_run *r = &c->run;
	stream_begin(c, t);
	if (trace_live_open(live_pump, c)) {
		c->room_wait_us = STORE_ROOM_WAIT_US;
		return;
	}
	if (r->store.cap < r->live_drain)
		tprintf(
		    "warning: %s: %s: the store's ring holds %lu records, fewer than one drain "
		    "of the buffer (%lu), and no other CPU drains it during the run: records will "
		    "be lost (%s keeps them)\n",
		    r->drv->name, t->label, r->store.cap, r->live_drain, r->live_remedy);
}

/* A single-step trap of the run, to the driver that asked for them (BTF). */
static void step_hook(void *ctx, uint64_t retired, uint64_t next)
{
	struct facility_run *r = ctx;
	r->drv->step(r, retired, next);
}

/* plan and the store; false when the session ends here (*ok says how). */
static bool prepare(struct capture *c, struct trace_ctx *t, const struct facility_driver *drv,
		    bool *ok)
{
	struct facility_run *r = &c->run;
	char why[TS_WHY_LEN] = "";
	memset(c, 0, sizeof(*c));
	*r = (struct facility_run){.drv = drv,
				   .caps = t->caps,
				   .opt = t->req->opt,
				   .ds = ds_area_this_cpu(),
				   .label = t->label,
				   .print = tprintf,
				   .ok = true};
	enum status st = drv->plan(r, why, sizeof(why));
	*ok = st == STATUS_OK || st == STATUS_UNSUPPORTED;
	if (st == STATUS_UNSUPPORTED) {
		ts_skip(t, drv->name, why);
		/* The stream says so too: a session the decoder knows was skipped, not missing. */
		if (t->req->opt->stream != TRACE_STREAM_OFF) {
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
		*ok = false;
		return false;
	}
	r->store.full = wait_for_drainer;
	r->store.full_ctx = c;
	return true;
}

/* arm, the workload, disarm, and what the drainer left; the run's facts. */
static void run(struct capture *c, struct trace_ctx *t, struct run_facts *f)
{
	struct facility_run *r = &c->run;
	bool live = r->live && t->req->opt->stream_live && t->req->opt->stream != TRACE_STREAM_OFF;
	session_sink_init(&c->sink, t, !live);
	if (live)
		live_open(c, t);
	if (r->drv->step)
		ts_set_step_hook(step_hook, r);
	enum status armed = r->drv->arm(r);
	uint64_t t0 = arch_timestamp();
	f->result = armed == STATUS_OK ? ts_run(t, r->interrupts, &f->steps) : 0;
	f->tsc_cycles = arch_timestamp() - t0;
	ts_set_step_hook(0, 0);
	r->drv->disarm(r);
	c->room_wait_us = 0; /* no drainer from here on: the session takes the rest */
	if (live) {
		trace_live_close();
		deliver_stored(c,
			       UINT64_MAX); /* what the drainer left, to make room for the rest */
	}
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

bool capture_session(struct trace_ctx *t, const struct facility_driver *drv)
{
	struct capture *c = captures[this_cpu()->index];
	struct facility_run *r = &c->run;
	bool ok;
	if (!prepare(c, t, drv, &ok))
		return ok;
	struct run_facts f = {0};
	run(c, t, &f);
	drv->drain(r);
	drv->describe(r, &f);
	if (!c->sink.stream && t->req->opt->stream != TRACE_STREAM_OFF)
		stream_begin(c, t);
	deliver_stored(c, UINT64_MAX);
	if (c->sink.stream)
		bt_write_end(c->sink.stream, r->end_lost, r->end_why);
	check(c, t);
	if (r->ler && r->ok)
		print_ler(r);
	ts_print_exceptions(t);
	ok = drv->finish(r) && r->ok;
	tprintf("trace-end %s %s\n", drv->name, t->label);
	return ok;
}
