/* SPDX-License-Identifier: MIT */
/*
 * Fatal loader errors. The run must end, never hang:
 *  - before ExitBootServices: the message goes to ConOut (serial under OVMF); then, if the
 *    effective `exit` option (config file, overridden by load options) is `qemu`, or `auto`
 *    (the default) under a hypervisor, as the kernel decides, QEMU's
 *    isa-debug-exit device ends the run with status 1 (QEMU exits 3); otherwise, or if that
 *    port is not there, stall 5 s so the message can be read and return to the firmware;
 *  - after an ExitBootServices attempt (firmware console gone, no Stall): the message goes
 *    straight to the COM1 UART, then the QEMU exit as above, else a 5 s TSC wait and a cold
 *    reset through the runtime services.
 */
#include "boot/cpu.h"
#include "boot/loader.h"
#include "boot/text.h"

#define QEMU_EXIT_PORT	  0xf4
#define QEMU_EXIT_FAILURE 1 /* QEMU exits with (1 << 1) | 1 = 3: the runner's FAIL */
#define FAIL_STALL_S	  5
#define US_PER_S	  1000000
#define FAIL_STALL_US	  (FAIL_STALL_S * US_PER_S)

#define COM1_PORT	 0x3f8
#define UART_LSR	 5	       /* line status register offset */
#define UART_LSR_THRE	 0x20	       /* transmit holding register empty */
#define UART_SPIN_LIMIT	 100000	       /* give up on a UART that never drains */
#define LATE_WAIT_CYCLES 5000000000ull /* if the TSC rate is unknown: ~5 s at 1 GHz */
#define HEX_DIGITS_U64	 16
#define NIBBLE_BITS	 4
#define NIBBLE_MASK	 0xf

static int wants_qemu_exit(const struct loader *ld)
{
	if (!ld->bi)
		return 0;
	return exit_option_is_qemu(ld->bi->options, ld->bi->config, cpu_under_hypervisor());
}

void loader_warn(const char *what, EFI_STATUS status)
{
	Print(L"" LOADER_TAG "warning: %a: %r\n", what, status);
}

EFI_STATUS loader_fail(const struct loader *ld, EFI_STATUS status, const char *what)
{
	Print(L"" LOADER_TAG "error: %a: %r (EFI status %lx)\n", what, status, status);
	if (wants_qemu_exit(ld)) {
		Print(L"" LOADER_TAG "exit=qemu: ending QEMU with failure status %d\n",
		      QEMU_EXIT_FAILURE);
		Print(L"%aFAIL\n", RUN_MARKER);
		outb(QEMU_EXIT_PORT, QEMU_EXIT_FAILURE);
	}
	Print(L"" LOADER_TAG "returning to the firmware in %d s\n", FAIL_STALL_S);
	BS->Stall(FAIL_STALL_US);
	return status;
}

static void uart_putc(char c)
{
	for (unsigned i = 0; i < UART_SPIN_LIMIT && !(inb(COM1_PORT + UART_LSR) & UART_LSR_THRE);
	     i++)
		cpu_pause();
	outb(COM1_PORT, (uint8_t)c);
}

static void uart_puts(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			uart_putc('\r');
		uart_putc(*s);
	}
}

static void uart_hex(uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[sizeof("0x") - 1 + HEX_DIGITS_U64 + 1] = "0x";
	char *p = buf + sizeof("0x") - 1;
	for (int shift = 64 - NIBBLE_BITS; shift >= 0; shift -= NIBBLE_BITS)
		*p++ = digits[(v >> shift) & NIBBLE_MASK];
	*p = '\0';
	uart_puts(buf);
}

void loader_fail_late(const struct loader *ld, EFI_STATUS status, const char *what)
{
	__asm__ volatile("cli");
	uart_puts("\n" LOADER_TAG "error after ExitBootServices was attempted: ");
	uart_puts(what);
	uart_puts(" (EFI status ");
	uart_hex(status);
	uart_puts(")\n");
	if (wants_qemu_exit(ld)) {
		uart_puts(LOADER_TAG "exit=qemu: ending QEMU with failure status 1\n");
		uart_puts(RUN_MARKER "FAIL\n");
		outb(QEMU_EXIT_PORT, QEMU_EXIT_FAILURE);
	}
	uart_puts(LOADER_TAG "boot services are gone: resetting in 5 s\n");
	uint64_t hz = ld->bi && ld->bi->tsc_hz ? ld->bi->tsc_hz : 0;
	uint64_t wait = hz ? hz * FAIL_STALL_S : LATE_WAIT_CYCLES;
	for (uint64_t t0 = rdtsc(); rdtsc() - t0 < wait;)
		cpu_pause();
	RT->ResetSystem(EfiResetCold, status, 0, NULL);
	for (;;) /* ResetSystem does not return; if it did, stop here rather than run on */
		__asm__ volatile("cli; hlt");
}
