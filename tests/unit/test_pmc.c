// clang-format off
// UNIT-SOURCES: arch/x86/drivers/pmc_plan.c arch/x86/drivers/pmc_program.c arch/x86/model/spmu.c arch/x86/model/arch_lbr.c arch/x86/model/counters.c arch/x86/model/lbr.c arch/x86/model/bts.c arch/x86/model/pebs.c arch/x86/model/personality.c arch/x86/caps/caps.c arch/x86/caps/lbr_models.c arch/x86/caps/cpu_ident.c lib/fmt.c lib/list.c
// clang-format on
/*
 * The counter driver (arch/x86/drivers/pmc.c) against SDM Vol. 3B 18.2 / 17.4.7 and
 * references.md 7.1-7.3, 7.6 and 8 "Counters / PMI": periods as -period in the counter width,
 * sign-extended reads, the period limits with and without full-width writes
 * (IA32_PERF_CAPABILITIES[13]), the IA32_A_PMCx / IA32_PMCx choice, the EVTSEL layout, the freeze
 * bits and their option parser; then programming, overflow and reset through the software PMU
 * (skylake, core2), with the driver's pmu_rdmsr/pmu_wrmsr routed to a model here.
 */
#include "tests/unit/unit.h"
#include <stdio.h>
#include <string.h>
#include "arch/x86/hw/ds_layout.h"
#include "arch/x86/drivers/pmc.h"
#include "kernel/arch_trace.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/model/spmu.h"

#define P31    ((1ull << 31) - 1) /* the legacy IA32_PMCx period limit */
#define P47    ((1ull << 47) - 1) /* 2^(48-1) - 1: full-width limit at width 48 */
#define MASK48 0xffffffffffffull

static struct spmu m;
static char why[256];

/* The driver's MSR door (arch/x86/pmu/access.h), here always the model. */
int pmu_rdmsr(uint32_t msr, uint64_t *value)
{
	return spmu_rdmsr(&m, msr, value) == STATUS_OK ? STATUS_OK : STATUS_REFUSED;
}

int pmu_wrmsr(uint32_t msr, uint64_t value)
{
	return spmu_wrmsr(&m, msr, value) == STATUS_OK ? STATUS_OK : STATUS_REFUSED;
}

static uint64_t rd(uint32_t msr)
{
	uint64_t v = 0xbad;
	assert_int_equal(spmu_rdmsr(&m, msr, &v), STATUS_OK);
	return v;
}

static void retire(unsigned n, unsigned cpl)
{
	struct spmu_regs regs;
	memset(&regs, 0, sizeof(regs));
	for (unsigned i = 0; i < n; i++) {
		struct spmu_step st = {0x401000 + i, 0x401001 + i, false, cpl, 0,
				       &regs,	     false,	   false, 0,   0};
		spmu_retire(&m, &st);
	}
}

/* A v4 record with 4 GP counters of 48 bits and fixed counters 0 and 2 only. */
static struct trace_caps caps(bool full_width)
{
	struct trace_caps c;
	memset(&c, 0, sizeof(c));
	c.perfmon = (struct tc_perfmon){.version = 4,
					.gp_counters = 4,
					.gp_width = 48,
					.fixed_mask = 0x5,
					.fixed_counters = 3,
					.fixed_width = 48};
	c.perf_cap.present = true;
	c.perf_cap.full_width_write = full_width;
	return c;
}

static void period_values(void **state)
{
	(void)state;
	assert_int_equal(pmc_period_value(48, 1), 0xffffffffffffull);
	assert_int_equal(pmc_period_value(48, 37), 0xffffffffffdbull);
	assert_int_equal(pmc_period_value(48, P31), 0xffff80000001ull);
	assert_int_equal(pmc_period_value(32, 1), 0xffffffffull);
	assert_int_equal(pmc_period_value(32, 37), 0xffffffdbull);
	assert_int_equal(pmc_period_value(32, P31), 0x80000001ull);
	assert_int_equal(pmc_period_value(48, 0), 0); /* count only */
	assert_int_equal(pmc_period_value(40, 1000), 0xfffffffc18ull);
}

