// clang-format off
// UNIT-SOURCES: arch/x86/pmu/ds_isr.c arch/x86/model/spmu.c arch/x86/model/arch_lbr.c arch/x86/model/counters.c arch/x86/model/lbr.c arch/x86/model/bts.c arch/x86/model/pebs.c arch/x86/model/personality.c arch/x86/caps/caps.c arch/x86/caps/lbr_models.c arch/x86/caps/cpu_ident.c lib/fmt.c
// clang-format on
/*
 * The PMI/DS service routine driven through the software PMU: a BTS threshold (no status bit),
 * a circular BTS buffer left alone, a PEBS threshold, several counters at once, back-to-back
 * PMIs, legacy and streamlined freeze, and a PMI storm.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "arch/x86/pmu/ds_isr.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/model/spmu.h"

#define DS_LIN	0x200000ull
#define BUF_LIN 0x201000ull
static uint8_t mem[0x8000];
static struct spmu m;
static unsigned bts_seen, pebs_seen, overflow_seen[64];
static int inject_status_reads; /* > 0: each STATUS read first sets bit 1 (a new overflow) */

static void *lin(uint64_t a)
{
	return a >= DS_LIN && a < DS_LIN + sizeof(mem) ? mem + (a - DS_LIN) : NULL;
}

static int op_rd(void *ctx, uint32_t msr, uint64_t *v)
{
	(void)ctx;
	if (msr == MSR_IA32_PERF_GLOBAL_STATUS && inject_status_reads > 0) {
		inject_status_reads--;
		spmu_wrmsr(&m, MSR_IA32_PERF_GLOBAL_STATUS_SET, BIT(1));
	}
	return spmu_rdmsr(&m, msr, v);
}

static int op_wr(void *ctx, uint32_t msr, uint64_t v)
{
	(void)ctx;
	return spmu_wrmsr(&m, msr, v);
}

static void *op_at(void *ctx, uint64_t a)
{
	(void)ctx;
	return lin(a);
}

static void op_bts(void *ctx, const struct bts_record *r)
{
	(void)ctx;
	assert_int_equal(r->from, 0x1000 + bts_seen); /* in order */
	bts_seen++;
}

static void op_pebs(void *ctx, const void *rec, size_t size)
{
	(void)ctx;
	(void)rec;
	assert_int_equal(size, 200);
	pebs_seen++;
}

static void op_ovf(void *ctx, unsigned counter)
{
	(void)ctx;
	overflow_seen[counter]++;
}

static unsigned snapshots, snapshots_frozen, mid_acks, mid_acks_before_restore;

/* The mid ack comes after the causes are handled, before GLOBAL_CTRL is restored. */
static void op_mid(void *ctx)
{
	(void)ctx;
	uint64_t v = 1;
	spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, &v);
	mid_acks++;
	mid_acks_before_restore += v == 0;
}

/* A session reading the LBR stack: it must still be frozen (before the acknowledgement). */
static void op_snap(void *ctx)
{
	(void)ctx;
	snapshots++;
	snapshots_frozen += spmu_counters_lbr_frozen(&m.ctr);
}

static const struct ds_isr_ops ops = {
    .rdmsr = op_rd,
    .wrmsr = op_wr,
    .at = op_at,
    .bts_record = op_bts,
    .pebs_record = op_pebs,
    .overflow = op_ovf,
    .lbr_snapshot = op_snap,
};

static struct ds_isr_config setup(const char *personality)
{
	memset(mem, 0, sizeof(mem));
	bts_seen = pebs_seen = 0;
	memset(overflow_seen, 0, sizeof(overflow_seen));
	inject_status_reads = 0;
	snapshots = snapshots_frozen = 0;
	mid_acks = mid_acks_before_restore = 0;
	spmu_init(&m, spmu_personality_find(personality), lin);
	struct ds_isr_config c = {
	    .perfmon_version = m.caps.perfmon.version,
	    .ds_area = DS_LIN,
	    .n_gp = m.caps.perfmon.gp_counters,
	    .n_fixed = m.caps.perfmon.fixed_counters,
	    .max_loops = 8,
	    .pebs_record_size = 200,
	};
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DS_AREA, DS_LIN), STATUS_OK);
	return c;
}

static struct ds_area64 *ds(void)
{
	return lin(DS_LIN);
}

