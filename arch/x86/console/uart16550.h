/* SPDX-License-Identifier: MIT */
/*
 * One 16550-family driver for every console UART: port I/O or MMIO, register stride 1 or 4,
 * 8- or 32-bit accesses, any input clock, Intel LPSS UARTs (their private clock divider), RTS/CTS.
 */
#ifndef ARCH_X86_CONSOLE_UART16550_H
#define ARCH_X86_CONSOLE_UART16550_H

#include <stddef.h>
#include "arch/x86/console/uart_desc.h"

struct uart {
	struct uart_desc d;
	bool open;
	bool timed_out;		 /* it never took a byte in a transmit wait: treated as gone */
	bool transmitted;	 /* it has taken bytes since uart_open: later waits are a host's */
	bool rate_refused;	 /* uart_open failed on the baud rate alone (the UART is there) */
	uint32_t baud;		 /* the rate programmed (or found) */
	uint32_t divisor;	 /* DLL/DLM */
	uint32_t lpss_m, lpss_n; /* LPSS fractional divider, 0 when not used */
	uint64_t cts_waits;	 /* bursts that waited for CTS */
};

/* Does anything answer at d? The scratch register keeps a value; a floating bus reads 0xFF. */
bool uart_present(const struct uart_desc *d);
/*
 * Program d at `baud` (0: keep the firmware's divisor) with 8N1 and FIFOs, after checking in
 * loopback mode that bytes come back. False with the reason (absent, unreachable rate, loopback
 * failed); the UART is then left as it was found as far as possible.
 */
bool uart_open(struct uart *u, const struct uart_desc *d, uint32_t baud, char *why,
	       size_t why_size);
void uart_write(struct uart *u, const char *s, size_t n);
/* Bring a UART back to its reset-time idle state (used when a candidate is rejected). */
void uart_close(struct uart *u);

/* Nearest 16550 divisor for `baud` from `clock`, 0 when the error would exceed 2 percent. */
uint32_t uart_divisor(uint32_t clock, uint32_t baud);
/*
 * LPSS fractional divider (Linux drivers/mfd/intel-lpss.c registers it as a fractional clock
 * with M at bits 15:1 and N at 30:16; coreboot src/soc/intel/common/block/lpss): output =
 * input * M / N with 1 <= M <= N < 2^15. The best M/N for `target` Hz; false if none is within
 * 2 percent.
 */
bool lpss_fraction(uint32_t input, uint32_t target, uint32_t *m, uint32_t *n);

#endif
