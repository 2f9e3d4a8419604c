/* SPDX-License-Identifier: MIT */
/*
 * kprintf on top of lib/fmt and the consoles: the serial console and the screen. Until the
 * serial console is settled (console_settle), everything printed is also kept, so that a UART
 * found later, and the screen, start with the whole log, not its middle.
 */
#include "kernel/console.h"
#include "kernel/arch_console.h"
#include "lib/fmt.h"
#include "lib/log_line.h"
#include "lib/string.h"

#define BACKLOG_BYTES (32u << 10)

static struct {
	bool keeping;
	size_t used, lost;
	char text[BACKLOG_BYTES];
} backlog = {.keeping = true};

/* Error lines printed so far (lib/log_line.h): no run that printed one passes. */
static unsigned error_lines;

/* The start of the line kprintf is printing, until it is decided (lib/log_line.h). One for
 * all CPUs: the others print through their trace output (console_note_lines), and two CPUs in
 * kprintf at once would mix their lines on the console itself. */
static struct {
	char text[LOG_LINE_HEAD];
	size_t n;
	bool decided;
} head;

static void decide(void)
{
	if (log_line_is_error(head.text, head.n))
		__atomic_fetch_add(&error_lines, 1, __ATOMIC_RELAXED);
	head.decided = true;
}

static void track(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			if (!head.decided)
				decide();
			head.n = 0;
			head.decided = false;
		} else if (!head.decided) {
			head.text[head.n++] = s[i];
			if (head.n == LOG_LINE_HEAD)
				decide();
		}
	}
}

unsigned console_error_lines(void)
{
	return __atomic_load_n(&error_lines, __ATOMIC_RELAXED);
}

void console_note_lines(const char *text, size_t n)
{
	unsigned errors = log_error_lines(text, n);
	if (errors)
		__atomic_fetch_add(&error_lines, errors, __ATOMIC_RELAXED);
}

static void emit(const char *s, size_t n)
{
	track(s, n);
	arch_console_write(s, n);
	arch_screen_write(s, n);
	if (!backlog.keeping)
		return;
	size_t take = n < BACKLOG_BYTES - backlog.used ? n : BACKLOG_BYTES - backlog.used;
	memcpy(backlog.text + backlog.used, s, take);
	backlog.used += take;
	backlog.lost += n - take;
}

static void console_sink(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	emit(s, n);
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

void kvprintf_line(const char *prefix, const char *fmt, va_list ap)
{
	char line[KPRINTF_LINE_MAX];
	fmt_vsnprintf(line, sizeof(line), fmt, ap);
	kprintf("%s%s\n", prefix, line);
}

void kputs(const char *s)
{
	emit(s, strlen(s));
}

static void replay(void (*out)(const char *, size_t))
{
	out(backlog.text, backlog.used);
	if (backlog.lost) {
		char line[96];
		size_t n = fmt_snprintf(line, sizeof(line),
					"console: %zu earlier bytes not kept (backlog of %u KiB)\n",
					backlog.lost, BACKLOG_BYTES >> 10);
		out(line, n);
	}
}

void console_replay_serial(void)
{
	replay(arch_console_write);
}

void console_replay_screen(void)
{
	replay(arch_screen_write);
}

static char exit_note[400];

void console_set_exit_note(const char *line)
{
	fmt_snprintf(exit_note, sizeof(exit_note), "%s", line);
}

void console_print_exit_note(void)
{
	if (exit_note[0])
		kprintf("%s\n", exit_note);
}

void console_settle(void)
{
	backlog.keeping = false;
}

void console_serial_write(const char *s, size_t n)
{
	arch_console_write(s, n);
}

void console_serial_describe(char *buf, size_t size)
{
	arch_console_describe(buf, size);
}