static void step(unsigned n)
{
	struct spmu_regs regs = {0};
	for (unsigned i = 0; i < n; i++) {
		struct spmu_step st = {0x5000 + i, 0x5001 + i, false, 0, 0,
				       &regs,	   false,      false, 0, 0};
		spmu_retire(&m, &st);
	}
}

static void bts_threshold_without_status_bit(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("skylake");
	c.bts = true;
	c.debugctl = DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT;
	ds()->bts_base = ds()->bts_index = BUF_LIN;
	ds()->bts_abs_max = BUF_LIN + 16 * 24;
	ds()->bts_threshold = BUF_LIN + 4 * 24;
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, c.debugctl), STATUS_OK);
	for (unsigned i = 0; i < 6; i++) /* records keep landing after the threshold */
		spmu_branch(&m, 0x1000 + i, 0x2000, X86_BR_JMP_REL, 0, 0);
	assert_true(m.pmi_pending);
	struct ds_isr_report r;
	ds_isr_service(&ops, &c, &r);
	assert_int_equal(bts_seen, 6);
	assert_int_equal(r.bts_drained, 6);
	assert_true(r.bts_threshold);
	assert_int_equal(r.status_seen, 0); /* BTS sets no GLOBAL_STATUS bit */
	assert_int_equal(ds()->bts_index, BUF_LIN);
	uint64_t v;
	spmu_rdmsr(&m, MSR_IA32_DEBUGCTL, &v);
	assert_int_equal(v, c.debugctl); /* TR restored after the drain */
	assert_int_equal(r.msr_errors, 0);
}

static void circular_bts_is_left_alone(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("skylake");
	c.bts = true;
	c.debugctl = DEBUGCTL_TR | DEBUGCTL_BTS;
	c.global_ctrl = BIT(0);
	c.gp_reload[0] = (uint64_t)-5;
	ds()->bts_base = ds()->bts_index = BUF_LIN;
	ds()->bts_abs_max = BUF_LIN + 4 * 24;
	ds()->bts_threshold = ds()->bts_abs_max + 24;
	spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, c.debugctl);
	for (unsigned i = 0; i < 6; i++)
		spmu_branch(&m, 0x1000 + i, 0x2000, X86_BR_JMP_REL, 0, 0);
	spmu_wrmsr(&m, MSR_IA32_PMC0, (uint64_t)-1);
	spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0, 0xc0 | EVTSEL_EN | EVTSEL_OS | EVTSEL_INT);
	spmu_wrmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, BIT(0));
	step(1);
	struct ds_isr_report r;
	ds_isr_service(&ops, &c, &r);
	assert_int_equal(r.bts_drained, 0); /* circular: the buffer is the trace, not drained */
	assert_int_equal(overflow_seen[0], 1);
	uint64_t v;
	spmu_rdmsr(&m, MSR_IA32_PMC0, &v);
	assert_int_equal(v, 0xfffffffffffbull); /* re-armed: -5 at 48 bits */
}

static void pebs_threshold_and_several_counters(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("skylake");
	c.pebs = true;
	c.pebs_enable = BIT(0);
	c.global_ctrl = BIT(0) | BIT(1) | BIT(2);
	c.gp_reload[1] = (uint64_t)-3;
	c.gp_reload[2] = (uint64_t)-7;
	ds()->pebs_base = ds()->pebs_index = BUF_LIN;
	ds()->pebs_abs_max = BUF_LIN + 10 * 200;
	ds()->pebs_threshold = BUF_LIN + 2 * 200;
	ds()->pebs_counter_reset[0] = 0xfffffffffffeull;
	spmu_wrmsr(&m, MSR_IA32_PMC0, (uint64_t)-2);
	spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0, 0xc0 | EVTSEL_EN | EVTSEL_OS);
	spmu_wrmsr(&m, MSR_IA32_PEBS_ENABLE, BIT(0));
	/* PMC0 from -2 overflows at instruction 2 and 5; PEBS records the event after each
	 * overflow (SDM Vol. 3B 18.4.4: "On the subsequent event following overflow"), 3 and 6.
	 * Counters 1 and 2 overflow on the same instruction as PEBS's second record. */
	spmu_wrmsr(&m, MSR_IA32_PMC0 + 1, (uint64_t)-6);
	spmu_wrmsr(&m, MSR_IA32_PMC0 + 2, (uint64_t)-6);
	spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0 + 1, 0xc0 | EVTSEL_EN | EVTSEL_OS | EVTSEL_INT);
	spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0 + 2, 0xc0 | EVTSEL_EN | EVTSEL_OS | EVTSEL_INT);
	spmu_wrmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, c.global_ctrl);
	step(6);
	struct ds_isr_report r;
	ds_isr_service(&ops, &c, &r);
	assert_int_equal(pebs_seen, 2);
	assert_true(r.pebs_threshold);
	assert_int_equal(overflow_seen[0], 0); /* PEBS counters go through the buffer only */
	assert_int_equal(overflow_seen[1], 1);
	assert_int_equal(overflow_seen[2], 1);
	assert_true(r.status_seen & GLOBAL_STATUS_DS_BUFFER);
	uint64_t v;
	spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_STATUS, &v);
	assert_int_equal(v, 0); /* everything acknowledged */
	spmu_rdmsr(&m, MSR_IA32_PMC0 + 2, &v);
	assert_int_equal(v, 0xfffffff9ull | 0xffff00000000ull);
	spmu_rdmsr(&m, MSR_IA32_PEBS_ENABLE, &v);
	assert_int_equal(v, BIT(0)); /* restored */
	spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, &v);
	assert_int_equal(v, c.global_ctrl);
	assert_int_equal(ds()->pebs_index, BUF_LIN);
}

