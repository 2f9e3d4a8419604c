// clang-format off
// UNIT-SOURCES: arch/x86/drivers/bts_plan.c arch/x86/model/spmu.c arch/x86/model/arch_lbr.c arch/x86/model/counters.c arch/x86/model/lbr.c arch/x86/model/bts.c arch/x86/model/pebs.c arch/x86/model/personality.c arch/x86/caps/caps.c arch/x86/caps/lbr_models.c arch/x86/caps/cpu_ident.c lib/fmt.c
// clang-format on
/*
 * The BTS driver (arch/x86/drivers/bts_plan.c) against SDM Vol. 3B 17.4.9.3 / Table 17-6 and
 * reference sections 2, 5.3-5.5 and 8: every DEBUGCTL encoding bts_plan produces, the software-ring
 * fallback without DS-CPL, the refusal without BTS, the buffer layout of circular and interrupt
 * mode, the CPL-crossing records bts_record_leaks flags; then the plan and the layout driven
 * through the software PMU (skylake), where a user-only trace stores the SYSCALL's kernel TO.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "arch/x86/drivers/bts_plan.h"
#include "arch/x86/model/spmu.h"

/* The IA32_DEBUGCTL bits of Figure 17-3 (references.md 2), pinned to their positions. */
_Static_assert(DEBUGCTL_TR == 0x40 && DEBUGCTL_BTS == 0x80 && DEBUGCTL_BTINT == 0x100,
	       "DEBUGCTL TR bit 6, BTS bit 7, BTINT bit 8");
_Static_assert(DEBUGCTL_BTS_OFF_OS == 0x200 && DEBUGCTL_BTS_OFF_USR == 0x400,
	       "DEBUGCTL BTS_OFF_OS bit 9, BTS_OFF_USR bit 10");

#define REC	24 /* sizeof(struct bts_record), Figure 17-9 */
#define DS_LIN	0x200000ull
#define BUF_LIN 0x201000ull
#define USER_A	0x401000ull /* lower canonical half */
#define USER_B	0x402000ull
#define KERN_A	0xffffffff81000000ull /* upper canonical half */
#define KERN_B	0xffffffff81001000ull

static uint8_t mem[0x4000];
static struct spmu m;
static char why[256];

static void *lin(uint64_t a)
{
	return a >= DS_LIN && a < DS_LIN + sizeof(mem) ? mem + (a - DS_LIN) : NULL;
}

/* A skylake record, decoded from a snapshot the test may alter first. */
static struct trace_caps caps_from(void (*alter)(struct cpu_snapshot *))
{
	struct cpu_snapshot s = *spmu_personality_find("skylake")->snap;
	if (alter)
		alter(&s);
	struct trace_caps c;
	trace_caps_decode(&s, &c);
	return c;
}

static void no_ds_cpl(struct cpu_snapshot *s)
{
	s->leaf_01.ecx &= ~(uint32_t)BIT(4); /* CPUID.01H:ECX[4] DS-CPL */
}

static void bts_unavailable(struct cpu_snapshot *s)
{
	s->misc_enable |= BIT(11); /* IA32_MISC_ENABLE[11] BTS_UNAVAILABLE */
}

