/* SPDX-License-Identifier: MIT */
/* kprintf on top of lib/fmt and the arch console. */
#include "kernel/console.h"
#include "kernel/arch.h"
#include "lib/fmt.h"
#include "lib/string.h"

static void console_sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	arch_console_write(s, n);
}

void kvprintf(const char *fmt, va_list ap)
{
	fmt_vformat(console_sink, NULL, fmt, ap);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

void kputs(const char *s)
{
	arch_console_write(s, strlen(s));
}
