/* SPDX-License-Identifier: MIT */
/*
 * The console UART the firmware describes in ACPI: the Serial Port Console Redirection table
 * (SPCR, Microsoft "Serial Port Console Redirection Table" revisions 1-4) and the Debug Port
 * Table 2 (DBG2, Microsoft "ACPI Debug Port Table"). Pure: the caller finds and checks the table
 * (acpi_find_sdt) and these decode it, so host tests feed recorded tables.
 */
#ifndef ARCH_X86_CONSOLE_ACPI_CONSOLE_H
#define ARCH_X86_CONSOLE_ACPI_CONSOLE_H

#include <stddef.h>
#include "arch/x86/console/uart_desc.h"

/* A checked SPCR (length and checksum already verified) into d; false with the reason. */
bool acpi_spcr_uart(const void *spcr, struct uart_desc *d, char *why, size_t why_size);
/* The first 16550-family serial port of a checked DBG2 into d; false with the reason. */
bool acpi_dbg2_uart(const void *dbg2, struct uart_desc *d, char *why, size_t why_size);

#endif
