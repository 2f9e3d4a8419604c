// UNIT-SOURCES: lib/crc32.c
/*
 * lib/crc32.c: CRC-32/ISO-HDLC, the CRC of IEEE 802.3, zlib and the UEFI specification, against
 * its published check value (the CRC of "123456789" is CBF43926H: R. Williams' catalogue of
 * parametrised CRC algorithms) and the empty input, and chaining over pieces.
 */
#include "tests/unit/unit.h"
#include <string.h>
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

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(check_value),
    cmocka_unit_test(pieces_chain),
};

UNIT_MAIN(tests)
