// UNIT-SOURCES: lib/string.c
/* lib/string against the host C library: sizes, alignments, overlaps, unsigned ordering. */
#include "tests/unit/unit.h"
#include <string.h>
#include "lib/string.h"

#define AREA  192 /* bytes of each test area */
#define MAXN  80  /* longest copy or fill */
#define MAXOF 17  /* offsets 0..16 cover every alignment and an extra word */

/* A recognisable, non-repeating pattern, with bytes above 0x7f. */
static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 37 + seed * 11 + 1);
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static void memcpy_matches_libc_for_all_sizes_and_alignments(void **state)
{
	(void)state;
	unsigned char src[AREA], got[AREA], want[AREA];

	fill_pattern(src, sizeof(src), 1);
	for (size_t so = 0; so < MAXOF; so++) {
		for (size_t doff = 0; doff < MAXOF; doff++) {
			for (size_t n = 0; n <= MAXN; n++) {
				memset(got, 0xa5, sizeof(got));
				memset(want, 0xa5, sizeof(want));
				assert_ptr_equal(bt_memcpy(got + doff, src + so, n), got + doff);
				memcpy(want + doff, src + so, n);
				/* Whole area: bytes outside [doff, doff + n) are untouched. */
				assert_memory_equal(got, want, sizeof(got));
			}
		}
	}
}

static void memmove_matches_libc_for_overlaps_in_both_directions(void **state)
{
	(void)state;
	unsigned char got[AREA], want[AREA];

	for (size_t so = 0; so < 2 * MAXOF; so++) {
		for (size_t doff = 0; doff < 2 * MAXOF; doff++) {
			for (size_t n = 0; n <= MAXN; n++) {
				fill_pattern(got, sizeof(got), 2);
				fill_pattern(want, sizeof(want), 2);
				assert_ptr_equal(bt_memmove(got + doff, got + so, n), got + doff);
				memmove(want + doff, want + so, n);
				assert_memory_equal(got, want, sizeof(got));
			}
		}
	}
}

static void memmove_between_separate_buffers(void **state)
{
	(void)state;
	unsigned char src[AREA], got[AREA], want[AREA];

	fill_pattern(src, sizeof(src), 3);
	for (size_t so = 0; so < MAXOF; so++) {
		for (size_t n = 0; n <= MAXN; n += 3) {
			memset(got, 0, sizeof(got));
			memset(want, 0, sizeof(want));
			bt_memmove(got + 5, src + so, n);
			memmove(want + 5, src + so, n);
			assert_memory_equal(got, want, sizeof(got));
		}
	}
}

static void memset_matches_libc_and_uses_the_low_byte(void **state)
{
	(void)state;
	static const int values[] = {0, 1, 0x5a, 0x7f, 0x80, 0xff, -1, 0x1ff, 0x1234};
	unsigned char got[AREA], want[AREA];

	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
		for (size_t off = 0; off < MAXOF; off++) {
			for (size_t n = 0; n <= MAXN; n++) {
				fill_pattern(got, sizeof(got), 4);
				fill_pattern(want, sizeof(want), 4);
				assert_ptr_equal(bt_memset(got + off, values[v], n), got + off);
				memset(want + off, values[v], n);
				assert_memory_equal(got, want, sizeof(got));
			}
		}
	}
}

static void memcmp_orders_bytes_as_unsigned(void **state)
{
	(void)state;
	unsigned char a[64] = {1}, b[64] = {2};

	assert_int_equal(bt_memcmp(a, b, 0), 0);
	for (size_t pos = 0; pos < sizeof(a); pos++) {
		static const unsigned char pairs[][2] = {
		    {0x01, 0x02}, {0x02, 0x01}, {0x01, 0x80}, {0x80, 0x01},
		    {0x00, 0xff}, {0xff, 0x00}, {0x7f, 0x80}, {0xfe, 0xff},
		};
		for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
			fill_pattern(a, sizeof(a), 5);
			fill_pattern(b, sizeof(b), 5);
			a[pos] = pairs[k][0];
			b[pos] = pairs[k][1];
			for (size_t n = 0; n <= sizeof(a); n += 7) {
				int want = sign(memcmp(a, b, n));
				assert_int_equal(sign(bt_memcmp(a, b, n)), want);
				assert_int_equal(sign(bt_memcmp(b, a, n)), -want);
			}
			assert_int_equal(sign(bt_memcmp(a, b, sizeof(a))),
					 pairs[k][0] < pairs[k][1] ? -1 : 1);
		}
		/* Equal up to pos, differing only beyond n. */
		assert_int_equal(bt_memcmp(a, b, pos), 0);
	}
}

