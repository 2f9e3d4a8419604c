// clang-format off
// UNIT-SOURCES: arch/x86/drivers/driver.c arch/x86/drivers/bts.c arch/x86/drivers/bts_plan.c arch/x86/drivers/lbr.c arch/x86/drivers/lbr_sample.c arch/x86/drivers/lbr_plan.c arch/x86/drivers/pebs.c arch/x86/drivers/pebs_record.c arch/x86/drivers/pmc.c arch/x86/drivers/pmc_plan.c arch/x86/drivers/pmc_program.c arch/x86/drivers/btf.c arch/x86/drivers/ler.c arch/x86/drivers/pause.c arch/x86/caps/caps.c arch/x86/caps/lbr_models.c arch/x86/caps/cpu_ident.c arch/x86/caps/pebs_models.c arch/x86/caps/pmi_ack.c arch/x86/model/spmu.c arch/x86/model/arch_lbr.c arch/x86/model/counters.c arch/x86/model/lbr.c arch/x86/model/bts.c arch/x86/model/pebs.c arch/x86/model/personality.c lib/fmt.c lib/list.c lib/record_store.c lib/x86_decode.c lib/x86_decode_tables.c
// clang-format on
/*
 * The facility drivers through their one interface (arch/x86/drivers/driver.h), on the host: each
 * driver's plan, arm and disarm on every software-PMU personality, with the PMU accessor routed
 * to that personality's model here. What the registers must hold comes from the SDM's
 * definitions, written out as bit numbers (not the hardware contract's names, which the drivers
 * share): IA32_DEBUGCTL (Vol. 3B 17.4.1, Figure 17-3: LBR 0, BTF 1, TR 6, BTS 7, BTINT 8),
 * IA32_PERFEVTSELx (18.2.1.1, Figure 18-1: event 7:0, USR 16, OS 17, INT 20, EN 22),
 * IA32_PERF_GLOBAL_CTRL (18.2.2: PMCn bit n, fixed counter m bit 32 + m), IA32_PEBS_ENABLE
 * (18.4.4.1: PMCn bit n), IA32_LBR_CTL (Architectural LBR: LBREn 0, OS 1, USR 2), the 64-bit DS
 * save area (17.4.9, Figure 17-8) and Table 17-6's circular-buffer rule (17.4.9.3: the threshold
 * beyond the absolute maximum). After disarm every enable is clear again.
 */
#include "tests/unit/unit.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/x86/drivers/driver.h"
#include "arch/x86/drivers/pause.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/model/spmu.h"
#include "kernel/arch_cpu.h"

static struct spmu m;

/* ---- what the drivers reach outside their folder, routed to the model ------------------------ */

enum status pmu_rdmsr(uint32_t msr, uint64_t *value)
{
	return spmu_rdmsr(&m, msr, value) == STATUS_OK ? STATUS_OK : STATUS_REFUSED;
}

enum status pmu_wrmsr(uint32_t msr, uint64_t value)
{
	return spmu_wrmsr(&m, msr, value) == STATUS_OK ? STATUS_OK : STATUS_REFUSED;
}

const char *pmu_last_refusal(void)
{
	return "";
}

void pmu_backend_drops(uint64_t *bts, uint64_t *pebs)
{
	*bts = *pebs = 0;
}

bool pmu_backend_bts_stored(uint64_t *stored)
{
	*stored = 0;
	return false;
}

int ds_area_install(const struct ds_percpu *d)
{
	return pmu_wrmsr(MSR_IA32_DS_AREA, d->area_phys);
}

static struct ds_isr_config isr_cfg; /* what the last session routed its PMIs with */
static bool isr_routed;

void trace_pmi_begin(const struct ds_isr_config *cfg, const struct trace_pmi_sinks *sinks,
		     enum pmi_ack ack)
{
	(void)sinks;
	(void)ack;
	isr_cfg = *cfg;
	isr_routed = true;
}

void trace_pmi_end(struct trace_pmi_stats *out)
{
	memset(out, 0, sizeof(*out));
	isr_routed = false;
}

uint64_t trace_pmi_drain_bts(struct ds_area64 *ds)
{
	(void)ds;
	return 0;
}

void trace_pmi_clear_bts(struct ds_area64 *ds)
{
	(void)ds;
}

uint64_t trace_pmi_drain_bts_circular(struct ds_area64 *ds, bool *wrapped)
{
	(void)ds;
	*wrapped = false;
	return 0;
}

uint64_t trace_pmi_drain_pebs(struct ds_area64 *ds, size_t record_size)
{
	(void)ds;
	(void)record_size;
	return 0;
}

