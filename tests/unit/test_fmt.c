// UNIT-SOURCES: lib/fmt.c
/*
 * lib/fmt against the host's snprintf: every flag combination with widths, precisions and
 * length modifiers over edge values, strings, characters; then what is ours alone: truncation,
 * the fixed-width %p, "(null)", literal unknown directives, and chunked output to a sink.
 */
#include "tests/unit/unit.h"
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "lib/fmt.h"

/* Formats are built at run time; both sides get the same ones, the compiler cannot check. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-zero-length"

#define BUF 512

static unsigned mismatches, compared;

/* fmt_snprintf's sibling, taking a va_list. */
static int vsn(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int vsn(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Record one comparison of whole buffers (the NUL and a canary after it included). */
static void compare(const char *fmt, const char *want, int wn, const char *got, int gn)
{
	compared++;
	if (wn == gn && memcmp(want, got, BUF) == 0)
		return;
	if (mismatches++ < 20)
		print_message("# format \"%s\": libc \"%s\" (%d), fmt \"%s\" (%d)\n", fmt, want, wn,
			      got, gn);
}

/* Format with both into canary-filled buffers of `size` bytes and compare. */
#define SAME_SIZED(size, f, ...)                                                                   \
	do {                                                                                       \
		char want_[BUF], got_[BUF];                                                        \
		memset(want_, '#', sizeof(want_));                                                 \
		memset(got_, '#', sizeof(got_));                                                   \
		int wn_ = snprintf(want_, (size), (f), __VA_ARGS__);                               \
		int gn_ = fmt_snprintf(got_, (size), (f), __VA_ARGS__);                            \
		compare((f), want_, wn_, got_, gn_);                                               \
	} while (0)
#define SAME(f, ...) SAME_SIZED(BUF - 1, f, __VA_ARGS__)

static void expect_no_mismatch(unsigned min_compared)
{
	assert_int_equal(mismatches, 0);
	assert_true(compared >= min_compared);
	mismatches = compared = 0;
}

/* Values at every type's limits; each is converted to the type under test (-1 is all ones). */
static const int64_t values[] = {0,	      1,	 2,
				 7,	      8,	 9,
				 10,	      15,	 16,
				 42,	      99,	 100,
				 127,	      128,	 255,
				 256,	      1000,	 32767,
				 32768,	      65535,	 65536,
				 INT_MAX,     INT_MIN,	 UINT_MAX,
				 0x100000000, 123456789, 0x123456789abcdef0,
				 LLONG_MAX,   LLONG_MIN, -1,
				 -2,	      -42,	 -128,
				 -129,	      -32768,	 -100000};
#define NVALUES (sizeof(values) / sizeof(values[0]))

static const char *const lengths[] = {"hh", "h", "", "l", "ll", "z", "t", "j"};
static const char convs[] = "diuoxX";

/* Pass v as the argument type `len` + `conv` expect (hh and h take a promoted int). */
static void same_int(const char *fmt, const char *len, char conv, uint64_t v)
{
	bool sgn = conv == 'd' || conv == 'i';

	if (strcmp(len, "l") == 0) {
		if (sgn)
			SAME(fmt, (long)v);
		else
			SAME(fmt, (unsigned long)v);
	} else if (strcmp(len, "ll") == 0) {
		if (sgn)
			SAME(fmt, (long long)v);
		else
			SAME(fmt, (unsigned long long)v);
	} else if (strcmp(len, "z") == 0 || strcmp(len, "t") == 0) {
		if (sgn)
			SAME(fmt, (ptrdiff_t)v);
		else
			SAME(fmt, (size_t)v);
	} else if (strcmp(len, "j") == 0) {
		if (sgn)
			SAME(fmt, (intmax_t)v);
		else
			SAME(fmt, (uintmax_t)v);
	} else {
		if (sgn)
			SAME(fmt, (int)v);
		else
			SAME(fmt, (unsigned)v);
	}
}

static void integers_match_libc_for_all_flags_widths_precisions_lengths(void **state)
{
	(void)state;
	static const char *const widths[] = {"", "1", "7", "25"};
	static const char *const precs[] = {"", ".", ".0", ".1", ".5", ".23"};
	static const char flagset[] = "-0+ #";

	for (unsigned fl = 0; fl < 32; fl++) {
		char flags[6];
		size_t nf = 0;
		for (unsigned b = 0; b < 5; b++) {
			if (fl & (1u << b))
				flags[nf++] = flagset[b];
		}
		flags[nf] = '\0';
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
			for (size_t p = 0; p < sizeof(precs) / sizeof(precs[0]); p++) {
				for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
					for (const char *c = convs; *c != '\0'; c++) {
						char fmt[32];
						snprintf(fmt, sizeof(fmt), "<%%%s%s%s%s%c>", flags,
							 widths[w], precs[p], lengths[l], *c);
						for (size_t v = 0; v < NVALUES; v++)
							same_int(fmt, lengths[l], *c,
								 (uint64_t)values[v]);
					}
				}
			}
		}
	}
	expect_no_mismatch(32 * 4 * 6 * 8 * 6 * NVALUES);
}

