/* SPDX-License-Identifier: MIT */
/*
 * How a run ends: QEMU's isa-debug-exit device (status becomes QEMU's exit code), halt, or a
 * machine reset. Whatever the mode, the last resort is a halt loop with interrupts off, so a
 * run never returns into nothing or resets silently by accident.
 */
#include "kernel/arch_cpu.h"
#include "arch/x86/cpu/exit.h"
#include "arch/x86/cpu/cpu.h"
#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "kernel/kernel.h"
#include "lib/bits.h"

/* QEMU -device isa-debug-exit,iobase=0xf4,iosize=0x04: writing V exits with (V << 1) | 1. */
#define QEMU_DEBUG_EXIT_PORT 0xf4

/* Reset Control Register of PC chipsets (PIIX/ICH/PCH: I/O port CF9h): full reset. */
#define RESET_CONTROL_PORT 0xcf9
#define RST_CNT_SYS_RST	   BIT(1)
#define RST_CNT_RST_CPU	   BIT(2)
/* 8042 keyboard controller: command port 64h, command FEh pulses the reset line. */
#define KBC_COMMAND_PORT 0x64
#define KBC_PULSE_RESET	 0xfe

static enum exit_mode exit_mode = EXIT_MODE_AUTO;

static unsigned hold_seconds;
static bool (*screen_probe)(void);

void exit_set_screen_probe(bool (*on_screen)(void))
{
	screen_probe = on_screen;
}

void arch_set_exit_mode(enum exit_mode mode)
{
	exit_mode = mode;
}

void arch_set_exit_hold(unsigned seconds)
{
	hold_seconds = seconds;
}

/* Keep the last screen readable before the machine goes away (option screen.hold). */
static void hold_screen(void)
{
	const struct boot_info *bi = kernel_boot_info();
	if (!hold_seconds || !screen_probe || !screen_probe() || !bi || !bi->tsc_hz)
		return;
	uint64_t end = rdtsc() + hold_seconds * bi->tsc_hz;
	while (rdtsc() < end)
		cpu_pause();
}

static bool under_hypervisor(void)
{
	return cpuid(1, 0).ecx & C01_ECX_HYPERVISOR;
}

static _Noreturn void halt_forever(void)
{
	for (;;) {
		cpu_cli();
		cpu_hlt();
	}
}

static _Noreturn void machine_reset(void)
{
	outb(RESET_CONTROL_PORT, RST_CNT_SYS_RST | RST_CNT_RST_CPU);
	outb(KBC_COMMAND_PORT, KBC_PULSE_RESET);
	/* Last resort: a triple fault through an empty IDT. */
	struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} empty = {0, 0};
	__asm__ volatile("lidt %0; int3" : : "m"(empty));
	halt_forever();
}

_Noreturn void arch_exit(enum run_status status)
{
	cpu_cli();
	console_print_exit_note();
	kprintf("%s%s\n", RUN_MARKER, run_status_name(status));
	if (exit_mode != EXIT_MODE_HALT)
		hold_screen();
	switch (exit_mode) {
	case EXIT_MODE_AUTO:
		if (!under_hypervisor())
			break;
		/* A VM: try the exit device; without it the write is ignored and we halt. */
		__attribute__((fallthrough));
	case EXIT_MODE_QEMU:
		outb(QEMU_DEBUG_EXIT_PORT, (uint8_t)status);
		break;
	case EXIT_MODE_RESET:
		machine_reset();
	case EXIT_MODE_HALT:
		break;
	}
	halt_forever();
}