uint64_t trace_pmi_pebs_skipped(const struct ds_area64 *ds)
{
	(void)ds;
	return 0;
}

void *arch_phys_to_virt(uint64_t phys)
{
	return (void *)(uintptr_t)phys;
}

bool usermode_smap;

/* ---- a session's surroundings ---------------------------------------------------------------- */

#define BUFFER_BYTES (64 * 1024)

static struct ds_area64 area;
static uint64_t bts_buffer[BUFFER_BYTES / 8], pebs_buffer[BUFFER_BYTES / 8];
static uint64_t store_mem[BUFFER_BYTES / 8];
static const struct ds_percpu ds = {
    .area_phys = (uint64_t)(uintptr_t)&area,
    .area = &area,
    .bts_phys = (uint64_t)(uintptr_t)bts_buffer,
    .bts_bytes = BUFFER_BYTES,
    .pebs_phys = (uint64_t)(uintptr_t)pebs_buffer,
    .pebs_bytes = BUFFER_BYTES,
};
static char said[4096]; /* what the driver printed */

__attribute__((format(printf, 1, 2))) static void print(const char *fmt, ...)
{
	size_t at = strlen(said);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(said + at, sizeof(said) - at, fmt, ap);
	va_end(ap);
}

/* The options' defaults (kernel/options.c). */
static struct trace_options defaults(void)
{
	return (struct trace_options){.pebs_groups = TRACE_PEBS_MEMINFO | TRACE_PEBS_GPR,
				      .pebs_period = 37,
				      .pebs_kib = 64,
				      .pmc_period = 50};
}

static uint64_t rd(uint32_t msr)
{
	uint64_t v = 0;
	assert_int_equal(spmu_rdmsr(&m, msr, &v), STATUS_OK);
	return v;
}

#define BITN(n)		   (1ull << (n))
#define DEBUGCTL_BIT_LBR   0
#define DEBUGCTL_BIT_BTF   1
#define DEBUGCTL_BIT_TR	   6
#define DEBUGCTL_BIT_BTS   7
#define DEBUGCTL_BIT_BTINT 8
#define EVTSEL_BIT_USR	   16
#define EVTSEL_BIT_OS	   17
#define EVTSEL_BIT_INT	   20
#define EVTSEL_BIT_EN	   22
#define EVENT_INST_RETIRED 0xc0 /* Table 18-1 */
#define GLOBAL_FIXED(m)	   BITN(32 + (m))
#define LBR_CTL_BIT_LBREN  0

/* The personalities; each has BTS, LBR, PEBS and the counters (docs/engine.md "Conformance"). */
static const char *const personalities[] = {"skylake", "nehalem", "core2", "icelake", "arrowlake"};
#define PERSONALITIES (sizeof(personalities) / sizeof(*personalities))
static unsigned sessions; /* armed since the test began */

/* A session of facility f planned and armed on personality p with options o: the driver, or
 * NULL when the personality lacks the facility (available says so with a reason). */
static const struct facility_driver *armed(struct facility_run *r, const char *p,
					   enum trace_facility f, const struct trace_options *o)
{
	spmu_init(&m, spmu_personality_find(p), NULL);
	memset(r, 0, sizeof(*r));
	memset(&area, 0, sizeof(area));
	said[0] = 0;
	const struct trace_caps *c = spmu_caps(&m);
	const struct facility_driver *drv = facility_driver_for(f, c, o);
	const char *why = NULL;
	if (drv->available(c, &why) != STATUS_OK) {
		assert_non_null(why);
		assert_true(why[0] != 0);
		return NULL;
	}
	*r = (struct facility_run){
	    .drv = drv, .caps = c, .opt = o, .ds = &ds, .label = p, .print = print, .ok = true};
	char note[256] = "";
	assert_int_equal(drv->plan(r, note, sizeof(note)), STATUS_OK);
	if (r->record_size)
		assert_true(
		    record_store_init(&r->store, store_mem, sizeof(store_mem), r->record_size));
	assert_int_equal(drv->arm(r), STATUS_OK);
	assert_true(r->ok);
	sessions++;
	return drv;
}

static void disarmed(struct facility_run *r)
{
	assert_int_equal(r->drv->disarm(r), STATUS_OK);
	assert_int_equal(r->drv->drain(r), STATUS_OK);
	assert_false(isr_routed);
	assert_true(r->ok);
}

/* ---- BTS ---------------------------------------------------------------------------------- */

