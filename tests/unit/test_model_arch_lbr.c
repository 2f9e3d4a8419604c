// UNIT-SOURCES: arch/x86/model/arch_lbr.c
/*
 * The model's Architectural LBR against references.md 1.4 and 4.1-4.3: depths from the CPUID.1CH
 * bitmap (and a depth write clearing every entry), LBR_CTL's positive-sense filters and
 * reserved bits, entry 0 as the newest, LBR_INFO's BR_TYPE and cycle count with its valid bit.
 */
#include "tests/unit/unit.h"
#include "arch/x86/model/arch_lbr.h"

/* Arrow Lake P-core: CPUID.1CH EAX[7:0] = 0BH (depths 8, 16, 32), EBX = 7, ECX[1] timed. */
static const struct arch_lbr_caps arl = {0x0b, true, true, true, true};

static struct lbr_branch br(uint64_t n, enum lbr_class cls, unsigned cpl_to)
{
	struct lbr_branch b = {0x1000 + n, 0x2000 + n, cls, cpl_to, false, (uint16_t)n};
	return b;
}

static void depth_follows_cpuid_and_write_clears(void **state)
{
	(void)state;
	struct arch_lbr a;
	const char *why;
	arch_lbr_init(&a, &arl);
	assert_int_equal(a.depth, 32);
	assert_int_equal(
	    arch_lbr_write_ctl(&a, LBR_CTL_LBREN | LBR_CTL_OS | LBR_CTL_BRANCHES, &why), 0);
	struct lbr_branch b = br(1, LBR_CLASS_JCC, 0);
	assert_true(arch_lbr_record(&a, &b));
	assert_int_equal(a.from[0], 0x1001);
	assert_int_equal(arch_lbr_write_depth(&a, 16, &why), 0);
	assert_int_equal(a.depth, 16);
	assert_int_equal(a.from[0], 0); /* cleared by the depth write */
	assert_int_not_equal(arch_lbr_write_depth(&a, 24, &why), 0); /* bit 2 not enumerated */
	assert_non_null(why);
	assert_int_not_equal(arch_lbr_write_depth(&a, 0, &why), 0);
	assert_int_not_equal(arch_lbr_write_depth(&a, 12, &why), 0);
	assert_int_not_equal(arch_lbr_write_depth(&a, 72, &why), 0);
	assert_int_equal(arch_lbr_write_depth(&a, 8, &why), 0);
}

static void ctl_is_positive_sense(void **state)
{
	(void)state;
	struct arch_lbr a;
	const char *why;
	arch_lbr_init(&a, &arl);
	assert_int_equal(arch_lbr_write_ctl(&a, LBR_CTL_CALL_STACK | LBR_CTL_LBREN, &why), 0);
	assert_int_not_equal(arch_lbr_write_ctl(&a, BIT(4), &why), 0);
	assert_int_not_equal(arch_lbr_write_ctl(&a, BIT(23), &why), 0);
	struct arch_lbr_caps nofilter = {0x0b, false, false, false, false};
	struct arch_lbr b;
	arch_lbr_init(&b, &nofilter);
	assert_int_not_equal(arch_lbr_write_ctl(&b, LBR_CTL_LBREN | LBR_CTL_OS, &why), 0);
	assert_int_not_equal(arch_lbr_write_ctl(&b, LBR_CTL_LBREN | LBR_CTL_JCC, &why), 0);
	assert_int_not_equal(arch_lbr_write_ctl(&b, LBR_CTL_LBREN | LBR_CTL_CALL_STACK, &why), 0);

	static const struct {
		enum lbr_class cls;
		uint64_t bit;
	} classes[] = {
	    {LBR_CLASS_JCC, LBR_CTL_JCC},
	    {LBR_CLASS_NEAR_REL_JMP, LBR_CTL_NEAR_REL_JMP},
	    {LBR_CLASS_NEAR_IND_JMP, LBR_CTL_NEAR_IND_JMP},
	    {LBR_CLASS_NEAR_REL_CALL, LBR_CTL_NEAR_REL_CALL},
	    {LBR_CLASS_NEAR_IND_CALL, LBR_CTL_NEAR_IND_CALL},
	    {LBR_CLASS_NEAR_RET, LBR_CTL_NEAR_RET},
	    {LBR_CLASS_FAR, LBR_CTL_OTHER_BRANCH},
	};
	for (size_t i = 0; i < 7; i++) {
		struct lbr_branch x = br(i, classes[i].cls, 3);
		for (size_t j = 0; j < 7; j++) /* only its own bit captures it */
			assert_int_equal(
			    arch_lbr_allows(LBR_CTL_LBREN | LBR_CTL_USR | classes[j].bit, true,
					    true, &x),
			    i == j);
		assert_false(
		    arch_lbr_allows(LBR_CTL_LBREN | LBR_CTL_OS | classes[i].bit, true, true, &x));
		assert_false(
		    arch_lbr_allows(LBR_CTL_USR | classes[i].bit, true, true, &x)); /* no LBREn */
		/* Without branch filtering every type is recorded. */
		assert_true(arch_lbr_allows(LBR_CTL_LBREN | LBR_CTL_USR, true, false, &x));
		/* no CPL filtering enumerated: OS/USR reserved, every ring recorded */
		assert_true(arch_lbr_allows(LBR_CTL_LBREN, false, false, &x));
	}
}