static void sign_extension(void **state)
{
	(void)state;
	assert_int_equal(pmc_sign_extend(0xffffffffffdbull, 48), -37);
	assert_int_equal(pmc_sign_extend(0xffffffffffffull, 48), -1);
	assert_int_equal(pmc_sign_extend(0x800000000000ull, 48), -(int64_t)(1ull << 47));
	assert_int_equal(pmc_sign_extend(0x7fffffffffffull, 48), (int64_t)P47);
	assert_int_equal(pmc_sign_extend(37, 48), 37);
	assert_int_equal(pmc_sign_extend(0, 48), 0);
	assert_int_equal(pmc_sign_extend(0xabcd000000000025ull, 48), 37); /* above the width */
	assert_int_equal(pmc_sign_extend(0xfffffffc18ull, 40), -1000);
}

static void check_gp(void **state)
{
	(void)state;
	struct trace_caps c = caps(false);
	struct pmc_event e = {.event = 0xc0, .usr = true, .os = true, .period = 1};
	assert_int_equal(pmc_check_gp(&c, 3, &e, why, sizeof(why)), STATUS_OK);
	assert_int_equal(pmc_check_gp(&c, 4, &e, why, sizeof(why)), STATUS_INVALID);
	assert_string_equal(why, "general-purpose counter 4: this CPU has 4 (CPUID.0AH:EAX[15:8], "
				 "perfmon version 4)");
	e.period = P31;
	assert_int_equal(pmc_check_gp(&c, 0, &e, why, sizeof(why)), STATUS_OK);
	e.period = P31 + 1;
	assert_int_equal(pmc_check_gp(&c, 0, &e, why, sizeof(why)), STATUS_INVALID);
	assert_string_equal(why, "period 2147483648 too large for counter 0; accepted: "
				 "1..2147483647 (no full-width writes)");
	c = caps(true);
	assert_int_equal(pmc_check_gp(&c, 0, &e, why, sizeof(why)), STATUS_OK);
	e.period = P47;
	assert_int_equal(pmc_check_gp(&c, 0, &e, why, sizeof(why)), STATUS_OK);
	e.period = P47 + 1;
	assert_int_equal(pmc_check_gp(&c, 0, &e, why, sizeof(why)), STATUS_INVALID);
	assert_string_equal(why, "period 140737488355328 too large for counter 0; accepted: "
				 "1..140737488355327");
	e = (struct pmc_event){.event = 0xc0, .period = 10};
	assert_int_equal(pmc_check_gp(&c, 1, &e, why, sizeof(why)), STATUS_INVALID);
	assert_string_equal(why, "counter 1 counts in no ring; accepted: user, kernel");
	e.os = true;
	assert_int_equal(pmc_check_gp(&c, 1, &e, why, sizeof(why)), STATUS_OK);
	c.perfmon.version = 0; /* no architectural perfmon at all */
	assert_int_equal(pmc_check_gp(&c, 0, &e, why, sizeof(why)), STATUS_INVALID);
}