static void bts_circular_and_interrupt(void **state)
{
	(void)state;
	sessions = 0;
	struct trace_options o = defaults();
	for (size_t i = 0; i < PERSONALITIES; i++) {
		struct facility_run r;
		for (int f = TRACE_BTS; f <= TRACE_BTSINT; f++) {
			if (!armed(&r, personalities[i], (enum trace_facility)f, &o))
				continue;
			uint64_t want = BITN(DEBUGCTL_BIT_TR) | BITN(DEBUGCTL_BIT_BTS) |
					(f == TRACE_BTSINT ? BITN(DEBUGCTL_BIT_BTINT) : 0);
			assert_int_equal(rd(MSR_IA32_DEBUGCTL), want);
			assert_int_equal(rd(MSR_IA32_DS_AREA), ds.area_phys);
			assert_int_equal(area.bts_base, ds.bts_phys);
			assert_int_equal(area.bts_index, ds.bts_phys);
			if (f == TRACE_BTS) /* 17.4.9.3: beyond the absolute maximum */
				assert_true(area.bts_threshold > area.bts_abs_max);
			else
				assert_true(area.bts_threshold > area.bts_base &&
					    area.bts_threshold < area.bts_abs_max);
			assert_true(isr_cfg.bts && isr_cfg.debugctl == want);
			disarmed(&r);
			assert_int_equal(rd(MSR_IA32_DEBUGCTL), 0);
		}
	}
	assert_int_equal(sessions, 2 * PERSONALITIES);
}

/* A record the service routine hands the BTS sink leaves it, through deliver, as the stream's
 * BTS record; with bts.ring=user and bts.leak=flag a kernel address is kept and marked. */
static struct trace_record seen;
static void catch_record(void *ctx, const struct trace_record *t)
{
	(void)ctx;
	seen = *t;
}

static void bts_records_through_deliver(void **state)
{
	(void)state;
	struct trace_options o = defaults();
	o.bts_ring = TRACE_RING_USER;
	o.bts_leak = TRACE_LEAK_FLAG;
	struct facility_run r;
	assert_non_null(armed(&r, "skylake", TRACE_BTS, &o));
	struct bts_record user = {0x401000, 0x401010, 0x10},
			  leak = {0x401020, 0xffffffff80001000, 0};
	bts_isr_record(&r, &user);
	bts_isr_record(&r, &leak);
	disarmed(&r);
	assert_int_equal(record_store_pending(&r.store), 2);
	struct record_sink k = {catch_record, NULL};
	assert_true(r.drv->deliver(&r, record_store_oldest(&r.store), &k));
	assert_int_equal(seen.kind, TREC_BTS);
	assert_true(seen.bts.from == 0x401000 && seen.bts.to == 0x401010 && seen.bts.flags == 0x10);
	assert_false(seen.bts.leak);
	record_store_drop(&r.store);
	assert_true(r.drv->deliver(&r, record_store_oldest(&r.store), &k));
	assert_true(seen.bts.leak && seen.bts.to == 0xffffffff80001000 && seen.bts.flags == 0);
	assert_int_equal(r.u.bts.flagged, 1);
}

/* ---- LBR ---------------------------------------------------------------------------------- */

static void lbr_legacy_and_arch(void **state)
{
	(void)state;
	sessions = 0;
	struct trace_options o = defaults();
	for (size_t i = 0; i < PERSONALITIES; i++) {
		struct facility_run r;
		if (!armed(&r, personalities[i], TRACE_LBR, &o))
			continue;
		if (r.caps->lbr.kind == TC_LBR_ARCH) {
			assert_ptr_equal(r.drv, &lbr_arch_driver);
			assert_true(rd(MSR_IA32_LBR_CTL) & BITN(LBR_CTL_BIT_LBREN));
			/* lbr.depth=0: the deepest CPUID.1CH:EAX offers (bit n: 8 * (n + 1)) */
			unsigned deepest = 0;
			for (unsigned b = 0; b < 8; b++)
				if (r.caps->arch_lbr.depth_mask & BITN(b))
					deepest = 8 * (b + 1);
			assert_int_equal(rd(MSR_IA32_LBR_DEPTH), deepest);
			disarmed(&r);
			assert_int_equal(rd(MSR_IA32_LBR_CTL) & BITN(LBR_CTL_BIT_LBREN), 0);
		} else {
			assert_ptr_equal(r.drv, &lbr_legacy_driver);
			assert_true(rd(MSR_IA32_DEBUGCTL) & BITN(DEBUGCTL_BIT_LBR));
			disarmed(&r);
			assert_int_equal(rd(MSR_IA32_DEBUGCTL), 0);
		}
	}
	assert_int_equal(sessions, PERSONALITIES);
}

