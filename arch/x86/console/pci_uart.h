/* SPDX-License-Identifier: MIT */
/*
 * Serial controllers on PCI: 16550-compatible functions (class 07h, subclass 00h, programming
 * interface 02h-06h: PCI Code and ID Assignment Specification, "Simple Communication
 * Controllers") and the Intel LPSS UARTs, which show no such class and are known by device ID.
 * Configuration space through the PC's port-I/O mechanism #1 (0xCF8/0xCFC, PCI Local Bus 3.0,
 * 3.2.2.3.2), which reaches offsets below 256 of every bus: all this needs.
 */
#ifndef ARCH_X86_CONSOLE_PCI_UART_H
#define ARCH_X86_CONSOLE_PCI_UART_H

#include "arch/x86/console/uart_desc.h"

#define PCI_UARTS_MAX 8

struct pci_uart_scan {
	unsigned found;	  /* UARTs described in uarts[] */
	unsigned skipped; /* serial functions not usable (no BAR, another interface, beyond max) */
	unsigned functions; /* PCI functions seen */
	struct uart_desc uarts[PCI_UARTS_MAX];
};

/* Walk every bus; decode enabled I/O or memory BARs; enable the function's decoding. */
void pci_uart_scan(struct pci_uart_scan *s);
/* The LPSS input clock for an Intel device ID (Hz), 0 if it is not an LPSS UART. */
uint32_t lpss_uart_clock(uint16_t vendor, uint16_t device);

#endif
