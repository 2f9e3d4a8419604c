// UNIT-SOURCES: arch/x86/model/lbr.c
/*
 * The model's legacy LBR stack. Records are decoded here with the reading rules of
 * docs/references.md 3.4 (Linux intel_pmu_lbr_read_64), written
 * independently of the encoder, for every format the model offers.
 */
#include "tests/unit/unit.h"
#include "arch/x86/model/lbr.h"

static uint64_t sext(uint64_t v, unsigned top_bit)
{
	unsigned shift = 63 - top_bit;
	return (uint64_t)((int64_t)(v << shift) >> shift);
}

struct decoded {
	uint64_t from, to;
	bool mispred;
	unsigned cycles;
};

static struct decoded decode(enum lbr_format f, uint64_t from, uint64_t to, uint64_t info)
{
	struct decoded d = {from, to, false, 0};
	switch (f) {
	case LBR_FMT_EIP_FLAGS:
		d.mispred = from >> 63;
		d.from = sext(from, 62);
		break;
	case LBR_FMT_EIP_FLAGS2:
		d.mispred = from >> 63;
		d.from = sext(from, 60);
		break;
	case LBR_FMT_INFO:
	case LBR_FMT_INFO2:
		d.mispred = info >> 63;
		d.cycles = info & 0xffff;
		break;
	case LBR_FMT_TIME:
		d.mispred = from >> 63;
		d.from = sext(from, 62);
		d.cycles = to >> 48;
		d.to = sext(to, 47);
		break;
	default:
		break;
	}
	return d;
}

static void every_format_round_trips(void **state)
{
	(void)state;
	const uint64_t addrs[][2] = {
	    {0xffffffff80001234ull, 0xffffffff80005678ull}, /* kernel */
	    {0x401000, 0x7ffff7a00000ull},		    /* user */
	    {0xffff800000000000ull, 0x00007fffffffffffull}, /* canonical extremes */
	};
	for (int f = LBR_FMT_EIP_FLAGS; f <= LBR_FMT_INFO2; f++) {
		assert_true(lbr_format_supported((enum lbr_format)f));
		for (size_t a = 0; a < 3; a++) {
			for (int mis = 0; mis < 2; mis++) {
				struct lbr_branch b = {addrs[a][0], addrs[a][1], LBR_CLASS_JCC,
						       0,	    mis,	 1234};
				uint64_t from, to, info;
				lbr_encode((enum lbr_format)f, &b, &from, &to, &info);
				struct decoded d = decode((enum lbr_format)f, from, to, info);
				assert_int_equal(d.from, b.from);
				assert_int_equal(d.to, b.to);
				assert_int_equal(d.mispred, mis);
				if (f == LBR_FMT_INFO || f == LBR_FMT_INFO2 || f == LBR_FMT_TIME)
					assert_int_equal(d.cycles, 1234);
			}
		}
	}
	assert_false(lbr_format_supported(LBR_FMT_EIP));
	assert_false(lbr_format_supported((enum lbr_format)8));
	/* Format 4 keeps FROM[62:61] (in_tx, abort) clear outside transactions. */
	struct lbr_branch b = {0xffffffff80001234ull, 0x1000, LBR_CLASS_JCC, 0, false, 0};
	uint64_t from, to, info;
	lbr_encode(LBR_FMT_EIP_FLAGS2, &b, &from, &to, &info);
	assert_int_equal(from >> 61, 0);
}

static void stack_wraps_newest_at_tos(void **state)
{
	(void)state;
	struct lbr_stack s = {.format = LBR_FMT_INFO, .depth = 4, .tos = 0};
	for (uint64_t i = 1; i <= 6; i++) {
		struct lbr_branch b = {0x1000 * i, 0x1000 * i + 0x10, LBR_CLASS_JCC, 0, false, 0};
		assert_true(lbr_record(&s, &b));
	}
	/* 6 records into 4 slots: TOS = 6 mod 4 = 2; reading newest first gives 6, 5, 4, 3. */
	assert_int_equal(s.tos, 2);
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(s.from[(s.tos - k) & 3], 0x1000 * (6 - k));
}

/* A counted loop's runs pushed at once (lbr_record_again) leave the stack as that many
 * lbr_record calls do, record by record (SDM Vol. 3B 17.4.8: the stack is a ring, TOS the
 * newest): the same slots, the same TOS, for fewer, as many and more pushes than its depth. */