/* PEBS on PMC0 with period P writes a record at every (P+1)th instruction (SDM Vol. 3B 18.4.4:
 * "an overflow condition in the counter will arm PEBS. On the subsequent event following
 * overflow, the processor will generate a PEBS event"). A buffer of two records, its PMI never
 * serviced in time: after it fills, each assist is skipped ("If the bounds checks fail, the
 * PEBS will be skipped entirely", 18.4.4.1). Whatever the phase the routine finds the counter
 * in, the records written plus those it reckons skipped are the (P+1)th instructions so far;
 * after its reload the records come at the same instructions as without a loss. */
static void pebs_skipped_assists_reckoned_from_the_counter(void **state)
{
	(void)state;
	const unsigned period = 4, every = period + 1;
	for (unsigned late = 0; late < 3 * every; late++) { /* every phase the PMI may come in */
		struct ds_isr_config c = setup("skylake");
		c.pebs = true;
		c.pebs_enable = BIT(0);
		c.global_ctrl = BIT(0);
		c.gp_width = m.caps.perfmon.gp_width;
		c.full_width = true;
		ds()->pebs_base = ds()->pebs_index = BUF_LIN;
		ds()->pebs_abs_max = BUF_LIN + 2 * 200;
		ds()->pebs_threshold = BUF_LIN + 2 * 200;
		ds()->pebs_counter_reset[0] = genmask(c.gp_width - 1, 0) + 1 - period;
		spmu_wrmsr(&m, MSR_IA32_A_PMC0, ds()->pebs_counter_reset[0]);
		spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0, 0xc0 | EVTSEL_EN | EVTSEL_OS);
		spmu_wrmsr(&m, MSR_IA32_PEBS_ENABLE, BIT(0));
		spmu_wrmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, c.global_ctrl);
		unsigned first = 2 * every + late; /* two records, then the buffer is full */
		step(first);
		struct ds_isr_report r;
		ds_isr_service(&ops, &c, &r);
		assert_int_equal(pebs_seen, 2);
		/* (a PMI at an overflow, the record due at the next instruction: the routine's
		 * IA32_PEBS_ENABLE write disarms it, so it is counted too) */
		assert_int_equal(pebs_seen + r.pebs_skipped, (first + 1) / every);
		/* sampling goes on where it would have: the next record at the next (P+1)th
		 * instruction (step() numbers this call's instructions from 0x5000 again) */
		unsigned next = ((first + 1) / every + 1) * every - first;
		step(next);
		assert_int_equal(ds()->pebs_index, BUF_LIN + 200);
		uint64_t ip;
		memcpy(&ip, lin(BUF_LIN) + offsetof(struct pebs_record_fmt2, eventing_ip),
		       sizeof(ip));
		assert_int_equal(ip, 0x5000 + next - 1);
		/* and after more skipped ones, still every one accounted for */
		unsigned more = 3 * every + late;
		step(more);
		struct ds_isr_report r2;
		ds_isr_service(&ops, &c, &r2);
		assert_int_equal(pebs_seen + r.pebs_skipped + r2.pebs_skipped,
				 (first + next + more + 1) / every);
	}
}