/* ---- PEBS and counter sampling ------------------------------------------------------------ */

static void pebs_counter_without_int(void **state)
{
	(void)state;
	sessions = 0;
	struct trace_options o = defaults();
	for (size_t i = 0; i < PERSONALITIES; i++) {
		struct facility_run r;
		if (!armed(&r, personalities[i], TRACE_PEBS, &o))
			continue;
		uint64_t evtsel = rd(MSR_IA32_PERFEVTSEL0);
		assert_int_equal(evtsel & 0xff, EVENT_INST_RETIRED);
		/* the PEBS counter's PMI is the buffer's: no INT (18.4.4.1) */
		assert_int_equal(evtsel & BITN(EVTSEL_BIT_INT), 0);
		assert_true(evtsel & BITN(EVTSEL_BIT_EN));
		assert_true(rd(MSR_IA32_PEBS_ENABLE) & BITN(0));
		assert_true(rd(MSR_IA32_PERF_GLOBAL_CTRL) & BITN(0));
		assert_int_equal(rd(MSR_IA32_DS_AREA), ds.area_phys);
		assert_int_equal(area.pebs_base, ds.pebs_phys);
		assert_true(area.pebs_threshold < area.pebs_abs_max);
		assert_true(isr_cfg.pebs && isr_cfg.pebs_record_size == r.record_size);
		disarmed(&r);
		assert_int_equal(rd(MSR_IA32_PEBS_ENABLE), 0);
		assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_CTRL), 0);
	}
	assert_int_equal(sessions, PERSONALITIES);
}

static void pmc_sampling(void **state)
{
	(void)state;
	sessions = 0;
	struct trace_options o = defaults();
	for (size_t i = 0; i < PERSONALITIES; i++) {
		struct facility_run r;
		if (!armed(&r, personalities[i], TRACE_PMC, &o))
			continue;
		uint64_t want = EVENT_INST_RETIRED | BITN(EVTSEL_BIT_USR) | BITN(EVTSEL_BIT_OS) |
				BITN(EVTSEL_BIT_INT) | BITN(EVTSEL_BIT_EN);
		assert_int_equal(rd(MSR_IA32_PERFEVTSEL0), want);
		/* -period in the counter's width (18.2.1: it overflows after `period` events) */
		unsigned w = r.caps->perfmon.gp_width;
		assert_int_equal(rd(MSR_IA32_PMC0), (0 - o.pmc_period) & ((1ull << w) - 1));
		if (r.caps->perfmon.version >= 2)
			assert_true(rd(MSR_IA32_PERF_GLOBAL_CTRL) & BITN(0));
		disarmed(&r);
		assert_int_equal(rd(MSR_IA32_PERFEVTSEL0), 0);
		if (r.caps->perfmon.version >= 2)
			assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_CTRL), 0);
	}
	assert_int_equal(sessions, PERSONALITIES);
}

/* lbr.period: LBR sampling as perf record -b. Counter 0 counts "Branch Instruction Retired"
 * (SDM Vol. 3B Table 20-1: event C4H, umask 00H) in both rings with INT (a PMI on overflow,
 * 18.2.1.1) from -period; the LBRs run with FREEZE_LBRS_ON_PMI (IA32_DEBUGCTL bit 11, 18.4.7:
 * "the processor clears the LBR flag ... when a PMI occurs") and the service routine takes
 * the stack at each PMI. */
#define EVENT_BR_INST_RETIRED	 0xc4
#define DEBUGCTL_BIT_FREEZE_LBRS 11
static void lbr_sampling(void **state)
{
	(void)state;
	sessions = 0;
	struct trace_options o = defaults();
	o.lbr_period = 16;
	for (size_t i = 0; i < PERSONALITIES; i++) {
		struct facility_run r;
		if (!armed(&r, personalities[i], TRACE_LBR, &o))
			continue;
		assert_ptr_equal(r.drv, &lbr_sample_driver);
		uint64_t want = EVENT_BR_INST_RETIRED | BITN(EVTSEL_BIT_USR) | BITN(EVTSEL_BIT_OS) |
				BITN(EVTSEL_BIT_INT) | BITN(EVTSEL_BIT_EN);
		assert_int_equal(rd(MSR_IA32_PERFEVTSEL0), want);
		unsigned w = r.caps->perfmon.gp_width;
		assert_int_equal(rd(MSR_IA32_PMC0), (0 - o.lbr_period) & ((1ull << w) - 1));
		assert_true(rd(MSR_IA32_DEBUGCTL) & BITN(DEBUGCTL_BIT_FREEZE_LBRS));
		if (r.caps->lbr.kind == TC_LBR_ARCH)
			assert_true(rd(MSR_IA32_LBR_CTL) & BITN(LBR_CTL_BIT_LBREN));
		else
			assert_true(rd(MSR_IA32_DEBUGCTL) & BITN(DEBUGCTL_BIT_LBR));
		assert_true(isr_cfg.lbr_snapshot);
		disarmed(&r);
		assert_int_equal(rd(MSR_IA32_PERFEVTSEL0), 0);
		assert_int_equal(rd(MSR_IA32_DEBUGCTL), 0);
	}
	assert_int_equal(sessions, PERSONALITIES);
	/* lbr.filter cannot narrow a sample of every branch: refused, with the reason */
	o.lbr_filter = 1;
	spmu_init(&m, spmu_personality_find("skylake"), NULL);
	struct facility_run r = {.caps = spmu_caps(&m), .opt = &o, .label = "x", .print = print};
	char why[256] = "";
	assert_int_equal(lbr_sample_driver.plan(&r, why, sizeof(why)), STATUS_INVALID);
	assert_non_null(strstr(why, "lbr.filter"));
}

