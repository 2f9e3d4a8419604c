/* SPDX-License-Identifier: MIT */
/*
 * 16550A UART driver: the serial console, whatever the UART's address space, stride, access
 * width and clock (uart_desc.h). Register map private to this file, named after the National
 * Semiconductor PC16550D data sheet. Every wait is bounded, so a machine with no UART at the
 * address (reads float to 0xFF) never hangs the kernel.
 */
#include "arch/x86/console/uart16550.h"
#include "arch/x86/cpu/cpu.h"
#include "kernel/arch_cpu.h"
#include "lib/bits.h"
#include "lib/fmt.h"
#include "lib/string.h"

/* Register numbers (DLAB = LCR bit 7 selects DLL/DLM at 0 and 1); offset = number x stride. */
enum uart_reg {
	UART_THR = 0, /* transmit holding (write, DLAB=0) */
	UART_RBR = 0, /* receive buffer (read, DLAB=0) */
	UART_DLL = 0, /* divisor latch low (DLAB=1) */
	UART_IER = 1, /* interrupt enable (DLAB=0) */
	UART_DLM = 1, /* divisor latch high (DLAB=1) */
	UART_FCR = 2, /* FIFO control (write) */
	UART_LCR = 3, /* line control */
	UART_MCR = 4, /* modem control */
	UART_LSR = 5, /* line status */
	UART_MSR = 6, /* modem status */
	UART_SCR = 7, /* scratch */
};

#define UART_FCR_ENABLE	  BIT(0)
#define UART_FCR_CLEAR_RX BIT(1)
#define UART_FCR_CLEAR_TX BIT(2)
#define UART_LCR_WLEN8	  0x03 /* 8 data bits, 1 stop bit, no parity: 8N1 */
#define UART_LCR_DLAB	  BIT(7)
#define UART_MCR_DTR	  BIT(0)
#define UART_MCR_RTS	  BIT(1)
#define UART_MCR_OUT2	  BIT(3)
#define UART_MCR_LOOP	  BIT(4) /* TX wired to RX inside the UART (PC16550D "Loopback") */
#define UART_LSR_DR	  BIT(0) /* a received byte waits in RBR */
#define UART_LSR_THRE	  BIT(5) /* transmit holding register (and FIFO) empty */
#define UART_LSR_TEMT	  BIT(6) /* transmitter empty: the last byte has left */
#define UART_LSR_ABSENT	  0xff	 /* what a floating bus reads */
#define UART_MSR_CTS	  BIT(4)
#define UART_FIFO_DEPTH	  16	  /* bytes the 16550A's transmit FIFO accepts per THRE */
#define UART_SPINS	  1000000 /* bound on any poll (~ms at port-I/O speed) */
/* Bound on a wait for the transmitter: a UART that has not taken a byte in this many polls (a
 * few seconds under QEMU, whose THRE waits for the host to read its chardev; longer on
 * silicon) is treated as gone. 1000000 was a tenth of a second under TCG: a host reader
 * descheduled that long on a loaded machine lost the rest of the log. */
#define UART_TX_SPINS	  20000000
#define UART_SCRATCH_TEST 0x5a
#define UART_RX_DRAIN_MAX 256 /* more than any receive FIFO holds */
#define LOOPBACK_PATTERNS "\x55\xaa"

/* Intel LPSS private registers (Linux drivers/mfd/intel-lpss.c LPSS_PRIV_*; coreboot
 * src/soc/intel/apollolake/include/soc/uart.h): at base + 0x200, clock then resets. */
#define LPSS_PRIV_OFFSET    0x200
#define LPSS_PRIV_CLOCK	    0x00
#define LPSS_CLOCK_ENABLE   BIT(0)
#define LPSS_CLOCK_M_SHIFT  1  /* M: bits 15:1 */
#define LPSS_CLOCK_N_SHIFT  16 /* N: bits 30:16 */
#define LPSS_CLOCK_UPDATE   BIT(31)
#define LPSS_PRIV_RESETS    0x04
#define LPSS_RESETS_RELEASE 0x7 /* function (bits 1:0) and IDMA (bit 2) out of reset */

static uint32_t raw_read(const struct uart_desc *d, uint64_t off)
{
	if (d->space == UART_SPACE_IO)
		return d->width == 32 ? inl((uint16_t)(d->base + off))
				      : inb((uint16_t)(d->base + off));
	volatile void *p = arch_phys_to_virt(d->base + off);
	return d->width == 32 ? *(volatile uint32_t *)p : *(volatile uint8_t *)p;
}

