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
#include "arch/x86/drivers/pebs.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/spmu/singlestep.h"
#include "arch/x86/pmu/isr_hook.h"
#include "arch/x86/session/stores.h"
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

/* Instructions the routine executes for one PMI with `records` BTS or PEBS records due. */
static uint64_t measure(const struct ds_isr_config *cfg, const struct trace_pmi_sinks *sinks,
			void (*fill)(struct ds_percpu *d, unsigned records, void *ctx), void *ctx,
			unsigned records, uint64_t *model_accesses)
{
	struct ds_percpu *d = ds_area_this_cpu();
	fill(d, records, ctx);
	pmu_wrmsr(MSR_IA32_DS_AREA, d->area_phys);
	trace_pmi_begin(cfg, sinks, PMI_ACK_LATE); /* Skylake's */
	struct path_count c = {0};
	struct ss_result r;
	struct ss_hooks h = {count_step, NULL, &c, NULL, NULL};
	ss_run(call_routine, 0, &h, false, &r);
	struct trace_pmi_stats st;
	trace_pmi_end(&st);
	*model_accesses = c.model_entries;
	return c.driver + c.model_entries;
}

static void fill_bts(struct ds_percpu *d, unsigned records, void *ctx)
{
	struct bts_store *s = ctx;
	bts_store_init(s, s->rec, s->cap * sizeof(struct bts_record));
	struct ds_area64 *ds = d->area;
	struct bts_record *r = arch_phys_to_virt(d->bts_phys);
	for (unsigned i = 0; i < records; i++)
		r[i] = (struct bts_record){BENCH_USER_ADDRESS + i, BENCH_USER_ADDRESS + 2 * i, 0};
	ds->bts_base = d->bts_phys;
	ds->bts_index = d->bts_phys + records * sizeof(struct bts_record);
	ds->bts_abs_max =
	    d->bts_phys + d->bts_bytes / sizeof(struct bts_record) * sizeof(struct bts_record);
	/* One record: reached when records are due (a BTS threshold PMI), not after the drain. */
	ds->bts_threshold = d->bts_phys + sizeof(struct bts_record);
}

static void fill_pebs(struct ds_percpu *d, unsigned records, void *ctx)
{
	struct pebs_store *s = ctx;
	pebs_store_init(s, s->raw, s->cap * s->size);
	struct ds_area64 *ds = d->area;
	size_t size = sizeof(struct pebs_record_fmt3);
	uint8_t *buf = arch_phys_to_virt(d->pebs_phys);
	memset(buf, 0, records * size);
	for (unsigned i = 0; i < records; i++) {
		struct pebs_record_fmt3 *p = (struct pebs_record_fmt3 *)(buf + i * size);
		p->f2.eventing_ip = BENCH_USER_ADDRESS + i;
		p->f2.f1.g.rip = BENCH_USER_ADDRESS + i + 1;
		p->f2.f1.status = BIT(0);
	}
	ds->pebs_base = d->pebs_phys;
	ds->pebs_index = d->pebs_phys + records * size;
	ds->pebs_abs_max = d->pebs_phys + d->pebs_bytes / size * size;
	ds->pebs_threshold = d->pebs_phys;
	uint64_t status = GLOBAL_STATUS_DS_BUFFER; /* what the threshold would have set */
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, status);
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

	struct bts_store bts = {0};
	bts_store_init(&bts, store, store_bytes);
	struct ds_isr_config bcfg = {
	    .perfmon_version = 4,
	    .ds_area = ds_area_this_cpu()->area_phys,
	    .bts = true,
	    .debugctl = 0, /* left stopped: nothing runs between the bench's PMIs */
	    .max_loops = 100,
	};
	struct trace_pmi_sinks bsinks = {.bts_record = bts_store_record, .ctx = &bts};
	uint64_t acc0, accn;
	uint64_t b0 = measure(&bcfg, &bsinks, fill_bts, &bts, 0, &acc0);
	uint64_t bn = measure(&bcfg, &bsinks, fill_bts, &bts, BENCH_RECORDS, &accn);
	bool bts_ok = bts.n == BENCH_RECORDS;

	struct pebs_store pebs = {
	    .format = 3,
	    .trap_like = true,
	    .size = sizeof(struct pebs_record_fmt3),
	};
	pebs_store_init(&pebs, store, store_bytes);
	struct ds_isr_config pcfg = {
	    .perfmon_version = 4,
	    .ds_area = bcfg.ds_area,
	    .pebs = true,
	    .pebs_record_size = sizeof(struct pebs_record_fmt3),
	    .max_loops = 100,
	};
	struct trace_pmi_sinks psinks = {.pebs_record = pebs_store_record, .ctx = &pebs};
	uint64_t pacc0, paccn;
	uint64_t p0 = measure(&pcfg, &psinks, fill_pebs, &pebs, 0, &pacc0);
	uint64_t pn = measure(&pcfg, &psinks, fill_pebs, &pebs, BENCH_RECORDS, &paccn);
	bool pebs_ok = pebs.n == BENCH_RECORDS && pebs_store_check(&pebs) == BENCH_RECORDS;
	pmu_use_hardware();
	page_free(store_pa, BENCH_STORE_PAGES);

	uint64_t bts_per = (bn - b0) / BENCH_RECORDS, pebs_per = (pn - p0) / BENCH_RECORDS;
	kprintf("bench-isr: bts per-pmi=%lu per-record=%lu.%02lu msr-accesses=%lu records=%lu\n",
		b0, bts_per, (bn - b0) % BENCH_RECORDS * 100 / BENCH_RECORDS, acc0, bts.n);
	kprintf("bench-isr: pebs per-pmi=%lu per-record=%lu.%02lu msr-accesses=%lu records=%lu\n",
		p0, pebs_per, (pn - p0) % BENCH_RECORDS * 100 / BENCH_RECORDS, pacc0, pebs.n);
	if (!bts_ok || !pebs_ok) {
		kprintf(
		    "error: bench-isr: the routine delivered %lu BTS and %lu PEBS records of %d\n",
		    bts.n, pebs.n, BENCH_RECORDS);
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
