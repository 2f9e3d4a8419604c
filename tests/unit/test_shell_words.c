// UNIT-SOURCES: lib/shell_words.c
/*
 * lib/shell_words.c against the shell: each case's expected words are what /bin/sh's own
 * word splitting gives for the same text (set -- TEXT; printf '%s\n' "$@"), written out here.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "lib/shell_words.h"

static void splits_like_the_shell(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		const char *out[6];
	} cases[] = {
	    {"", {NULL}},
	    {"   \t ", {NULL}},
	    {"mybench -n 100 \"/data/input.dat\"",
	     {"mybench", "-n", "100", "/data/input.dat", NULL}},
	    {"a\"b c\"d e", {"ab cd", "e", NULL}},
	    {"\"\" x", {"", "x", NULL}},
	    {"a\\ b \\\"q\\\" \"in \\\" side\"", {"a b", "\"q\"", "in \" side", NULL}},
	    {"  lead  trail  ", {"lead", "trail", NULL}},
	    {"PATH=/bin HOME=\"/root dir\"", {"PATH=/bin", "HOME=/root dir", NULL}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128];
		const char *w[8], *why = NULL;
		size_t n;
		assert_true(shell_words_split(cases[i].in, buf, sizeof(buf), w, 8, &n, &why));
		size_t want = 0;
		while (cases[i].out[want])
			want++;
		assert_int_equal(n, want);
		for (size_t k = 0; k < n; k++)
			assert_string_equal(w[k], cases[i].out[k]);
	}
}

static void refuses_by_name(void **state)
{
	(void)state;
	char buf[8];
	const char *w[2], *why = NULL;
	size_t n;
	assert_false(shell_words_split("\"open", buf, sizeof(buf), w, 2, &n, &why));
	assert_non_null(strstr(why, "quote"));
	assert_false(shell_words_split("end\\", buf, sizeof(buf), w, 2, &n, &why));
	assert_non_null(strstr(why, "backslash"));
	assert_false(shell_words_split("a b c", buf, sizeof(buf), w, 2, &n, &why));
	assert_non_null(strstr(why, "many"));
	assert_false(shell_words_split("abcdefghij", buf, sizeof(buf), w, 2, &n, &why));
	assert_non_null(strstr(why, "long"));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(splits_like_the_shell),
    cmocka_unit_test(refuses_by_name),
};

UNIT_MAIN(tests)