static void star_width_and_precision_match_libc(void **state)
{
	(void)state;
	static const int stars[] = {-30, -6, -1, 0, 1, 3, 6, 30};
	static const char *const fmts[] = {"[%*d]", "[%-*d]", "[%0*d]", "[%*x]", "[%#0*o]"};
	static const char *const pfmts[] = {"[%.*d]", "[%08.*d]", "[%-#8.*x]", "[%.*u]"};

	for (size_t i = 0; i < sizeof(stars) / sizeof(stars[0]); i++) {
		for (size_t v = 0; v < NVALUES; v++) {
			for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
				SAME(fmts[f], stars[i], (int)values[v]);
			for (size_t f = 0; f < sizeof(pfmts) / sizeof(pfmts[0]); f++)
				SAME(pfmts[f], stars[i], (int)values[v]);
			for (size_t j = 0; j < sizeof(stars) / sizeof(stars[0]); j++)
				SAME("[%+*.*lld]", stars[i], stars[j], (long long)values[v]);
		}
		SAME("[%*s|%-*.*s]", stars[i], "abc", stars[i], stars[i], "hello");
		SAME("[%*c]", stars[i], 'z');
	}
	expect_no_mismatch(8 * NVALUES * (5 + 4 + 8));
}

static void strings_and_chars_match_libc(void **state)
{
	(void)state;
	static const char *const strs[] = {
	    "", "a", "abc", "hello", "hello, world", "0123456789abcdefghijklmnopqrstuvwxyz!",
	};
	static const char *const flags[] = {"", "-"};
	static const char *const widths[] = {"", "1", "3", "8", "40"};
	static const char *const precs[] = {"", ".", ".0", ".2", ".5", ".40"};

	for (size_t f = 0; f < 2; f++) {
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
			for (size_t p = 0; p < sizeof(precs) / sizeof(precs[0]); p++) {
				char fmt[32];
				snprintf(fmt, sizeof(fmt), "<%%%s%s%ss>", flags[f], widths[w],
					 precs[p]);
				for (size_t s = 0; s < sizeof(strs) / sizeof(strs[0]); s++)
					SAME(fmt, strs[s]);
			}
			char cfmt[32];
			snprintf(cfmt, sizeof(cfmt), "<%%%s%sc>", flags[f], widths[w]);
			for (int c = 1; c < 256; c += 17)
				SAME(cfmt, c);
			SAME(cfmt, 0); /* a NUL character is output and counted */
			SAME(cfmt, 'A' + 256);
		}
	}
	SAME("%%|%d", 0);
	SAME("a%%b%%%%c%d%%", 5);
	SAME("%s=%d, %s=%#lx (%5.1s) %c%c", "pid", 1, "cr3", 0x1000ul, "xyz", 'o', 'k');
	/* A precision bounds the read: this array has no terminator. */
	const char unterminated[3] = {'a', 'b', 'c'};
	SAME("[%.3s|%.2s|%-6.3s]", unterminated, unterminated, unterminated);
	expect_no_mismatch(2 * 5 * (6 * 6 + 17));
}

static void int64_min_and_other_extremes(void **state)
{
	(void)state;
	char buf[64];

	assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%lld", LLONG_MIN), 20);
	assert_string_equal(buf, "-9223372036854775808");
	fmt_snprintf(buf, sizeof(buf), "%jd|%ld|%zd", INTMAX_MIN, LONG_MIN, (ptrdiff_t)PTRDIFF_MIN);
	assert_string_equal(buf, "-9223372036854775808|-9223372036854775808|-9223372036854775808");
	fmt_snprintf(buf, sizeof(buf), "%+.25lld", LLONG_MIN);
	assert_string_equal(buf, "-0000009223372036854775808");
	fmt_snprintf(buf, sizeof(buf), "%llu|%llo|%llX", ULLONG_MAX, ULLONG_MAX, ULLONG_MAX);
	assert_string_equal(buf, "18446744073709551615|1777777777777777777777|FFFFFFFFFFFFFFFF");
	fmt_snprintf(buf, sizeof(buf), "%d|%hd|%hhd|%hhu", INT_MIN, (short)SHRT_MIN, 0x1ff, 0x1ff);
	assert_string_equal(buf, "-2147483648|-32768|-1|255");
	SAME("%lld %lli %+lld % lld %025lld %-25lld|", LLONG_MIN, LLONG_MIN, LLONG_MIN, LLONG_MIN,
	     LLONG_MIN, LLONG_MIN);
	expect_no_mismatch(1);
}