static void table_17_6_rows(void **state)
{
	(void)state;
	struct trace_caps c = caps_from(NULL);
	assert_int_equal(c.bts.kind, TC_BTS_CPL_QUALIFIED);
	assert_true(c.ds_cpl);
	static const struct {
		enum trace_ring ring;
		enum bts_mode mode;
		uint64_t debugctl, hex;
	} rows[] = {
	    /* TR BTS OFF_OS OFF_USR BTINT = 1 1 0 0 0: every CPL, circular */
	    {TRACE_RING_ALL, BTS_CIRCULAR, DEBUGCTL_TR | DEBUGCTL_BTS, 0xc0},
	    /* 1 1 1 0 0: CPL > 0 only */
	    {TRACE_RING_USER, BTS_CIRCULAR, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTS_OFF_OS,
	     0x2c0},
	    /* 1 1 0 1 0: CPL = 0 only */
	    {TRACE_RING_KERNEL, BTS_CIRCULAR, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTS_OFF_USR,
	     0x4c0},
	    /* BTINT = 1: the same, with the threshold interrupt */
	    {TRACE_RING_ALL, BTS_INTERRUPT, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT, 0x1c0},
	    {TRACE_RING_USER, BTS_INTERRUPT,
	     DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT | DEBUGCTL_BTS_OFF_OS, 0x3c0},
	    {TRACE_RING_KERNEL, BTS_INTERRUPT,
	     DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT | DEBUGCTL_BTS_OFF_USR, 0x5c0},
	};
	for (unsigned i = 0; i < ARRAY_SIZE(rows); i++) {
		struct bts_config b = {.ring = rows[i].ring, .mode = rows[i].mode, .records = 64};
		struct bts_plan p = {.debugctl = 0xdead, .software_ring = true};
		assert_int_equal(bts_plan(&c, &b, &p, why, sizeof(why)), STATUS_OK);
		assert_int_equal(p.debugctl, rows[i].debugctl);
		assert_int_equal(p.debugctl, rows[i].hex);
		assert_false(p.software_ring);
		/* the model (DS-CPL) accepts every encoding the driver produces */
		spmu_init(&m, spmu_personality_find("skylake"), lin);
		assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, p.debugctl), STATUS_OK);
	}
}

static void software_ring_without_ds_cpl(void **state)
{
	(void)state;
	struct trace_caps c = caps_from(no_ds_cpl);
	assert_false(c.ds_cpl);
	assert_int_equal(c.bts.kind, TC_BTS_YES);
	struct bts_plan p;
	/* BTS_OFF_OS / BTS_OFF_USR are reserved without DS-CPL (SDM 17.4.9.3): never set. */
	struct bts_config b = {.ring = TRACE_RING_USER, .mode = BTS_CIRCULAR};
	assert_int_equal(bts_plan(&c, &b, &p, why, sizeof(why)), STATUS_OK);
	assert_int_equal(p.debugctl, DEBUGCTL_TR | DEBUGCTL_BTS);
	assert_true(p.software_ring);
	b = (struct bts_config){.ring = TRACE_RING_KERNEL, .mode = BTS_INTERRUPT};
	assert_int_equal(bts_plan(&c, &b, &p, why, sizeof(why)), STATUS_OK);
	assert_int_equal(p.debugctl, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT);
	assert_true(p.software_ring);
	b = (struct bts_config){.ring = TRACE_RING_ALL, .mode = BTS_CIRCULAR};
	assert_int_equal(bts_plan(&c, &b, &p, why, sizeof(why)), STATUS_OK);
	assert_int_equal(p.debugctl, DEBUGCTL_TR | DEBUGCTL_BTS);
	assert_false(p.software_ring); /* nothing to filter */
}

static void refused_without_bts(void **state)
{
	(void)state;
	struct trace_caps c = caps_from(bts_unavailable);
	assert_int_equal(c.bts.kind, TC_BTS_NO);
	struct bts_config b = {.ring = TRACE_RING_ALL, .mode = BTS_CIRCULAR, .records = 64};
	struct bts_plan p;
	assert_int_equal(bts_plan(&c, &b, &p, why, sizeof(why)), STATUS_UNSUPPORTED);
	assert_string_equal(why, "no BTS: IA32_MISC_ENABLE[11] BTS_UNAVAILABLE=1");
	/* a record built by hand: the reason it carries is the one reported */
	struct trace_caps h;
	memset(&h, 0, sizeof(h));
	h.bts.kind = TC_BTS_NO;
	strcpy(h.bts.reason, "CPUID.01H:EDX.DS[21] = 0");
	assert_int_equal(bts_plan(&h, &b, &p, why, sizeof(why)), STATUS_UNSUPPORTED);
	assert_string_equal(why, "no BTS: CPUID.01H:EDX.DS[21] = 0");
	assert_int_equal(bts_plan(NULL, &b, &p, why, sizeof(why)), STATUS_UNSUPPORTED);
	assert_string_equal(why, "no BTS: no capability record");
}