static void check_fixed(void **state)
{
	(void)state;
	struct trace_caps c = caps(false);
	assert_int_equal(pmc_check_fixed(&c, 0, 100, why, sizeof(why)), STATUS_OK);
	assert_int_equal(pmc_check_fixed(&c, 2, 100, why, sizeof(why)), STATUS_OK);
	assert_int_equal(pmc_check_fixed(&c, 1, 100, why, sizeof(why)), STATUS_INVALID);
	assert_string_equal(why, "fixed counter 1: not present (supported mask 0x5, perfmon "
				 "version 4)");
	assert_int_equal(pmc_check_fixed(&c, 3, 100, why, sizeof(why)), STATUS_INVALID);
	/* fixed counters are written full width: the limit is 2^(width-1) - 1 regardless */
	assert_int_equal(pmc_check_fixed(&c, 0, P47, why, sizeof(why)), STATUS_OK);
	assert_int_equal(pmc_check_fixed(&c, 0, P47 + 1, why, sizeof(why)), STATUS_INVALID);
	assert_string_equal(why, "period 140737488355328 too large for fixed counter 0; "
				 "accepted: 1..140737488355327");
	c.perfmon.version = 1; /* fixed counters came with version 2 */
	assert_int_equal(pmc_check_fixed(&c, 0, 100, why, sizeof(why)), STATUS_INVALID);
	assert_non_null(strstr(why, "perfmon version 1"));
}

static void write_target(void **state)
{
	(void)state;
	struct trace_caps c = caps(true);
	uint32_t msr = 0;
	uint64_t v = 0;
	pmc_gp_write_target(&c, 2, (uint64_t)-37, &msr, &v);
	assert_int_equal(msr, 0x4c3); /* IA32_A_PMC2 */
	assert_int_equal(v, 0xffffffffffdbull);
	pmc_gp_write_target(&c, 0, 0x123456789abcdefull, &msr, &v);
	assert_int_equal(msr, 0x4c1);
	assert_int_equal(v, 0x456789abcdefull); /* bits 63:48 dropped */
	c.perfmon.gp_width = 40;
	pmc_gp_write_target(&c, 1, (uint64_t)-1000, &msr, &v);
	assert_int_equal(msr, 0x4c2);
	assert_int_equal(v, 0xfffffffc18ull);
	c = caps(false);
	pmc_gp_write_target(&c, 2, (uint64_t)-37, &msr, &v);
	assert_int_equal(msr, 0xc3); /* IA32_PMC2: bits 31:0, sign-extended by the CPU */
	assert_int_equal(v, 0xffffffdbull);
	pmc_gp_write_target(&c, 3, pmc_period_value(48, P31), &msr, &v);
	assert_int_equal(msr, 0xc4);
	assert_int_equal(v, 0x80000001ull);
}

static void evtsel_layout(void **state)
{
	(void)state;
	/* event 7:0, umask 15:8, USR 16, OS 17, INT 20, EN 22 (SDM Figure 18-1) */
	struct pmc_event e = {.event = 0xc4, .umask = 0x01, .usr = true, .pmi = true};
	assert_int_equal(pmc_evtsel(&e), 0xc4 | 0x100 | BIT(16) | BIT(20) | BIT(22));
	assert_int_equal(pmc_evtsel(&e), 0x5101c4);
	e = (struct pmc_event){.event = 0x3c, .os = true};
	assert_int_equal(pmc_evtsel(&e), 0x42003c);
	e = (struct pmc_event){
	    .event = 0xd0, .umask = 0x81, .usr = true, .os = true, .extra = EVTSEL_ADAPTIVE};
	assert_int_equal(pmc_evtsel(&e), 0x4004381d0ull); /* adaptive PEBS bit 34 kept */
}