static void truncation_follows_c99(void **state)
{
	(void)state;
	char buf[32];

	/* size 0: nothing written (buf may be NULL), the full length returned. */
	assert_int_equal(fmt_snprintf(NULL, 0, "hello %d", 42), 8);
	memset(buf, '#', sizeof(buf));
	assert_int_equal(fmt_snprintf(buf, 0, "hello %d", 42), 8);
	assert_int_equal(buf[0], '#');
	/* size 1: only the NUL. */
	assert_int_equal(fmt_snprintf(buf, 1, "hello %d", 42), 8);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], '#');
	/* Exactly the length: the last character gives way to the NUL. */
	memset(buf, '#', sizeof(buf));
	assert_int_equal(fmt_snprintf(buf, 8, "hello %d", 42), 8);
	assert_string_equal(buf, "hello 4");
	assert_int_equal(buf[8], '#');
	/* One more: complete. */
	assert_int_equal(fmt_snprintf(buf, 9, "hello %d", 42), 8);
	assert_string_equal(buf, "hello 42");
	assert_int_equal(buf[9], '#');

	/* Every size, cutting inside literals, padding, prefixes, digits and strings. */
	for (size_t size = 1; size <= 80; size++) {
		SAME_SIZED(size, "hello %d", 42);
		SAME_SIZED(size, "[%-12s|%12s]", "left", "right");
		SAME_SIZED(size, "%#018llx %+08d %.10u", 0xdeadbeefull, -7, 3u);
		SAME_SIZED(size, "%%%c%%%5c%s", 'a', 'b', "tail of it");
	}
	expect_no_mismatch(4 * 80);

	/* fmt_vsnprintf: the same rules. */
	memset(buf, '#', sizeof(buf));
	assert_int_equal(vsn(buf, 4, "%s", "abcdef"), 6);
	assert_string_equal(buf, "abc");
	assert_int_equal(vsn(NULL, 0, "%s", "abcdef"), 6);
	assert_int_equal(vsn(buf, 1, "%d", 5), 1);
	assert_string_equal(buf, "");
}

static void pointer_is_0x_and_16_hex_digits(void **state)
{
	(void)state;
	char buf[128];
	/* Flags and precision that C leaves undefined for %p; here they change nothing. */
	const char *odd = "%#p|%+p|% p|%.4p|%0p|%020p";

	assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%p", (void *)0xffffffff80001000ull), 18);
	assert_string_equal(buf, "0xffffffff80001000");
	fmt_snprintf(buf, sizeof(buf), "%p", NULL);
	assert_string_equal(buf, "0x0000000000000000");
	fmt_snprintf(buf, sizeof(buf), "%p", (void *)0x1234);
	assert_string_equal(buf, "0x0000000000001234");
	fmt_snprintf(buf, sizeof(buf), "[%22p]", (void *)0xabc);
	assert_string_equal(buf, "[    0x0000000000000abc]");
	fmt_snprintf(buf, sizeof(buf), "[%-22p]", (void *)0xabc);
	assert_string_equal(buf, "[0x0000000000000abc    ]");
	fmt_snprintf(buf, sizeof(buf), "[%4p]", (void *)0xabc);
	assert_string_equal(buf, "[0x0000000000000abc]");
	fmt_snprintf(buf, sizeof(buf), odd, (void *)1, (void *)2, (void *)3, (void *)4, (void *)5,
		     (void *)6);
	assert_string_equal(buf, "0x0000000000000001|0x0000000000000002|0x0000000000000003|"
				 "0x0000000000000004|0x0000000000000005|  0x0000000000000006");
	/* Where glibc's %p is 16 digits too, they agree. */
	SAME("%p %30p %-30p|", (void *)0xffff800000000000ull, (void *)~0ull, (void *)(1ull << 63));
	expect_no_mismatch(1);
}

/* gcc knows NULL is undefined for %s and says so; printing it anyway is the point here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-overflow"
static void null_string_prints_null(void **state)
{
	(void)state;
	char buf[64];
	const char *none = NULL;

	assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%s", none), 6);
	assert_string_equal(buf, "(null)");
	fmt_snprintf(buf, sizeof(buf), "[%8s|%-8s]", none, none);
	assert_string_equal(buf, "[  (null)|(null)  ]");
	/* Cut like any string (glibc prints nothing here instead). */
	fmt_snprintf(buf, sizeof(buf), "[%.3s]", none);
	assert_string_equal(buf, "[(nu]");
}
#pragma GCC diagnostic pop