static void buffer_circular(void **state)
{
	(void)state;
	struct ds_area64 ds;
	memset(&ds, 0xee, sizeof(ds));
	struct bts_config b = {.mode = BTS_CIRCULAR, .records = 100, .headroom = 500};
	assert_int_equal(bts_buffer_setup(&ds, 0x10000, &b, why, sizeof(why)), STATUS_OK);
	assert_int_equal(ds.bts_base, 0x10000);
	assert_int_equal(ds.bts_index, 0x10000);
	assert_int_equal(ds.bts_abs_max, 0x10000 + 100 * REC); /* 0x10960 */
	assert_int_equal(ds.bts_abs_max, 0x10960);
	/* above the absolute maximum (SDM 17.4.9.3 note); headroom is ignored */
	assert_int_equal(ds.bts_threshold, 0x10960 + REC);
	assert_int_equal(ds.pebs_base, 0xeeeeeeeeeeeeeeeeull); /* PEBS fields untouched */
}

static void buffer_interrupt(void **state)
{
	(void)state;
	struct ds_area64 ds;
	struct bts_config b = {.mode = BTS_INTERRUPT, .records = 2730, .headroom = 170};
	assert_int_equal(bts_buffer_setup(&ds, 0x7f0000, &b, why, sizeof(why)), STATUS_OK);
	assert_int_equal(ds.bts_base, 0x7f0000);
	assert_int_equal(ds.bts_index, 0x7f0000);
	assert_int_equal(ds.bts_abs_max, 0x7f0000 + 2730 * REC);
	assert_int_equal(ds.bts_threshold, 0x7f0000 + (2730 - 170) * REC);
	/* the extremes allowed: headroom 1 (one record past the threshold) and records - 1 */
	b.headroom = 1;
	assert_int_equal(bts_buffer_setup(&ds, 0x1000, &b, why, sizeof(why)), STATUS_OK);
	assert_int_equal(ds.bts_threshold, ds.bts_abs_max - REC);
	b = (struct bts_config){.mode = BTS_INTERRUPT, .records = 2, .headroom = 1};
	assert_int_equal(bts_buffer_setup(&ds, 0x1000, &b, why, sizeof(why)), STATUS_OK);
	assert_int_equal(ds.bts_abs_max, 0x1000 + 2 * REC);
	assert_int_equal(ds.bts_threshold, 0x1000 + REC);
}

static void buffer_refusals(void **state)
{
	(void)state;
	struct ds_area64 ds;
	memset(&ds, 0x55, sizeof(ds));
	struct bts_config b = {.mode = BTS_CIRCULAR, .records = 1};
	assert_int_equal(bts_buffer_setup(&ds, 0x1000, &b, why, sizeof(why)), STATUS_INVALID);
	assert_string_equal(why, "BTS buffer of 1 records with 0 of headroom; accepted: at least "
				 "2 records, interrupt mode with 1 to records - 1 of headroom");
	b.records = 0;
	assert_int_equal(bts_buffer_setup(&ds, 0x1000, &b, why, sizeof(why)), STATUS_INVALID);
	b = (struct bts_config){.mode = BTS_INTERRUPT, .records = 8, .headroom = 8};
	assert_int_equal(bts_buffer_setup(&ds, 0x1000, &b, why, sizeof(why)), STATUS_INVALID);
	assert_non_null(strstr(why, "BTS buffer of 8 records with 8 of headroom"));
	b.headroom = 9;
	assert_int_equal(bts_buffer_setup(&ds, 0x1000, &b, why, sizeof(why)), STATUS_INVALID);
	b.headroom = 0; /* records landing after the threshold would be lost */
	assert_int_equal(bts_buffer_setup(&ds, 0x1000, &b, why, sizeof(why)), STATUS_INVALID);
	assert_int_equal(ds.bts_base, 0x5555555555555555ull); /* a refusal writes nothing */
	assert_int_equal(ds.bts_threshold, 0x5555555555555555ull);
}

