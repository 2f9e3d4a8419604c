/* SPDX-License-Identifier: MIT */
/*
 * 16550A UART driver (port I/O): the serial console. Register map private to this file, named
 * after the National Semiconductor PC16550D data sheet. Every wait is bounded, so a machine
 * with no UART at the port (reads float to 0xFF) never hangs the kernel.
 */
#include "kernel/arch.h"
#include "arch/x86/cpu/cpu.h"
#include "lib/bits.h"

/* Register offsets from the base port (DLAB = LCR bit 7 selects DLL/DLM at 0 and 1). */
enum uart_reg {
	UART_THR = 0, /* transmit holding (write, DLAB=0) */
	UART_DLL = 0, /* divisor latch low (DLAB=1) */
	UART_IER = 1, /* interrupt enable (DLAB=0) */
	UART_DLM = 1, /* divisor latch high (DLAB=1) */
	UART_FCR = 2, /* FIFO control (write) */
	UART_LCR = 3, /* line control */
	UART_MCR = 4, /* modem control */
	UART_LSR = 5, /* line status */
	UART_SCR = 7, /* scratch */
};

#define UART_FCR_ENABLE	     BIT(0)
#define UART_FCR_CLEAR_RX    BIT(1)
#define UART_FCR_CLEAR_TX    BIT(2)
#define UART_LCR_WLEN8	     0x03 /* 8 data bits, 1 stop bit, no parity: 8N1 */
#define UART_LCR_DLAB	     BIT(7)
#define UART_MCR_DTR	     BIT(0)
#define UART_MCR_RTS	     BIT(1)
#define UART_MCR_OUT2	     BIT(3)
#define UART_LSR_THRE	     BIT(5)  /* transmit holding register (and FIFO) empty */
#define UART_LSR_ABSENT	     0xff    /* what a floating bus reads */
#define UART_CLOCK_DIVISOR_1 115200  /* 1.8432 MHz / 16: the baud rate at divisor 1 */
#define UART_FIFO_DEPTH	     16	     /* bytes the 16550A's transmit FIFO accepts per THRE */
#define UART_THRE_SPINS	     1000000 /* bound on polling for THRE (~ms at port-I/O speed) */

static uint16_t uart_base;
static bool uart_present;
static bool uart_timed_out; /* a THRE wait ran out: stop waiting on a dead UART */

static void uart_out(enum uart_reg reg, uint8_t v)
{
	outb(uart_base + reg, v);
}

static uint8_t uart_in(enum uart_reg reg)
{
	return inb(uart_base + reg);
}

bool arch_console_init(uint16_t port, uint32_t baud)
{
	uart_base = port;
	uart_present = false;
	uart_timed_out = false;
	if (baud == 0 || UART_CLOCK_DIVISOR_1 % baud != 0)
		return false;

	/* Presence: the scratch register keeps what is written; a floating bus reads 0xFF. */
	uart_out(UART_SCR, 0x5a);
	if (uart_in(UART_SCR) != 0x5a || uart_in(UART_LSR) == UART_LSR_ABSENT)
		return false;

	uint16_t divisor = (uint16_t)(UART_CLOCK_DIVISOR_1 / baud);
	uart_out(UART_IER, 0); /* polled: no UART interrupts */
	uart_out(UART_LCR, UART_LCR_DLAB);
	uart_out(UART_DLL, divisor & 0xff);
	uart_out(UART_DLM, divisor >> 8);
	uart_out(UART_LCR, UART_LCR_WLEN8);
	uart_out(UART_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR_RX | UART_FCR_CLEAR_TX);
	uart_out(UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
	uart_present = true;
	return true;
}

/* Wait (bounded) until the FIFO is empty; then up to UART_FIFO_DEPTH bytes may be written. */
static bool uart_wait_thre(void)
{
	if (uart_timed_out)
		return false;
	for (unsigned i = 0; i < UART_THRE_SPINS; i++) {
		if (uart_in(UART_LSR) & UART_LSR_THRE)
			return true;
		cpu_pause();
	}
	uart_timed_out = true;
	return false;
}

void arch_console_write(const char *s, size_t n)
{
	if (!uart_present)
		return;
	size_t i = 0;
	while (i < n) {
		if (!uart_wait_thre())
			return;
		for (unsigned room = UART_FIFO_DEPTH; room > 0 && i < n; i++) {
			if (s[i] == '\n') {
				if (room < 2)
					break; /* CR LF go together: wait for the next THRE */
				uart_out(UART_THR, '\r');
				room--;
			}
			uart_out(UART_THR, (uint8_t)s[i]);
			room--;
		}
	}
}