static void unknown_directives_print_literally_and_consume_nothing(void **state)
{
	(void)state;
	char buf[64];
	int target = 1234;
	/* Through variables: the compiler would (rightly) reject these formats. */
	const char *q = "%q", *qd = "a%-5qb %d", *starq = "%*q%d", *n = "%n|%d";
	const char *wide = "%ls %lc %hs %L", *tail = "abc%", *tail2 = "x%-08.", *pct = "%l%";

	assert_int_equal(fmt_snprintf(buf, sizeof(buf), q, 5), 2);
	assert_string_equal(buf, "%q");
	fmt_snprintf(buf, sizeof(buf), qd, 5);
	assert_string_equal(buf, "a%-5qb 5");
	fmt_snprintf(buf, sizeof(buf), starq, 7);
	assert_string_equal(buf, "%*q7");
	/* %n writes nothing and takes no argument: the pointer is never read as such. */
	fmt_snprintf(buf, sizeof(buf), n, 9, &target);
	assert_string_equal(buf, "%n|9");
	assert_int_equal(target, 1234);
	fmt_snprintf(buf, sizeof(buf), wide, 1, 2, 3);
	assert_string_equal(buf, "%ls %lc %hs %L");
	assert_int_equal(fmt_snprintf(buf, sizeof(buf), tail, 0), 4);
	assert_string_equal(buf, "abc%");
	fmt_snprintf(buf, sizeof(buf), tail2, 0);
	assert_string_equal(buf, "x%-08.");
	fmt_snprintf(buf, sizeof(buf), pct, 0);
	assert_string_equal(buf, "%l%");
}

/* A sink that records every call. */
struct record {
	char text[4096];
	size_t len;
	unsigned calls;
	bool empty_call;
};

static void record_sink(void *ctx, const char *s, size_t n)
{
	struct record *r = ctx;

	r->calls++;
	if (n == 0)
		r->empty_call = true;
	assert_true(r->len + n < sizeof(r->text));
	memcpy(r->text + r->len, s, n);
	r->len += n;
}

static int record_format(struct record *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int record_format(struct record *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	memset(r, 0, sizeof(*r));
	int n = fmt_vformat(record_sink, r, fmt, ap);
	va_end(ap);
	return n;
}

#define SINK_SAME(...)                                                                             \
	do {                                                                                       \
		struct record r_;                                                                  \
		char buf_[4096];                                                                   \
		int n_ = record_format(&r_, __VA_ARGS__);                                          \
		int s_ = vsn(buf_, sizeof(buf_), __VA_ARGS__);                                     \
		assert_int_equal(n_, s_);                                                          \
		assert_int_equal(r_.len, (size_t)n_);                                              \
		assert_memory_equal(r_.text, buf_, r_.len);                                        \
		assert_false(r_.empty_call);                                                       \
	} while (0)

static void sink_receives_the_same_text_in_chunks(void **state)
{
	(void)state;
	struct record r;

	SINK_SAME("plain text only");
	SINK_SAME("%d", 5);
	SINK_SAME("");
	SINK_SAME("%s", "");
	SINK_SAME("[%300d]", -5);
	SINK_SAME("[%-300x]", 0xabcu);
	SINK_SAME("[%0200lld]", LLONG_MIN);
	SINK_SAME("[%.100u]", 7u);
	SINK_SAME("[%*s]", 1000, "wide");
	SINK_SAME("%s %c %p %% %#o %+i %5.2s", "mixed", 'x', (void *)0x10, 8, 3, "abc");

	/* Chunked indeed: literal, conversion, literal; padding in several pieces. */
	assert_int_equal(record_format(&r, "a=%d;", 12), 5);
	assert_int_equal(r.calls, 3);
	assert_int_equal(record_format(&r, "%1000d", 1), 1000);
	assert_true(r.calls > 2);
	assert_memory_equal(r.text + 999, "1", 1);
	/* An empty format produces no call at all. */
	assert_int_equal(record_format(&r, "%s", ""), 0);
	assert_int_equal(r.calls, 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(integers_match_libc_for_all_flags_widths_precisions_lengths),
    cmocka_unit_test(star_width_and_precision_match_libc),
    cmocka_unit_test(strings_and_chars_match_libc),
    cmocka_unit_test(int64_min_and_other_extremes),
    cmocka_unit_test(truncation_follows_c99),
    cmocka_unit_test(pointer_is_0x_and_16_hex_digits),
    cmocka_unit_test(null_string_prints_null),
    cmocka_unit_test(unknown_directives_print_literally_and_consume_nothing),
    cmocka_unit_test(sink_receives_the_same_text_in_chunks),
};
UNIT_MAIN(tests)