static void back_to_back_pmis_loop(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("skylake");
	c.global_ctrl = BIT(1);
	c.gp_reload[1] = (uint64_t)-9;
	inject_status_reads = 1; /* a second overflow arrives while the first is handled */
	struct ds_isr_report r;
	ds_isr_service(&ops, &c, &r);
	assert_int_equal(r.loops, 1);
	assert_int_equal(overflow_seen[1], 1);
	/* And when it arrives after the ack, the loop takes it too. */
	spmu_wrmsr(&m, MSR_IA32_PERF_GLOBAL_STATUS_SET, BIT(1));
	inject_status_reads = 2;
	ds_isr_service(&ops, &c, &r);
	assert_int_equal(r.loops, 2);
	assert_int_equal(overflow_seen[1], 3);
}

/* LBR on with both freeze bits, and counter 0 overflowing with INT on the next instruction. */
static void freezing_overflow(struct ds_isr_config *c)
{
	c->debugctl = DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI | DEBUGCTL_FREEZE_PERFMON_ON_PMI;
	c->global_ctrl = BIT(0);
	c->gp_reload[0] = (uint64_t)-10;
	spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, c->debugctl);
	spmu_wrmsr(&m, MSR_IA32_PMC0, (uint64_t)-1);
	spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0, 0xc0 | EVTSEL_EN | EVTSEL_OS | EVTSEL_INT);
	spmu_wrmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, BIT(0));
	step(1);
}

static void legacy_freeze_is_undone(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("nehalem"); /* perfmon v3 */
	freezing_overflow(&c);
	uint64_t v;
	spmu_rdmsr(&m, MSR_IA32_DEBUGCTL, &v);
	assert_false(v & DEBUGCTL_LBR); /* the freeze cleared it */
	spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, &v);
	assert_int_equal(v, 0);
	struct ds_isr_report r;
	ds_isr_service(&ops, &c, &r);
	assert_false(r.frozen); /* legacy freeze shows no status bit */
	spmu_rdmsr(&m, MSR_IA32_DEBUGCTL, &v);
	assert_int_equal(v, c.debugctl);
	spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, &v);
	assert_int_equal(v, BIT(0));
	assert_int_equal(r.msr_errors, 0);
}

static void streamlined_freeze_is_acked(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("skylake"); /* perfmon v4 */
	freezing_overflow(&c);
	assert_true(spmu_counters_lbr_frozen(&m.ctr));
	struct ds_isr_report r;
	ds_isr_service(&ops, &c, &r);
	assert_true(r.frozen);
	assert_false(spmu_counters_lbr_frozen(&m.ctr)); /* STATUS_RESET unfroze */
	uint64_t v;
	spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_STATUS, &v);
	assert_int_equal(v, 0);
	assert_int_equal(r.msr_errors, 0);
}

/* A period above 2^31 re-arms through IA32_A_PMCx: the legacy alias would sign-extend bit 31. */
static void mid_ack_between_processing_and_restore(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("skylake");
	freezing_overflow(&c);
	struct ds_isr_ops with_mid = ops;
	with_mid.unmask_mid = op_mid;
	struct ds_isr_report r;
	ds_isr_service(&with_mid, &c, &r);
	assert_int_equal(mid_acks, 1);
	assert_int_equal(mid_acks_before_restore, 1);
	assert_int_equal(overflow_seen[0], 1); /* processed before it */
	uint64_t v;
	spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, &v);
	assert_int_equal(v, BIT(0)); /* restored after it */
}

static void full_width_rearm(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("skylake"); /* PERF_CAPABILITIES[13] set */
	uint64_t period = (1ull << 32) + 5, mask = GENMASK(47, 0);
	c.global_ctrl = BIT(0);
	c.gp_reload[0] = (0 - period) & mask;
	spmu_wrmsr(&m, MSR_IA32_PMC0, (uint64_t)-1);
	spmu_wrmsr(&m, MSR_IA32_PERFEVTSEL0, 0xc0 | EVTSEL_EN | EVTSEL_OS | EVTSEL_INT);
	spmu_wrmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, BIT(0));
	step(1);
	struct ds_isr_report r;
	c.full_width = true;
	ds_isr_service(&ops, &c, &r);
	uint64_t v;
	spmu_rdmsr(&m, MSR_IA32_PMC0, &v);
	assert_int_equal(v, (0 - period) & mask);
	assert_int_equal(r.msr_errors, 0);
	/* the legacy alias cannot hold it: bits 31:0 of -(2^32 + 5), sign-extended */
	spmu_wrmsr(&m, MSR_IA32_PMC0, (uint64_t)-1);
	step(1);
	c.full_width = false;
	ds_isr_service(&ops, &c, &r);
	spmu_rdmsr(&m, MSR_IA32_PMC0, &v);
	assert_int_equal(v, 0xfffffffffffbull);
}