/* ---- BTF, and every facility paused ------------------------------------------------------- */

static void btf_rearms(void **state)
{
	(void)state;
	struct trace_options o = defaults();
	struct facility_run r;
	assert_non_null(armed(&r, "skylake", TRACE_BTF, &o));
	assert_int_equal(rd(MSR_IA32_DEBUGCTL), BITN(DEBUGCTL_BIT_BTF));
	spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, 0); /* what the #DB does (17.4.3) */
	r.drv->step(&r, 0x401000, 0x401080);
	assert_int_equal(rd(MSR_IA32_DEBUGCTL), BITN(DEBUGCTL_BIT_BTF));
	assert_int_equal(*(const uint64_t *)record_store_oldest(&r.store), 0x401080);
	disarmed(&r);
	assert_int_equal(rd(MSR_IA32_DEBUGCTL), 0);
}

static void pause_and_resume(void **state)
{
	(void)state;
	spmu_init(&m, spmu_personality_find("skylake"), NULL);
	uint64_t debugctl = BITN(DEBUGCTL_BIT_LBR) | BITN(DEBUGCTL_BIT_TR) | BITN(DEBUGCTL_BIT_BTS);
	spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, debugctl);
	spmu_wrmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, BITN(0) | GLOBAL_FIXED(0));
	struct facility_pause p = {0};
	uint32_t msr = 0;
	assert_int_equal(facility_pause(spmu_caps(&m), &p, &msr), STATUS_OK);
	assert_int_equal(rd(MSR_IA32_DEBUGCTL), 0);
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_CTRL), 0);
	assert_int_equal(facility_pause(spmu_caps(&m), &p, &msr), STATUS_OK); /* once */
	assert_int_equal(facility_resume(&p, &msr), STATUS_OK);
	assert_int_equal(rd(MSR_IA32_DEBUGCTL), debugctl);
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_CTRL), BITN(0) | GLOBAL_FIXED(0));
}

/* A plan the CPU cannot follow is UNSUPPORTED with the reason; one that cannot work, INVALID. */
static void plan_refusals(void **state)
{
	(void)state;
	struct trace_options o = defaults();
	spmu_init(&m, spmu_personality_find("core2"), NULL);
	struct facility_run r = {.caps = spmu_caps(&m), .opt = &o, .ds = &ds, .print = print};
	char why[256] = "";
	o.lbr_filter = TRACE_LBR_USER; /* Core 2 has no LBR_SELECT */
	r.drv = facility_driver_of(TRACE_LBR, r.caps);
	assert_int_equal(r.drv->plan(&r, why, sizeof(why)), STATUS_UNSUPPORTED);
	assert_non_null(strstr(why, "LBR_SELECT"));
	o = defaults();
	o.bts_records = 100000; /* 2.4 MB: more than the DS buffer */
	r.drv = &bts_driver;
	assert_int_equal(r.drv->plan(&r, why, sizeof(why)), STATUS_INVALID);
	assert_non_null(strstr(why, "does not fit"));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(bts_circular_and_interrupt),
    cmocka_unit_test(bts_records_through_deliver),
    cmocka_unit_test(lbr_legacy_and_arch),
    cmocka_unit_test(pebs_counter_without_int),
    cmocka_unit_test(pmc_sampling),
    cmocka_unit_test(lbr_sampling),
    cmocka_unit_test(btf_rearms),
    cmocka_unit_test(pause_and_resume),
    cmocka_unit_test(plan_refusals),
};
UNIT_MAIN(tests)
