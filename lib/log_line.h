/* SPDX-License-Identifier: MIT */
/*
 * What a line of the kernel's log says about the run (README "The result contract"): an error
 * line is "error: ..." or one tag word and then "error: ..." ("stick: error: ..."). Every error
 * line makes the run fail: the kernel counts them (kernel/console.c) and no run that printed one
 * ends PASS or SKIP. A program's output ("program-output cpu=N: ...") is never one: its tag is
 * more than one word. Pure (kernel and host tests).
 */
#ifndef LIB_LOG_LINE_H
#define LIB_LOG_LINE_H

#include <stdbool.h>
#include <stddef.h>

/* The bytes of a line's start log_line_is_error needs to decide: a tag word and ": error: ". */
#define LOG_LINE_HEAD 40

/* Whether the line starting at s (n bytes of it, at most up to its end) is an error line. */
bool log_line_is_error(const char *s, size_t n);

/* The error lines among the whole lines of text[0..n). */
unsigned log_error_lines(const char *text, size_t n);

#endif
