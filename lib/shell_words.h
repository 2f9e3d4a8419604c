/* SPDX-License-Identifier: MIT */
/*
 * Split a value like shell words (options program.argv and program.env): blanks (space, tab)
 * separate words; double quotes group (the quotes themselves go); a backslash takes the next
 * byte as it is, inside quotes or out. Pure and freestanding (kernel and host tests).
 */
#ifndef LIB_SHELL_WORDS_H
#define LIB_SHELL_WORDS_H

#include <stdbool.h>
#include <stddef.h>

/* Words of s into buf (each NUL-terminated, one after another) and their starts into
 * word[0..max_words); their count in *n. false with the reason in why when a quote is left
 * open, a backslash ends the value, or buf or word[] is too small. */
bool shell_words_split(const char *s, char *buf, size_t buf_size, const char **word,
		       size_t max_words, size_t *n, const char **why);

#endif
