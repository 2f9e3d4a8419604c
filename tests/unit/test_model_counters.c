// UNIT-SOURCES: arch/x86/model/counters.c
/*
 * The model's counters against SDM Vol. 3B 18.2 and 17.4.7 (references.md 7.1-7.3): counting
 * conditions, widths and the legacy/full-width aliases, overflow and PMI requests, and the
 * two freeze flavours: legacy (v2/v3) clears enables, streamlined (v4+) sets LBR_Frz/CTR_Frz.
 */
#include "tests/unit/unit.h"
#include "arch/x86/model/counters.h"
#include "arch/x86/hw/ds_layout.h"

static const struct spmu_tick kernel_insn = {.branch = false, .cpl = 0},
			      user_insn = {.branch = false, .cpl = 3},
			      kernel_branch = {.branch = true, .cpl = 0};

static void wr(struct spmu_counters *c, uint32_t msr, uint64_t v)
{
	bool handled;
	const char *why;
	assert_int_equal(spmu_counters_wrmsr(c, msr, v, &handled, &why), 0);
}

static bool refused(struct spmu_counters *c, uint32_t msr, uint64_t v)
{
	bool handled;
	const char *why = NULL;
	return spmu_counters_wrmsr(c, msr, v, &handled, &why) != 0 && handled && why;
}

static uint64_t rd(struct spmu_counters *c, uint32_t msr)
{
	bool handled;
	const char *why;
	uint64_t v = 0;
	assert_int_equal(spmu_counters_rdmsr(c, msr, &v, &handled, &why), 0);
	return v;
}

#define SEL(event, flags) ((uint64_t)(event) | (flags))

static void counting_conditions(void **state)
{
	(void)state;
	struct spmu_counters c;
	spmu_counters_init(&c, 4, 4, 48, 3, 48, true);
	wr(&c, MSR_IA32_PERFEVTSEL0, SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS));
	wr(&c, MSR_IA32_PERFEVTSEL0 + 1, SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_USR));
	wr(&c, MSR_IA32_PERFEVTSEL0 + 2, SEL(ARCH_EVENT_BRANCHES, EVTSEL_EN | EVTSEL_OS));
	wr(&c, MSR_IA32_PERFEVTSEL0 + 3, SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_OS)); /* no EN */
	spmu_counters_tick(&c, &kernel_insn, 0);
	spmu_counters_tick(&c, &kernel_branch, 0);
	spmu_counters_tick(&c, &user_insn, 0);
	assert_int_equal(rd(&c, MSR_IA32_PMC0), 2);	/* ring 0 instructions */
	assert_int_equal(rd(&c, MSR_IA32_PMC0 + 1), 1); /* ring 3 */
	assert_int_equal(rd(&c, MSR_IA32_PMC0 + 2), 1); /* branches only */
	assert_int_equal(rd(&c, MSR_IA32_PMC0 + 3), 0);
	/* GLOBAL_CTRL gates counting from version 2 on. */
	wr(&c, MSR_IA32_PERF_GLOBAL_CTRL, BIT(1));
	spmu_counters_tick(&c, &kernel_insn, 0);
	assert_int_equal(rd(&c, MSR_IA32_PMC0), 2);
	/* Fixed counter 0 counts instructions per its FIXED_CTR_CTRL nibble. */
	wr(&c, MSR_IA32_PERF_GLOBAL_CTRL, BIT(32));
	wr(&c, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_USR(0));
	spmu_counters_tick(&c, &kernel_insn, 0);
	spmu_counters_tick(&c, &user_insn, 0);
	assert_int_equal(rd(&c, MSR_IA32_FIXED_CTR0), 1);
	/* Version 1 has no global MSRs: EN alone counts. */
	spmu_counters_init(&c, 1, 2, 40, 0, 0, false);
	bool handled;
	const char *why;
	uint64_t v;
	assert_int_not_equal(spmu_counters_rdmsr(&c, MSR_IA32_PERF_GLOBAL_CTRL, &v, &handled, &why),
			     0);
	wr(&c, MSR_IA32_PERFEVTSEL0, SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS));
	spmu_counters_tick(&c, &kernel_insn, 0);
	assert_int_equal(rd(&c, MSR_IA32_PMC0), 1);
}

