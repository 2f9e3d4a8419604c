/* SPDX-License-Identifier: MIT */
#include "lib/shell_words.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* One word from *s (not at a blank, not at the end) into buf at *at. */
static bool one_word(const char **s, char *buf, size_t buf_size, size_t *at, const char **why)
{
	bool quoted = false;
	const char *p = *s;
	for (; *p && (quoted || !blank(*p)); p++) {
		char c = *p;
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\') {
			if (!p[1]) {
				*why = "a backslash ends the value; accepted: \\ before the byte "
				       "it escapes";
				return false;
			}
			c = *++p;
		}
		if (*at + 1 >= buf_size) {
			*why = "the words are too long";
			return false;
		}
		buf[(*at)++] = c;
	}
	if (quoted) {
		*why = "a double quote is left open; accepted: \"...\" in pairs";
		return false;
	}
	buf[(*at)++] = 0;
	*s = p;
	return true;
}

bool shell_words_split(const char *s, char *buf, size_t buf_size, const char **word,
		       size_t max_words, size_t *n, const char **why)
{
	size_t at = 0;
	*n = 0;
	for (;;) {
		while (blank(*s))
			s++;
		if (!*s)
			return true;
		if (*n == max_words) {
			*why = "too many words";
			return false;
		}
		word[*n] = buf + at;
		if (!one_word(&s, buf, buf_size, &at, why))
			return false;
		(*n)++;
	}
}
