/* SPDX-License-Identifier: MIT */
/* Kernel console output: printf-style text on the serial console and the screen. */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>

void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
void kputs(const char *s); /* no newline added */
/* Bytes to the serial console alone, as they are (a trace session's output and its record
 * stream's frames: not for the screen, not kept for a later console). */
void console_serial_write(const char *s, size_t n);
/* The serial console in one line (arch_console_describe), for headers. */
void console_serial_describe(char *buf, size_t size);
/* PREFIX, the formatted text (at most KPRINTF_LINE_MAX - 1 bytes) and a newline: a tagged line
 * ("report: ...", "summary: ..."), for printers passed around as line callbacks. */
#define KPRINTF_LINE_MAX 512
void kvprintf_line(const char *prefix, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Everything printed so far (kept until console_settle) again on the serial console, on the
 * screen: for a console found after the first lines. */
void console_replay_serial(void);
void console_replay_screen(void);
/* Error lines printed so far ("error: ..." or "TAG: error: ...", lib/log_line.h): those of
 * kprintf, and those of the whole lines console_note_lines was shown (a CPU's trace output,
 * which reaches the console through console_serial_write). No run that printed one passes. */
unsigned console_error_lines(void);
void console_note_lines(const char *text, size_t n);
/* A line to repeat just before the run's last line (where a screen shows it last). */
void console_set_exit_note(const char *line);
void console_print_exit_note(void);
/* The consoles are final: stop keeping the log. */
void console_settle(void);

#endif