static void leaks_by_ring(void **state)
{
	(void)state;
	const struct bts_record syscall = {USER_A, KERN_A, 0}; /* user from, kernel to */
	const struct bts_record sysret = {KERN_B, USER_B, 0};  /* kernel from, user to */
	const struct bts_record user = {USER_A, USER_B, 0};
	const struct bts_record kern = {KERN_A, KERN_B, 0};
	const struct bts_record top_user = {0x00007fffffffffffull, 0x1000, 0};
	const struct bts_record low_kern = {0xffff800000000000ull, 0xffff800000001000ull, 0};
	/* 5-level paging: user addresses reach bit 55; the kernel is still bit 63 */
	const struct bts_record la57_user = {0x00ff000000001000ull, 0x0000800000000000ull, 0};
	const struct bts_record la57_kern = {0xff00000000001000ull, 0xff00000000002000ull, 0};

	assert_true(bts_record_leaks(&syscall, TRACE_RING_USER));
	assert_true(bts_record_leaks(&sysret, TRACE_RING_USER));
	assert_false(bts_record_leaks(&user, TRACE_RING_USER));
	assert_true(bts_record_leaks(&kern, TRACE_RING_USER));
	assert_false(bts_record_leaks(&top_user, TRACE_RING_USER));
	assert_true(bts_record_leaks(&low_kern, TRACE_RING_USER));
	assert_false(bts_record_leaks(&la57_user, TRACE_RING_USER));
	assert_true(bts_record_leaks(&la57_kern, TRACE_RING_USER));

	assert_true(bts_record_leaks(&syscall, TRACE_RING_KERNEL));
	assert_true(bts_record_leaks(&sysret, TRACE_RING_KERNEL));
	assert_true(bts_record_leaks(&user, TRACE_RING_KERNEL));
	assert_false(bts_record_leaks(&kern, TRACE_RING_KERNEL));
	assert_false(bts_record_leaks(&low_kern, TRACE_RING_KERNEL));
	assert_true(bts_record_leaks(&la57_user, TRACE_RING_KERNEL));
	assert_false(bts_record_leaks(&la57_kern, TRACE_RING_KERNEL));

	assert_false(bts_record_leaks(&syscall, TRACE_RING_ALL)); /* nothing is outside "all" */
	assert_false(bts_record_leaks(&sysret, TRACE_RING_ALL));
	assert_false(bts_record_leaks(&user, TRACE_RING_ALL));
	assert_false(bts_record_leaks(&kern, TRACE_RING_ALL));

	assert_string_equal(bts_ring_name(TRACE_RING_ALL), "all");
	assert_string_equal(bts_ring_name(TRACE_RING_USER), "user");
	assert_string_equal(bts_ring_name(TRACE_RING_KERNEL), "kernel");
}

static struct ds_area64 *ds(void)
{
	return lin(DS_LIN);
}

static const struct bts_record *rec(unsigned i)
{
	return lin(BUF_LIN + i * REC);
}

/* Plan and lay out a BTS session on the skylake model, as the driver would. */
static struct bts_plan model_session(const struct bts_config *b)
{
	memset(mem, 0, sizeof(mem));
	spmu_init(&m, spmu_personality_find("skylake"), lin);
	struct bts_plan p;
	assert_int_equal(bts_plan(&m.caps, b, &p, why, sizeof(why)), STATUS_OK);
	assert_int_equal(bts_buffer_setup(ds(), BUF_LIN, b, why, sizeof(why)), STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DS_AREA, DS_LIN), STATUS_OK);
	assert_int_equal(spmu_wrmsr(&m, MSR_IA32_DEBUGCTL, p.debugctl), STATUS_OK);
	return p;
}