static void widths_aliases_and_reserved_bits(void **state)
{
	(void)state;
	struct spmu_counters c;
	spmu_counters_init(&c, 3, 4, 48, 3, 48, false);
	/* Legacy alias: 32 bits written, sign-extended to 48. */
	wr(&c, MSR_IA32_PMC0, 0xfffffffe);
	assert_int_equal(rd(&c, MSR_IA32_PMC0), 0xfffffffffffeull);
	wr(&c, MSR_IA32_PMC0, 0x123456789ull);
	assert_int_equal(rd(&c, MSR_IA32_PMC0), 0x23456789ull);
	/* Full-width alias only with PERF_CAPABILITIES[13]. */
	assert_true(refused(&c, MSR_IA32_A_PMC0, 0x10));
	spmu_counters_init(&c, 4, 4, 48, 3, 48, true);
	wr(&c, MSR_IA32_A_PMC0, 0x7fffffffffffull);
	assert_int_equal(rd(&c, MSR_IA32_PMC0), 0x7fffffffffffull);
	assert_true(refused(&c, MSR_IA32_A_PMC0, BIT(48)));
	assert_true(refused(&c, MSR_IA32_PERFEVTSEL0, BIT(32)));
	assert_true(refused(&c, MSR_IA32_PERF_GLOBAL_CTRL, BIT(4))); /* only 4 GP counters */
	assert_true(refused(&c, MSR_IA32_PERF_GLOBAL_CTRL, BIT(35)));
	assert_true(refused(&c, MSR_IA32_FIXED_CTR_CTRL, BIT(12))); /* 3 fixed: 12 bits */
	assert_true(refused(&c, MSR_IA32_PERF_GLOBAL_STATUS, 0));
	assert_true(refused(&c, MSR_IA32_FIXED_CTR0, BIT(48)));
}

static void overflow_requests_pmi_when_int_set(void **state)
{
	(void)state;
	struct spmu_counters c;
	spmu_counters_init(&c, 4, 4, 48, 3, 48, true);
	wr(&c, MSR_IA32_PMC0, (uint64_t)-2); /* a period of 2 */
	wr(&c, MSR_IA32_PMC0 + 1, (uint64_t)-1);
	wr(&c, MSR_IA32_PERFEVTSEL0,
	   SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS | EVTSEL_INT));
	wr(&c, MSR_IA32_PERFEVTSEL0 + 1, SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS));
	struct spmu_overflow o = spmu_counters_tick(&c, &kernel_insn, 0);
	/* Counter 1 overflowed without INT: status bit, no PMI. */
	assert_false(o.pmi);
	assert_int_equal(rd(&c, MSR_IA32_PERF_GLOBAL_STATUS), BIT(1));
	o = spmu_counters_tick(&c, &kernel_insn, 0);
	assert_true(o.pmi);
	assert_int_equal(rd(&c, MSR_IA32_PERF_GLOBAL_STATUS), BIT(0) | BIT(1));
	assert_int_equal(rd(&c, MSR_IA32_PMC0), 0);
	/* OVF_CTRL / STATUS_RESET clears what is written. */
	wr(&c, MSR_IA32_PERF_GLOBAL_OVF_CTRL, BIT(0));
	assert_int_equal(rd(&c, MSR_IA32_PERF_GLOBAL_STATUS), BIT(1));
	/* STATUS_SET (v4) sets bits; version 3 refuses it. */
	wr(&c, MSR_IA32_PERF_GLOBAL_STATUS_SET, BIT(2));
	assert_int_equal(rd(&c, MSR_IA32_PERF_GLOBAL_STATUS), BIT(1) | BIT(2));
	spmu_counters_init(&c, 3, 4, 48, 3, 48, false);
	assert_true(refused(&c, MSR_IA32_PERF_GLOBAL_STATUS_SET, BIT(0)));
}