static void freeze_bits(void **state)
{
	(void)state;
	struct trace_caps c = caps(true);
	struct pmc_freeze f = {.lbrs = true, .perfmon = true};
	uint64_t bits = 0xbad;
	c.freeze.kind = TC_FREEZE_LEGACY;
	assert_int_equal(pmc_freeze_bits(&c, &f, &bits, why, sizeof(why)), STATUS_OK);
	assert_int_equal(bits, DEBUGCTL_FREEZE_LBRS_ON_PMI | DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	assert_int_equal(bits, 0x1800); /* DEBUGCTL bits 11, 12 */
	c.freeze.kind = TC_FREEZE_STREAMLINED;
	f = (struct pmc_freeze){.lbrs = true};
	assert_int_equal(pmc_freeze_bits(&c, &f, &bits, why, sizeof(why)), STATUS_OK);
	assert_int_equal(bits, 0x800);
	f = (struct pmc_freeze){.smm = true};
	assert_int_equal(pmc_freeze_bits(&c, &f, &bits, why, sizeof(why)), STATUS_UNSUPPORTED);
	assert_string_equal(why,
			    "freeze while in SMM: IA32_PERF_CAPABILITIES[12] is clear on this CPU");
	assert_int_equal(bits, 0);
	c.freeze.while_smm = true;
	assert_int_equal(pmc_freeze_bits(&c, &f, &bits, why, sizeof(why)), STATUS_OK);
	assert_int_equal(bits, DEBUGCTL_FREEZE_WHILE_SMM); /* bit 14 */
	assert_int_equal(bits, 0x4000);
	c.freeze.kind = TC_FREEZE_NONE;
	strcpy(c.freeze.reason, "CPUID.0AH:EAX[7:0] ArchPerfMonVerID 1 < 2 (SDM 17.4.7)");
	f = (struct pmc_freeze){.perfmon = true, .smm = true};
	assert_int_equal(pmc_freeze_bits(&c, &f, &bits, why, sizeof(why)), STATUS_UNSUPPORTED);
	assert_string_equal(why, "freeze on PMI: CPUID.0AH:EAX[7:0] ArchPerfMonVerID 1 < 2 "
				 "(SDM 17.4.7)");
	assert_int_equal(bits, 0);
	f = (struct pmc_freeze){0};
	assert_int_equal(pmc_freeze_bits(&c, &f, &bits, why, sizeof(why)), STATUS_OK);
	assert_int_equal(bits, 0);
}

static void freeze_from_options(void **state)
{
	(void)state;
	struct pmc_freeze f;
	memset(&f, 0xff, sizeof(f));
	pmc_freeze_from_options(0, &f);
	assert_false(f.lbrs || f.perfmon || f.smm);
	pmc_freeze_from_options(TRACE_FREEZE_PERFMON, &f);
	assert_true(!f.lbrs && f.perfmon && !f.smm);
	pmc_freeze_from_options(TRACE_FREEZE_SMM | TRACE_FREEZE_LBRS, &f);
	assert_true(f.lbrs && !f.perfmon && f.smm);
}

static const struct trace_caps *model(const char *name)
{
	spmu_init(&m, spmu_personality_find(name), NULL);
	return &m.caps;
}

/* The MSR a programming call refused, when it refuses. */
static uint32_t msr;

static void model_gp_overflow_pmi(void **state)
{
	(void)state;
	const struct trace_caps *c = model("skylake");
	assert_true(c->perf_cap.full_width_write);
	struct pmc_event e = {
	    .event = ARCH_EVENT_INSTRUCTIONS, .usr = true, .os = true, .pmi = true, .period = 10};
	assert_int_equal(pmc_check_gp(c, 0, &e, why, sizeof(why)), STATUS_OK);
	assert_int_equal(pmc_program_gp(c, 0, &e, &msr), STATUS_OK);
	assert_int_equal(rd(MSR_IA32_PERFEVTSEL0), 0x5300c0); /* USR OS INT EN, event C0H */
	assert_int_equal(rd(MSR_IA32_PMC0), 0xfffffffffff6ull);
	assert_int_equal(pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT(0)), STATUS_OK);
	int64_t v = 0;
	retire(3, 3);
	assert_int_equal(pmc_read_gp(c, 0, &v), STATUS_OK);
	assert_int_equal(v, -7);
	retire(6, 0);
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_STATUS), 0);
	assert_false(m.pmi_pending);
	retire(1, 3); /* the tenth event */
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_STATUS), BIT(0));
	assert_true(m.pmi_pending);
	assert_int_equal(m.stats.pmis_requested, 1);
	assert_int_equal(pmc_read_gp(c, 0, &v), STATUS_OK);
	assert_int_equal(v, 0);
	/* a period past 2^31 - 1 goes through IA32_A_PMC1 */
	e.period = (1ull << 40) + 5;
	assert_int_equal(pmc_program_gp(c, 1, &e, &msr), STATUS_OK);
	assert_int_equal(rd(MSR_IA32_PMC0 + 1), (0 - e.period) & MASK48);
	assert_int_equal(pmc_read_gp(c, 1, &v), STATUS_OK);
	assert_int_equal(v, -(int64_t)e.period);
	/* a counter the CPU lacks: the failing MSR comes back */
	assert_int_equal(pmc_program_gp(c, 4, &e, &msr), STATUS_REFUSED);
	assert_int_equal(msr, MSR_IA32_PERFEVTSEL0 + 4);
	assert_int_equal(pmc_read_gp(c, 4, &v), STATUS_REFUSED);
	assert_int_equal(m.gp_msr, MSR_IA32_PMC0 + 4);
}