static void raw_write(const struct uart_desc *d, uint64_t off, uint32_t v)
{
	if (d->space == UART_SPACE_IO) {
		if (d->width == 32)
			outl((uint16_t)(d->base + off), v);
		else
			outb((uint16_t)(d->base + off), (uint8_t)v);
		return;
	}
	volatile void *p = arch_phys_to_virt(d->base + off);
	if (d->width == 32)
		*(volatile uint32_t *)p = v;
	else
		*(volatile uint8_t *)p = (uint8_t)v;
}

static uint8_t reg_in(const struct uart_desc *d, enum uart_reg r)
{
	return (uint8_t)raw_read(d, (uint64_t)r * d->stride);
}

static void reg_out(const struct uart_desc *d, enum uart_reg r, uint8_t v)
{
	raw_write(d, (uint64_t)r * d->stride, v);
}

static void lpss_write(const struct uart_desc *d, uint32_t reg, uint32_t v)
{
	*(volatile uint32_t *)arch_phys_to_virt(d->base + LPSS_PRIV_OFFSET + reg) = v;
}

bool uart_present(const struct uart_desc *d)
{
	if (d->space == UART_SPACE_NONE)
		return false;
	reg_out(d, UART_SCR, UART_SCRATCH_TEST);
	return reg_in(d, UART_SCR) == UART_SCRATCH_TEST && reg_in(d, UART_LSR) != UART_LSR_ABSENT;
}

static bool wait_lsr(const struct uart_desc *d, uint8_t bit)
{
	for (unsigned i = 0; i < UART_SPINS; i++) {
		if (reg_in(d, UART_LSR) & bit)
			return true;
		cpu_pause();
	}
	return false;
}

/* In loopback mode every byte sent must come back unchanged: the UART decodes, clocks and
 * shifts (the PC16550D's loopback connects the transmitter to the receiver internally). */
static bool loopback_ok(const struct uart_desc *d)
{
	for (unsigned i = 0; i < UART_RX_DRAIN_MAX && (reg_in(d, UART_LSR) & UART_LSR_DR); i++)
		(void)reg_in(d, UART_RBR); /* drain what the line brought (bounded: a stuck DR) */
	reg_out(d, UART_MCR, UART_MCR_LOOP);
	bool ok = true;
	for (const char *p = LOOPBACK_PATTERNS; *p && ok; p++) {
		reg_out(d, UART_THR, (uint8_t)*p);
		ok = wait_lsr(d, UART_LSR_DR) && reg_in(d, UART_RBR) == (uint8_t)*p;
	}
	reg_out(d, UART_MCR, 0);
	return ok;
}

static void set_divisor(const struct uart_desc *d, uint32_t dl)
{
	reg_out(d, UART_LCR, UART_LCR_DLAB);
	reg_out(d, UART_DLL, dl & 0xff);
	reg_out(d, UART_DLM, (dl >> 8) & 0xff);
	reg_out(d, UART_LCR, UART_LCR_WLEN8);
}

static uint32_t get_divisor(const struct uart_desc *d)
{
	uint8_t lcr = reg_in(d, UART_LCR);
	reg_out(d, UART_LCR, lcr | UART_LCR_DLAB);
	uint32_t dl = reg_in(d, UART_DLL) | (uint32_t)reg_in(d, UART_DLM) << 8;
	reg_out(d, UART_LCR, lcr & ~UART_LCR_DLAB);
	return dl;
}

/* The LPSS clock: M/N of the input so that divisor 1 gives the rate (16 x baud). */
static bool lpss_clock(struct uart *u, uint32_t baud, char *why, size_t why_size)
{
	const struct uart_desc *d = &u->d;
	lpss_write(d, LPSS_PRIV_RESETS, LPSS_RESETS_RELEASE);
	if (!baud || !d->clock)
		return true; /* keep the firmware's clock and divisor */
	uint32_t m, n;
	if (!lpss_fraction(d->clock, baud * 16, &m, &n)) {
		fmt_snprintf(
		    why, why_size,
		    "%lu baud is beyond this LPSS UART (input clock %u Hz: at most %u baud)",
		    (unsigned long)baud, d->clock, d->clock / 16);
		u->rate_refused = true;
		return false;
	}
	uint32_t v = LPSS_CLOCK_ENABLE | m << LPSS_CLOCK_M_SHIFT | n << LPSS_CLOCK_N_SHIFT;
	lpss_write(d, LPSS_PRIV_CLOCK, v);
	lpss_write(d, LPSS_PRIV_CLOCK, v | LPSS_CLOCK_UPDATE);
	u->lpss_m = m;
	u->lpss_n = n;
	return true;
}

