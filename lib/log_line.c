/* SPDX-License-Identifier: MIT */
#include "lib/log_line.h"

#define ERROR_WORD "error: "

/* Whether s[0..n) starts with the word p. */
static bool starts(const char *s, size_t n, const char *p)
{
	size_t i = 0;
	for (; p[i]; i++)
		if (i >= n || s[i] != p[i])
			return false;
	return true;
}

static bool tag_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

bool log_line_is_error(const char *s, size_t n)
{
	if (starts(s, n, ERROR_WORD))
		return true;
	size_t i = 0;
	while (i < n && tag_byte(s[i]))
		i++;
	return i > 0 && i + 1 < n && s[i] == ':' && s[i + 1] == ' ' &&
	       starts(s + i + 2, n - i - 2, ERROR_WORD);
}

unsigned log_error_lines(const char *text, size_t n)
{
	unsigned count = 0;
	for (size_t start = 0; start < n;) {
		size_t end = start;
		while (end < n && text[end] != '\n')
			end++;
		count += log_line_is_error(text + start, end - start);
		start = end + 1;
	}
	return count;
}