static void model_reset_all(void **state)
{
	(void)state;
	const struct trace_caps *c = model("skylake");
	struct pmc_event e = {
	    .event = ARCH_EVENT_INSTRUCTIONS, .usr = true, .pmi = true, .period = 2};
	for (unsigned n = 0; n < 4; n++, e.period++) /* periods 2, 3, 4, 5 */
		assert_int_equal(pmc_program_gp(c, n, &e, &msr), STATUS_OK);
	assert_int_equal(pmc_program_fixed(c, 0, true, true, true, 2, &msr), STATUS_OK);
	assert_int_equal(pmc_program_fixed(c, 2, true, false, false, 9, &msr), STATUS_OK);
	/* streamlined freeze: the PMI also sets LBR_Frz and CTR_Frz (references.md 7.3) */
	assert_int_equal(pmu_wrmsr(MSR_IA32_DEBUGCTL,
				   DEBUGCTL_FREEZE_LBRS_ON_PMI | DEBUGCTL_FREEZE_PERFMON_ON_PMI),
			 STATUS_OK);
	assert_int_equal(pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0xf | BIT(32) | BIT(34)), STATUS_OK);
	retire(2, 3);
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_STATUS), BIT(0) | GLOBAL_STATUS_FIXED(0) |
							      GLOBAL_STATUS_LBR_FRZ |
							      GLOBAL_STATUS_CTR_FRZ);
	retire(1, 3); /* frozen: not counted */
	assert_int_equal(rd(MSR_IA32_PMC0 + 3), (0 - 3ull) & MASK48);
	assert_int_equal(rd(MSR_IA32_FIXED_CTR0 + 2), (0 - 7ull) & MASK48);
	assert_int_equal(pmc_reset_all(c, &msr), STATUS_OK);
	for (unsigned n = 0; n < 4; n++) {
		assert_int_equal(rd(MSR_IA32_PERFEVTSEL0 + n), 0);
		assert_int_equal(rd(MSR_IA32_PMC0 + n), 0);
	}
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(rd(MSR_IA32_FIXED_CTR0 + i), 0);
	assert_int_equal(rd(MSR_IA32_FIXED_CTR_CTRL), 0);
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_CTRL), 0);
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_STATUS), 0); /* frozen bits too: unfrozen */
	assert_int_equal(m.stats.gp_faults, 0);
}

