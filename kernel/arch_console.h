/* SPDX-License-Identifier: MIT */
/*
 * The door to the consoles (docs/hardware.md "Consoles"): the serial console, found as the options
 * ask, and the screen. Implemented in arch/x86/console/; kernel/console.c writes through it.
 */
#ifndef KERNEL_ARCH_CONSOLE_H
#define KERNEL_ARCH_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct boot_info;

enum console_source {
	CONSOLE_AUTO, /* config UART, SPCR, DBG2, PCI, legacy COM1-COM4: the first that works */
	CONSOLE_SPCR, /* only what these name */
	CONSOLE_DBG2,
	CONSOLE_PCI,
	CONSOLE_LEGACY,
	CONSOLE_NONE, /* no serial console: screen only */
};

struct console_request {
	uint32_t source;	/* enum console_source */
	uint64_t port, mmio;	/* a UART the config names (0: none) */
	uint32_t stride, width; /* 0: as its source says */
	uint32_t clock;		/* input clock in Hz, 0: as its source says */
	uint32_t baud;
	bool rtscts;
};

enum console_outcome {
	CONSOLE_KEPT,	     /* the early UART (COM1 at 115200) stays */
	CONSOLE_MOVED,	     /* another UART, or another rate: earlier lines not yet on it */
	CONSOLE_ABSENT,	     /* no UART at all */
	CONSOLE_BAD_REQUEST, /* the request cannot be met (err says why; a UART prints it) */
};

/* COM1 at 115200 when a UART answers there: the console until arch_console_setup. */
void arch_console_early(void);
/* Find the console as rq asks, printing each step; err set for CONSOLE_BAD_REQUEST. */
enum console_outcome arch_console_setup(const struct boot_info *bi,
					const struct console_request *rq, char *err,
					size_t err_size);
/* The serial console (nothing when there is none). */
void arch_console_write(const char *s, size_t n);
/* One line for headers: "PCI 00:03.0 1b36:0002 io 0xc000 115200 8N1" or "none". */
void arch_console_describe(char *buf, size_t size);
/* The UEFI GOP framebuffer as a text console; false with the reason when there is none. */
bool arch_screen_init(const struct boot_info *bi, char *why, size_t why_size);
void arch_screen_write(const char *s, size_t n);
bool arch_screen_active(void);

#endif