static void legacy_freeze_clears_enables(void **state)
{
	(void)state;
	struct spmu_counters c;
	spmu_counters_init(&c, 3, 4, 48, 3, 48, false);
	wr(&c, MSR_IA32_PERF_GLOBAL_CTRL, 0x3);
	wr(&c, MSR_IA32_PMC0, (uint64_t)-1);
	wr(&c, MSR_IA32_PERFEVTSEL0,
	   SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS | EVTSEL_INT));
	uint64_t ctl = DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_FREEZE_LBRS_ON_PMI;
	struct spmu_overflow o = spmu_counters_tick(&c, &kernel_insn, ctl);
	assert_true(o.pmi);
	assert_true(o.freeze_lbr_legacy); /* the caller clears DEBUGCTL.LBR */
	assert_int_equal(rd(&c, MSR_IA32_PERF_GLOBAL_CTRL), 0);
	assert_int_equal(rd(&c, MSR_IA32_PERF_GLOBAL_STATUS) &
			     (GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ),
			 0);
	/* Frozen by the cleared enables: nothing counts until software rewrites them. */
	spmu_counters_tick(&c, &kernel_insn, ctl);
	assert_int_equal(rd(&c, MSR_IA32_PMC0), 0);
	wr(&c, MSR_IA32_PERF_GLOBAL_CTRL, 0x1);
	spmu_counters_tick(&c, &kernel_insn, ctl);
	assert_int_equal(rd(&c, MSR_IA32_PMC0), 1);
	/* Without the freeze bits nothing is frozen. */
	spmu_counters_init(&c, 3, 4, 48, 3, 48, false);
	wr(&c, MSR_IA32_PMC0, (uint64_t)-1);
	wr(&c, MSR_IA32_PERFEVTSEL0,
	   SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS | EVTSEL_INT));
	o = spmu_counters_tick(&c, &kernel_insn, 0);
	assert_true(o.pmi);
	assert_false(o.freeze_lbr_legacy);
	assert_int_not_equal(rd(&c, MSR_IA32_PERF_GLOBAL_CTRL), 0);
}

static void streamlined_freeze_sets_status_bits(void **state)
{
	(void)state;
	struct spmu_counters c;
	spmu_counters_init(&c, 4, 4, 48, 3, 48, true);
	wr(&c, MSR_IA32_PERF_GLOBAL_CTRL, 0x3);
	wr(&c, MSR_IA32_PMC0, (uint64_t)-1);
	wr(&c, MSR_IA32_PERFEVTSEL0,
	   SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS | EVTSEL_INT));
	wr(&c, MSR_IA32_PERFEVTSEL0 + 1, SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS));
	uint64_t ctl = DEBUGCTL_FREEZE_PERFMON_ON_PMI | DEBUGCTL_FREEZE_LBRS_ON_PMI;
	struct spmu_overflow o = spmu_counters_tick(&c, &kernel_insn, ctl);
	assert_true(o.pmi);
	assert_false(o.freeze_lbr_legacy); /* DEBUGCTL untouched on v4 */
	uint64_t st = rd(&c, MSR_IA32_PERF_GLOBAL_STATUS);
	assert_int_equal(st, BIT(0) | GLOBAL_STATUS_LBR_FRZ | GLOBAL_STATUS_CTR_FRZ);
	assert_int_equal(rd(&c, MSR_IA32_PERF_GLOBAL_CTRL), 0x3); /* enables kept */
	assert_true(spmu_counters_lbr_frozen(&c));
	uint64_t pmc1 = rd(&c, MSR_IA32_PMC0 + 1);
	spmu_counters_tick(&c, &kernel_insn, ctl);
	assert_int_equal(rd(&c, MSR_IA32_PMC0 + 1), pmc1); /* CTR_Frz: nothing counts */
	/* Writing the status back to STATUS_RESET acks and unfreezes (references.md 7.3). */
	wr(&c, MSR_IA32_PERF_GLOBAL_OVF_CTRL, st);
	assert_int_equal(rd(&c, MSR_IA32_PERF_GLOBAL_STATUS), 0);
	assert_false(spmu_counters_lbr_frozen(&c));
	spmu_counters_tick(&c, &kernel_insn, ctl);
	assert_int_equal(rd(&c, MSR_IA32_PMC0 + 1), pmc1 + 1);
	/* A PMI request from a DS buffer threshold freezes the same way. */
	o = spmu_counters_pmi_freeze(&c, DEBUGCTL_FREEZE_LBRS_ON_PMI);
	assert_true(o.pmi);
	assert_true(spmu_counters_lbr_frozen(&c));
}

/* Per-block stepping (spmu_counters_plain_room / tick_plain): n instructions that are no branch
 * and access no data, counted at once, leave the counters as n ticks one by one do; the room
 * ends one tick before the counter that overflows first ("the counter overflows" when it wraps
 * to 0, SDM Vol. 3B 18.2.1: a W-bit counter holding v wraps on its (2^W - v)-th increment), and
 * is 0 while a counter is armed for PEBS (its next event writes a record, SDM 18.4.4) or memory
 * events are counted. */