static void lbr_snapshot_before_the_unfreezing_ack(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("skylake"); /* v4: the ack unfreezes */
	freezing_overflow(&c);
	struct ds_isr_report r;
	ds_isr_service(&ops, &c, &r);
	assert_int_equal(snapshots, 0); /* not asked */
	freezing_overflow(&c);
	c.lbr_snapshot = true;
	ds_isr_service(&ops, &c, &r);
	assert_int_equal(r.lbr_snapshots, 1);
	assert_int_equal(snapshots, 1);
	assert_int_equal(snapshots_frozen, 1); /* read while LBR_Frz held the stack */
	assert_false(spmu_counters_lbr_frozen(&m.ctr));
}

static void pmi_storm_leaves_pmu_disabled(void **state)
{
	(void)state;
	struct ds_isr_config c = setup("skylake");
	c.global_ctrl = BIT(1);
	c.max_loops = 5;
	inject_status_reads = 1000; /* an overflow on every read */
	struct ds_isr_report r;
	ds_isr_service(&ops, &c, &r);
	assert_true(r.storm);
	assert_int_equal(r.loops, 5);
	uint64_t v;
	spmu_rdmsr(&m, MSR_IA32_PERF_GLOBAL_CTRL, &v);
	assert_int_equal(v, 0); /* not re-armed */
}

/* Circular BTS (SDM Vol. 3B 17.4.9.3): a 4-record buffer after 6 branches holds branches 3-6
 * with the index at the slot of branch 3, the oldest; after 3 branches it has not wrapped. */
static uint64_t circ_from[8];
static unsigned circ_n;
static void circ_sink(void *ctx, const struct bts_record *r)
{
	(void)ctx;
	circ_from[circ_n++] = r->from;
}
static void *circ_at(void *ctx, uint64_t a)
{
	(void)ctx;
	return lin(a);
}

static void circular_drain_oldest_first_and_wrap_seen(void **state)
{
	(void)state;
	struct ds_isr_ops o = {.at = circ_at, .bts_record = circ_sink};
	for (unsigned branches = 3; branches <= 6; branches += 3) {
		struct ds_area64 ds = {.bts_base = DS_LIN + 0x1000,
				       .bts_index = DS_LIN + 0x1000,
				       .bts_abs_max =
					   DS_LIN + 0x1000 + 4 * sizeof(struct bts_record)};
		ds_bts_clear(&o, &ds);
		for (unsigned b = 1; b <= branches; b++) { /* the processor's writes, wrapping */
			if (ds.bts_index + sizeof(struct bts_record) > ds.bts_abs_max)
				ds.bts_index = ds.bts_base;
			struct bts_record *r = lin(ds.bts_index);
			*r = (struct bts_record){.from = b, .to = 100 + b};
			ds.bts_index += sizeof(*r);
		}
		bool wrapped;
		circ_n = 0;
		uint64_t n = ds_bts_drain_circular(&o, &ds, &wrapped);
		if (branches == 3) {
			assert_false(wrapped);
			assert_int_equal(n, 3);
			assert_int_equal(circ_from[0], 1);
			assert_int_equal(circ_from[2], 3);
		} else {
			assert_true(wrapped);
			assert_int_equal(n, 4);
			for (unsigned i = 0; i < 4; i++)
				assert_int_equal(circ_from[i], 3 + i);
		}
		assert_int_equal(ds.bts_index, ds.bts_base);
	}
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(bts_threshold_without_status_bit),
    cmocka_unit_test(circular_bts_is_left_alone),
    cmocka_unit_test(pebs_threshold_and_several_counters),
    cmocka_unit_test(pebs_skipped_assists_reckoned_from_the_counter),
    cmocka_unit_test(back_to_back_pmis_loop),
    cmocka_unit_test(legacy_freeze_is_undone),
    cmocka_unit_test(streamlined_freeze_is_acked),
    cmocka_unit_test(mid_ack_between_processing_and_restore),
    cmocka_unit_test(full_width_rearm),
    cmocka_unit_test(lbr_snapshot_before_the_unfreezing_ack),
    cmocka_unit_test(pmi_storm_leaves_pmu_disabled),
    cmocka_unit_test(circular_drain_oldest_first_and_wrap_seen),
};
UNIT_MAIN(tests)
