// UNIT-SOURCES: lib/crc32.c
/*
 * lib/crc32.c: CRC-32/ISO-HDLC, the CRC of IEEE 802.3, zlib and the UEFI specification, against
 * its published check value (the CRC of "123456789" is CBF43926H: R. Williams' catalogue of
 * parametrised CRC algorithms) and the empty input, chaining over pieces, and zlib's crc32() (an
 * independent implementation) on every length and alignment the slicing-by-8 loop can meet.
 */
#include "tests/unit/unit.h"
#include <string.h>
/* zlib names its function crc32 too: only its crc32_z is used here */
#define crc32 zlib_crc32_unused
#include <zlib.h>
#undef crc32
#include "lib/crc32.h"

static void check_value(void **state)
{
	(void)state;
	assert_int_equal(crc32("123456789", 9), 0xcbf43926u);
	assert_int_equal(crc32("", 0), 0);
	assert_int_equal(crc32("a", 1), 0xe8b7be43u); /* zlib.crc32(b"a") */
}

static void pieces_chain(void **state)
{
	(void)state;
	const char *s = "The quick brown fox jumps over the lazy dog";
	size_t n = strlen(s);
	assert_int_equal(crc32(s, n), 0x414fa339u); /* zlib.crc32 of the sentence */
	for (size_t cut = 0; cut <= n; cut++)
		assert_int_equal(crc32_update(crc32(s, cut), s + cut, n - cut), 0x414fa339u);
}

static void equals_zlib(void **state)
{
	(void)state;
	static uint8_t buf[4096 + 16];
	uint32_t seed = 12345;
	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
	for (size_t off = 0; off < 16; off++) {
		for (size_t len = 0; len <= 300; len++)
			assert_int_equal(crc32(buf + off, len),
					 (uint32_t)crc32_z(0, buf + off, len));
		assert_int_equal(crc32(buf + off, 4096), (uint32_t)crc32_z(0, buf + off, 4096));
	}
	/* chained pieces of every size agree with zlib's chaining */
	uint32_t ours = 0;
	uLong theirs = 0;
	for (size_t at = 0, step = 1; at + step <= 4096; at += step, step = step % 37 + 1) {
		ours = crc32_update(ours, buf + at, step);
		theirs = crc32_z(theirs, buf + at, step);
		assert_int_equal(ours, (uint32_t)theirs);
	}
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(equals_zlib),
    cmocka_unit_test(check_value),
    cmocka_unit_test(pieces_chain),
};

UNIT_MAIN(tests)
