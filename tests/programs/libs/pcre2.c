/* SPDX-License-Identifier: MIT */
// LINK: -lpcre2-8
/* A real program on Debian's PCRE2 (static), with its JIT: the pattern compiled to machine code
 * in memory mapped writable and executable, then run (as on Linux); the interpreter as well.
 * Output: the matches, both ways. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

static const char text[] = "alice@example.org, bob@test.net; carol at home, dave@x.io "
			   "eve@very.long.example.com";

static void matches(pcre2_code *re, const char *how)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	size_t at = 0, len = strlen(text);
	int n = 0;
	while (at < len && pcre2_match(re, (PCRE2_SPTR)text, len, at, 0, md, NULL) > 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		printf("%s %d: %.*s (user %.*s)\n", how, ++n, (int)(ov[1] - ov[0]), text + ov[0],
		       (int)(ov[3] - ov[2]), text + ov[2]);
		at = ov[1];
	}
	pcre2_match_data_free(md);
}

int main(void)
{
	int err;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR) "([a-z]+)@([a-z.]+)\\.(org|net|io|com)",
				       PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
	if (!re)
		return 1;
	matches(re, "interpreted");
	int jit = pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	printf("jit compile: %d\n", jit);
	if (jit == 0)
		matches(re, "jit");
	pcre2_code_free(re);
	return 0;
}
