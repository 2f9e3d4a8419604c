/* SPDX-License-Identifier: MIT */
/* Kernel console output: printf-style text on the serial console. */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>

void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
void kputs(const char *s); /* no newline added */

#endif