static void strlen_and_strnlen_match_libc(void **state)
{
	(void)state;
	char s[AREA];

	for (size_t off = 0; off < MAXOF; off++) {
		for (size_t len = 0; len <= MAXN; len++) {
			memset(s, 'x', sizeof(s));
			s[off + len] = '\0';
			assert_int_equal(bt_strlen(s + off), len);
			for (size_t max = 0; max <= MAXN + 2; max += 5) {
				assert_int_equal(bt_strnlen(s + off, max), strnlen(s + off, max));
			}
			assert_int_equal(bt_strnlen(s + off, len), len);
			assert_int_equal(bt_strnlen(s + off, (size_t)-1), len);
		}
	}
	/* strnlen reads no further than max: here there is no terminator at all. */
	char unterminated[4] = {'a', 'b', 'c', 'd'};
	assert_int_equal(bt_strnlen(unterminated, sizeof(unterminated)), 4);
	assert_int_equal(bt_strnlen(unterminated, 2), 2);
}

static void strcmp_and_strncmp_have_libc_signs(void **state)
{
	(void)state;
	static const char *const strs[] = {
	    "",	    "a",    "b",    "ab",    "abc",   "abd",  "abcd", "B",
	    "\x7f", "\x80", "\xff", "a\x80", "a\x01", "zzzz", "zzz",
	};
	const size_t count = sizeof(strs) / sizeof(strs[0]);

	for (size_t i = 0; i < count; i++) {
		for (size_t j = 0; j < count; j++) {
			const char *a = strs[i], *b = strs[j];
			assert_int_equal(sign(bt_strcmp(a, b)), sign(strcmp(a, b)));
			for (size_t n = 0; n <= 6; n++)
				assert_int_equal(sign(bt_strncmp(a, b, n)), sign(strncmp(a, b, n)));
		}
	}
	/* Unsigned ordering, spelled out: 0x80 sorts after 0x7f and after ASCII. */
	assert_true(bt_strcmp("\x80", "\x7f") > 0);
	assert_true(bt_strcmp("a", "\xe9") < 0);
	assert_true(bt_strncmp("ab\xff", "ab\x01", 3) > 0);
	assert_int_equal(bt_strncmp("abX", "abY", 2), 0);
	/* strncmp stops at the terminator even when n is larger. */
	assert_int_equal(bt_strncmp("ab\0X", "ab\0Y", 4), 0);
}

static void strchr_finds_first_occurrence_and_terminator(void **state)
{
	(void)state;
	const char *s = "hello, w\xe9rld";

	assert_ptr_equal(bt_strchr(s, 'h'), s);
	assert_ptr_equal(bt_strchr(s, 'l'), s + 2);
	assert_ptr_equal(bt_strchr(s, 'd'), s + strlen(s) - 1);
	assert_ptr_equal(bt_strchr(s, 'z'), NULL);
	assert_ptr_equal(bt_strchr(s, '\0'), s + strlen(s));
	/* c is converted to char: 0xe9, (char)0xe9 and 0x1e9 all find the same byte. */
	assert_ptr_equal(bt_strchr(s, 0xe9), strchr(s, 0xe9));
	assert_ptr_equal(bt_strchr(s, (char)0xe9), s + 8);
	assert_ptr_equal(bt_strchr(s, 0x100), s + strlen(s));
	assert_ptr_equal(bt_strchr("", 'a'), NULL);
	for (int c = 0; c < 256; c++)
		assert_ptr_equal(bt_strchr(s, c), strchr(s, c));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(memcpy_matches_libc_for_all_sizes_and_alignments),
    cmocka_unit_test(memmove_matches_libc_for_overlaps_in_both_directions),
    cmocka_unit_test(memmove_between_separate_buffers),
    cmocka_unit_test(memset_matches_libc_and_uses_the_low_byte),
    cmocka_unit_test(memcmp_orders_bytes_as_unsigned),
    cmocka_unit_test(strlen_and_strnlen_match_libc),
    cmocka_unit_test(strcmp_and_strncmp_have_libc_signs),
    cmocka_unit_test(strchr_finds_first_occurrence_and_terminator),
};
UNIT_MAIN(tests)
