/* SPDX-License-Identifier: MIT */
/*
 * The PMI/DS service routine's path length, in executed instructions (repeatable where times
 * are not): the routine is called the way the PMI entry calls it, single-stepped by the
 * engine, on the software PMU, with N records waiting in the buffer — BTS with the BTS
 * session's sink, PEBS (format 3, Skylake) with the PEBS session's decoding sink. Steps inside
 * the model (linker range __spmu_text_start..end) are not the driver's: each entry into it
 * stands for the one RDMSR/WRMSR it emulates and is counted as one instruction. Per PMI is
 * the count with no record; per record is the slope between 0 and BENCH_RECORDS records.
 */
#include "arch/x86/pmu/ds_area.h"
#include "arch/x86/pmu/ds_isr.h"
#include "arch/x86/drivers/driver.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/step/singlestep.h"
#include "arch/x86/pmu/isr_hook.h"
#include "arch/x86/cpu/trap.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_trace.h"
#include "kernel/console.h"
#include "kernel/memory.h"
#include "lib/string.h"

#define BENCH_RECORDS	   64
#define BENCH_BTS_MAX_NEW  40  /* the bound on BTS instructions per drained record */
#define BENCH_PEBS_MAX	   150 /* and on PEBS ones (format 3) */
#define BENCH_USER_ADDRESS 0x00007f0000000000ull
#define BENCH_STORE_PAGES  16

extern const char __spmu_text_start[], __spmu_text_end[];

struct path_count {
	uint64_t driver, model_steps, model_entries;
	bool in_model;
};

static void count_step(void *ctx, uint64_t retired, uint64_t next)
{
	(void)next;
	struct path_count *c = ctx;
	bool in = retired >= (uint64_t)__spmu_text_start && retired < (uint64_t)__spmu_text_end;
	if (in) {
		c->model_steps++;
		c->model_entries += !c->in_model;
	} else {
		c->driver++;
	}
	c->in_model = in;
}

static uint64_t call_routine(uint64_t arg)
{
	(void)arg;
	struct trap_frame f;
	memset(&f, 0, sizeof(f));
	trace_pmi_service(&f);
	return 0;
}

/* Instructions the routine executes for one PMI with `records` BTS or PEBS records due, into
 * the store of run r through the drivers' own sinks. */
static uint64_t measure(const struct ds_isr_config *cfg, const struct trace_pmi_sinks *sinks,
			void (*fake)(struct ds_percpu *d, unsigned records, uint64_t base_ip),
			struct facility_run *r, void *mem, uint64_t bytes, unsigned records,
			uint64_t *model_accesses)
{
	record_store_init(&r->store, mem, bytes, r->record_size);
	fake(ds_area_this_cpu(), records, BENCH_USER_ADDRESS);
	trace_pmi_begin(cfg, sinks, PMI_ACK_LATE); /* Skylake's */
	struct path_count c = {0};
	struct ss_result res;
	struct ss_hooks h = {count_step, NULL, &c,   NULL, NULL, NULL,
			     NULL,	 NULL, NULL, NULL, NULL, NULL};
	ss_run(call_routine, 0, &h, false, &res);
	struct trace_pmi_stats st;
	trace_pmi_end(&st);
	*model_accesses = c.model_entries;
	return c.driver + c.model_entries;
}

/* Every stored record decodes as the format-3 record the bench wrote. */
static bool pebs_decodable(const struct record_store *s)
{
	for (uint64_t i = 0; i < record_store_pending(s); i++) {
		struct pebs_decoded d;
		if (pebs_decode(3, false, true, 0, record_store_peek(s, i), s->size, &d) !=
		    STATUS_OK)
			return false;
	}
	return true;
}

bool arch_bench_isr(void)
{
	const struct spmu_personality *p = spmu_personality_find("skylake");
	uint64_t store_pa = page_alloc(BENCH_STORE_PAGES);
	if (!p || !store_pa || !ds_area_prepare(arch_cpu_index(), 64 * 1024, 64 * 1024)) {
		kprintf("error: bench-isr: no skylake personality or out of memory\n");
		return false;
	}
	pmu_use_model(p);
	void *store = arch_phys_to_virt(store_pa);
	uint64_t store_bytes = BENCH_STORE_PAGES * 4096;

	static struct facility_run bts, pebs; /* zeroed: ring all, filter */
	bts.record_size = sizeof(struct bts_record);
	struct ds_isr_config bcfg = {
	    .perfmon_version = 4,
	    .ds_area = ds_area_this_cpu()->area_phys,
	    .bts = true,
	    .debugctl = 0, /* left stopped: nothing runs between the bench's PMIs */
	    .max_loops = 100,
	};
	struct trace_pmi_sinks bsinks = {.bts_record = bts_isr_record, .ctx = &bts};
	uint64_t acc0, accn;
	uint64_t b0 = measure(&bcfg, &bsinks, bts_fake_records, &bts, store, store_bytes, 0, &acc0);
	uint64_t bn = measure(&bcfg, &bsinks, bts_fake_records, &bts, store, store_bytes,
			      BENCH_RECORDS, &accn);
	bool bts_ok = bts.store.n == BENCH_RECORDS;

	pebs.record_size = sizeof(struct pebs_record_fmt3);
	struct ds_isr_config pcfg = {
	    .perfmon_version = 4,
	    .ds_area = bcfg.ds_area,
	    .pebs = true,
	    .pebs_record_size = sizeof(struct pebs_record_fmt3),
	    .max_loops = 100,
	};
	struct trace_pmi_sinks psinks = {.pebs_record = pebs_isr_record, .ctx = &pebs};
	uint64_t pacc0, paccn;
	uint64_t p0 =
	    measure(&pcfg, &psinks, pebs_fake_records, &pebs, store, store_bytes, 0, &pacc0);
	uint64_t pn = measure(&pcfg, &psinks, pebs_fake_records, &pebs, store, store_bytes,
			      BENCH_RECORDS, &paccn);
	bool pebs_ok = pebs.store.n == BENCH_RECORDS && pebs_decodable(&pebs.store);
	pmu_use_hardware();
	page_free(store_pa, BENCH_STORE_PAGES);

	uint64_t bts_per = (bn - b0) / BENCH_RECORDS, pebs_per = (pn - p0) / BENCH_RECORDS;
	kprintf("bench-isr: bts per-pmi=%lu per-record=%lu.%02lu msr-accesses=%lu records=%lu\n",
		b0, bts_per, (bn - b0) % BENCH_RECORDS * 100 / BENCH_RECORDS, acc0, bts.store.n);
	kprintf("bench-isr: pebs per-pmi=%lu per-record=%lu.%02lu msr-accesses=%lu records=%lu\n",
		p0, pebs_per, (pn - p0) % BENCH_RECORDS * 100 / BENCH_RECORDS, pacc0, pebs.store.n);
	if (!bts_ok || !pebs_ok) {
		kprintf(
		    "error: bench-isr: the routine delivered %lu BTS and %lu PEBS records of %d\n",
		    bts.store.n, pebs.store.n, BENCH_RECORDS);
		return false;
	}
	if (pebs_per > BENCH_PEBS_MAX) {
		kprintf(
		    "error: bench-isr: PEBS drain costs %lu instructions per record (bound %d)\n",
		    pebs_per, BENCH_PEBS_MAX);
		return false;
	}
	if (bts_per >= BENCH_BTS_MAX_NEW) {
		kprintf(
		    "error: bench-isr: BTS drain costs %lu instructions per record (bound %d)\n",
		    bts_per, BENCH_BTS_MAX_NEW);
		return false;
	}
	return true;
}
