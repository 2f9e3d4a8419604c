// UNIT-SOURCES:
/* Runtime checks of lib/bits.h beyond its static assertions, against bit-by-bit references. */
#include "tests/unit/unit.h"
#include "lib/bits.h"

static uint64_t mask_by_bits(unsigned hi, unsigned lo)
{
	uint64_t m = 0;
	for (unsigned b = lo; b <= hi; b++)
		m |= BIT(b);
	return m;
}

static void genmask_matches_bit_by_bit_reference(void **state)
{
	(void)state;
	assert_int_equal(GENMASK(0, 0), mask_by_bits(0, 0));
	assert_int_equal(GENMASK(5, 1), mask_by_bits(5, 1));
	assert_int_equal(GENMASK(31, 0), mask_by_bits(31, 0));
	assert_int_equal(GENMASK(47, 12), mask_by_bits(47, 12));
	assert_int_equal(GENMASK(51, 12), mask_by_bits(51, 12));
	assert_int_equal(GENMASK(62, 62), mask_by_bits(62, 62));
	assert_int_equal(GENMASK(63, 32), mask_by_bits(63, 32));
	assert_int_equal(GENMASK(63, 0), mask_by_bits(63, 0));
}

static void field_helpers_extract_and_insert(void **state)
{
	(void)state;
	assert_int_equal(FIELD_GET(GENMASK(51, 12), 0x8000123456789fffull), 0x123456789ull);
	assert_int_equal(FIELD_PREP(GENMASK(7, 4), 0x3), 0x30);
	assert_int_equal(FIELD_PREP(GENMASK(7, 4), 0x13), 0x30); /* truncated to the field */
	assert_int_equal(ALIGN_UP(0x1001, 0x1000), 0x2000);
	assert_int_equal(ALIGN_UP(0x1000, 0x1000), 0x1000);
	assert_int_equal(ALIGN_DOWN(0x1fff, 0x1000), 0x1000);
	assert_true(IS_ALIGNED(0x200000, 0x200000));
	assert_false(IS_ALIGNED(0x201000, 0x200000));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(genmask_matches_bit_by_bit_reference),
    cmocka_unit_test(field_helpers_extract_and_insert),
};
UNIT_MAIN(tests)