static void plain_batches_count_as_single_ticks(void **state)
{
	(void)state;
	struct spmu_counters a, b;
	spmu_counters_init(&a, 4, 4, 48, 3, 48, true);
	wr(&a, MSR_IA32_PERFEVTSEL0,
	   SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS | EVTSEL_INT));
	wr(&a, MSR_IA32_PERFEVTSEL0 + 1, SEL(ARCH_EVENT_BRANCHES, EVTSEL_EN | EVTSEL_OS));
	wr(&a, MSR_IA32_PERFEVTSEL0 + 2, SEL(ARCH_EVENT_CORE_CYCLES, EVTSEL_EN | EVTSEL_USR));
	wr(&a, MSR_IA32_A_PMC0, (1ull << 48) - 1000); /* 1000 increments to the wrap */
	wr(&a, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0) | FIXED_CTRL_USR(1));
	wr(&a, MSR_IA32_PERF_GLOBAL_CTRL, GENMASK(3, 0) | BIT(32) | BIT(33));
	wr(&a, MSR_IA32_FIXED_CTR0, (1ull << 48) - 5000);
	assert_int_equal(spmu_counters_plain_room(&a, 0), 999);
	assert_int_equal(spmu_counters_plain_room(&a, 3), (1ull << 48) - 1);
	b = a;
	spmu_counters_tick_plain(&a, 999, 0);
	for (int i = 0; i < 999; i++)
		assert_false(spmu_counters_tick(&b, &kernel_insn, 0).pmi);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(spmu_counters_plain_room(&a, 0), 0);
	assert_true(spmu_counters_tick(&b, &kernel_insn, 0).pmi); /* the 1000th wraps */
	/* ring 3: PMC2 (cycles, USR) and fixed counter 1 count; PMC0, PMC1, fixed 0 do not */
	spmu_counters_init(&a, 4, 4, 48, 3, 48, true);
	wr(&a, MSR_IA32_PERFEVTSEL0, SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS));
	wr(&a, MSR_IA32_PERFEVTSEL0 + 2, SEL(ARCH_EVENT_CORE_CYCLES, EVTSEL_EN | EVTSEL_USR));
	wr(&a, MSR_IA32_A_PMC0 + 2, (1ull << 48) - 7);
	wr(&a, MSR_IA32_FIXED_CTR_CTRL, FIXED_CTRL_OS(0) | FIXED_CTRL_USR(1));
	wr(&a, MSR_IA32_PERF_GLOBAL_CTRL, GENMASK(3, 0) | BIT(32) | BIT(33));
	assert_int_equal(spmu_counters_plain_room(&a, 3), 6);
	b = a;
	spmu_counters_tick_plain(&a, 6, 3);
	for (int i = 0; i < 6; i++)
		spmu_counters_tick(&b, &user_insn, 0);
	assert_memory_equal(&a, &b, sizeof(a));
	/* frozen (CTR_Frz): nothing counts, any batch */
	a.global_status |= GLOBAL_STATUS_CTR_FRZ;
	assert_int_equal(spmu_counters_plain_room(&a, 3), UINT64_MAX);
	/* armed for PEBS: the next instruction it counts writes a record */
	spmu_counters_init(&a, 4, 4, 48, 3, 48, true);
	a.pebs_valid = GENMASK(3, 0);
	wr(&a, MSR_IA32_PERFEVTSEL0, SEL(ARCH_EVENT_INSTRUCTIONS, EVTSEL_EN | EVTSEL_OS));
	wr(&a, MSR_IA32_PEBS_ENABLE, BIT(0));
	wr(&a, MSR_IA32_A_PMC0, (1ull << 48) - 1);
	assert_int_equal(spmu_counters_plain_room(&a, 0), 0);
	spmu_counters_tick(&a, &kernel_insn, 0); /* wraps: armed */
	assert_int_equal(spmu_counters_plain_room(&a, 0), 0);
	assert_int_equal(spmu_counters_plain_room(&a, 3), UINT64_MAX); /* counts ring 0 only */
	/* memory events: each instruction's accesses count */
	a.mem_events.loads = SPMU_EVENT(0xd0, 0x81);
	wr(&a, MSR_IA32_PERFEVTSEL0 + 1, SEL(0xd0 | 0x81 << 8, EVTSEL_EN | EVTSEL_USR));
	assert_int_equal(spmu_counters_plain_room(&a, 3), 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(counting_conditions),
    cmocka_unit_test(plain_batches_count_as_single_ticks),
    cmocka_unit_test(widths_aliases_and_reserved_bits),
    cmocka_unit_test(overflow_requests_pmi_when_int_set),
    cmocka_unit_test(legacy_freeze_clears_enables),
    cmocka_unit_test(streamlined_freeze_sets_status_bits),
};
UNIT_MAIN(tests)
