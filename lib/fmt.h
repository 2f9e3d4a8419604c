/* SPDX-License-Identifier: MIT */
/*
 * printf-style formatting for the kernel console and messages. Freestanding, no floating point.
 *
 * Conversions: %d %i %u %x %X %o %c %s %p %%. Flags '-' '0' '+' ' ' '#', field width and
 * precision (each also '*' from an int argument; a negative '*' width means '-', a negative
 * '*' precision means none), length modifiers hh h l ll z t j on the integer conversions.
 * These behave as in C99, with the following deliberate differences:
 *  - %p prints "0x" and exactly 16 lowercase hex digits (fixed-width addresses in dumps);
 *    width and '-' apply to the whole, the other flags and any precision are ignored.
 *  - %s with a NULL pointer prints "(null)" (cut by a precision like any other string).
 *  - Anything else, %n included, is not a conversion: the directive is printed literally
 *    ("%q", "%-5n", "%ls", a lone trailing "%") and consumes no argument. Nothing is ever
 *    written through a pointer argument.
 *  - A count beyond INT_MAX is reported as INT_MAX.
 */
#ifndef LIB_FMT_H
#define LIB_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* Receives the output in order, in chunks of n >= 1 bytes; s is not NUL-terminated. */
typedef void (*fmt_sink_fn)(void *ctx, const char *s, size_t n);

/* Format into sink(ctx, ...); returns the number of characters produced. */
int fmt_vformat(fmt_sink_fn sink, void *ctx, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/*
 * C99 snprintf: writes at most size - 1 characters and a NUL into buf (nothing when size is 0,
 * buf may then be NULL) and returns the length the complete output has, so a return value
 * >= size means truncation.
 */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
