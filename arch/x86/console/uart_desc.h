/* SPDX-License-Identifier: MIT */
/*
 * What the kernel knows about a serial console UART, whichever source described it (the config,
 * ACPI SPCR or DBG2, a PCI function, a legacy COM port): one struct the 16550 driver opens.
 */
#ifndef ARCH_X86_CONSOLE_UART_DESC_H
#define ARCH_X86_CONSOLE_UART_DESC_H

#include <stdbool.h>
#include <stdint.h>

enum uart_space {
	UART_SPACE_NONE = 0,
	UART_SPACE_IO = 1,   /* x86 port I/O: IN/OUT */
	UART_SPACE_MMIO = 2, /* memory-mapped registers */
};

#define UART_STD_CLOCK	  1843200u /* PC UART crystal: 115200 baud at divisor 1 (x16) */
#define UART_SOURCE_LEN	  40
#define UART_DEFAULT_BAUD 115200u

struct uart_desc {
	uint8_t space;	/* enum uart_space */
	uint8_t stride; /* bytes between two registers: 1 or 4 */
	uint8_t width;	/* bits per register access: 8 or 32 */
	bool lpss;	/* Intel LPSS UART: clock and reset registers at base + LPSS_PRIV_OFFSET */
	bool rtscts;	/* transmit only while CTS is asserted */
	bool pci;	/* found as (or named by the table as) a PCI function */
	uint8_t pci_bus, pci_dev, pci_fn;
	uint16_t pci_vendor, pci_device;
	uint64_t base;		      /* port number or physical address */
	uint32_t clock;		      /* input clock in Hz (16 x baud x divisor) */
	uint32_t baud;		      /* 0: keep the divisor the firmware left */
	char source[UART_SOURCE_LEN]; /* where it came from: "SPCR", "PCI 00:03.0", "COM1"... */
};

#endif
