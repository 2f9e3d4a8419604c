/* SPDX-License-Identifier: MIT */
/*
 * The serial console: the one UART kprintf and the record stream write to (discover.c chooses
 * it). Calls nothing that prints, so the console is below everything that does.
 */
#include "arch/x86/console/serial.h"
#include "kernel/arch_console.h"
#include "lib/fmt.h"

struct uart console_uart;

void arch_console_early(void)
{
	struct uart_desc com1 = {.space = UART_SPACE_IO,
				 .stride = 1,
				 .width = 8,
				 .base = SERIAL_COM1_PORT,
				 .clock = UART_STD_CLOCK};
	fmt_snprintf(com1.source, sizeof(com1.source), "COM1");
	char why[160];
	if (!uart_open(&console_uart, &com1, UART_DEFAULT_BAUD, why, sizeof(why)))
		console_uart.open = false;
}

void arch_console_write(const char *s, size_t n)
{
	uart_write(&console_uart, s, n);
}

void arch_console_describe(char *buf, size_t size)
{
	const struct uart *u = &console_uart;
	if (!u->open) {
		fmt_snprintf(buf, size, "none");
		return;
	}
	fmt_snprintf(buf, size, "%s %s %#lx stride %u width %u clock %u Hz %u baud 8N1%s",
		     u->d.source, u->d.space == UART_SPACE_IO ? "io" : "mmio", u->d.base,
		     u->d.stride, u->d.width, u->d.clock, u->baud, u->d.rtscts ? " rtscts" : "");
}
