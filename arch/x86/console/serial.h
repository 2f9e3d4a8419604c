/* SPDX-License-Identifier: MIT */
/* The serial console's UART, chosen by discover.c, written by serial.c. */
#ifndef ARCH_X86_CONSOLE_SERIAL_H
#define ARCH_X86_CONSOLE_SERIAL_H

#include "arch/x86/console/uart16550.h"

#define SERIAL_COM1_PORT 0x3f8

extern struct uart console_uart;

#endif
