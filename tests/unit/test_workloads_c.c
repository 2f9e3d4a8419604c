// UNIT-SOURCES: kernel/workloads_c.c lib/crc32.c
/*
 * kernel/workloads_c.c, run natively on the host: each compiled-C workload gives its expected
 * result for every size up to a few hundred and at its default, the result the kernel checks
 * every run against, itself checked here against independent sources: the closed forms
 * (0^2 + ... + (n-1)^2 = (n-1) n (2n-1) / 6; 1 + ... + n = n (n+1) / 2, computed here by
 * summing) and zlib's crc32 over the bytes the workload's comment describes ("123456789"
 * repeated), with the catalogued check value CBF43926H for n = 9.
 */
#include "tests/unit/unit.h"
#include <string.h>
/* zlib names its function crc32 too: only its crc32_z is used here */
#define crc32 zlib_crc32_unused
#include <zlib.h>
#undef crc32
#include "kernel/workloads_c.h"

#define SIZES 400 /* every n from 1 up to this */

static void qsort_sorts(void **state)
{
	(void)state;
	static const uint64_t ns[] = {WL_QSORT_N, 4096};
	for (uint64_t n = 1; n <= SIZES; n++) {
		uint64_t squares = 0;
		for (uint64_t i = 0; i < n; i++)
			squares += i * i;
		assert_int_equal(wl_qsort_result(n), squares);
		assert_int_equal(wl_qsort(n), squares);
	}
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
		assert_int_equal(wl_qsort(ns[k]), wl_qsort_result(ns[k]));
}

static uint32_t zlib_of_pattern(uint64_t n)
{
	static uint8_t buf[WL_CRC32_MAX];
	for (uint64_t i = 0; i < n; i++)
		buf[i] = (uint8_t)('1' + i % 9);
	return (uint32_t)crc32_z(0, buf, n);
}

static void crc32_is_zlibs(void **state)
{
	(void)state;
	assert_int_equal(wl_crc32(9), 0xcbf43926u);
	assert_int_equal(wl_crc32_result(9), 0xcbf43926u);
	static const uint64_t ns[] = {WL_CRC32_N, WL_CRC32_MAX};
	for (uint64_t n = 1; n <= SIZES; n++) {
		assert_int_equal(wl_crc32(n), zlib_of_pattern(n));
		assert_int_equal(wl_crc32_result(n), zlib_of_pattern(n));
	}
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		assert_int_equal(wl_crc32(ns[k]), zlib_of_pattern(ns[k]));
		assert_int_equal(wl_crc32_result(ns[k]), zlib_of_pattern(ns[k]));
	}
}

static void interp_sums(void **state)
{
	(void)state;
	uint64_t sum = 0;
	for (uint64_t n = 1; n <= SIZES; n++) {
		sum += n;
		assert_int_equal(wl_interp_result(n), sum);
		assert_int_equal(wl_interp(n), sum);
	}
	assert_int_equal(wl_interp(WL_INTERP_N), wl_interp_result(WL_INTERP_N));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(qsort_sorts),
    cmocka_unit_test(crc32_is_zlibs),
    cmocka_unit_test(interp_sums),
};

UNIT_MAIN(tests)