bool uart_open(struct uart *u, const struct uart_desc *d, uint32_t baud, char *why, size_t why_size)
{
	memset(u, 0, sizeof(*u));
	u->d = *d;
	if (d->lpss && !lpss_clock(u, baud, why, why_size))
		return false;
	if (!uart_present(d)) {
		fmt_snprintf(why, why_size,
			     "nothing answers (the scratch register does not keep "
			     "a value)");
		return false;
	}
	(void)wait_lsr(d, UART_LSR_TEMT); /* what an earlier user queued leaves first */
	uint32_t dl = 0;
	if (baud && d->lpss && d->clock)
		dl = 1; /* the fractional divider made 16 x baud */
	else if (baud) {
		dl = uart_divisor(d->clock, baud);
		if (!dl) {
			fmt_snprintf(why, why_size,
				     "%lu baud cannot be made from its %u Hz clock within 2%% "
				     "(accepted: %u divided by a whole number; serial.clock sets "
				     "another clock)",
				     (unsigned long)baud, d->clock, d->clock / 16);
			u->rate_refused = true;
			return false;
		}
	}
	reg_out(d, UART_IER, 0); /* polled: no UART interrupts */
	if (dl)
		set_divisor(d, dl);
	else
		reg_out(d, UART_LCR, UART_LCR_WLEN8);
	u->divisor = get_divisor(d);
	/* Quirk, Synopsys DesignWare APB UARTs (the Intel LPSS ones): LCR and the divisor latch
	 * ignore writes while the UART is busy (Linux drivers/tty/serial/8250/8250_dw.c,
	 * dw8250_check_lcr); the divisor is read back rather than assumed. */
	if (dl && u->divisor != dl) {
		fmt_snprintf(why, why_size, "the divisor did not stick (wrote %u, reads %u)", dl,
			     u->divisor);
		return false;
	}
	u->baud = baud ? baud : (d->clock && u->divisor ? d->clock / 16 / u->divisor : 0);
	reg_out(d, UART_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR_RX | UART_FCR_CLEAR_TX);
	if (!loopback_ok(d)) {
		fmt_snprintf(why, why_size, "loopback test failed: bytes sent did not come back");
		return false;
	}
	reg_out(d, UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
	u->open = true;
	u->timed_out = u->transmitted = false;
	return true;
}

void uart_close(struct uart *u)
{
	u->open = false;
}

/* Wait until the FIFO is empty (and CTS, when asked); then a burst may be written. A UART that
 * has never taken a byte gets a bounded wait, then counts as gone (nothing hangs on a UART that
 * is not wired); once it has transmitted, a wait is the host's or the flow control's (a reader
 * that stopped reading, CTS held low) and lasts as long as that does: bytes wait, never drop. */
static bool ready_for_burst(struct uart *u)
{
	if (u->timed_out)
		return false;
	for (uint64_t i = 0;; i++) {
		if ((reg_in(&u->d, UART_LSR) & UART_LSR_THRE) &&
		    (!u->d.rtscts || (reg_in(&u->d, UART_MSR) & UART_MSR_CTS))) {
			u->transmitted = true;
			return true;
		}
		if (i == 0 && u->d.rtscts)
			u->cts_waits++;
		if (!u->transmitted && i >= UART_TX_SPINS)
			break;
		cpu_pause();
	}
	u->timed_out = true;
	return false;
}

void uart_write(struct uart *u, const char *s, size_t n)
{
	if (!u->open)
		return;
	size_t i = 0;
	while (i < n) {
		if (!ready_for_burst(u))
			return;
		for (unsigned room = UART_FIFO_DEPTH; room > 0 && i < n; i++) {
			if (s[i] == '\n') {
				if (room < 2)
					break; /* CR LF go together: wait for the next THRE */
				reg_out(&u->d, UART_THR, '\r');
				room--;
			}
			reg_out(&u->d, UART_THR, (uint8_t)s[i]);
			room--;
		}
	}
}