static void model_user_ring_stores_the_syscall(void **state)
{
	(void)state;
	struct bts_config b = {.ring = TRACE_RING_USER, .mode = BTS_CIRCULAR, .records = 16};
	struct bts_plan p = model_session(&b);
	assert_int_equal(p.debugctl, DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTS_OFF_OS);
	spmu_branch(&m, USER_A, USER_B, X86_BR_JMP_REL, 3, 3);	      /* user -> user */
	spmu_branch(&m, USER_B + 0x10, KERN_A, X86_BR_SYSCALL, 3, 0); /* user -> kernel */
	spmu_branch(&m, KERN_A + 0x20, KERN_B, X86_BR_JMP_REL, 0, 0); /* kernel -> kernel */
	assert_int_equal(m.stats.bts_stored, 2);
	assert_int_equal(m.stats.bts_not_stored, 1); /* CPL 0 under BTS_OFF_OS */
	assert_int_equal(ds()->bts_index, BUF_LIN + 2 * REC);
	assert_int_equal(rec(0)->from, USER_A);
	assert_int_equal(rec(0)->to, USER_B);
	assert_int_equal(rec(0)->flags, BTS_FLAG_PREDICTED);
	assert_int_equal(rec(1)->from, USER_B + 0x10);
	assert_int_equal(rec(1)->to, KERN_A); /* the kernel address the hardware leaks */
	assert_int_equal(rec(2)->from, 0);    /* nothing more written */
	assert_false(bts_record_leaks(rec(0), TRACE_RING_USER));
	assert_true(bts_record_leaks(rec(1), TRACE_RING_USER));
	assert_false(m.pmi_pending); /* circular: threshold above abs max */
}

static void model_circular_wraps_without_pmi(void **state)
{
	(void)state;
	struct bts_config b = {.ring = TRACE_RING_ALL, .mode = BTS_CIRCULAR, .records = 2};
	model_session(&b);
	for (unsigned i = 0; i < 3; i++)
		spmu_branch(&m, USER_A + i, USER_B, X86_BR_JMP_REL, 3, 3);
	assert_int_equal(m.stats.bts_stored, 3);
	assert_int_equal(m.stats.bts_threshold_pmis, 0);
	assert_false(m.pmi_pending);
	assert_int_equal(rec(0)->from, USER_A + 2); /* the third went back to the base */
	assert_int_equal(rec(1)->from, USER_A + 1);
	assert_int_equal(ds()->bts_index, BUF_LIN + REC);
}

static void model_interrupt_threshold_headroom(void **state)
{
	(void)state;
	struct bts_config b = {
	    .ring = TRACE_RING_KERNEL, .mode = BTS_INTERRUPT, .records = 4, .headroom = 1};
	struct bts_plan p = model_session(&b);
	assert_int_equal(p.debugctl,
			 DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT | DEBUGCTL_BTS_OFF_USR);
	spmu_branch(&m, USER_A, USER_B, X86_BR_JMP_REL, 3, 3); /* CPL 3: not stored */
	for (unsigned i = 0; i < 2; i++)
		spmu_branch(&m, KERN_A + i, KERN_B, X86_BR_JMP_REL, 0, 0);
	assert_false(m.pmi_pending);
	spmu_branch(&m, KERN_A + 2, KERN_B, X86_BR_JMP_REL, 0, 0); /* reaches the threshold */
	assert_true(m.pmi_pending);
	assert_int_equal(m.stats.bts_threshold_pmis, 1);
	spmu_branch(&m, KERN_A + 3, KERN_B, X86_BR_JMP_REL, 0, 0); /* the headroom */
	spmu_branch(&m, KERN_A + 4, KERN_B, X86_BR_JMP_REL, 0, 0); /* full: lost */
	assert_int_equal(m.stats.bts_stored, 4);
	assert_int_equal(m.stats.bts_dropped, 1);
	assert_int_equal(m.stats.bts_not_stored, 1);
	assert_int_equal(ds()->bts_index, BUF_LIN + 4 * REC);
	assert_int_equal(rec(3)->from, KERN_A + 3);
	for (unsigned i = 0; i < 4; i++)
		assert_false(bts_record_leaks(rec(i), TRACE_RING_KERNEL));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(table_17_6_rows),
    cmocka_unit_test(software_ring_without_ds_cpl),
    cmocka_unit_test(refused_without_bts),
    cmocka_unit_test(buffer_circular),
    cmocka_unit_test(buffer_interrupt),
    cmocka_unit_test(buffer_refusals),
    cmocka_unit_test(leaks_by_ring),
    cmocka_unit_test(model_user_ring_stores_the_syscall),
    cmocka_unit_test(model_circular_wraps_without_pmi),
    cmocka_unit_test(model_interrupt_threshold_headroom),
};
UNIT_MAIN(tests)