static void model_core2_legacy_writes(void **state)
{
	(void)state;
	const struct trace_caps *c = model("core2");
	assert_false(c->perf_cap.full_width_write);
	assert_int_equal(c->perfmon.gp_width, 40);
	struct pmc_event e = {.event = ARCH_EVENT_INSTRUCTIONS, .usr = true, .period = P31};
	assert_int_equal(pmc_check_gp(c, 1, &e, why, sizeof(why)), STATUS_OK);
	assert_int_equal(pmc_program_gp(c, 1, &e, &msr), STATUS_OK);
	/* -period sign-extended from bit 31 to 40 bits */
	assert_int_equal(rd(MSR_IA32_PMC0 + 1), 0xff80000001ull);
	e.period = 1000;
	assert_int_equal(pmc_program_gp(c, 0, &e, &msr), STATUS_OK);
	assert_int_equal(rd(MSR_IA32_PMC0), 0xfffffffc18ull);
	int64_t v = 0;
	assert_int_equal(pmc_read_gp(c, 0, &v), STATUS_OK);
	assert_int_equal(v, -1000);
	e.period = P31 + 1;
	assert_int_equal(pmc_check_gp(c, 0, &e, why, sizeof(why)), STATUS_INVALID);
	/* overflow after exactly `period` events; GLOBAL_CTRL's GP bits are set at power-on */
	e = (struct pmc_event){
	    .event = ARCH_EVENT_INSTRUCTIONS, .usr = true, .pmi = true, .period = 5};
	assert_int_equal(pmc_program_gp(c, 0, &e, &msr), STATUS_OK);
	retire(4, 3);
	assert_false(m.pmi_pending);
	retire(1, 3);
	assert_true(m.pmi_pending);
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_STATUS), BIT(0));
	assert_int_equal(pmc_reset_all(c, &msr), STATUS_OK);
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_STATUS), 0);
	assert_int_equal(m.stats.gp_faults, 0); /* IA32_A_PMCx never touched */
}

static void model_fixed_fields(void **state)
{
	(void)state;
	const struct trace_caps *c = model("skylake");
	/* counter 1: OS USR PMI (0xb); counter 2: OS USR (0x3) */
	assert_int_equal(pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0x3b0), STATUS_OK);
	assert_int_equal(pmc_check_fixed(c, 0, 100, why, sizeof(why)), STATUS_OK);
	assert_int_equal(pmc_program_fixed(c, 0, true, false, true, 100, &msr), STATUS_OK);
	assert_int_equal(rd(MSR_IA32_FIXED_CTR_CTRL),
			 0x3b0 | FIXED_CTRL_USR(0) | FIXED_CTRL_PMI(0));
	assert_int_equal(rd(MSR_IA32_FIXED_CTR_CTRL), 0x3ba);
	assert_int_equal(rd(MSR_IA32_FIXED_CTR0), (0 - 100ull) & MASK48);
	assert_int_equal(rd(MSR_IA32_FIXED_CTR0 + 1), 0);
	/* reprogramming counter 1 replaces its field alone */
	assert_int_equal(pmc_program_fixed(c, 1, false, true, false, 7, &msr), STATUS_OK);
	assert_int_equal(rd(MSR_IA32_FIXED_CTR_CTRL), 0x31a);
	assert_int_equal(rd(MSR_IA32_FIXED_CTR0 + 1), (0 - 7ull) & MASK48);
	assert_int_equal(rd(MSR_IA32_FIXED_CTR0), (0 - 100ull) & MASK48);
	/* counter 0 counts user instructions only and overflows on the hundredth */
	assert_int_equal(pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, BIT(32)), STATUS_OK);
	retire(50, 0);
	retire(99, 3);
	assert_false(m.pmi_pending);
	retire(1, 3);
	assert_true(m.pmi_pending);
	assert_int_equal(rd(MSR_IA32_PERF_GLOBAL_STATUS), GLOBAL_STATUS_FIXED(0));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(period_values),
    cmocka_unit_test(sign_extension),
    cmocka_unit_test(check_gp),
    cmocka_unit_test(check_fixed),
    cmocka_unit_test(write_target),
    cmocka_unit_test(evtsel_layout),
    cmocka_unit_test(freeze_bits),
    cmocka_unit_test(freeze_from_options),
    cmocka_unit_test(model_gp_overflow_pmi),
    cmocka_unit_test(model_reset_all),
    cmocka_unit_test(model_core2_legacy_writes),
    cmocka_unit_test(model_fixed_fields),
};
UNIT_MAIN(tests)