static void record_again_as_record_by_record(void **state)
{
	(void)state;
	static const uint64_t pushes[] = {0, 1, 3, 7, 8, 9, 31, 32, 33, 100, 1001};
	static const unsigned depths[] = {4, 8, 32};
	for (unsigned d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
		for (unsigned p = 0; p < sizeof(pushes) / sizeof(pushes[0]); p++) {
			struct lbr_stack one = {
			    .format = LBR_FMT_INFO2, .depth = depths[d], .tos = 1};
			struct lbr_branch first = {0x500, 0x400, LBR_CLASS_JCC, 0, false, 9};
			assert_true(lbr_record(&one, &first)); /* something older underneath */
			struct lbr_stack again = one;
			struct lbr_branch b = {0x1234, 0x1200, LBR_CLASS_JCC, 0, false, 5};
			for (uint64_t k = 0; k < pushes[p]; k++)
				assert_true(lbr_record(&one, &b));
			lbr_record_again(&again, &b, pushes[p]);
			assert_int_equal(again.tos, one.tos);
			assert_memory_equal(again.from, one.from, sizeof(one.from));
			assert_memory_equal(again.to, one.to, sizeof(one.to));
			assert_memory_equal(again.info, one.info, sizeof(one.info));
		}
}

static void select_suppresses_each_class_and_ring(void **state)
{
	(void)state;
	static const struct {
		enum lbr_class cls;
		uint64_t bit;
	} classes[] = {
	    {LBR_CLASS_JCC, LBR_SELECT_JCC},
	    {LBR_CLASS_NEAR_REL_CALL, LBR_SELECT_NEAR_REL_CALL},
	    {LBR_CLASS_NEAR_IND_CALL, LBR_SELECT_NEAR_IND_CALL},
	    {LBR_CLASS_NEAR_RET, LBR_SELECT_NEAR_RET},
	    {LBR_CLASS_NEAR_IND_JMP, LBR_SELECT_NEAR_IND_JMP},
	    {LBR_CLASS_NEAR_REL_JMP, LBR_SELECT_NEAR_REL_JMP},
	    {LBR_CLASS_FAR, LBR_SELECT_FAR_BRANCH},
	};
	for (size_t i = 0; i < 7; i++) {
		struct lbr_branch b = {0x1000, 0x2000, classes[i].cls, 3, false, 0};
		assert_true(lbr_select_allows(0, &b));
		for (size_t j = 0; j < 7; j++) /* only its own bit suppresses it */
			assert_int_equal(lbr_select_allows(classes[j].bit, &b), i != j);
		b.cpl_to = 0;
		assert_false(lbr_select_allows(LBR_SELECT_CPL_EQ_0, &b));
		assert_true(lbr_select_allows(LBR_SELECT_CPL_NEQ_0, &b));
		b.cpl_to = 3;
		assert_true(lbr_select_allows(LBR_SELECT_CPL_EQ_0, &b));
		assert_false(lbr_select_allows(LBR_SELECT_CPL_NEQ_0, &b));
	}
	/* A filtered branch leaves the stack untouched. */
	struct lbr_stack s = {.format = LBR_FMT_EIP_FLAGS, .depth = 16, .select = LBR_SELECT_JCC};
	struct lbr_branch jcc = {0x1000, 0x2000, LBR_CLASS_JCC, 0, false, 0};
	assert_false(lbr_record(&s, &jcc));
	assert_int_equal(s.tos, 0);
	assert_int_equal(s.from[1], 0);
}

#define CALLSTACK_SELECT (LBR_SELECT_CALLSTACK_MUST_SET)

static void call_stack_configuration(void **state)
{
	(void)state;
	assert_null(lbr_select_check(0, false));
	assert_null(lbr_select_check(LBR_SELECT_JCC | LBR_SELECT_CPL_NEQ_0, false));
	assert_non_null(lbr_select_check(BIT(10), true)); /* reserved */
	assert_null(lbr_select_check(CALLSTACK_SELECT, true));
	assert_null(lbr_select_check(CALLSTACK_SELECT | LBR_SELECT_CPL_NEQ_0, true));
	assert_non_null(lbr_select_check(CALLSTACK_SELECT, false)); /* before Haswell */
	assert_non_null(
	    lbr_select_check(CALLSTACK_SELECT | LBR_SELECT_CPL_EQ_0 | LBR_SELECT_CPL_NEQ_0, true));
	assert_non_null(lbr_select_check(CALLSTACK_SELECT & ~LBR_SELECT_JCC, true));
	assert_non_null(lbr_select_check(CALLSTACK_SELECT | LBR_SELECT_NEAR_RET, true));
	assert_non_null(lbr_select_check(CALLSTACK_SELECT | LBR_SELECT_NEAR_REL_CALL, true));
}

static struct lbr_branch cs(uint64_t from, uint64_t to, enum lbr_class cls)
{
	struct lbr_branch b = {from, to, cls, 0, false, 0};
	return b;
}

/* Calls push, returns pop the matching call (flushed, SDM 17.9); other branches are
 * suppressed by the required LBR_SELECT; a return on an empty stack changes nothing. */
static void call_stack_pushes_and_pops(void **state)
{
	(void)state;
	struct lbr_stack s = {
	    .format = LBR_FMT_INFO, .depth = 8, .tos = 0, .select = CALLSTACK_SELECT};
	struct lbr_branch b;
	b = cs(0x100, 0x1000, LBR_CLASS_NEAR_REL_CALL); /* main -> a */
	assert_true(lbr_record(&s, &b));
	b = cs(0x1010, 0x2000, LBR_CLASS_NEAR_IND_CALL); /* a -> b */
	assert_true(lbr_record(&s, &b));
	b = cs(0x2004, 0x2020, LBR_CLASS_JCC); /* suppressed */
	assert_false(lbr_record(&s, &b));
	b = cs(0x2030, 0x3000, LBR_CLASS_NEAR_REL_CALL); /* b -> leaf */
	assert_true(lbr_record(&s, &b));
	b = cs(0x3008, 0x2035, LBR_CLASS_NEAR_RET); /* leaf returns: its call is flushed */
	assert_true(lbr_record(&s, &b));
	assert_int_equal(s.tos, 2);
	assert_int_equal(s.from[2], 0x1010); /* newest: the a -> b call */
	assert_int_equal(s.from[3], 0);	     /* the leaf's record is gone */
	assert_int_equal(s.from[1], 0x100);
	b = cs(0x2040, 0x1015, LBR_CLASS_NEAR_RET);
	lbr_record(&s, &b);
	b = cs(0x1020, 0x105, LBR_CLASS_NEAR_RET);
	lbr_record(&s, &b);
	assert_int_equal(s.from[1], 0);
	unsigned tos = s.tos;
	b = cs(0x110, 0x50, LBR_CLASS_NEAR_RET); /* nothing left to pop */
	lbr_record(&s, &b);
	assert_int_equal(s.tos, tos);
}

/* The Nehalem/Westmere erratum (references.md 8): calls alone drop the calls too; with the jump
 * classes (and far branches, for relative calls) let through, they are recorded. */
static void nehalem_select_erratum(void **state)
{
	(void)state;
	uint64_t calls_only = LBR_SELECT_JCC | LBR_SELECT_NEAR_RET | LBR_SELECT_NEAR_IND_JMP |
			      LBR_SELECT_NEAR_REL_JMP | LBR_SELECT_FAR_BRANCH;
	uint64_t widened = LBR_SELECT_JCC | LBR_SELECT_NEAR_RET;
	struct lbr_stack s = {.format = LBR_FMT_EIP_FLAGS, .depth = 16, .select = calls_only};
	struct lbr_branch rel = cs(0x100, 0x1000, LBR_CLASS_NEAR_REL_CALL);
	struct lbr_branch ind = cs(0x104, 0x2000, LBR_CLASS_NEAR_IND_CALL);
	assert_true(lbr_record(&s, &rel)); /* no erratum: as LBR_SELECT says */
	s.nhm_select_erratum = true;
	assert_false(lbr_record(&s, &rel));
	assert_false(lbr_record(&s, &ind));
	s.select = calls_only & ~LBR_SELECT_NEAR_IND_JMP; /* enough for indirect calls only */
	assert_false(lbr_record(&s, &rel));
	assert_true(lbr_record(&s, &ind));
	s.select = widened;
	assert_true(lbr_record(&s, &rel));
	assert_true(lbr_record(&s, &ind));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(call_stack_configuration),
    cmocka_unit_test(nehalem_select_erratum),
    cmocka_unit_test(call_stack_pushes_and_pops),
    cmocka_unit_test(every_format_round_trips),
    cmocka_unit_test(stack_wraps_newest_at_tos),
    cmocka_unit_test(record_again_as_record_by_record),
    cmocka_unit_test(select_suppresses_each_class_and_ring),
};
UNIT_MAIN(tests)