static void entry_zero_is_newest_with_info(void **state)
{
	(void)state;
	struct arch_lbr a;
	const char *why;
	arch_lbr_init(&a, &arl);
	assert_int_equal(arch_lbr_write_depth(&a, 8, &why), 0);
	assert_int_equal(
	    arch_lbr_write_ctl(&a, LBR_CTL_LBREN | LBR_CTL_OS | LBR_CTL_BRANCHES, &why), 0);
	static const enum lbr_class order[] = {LBR_CLASS_JCC, LBR_CLASS_NEAR_REL_CALL,
					       LBR_CLASS_NEAR_RET, LBR_CLASS_FAR};
	static const unsigned br_types[] = {ARCH_BR_JCC, ARCH_BR_NEAR_REL_CALL, ARCH_BR_NEAR_RET,
					    ARCH_BR_OTHER};
	for (uint64_t n = 1; n <= 10; n++) {
		struct lbr_branch b = br(n, order[n % 4], 0);
		assert_true(arch_lbr_record(&a, &b));
	}
	/* 10 records into 8 entries: 10, 9, ..., 3 from entry 0 up. */
	for (unsigned i = 0; i < 8; i++) {
		uint64_t n = 10 - i;
		assert_int_equal(a.from[i], 0x1000 + n);
		assert_int_equal(a.to[i], 0x2000 + n);
		assert_int_equal(FIELD_GET(ARCH_LBR_INFO_BR_TYPE, a.info[i]), br_types[n % 4]);
		assert_true(a.info[i] & ARCH_LBR_INFO_CYC_VALID);
		assert_int_equal(FIELD_GET(ARCH_LBR_INFO_CYC_CNT, a.info[i]), n);
		assert_false(a.info[i] & ARCH_LBR_INFO_MISPRED);
	}
}

static void call_stack_pops_entry_zero(void **state)
{
	(void)state;
	struct arch_lbr a;
	const char *why;
	arch_lbr_init(&a, &arl);
	assert_int_equal(arch_lbr_write_depth(&a, 8, &why), 0);
	assert_int_equal(arch_lbr_write_ctl(&a,
					    LBR_CTL_LBREN | LBR_CTL_OS | LBR_CTL_CALL_STACK |
						LBR_CTL_NEAR_REL_CALL | LBR_CTL_NEAR_RET,
					    &why),
			 0);
	struct lbr_branch c1 = br(1, LBR_CLASS_NEAR_REL_CALL, 0),
			  c2 = br(2, LBR_CLASS_NEAR_REL_CALL, 0);
	struct lbr_branch r = br(3, LBR_CLASS_NEAR_RET, 0), j = br(4, LBR_CLASS_JCC, 0);
	assert_true(arch_lbr_record(&a, &c1));
	assert_true(arch_lbr_record(&a, &c2));
	assert_false(arch_lbr_record(&a, &j)); /* not selected */
	assert_true(arch_lbr_record(&a, &r));  /* pops c2 */
	assert_int_equal(a.from[0], 0x1001);
	assert_int_equal(a.from[1], 0);
	assert_true(arch_lbr_record(&a, &r)); /* pops c1 */
	assert_int_equal(a.from[0], 0);
	assert_true(arch_lbr_record(&a, &r)); /* empty: no change */
	assert_int_equal(a.from[0], 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(call_stack_pops_entry_zero),
    cmocka_unit_test(depth_follows_cpuid_and_write_clears),
    cmocka_unit_test(ctl_is_positive_sense),
    cmocka_unit_test(entry_zero_is_newest_with_info),
};
UNIT_MAIN(tests)
