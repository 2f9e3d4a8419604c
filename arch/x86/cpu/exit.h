/* SPDX-License-Identifier: MIT */
/* How a run ends (exit.c): what it asks of the folders above it, through a hook. */
#ifndef ARCH_X86_CPU_EXIT_H
#define ARCH_X86_CPU_EXIT_H

#include <stdbool.h>

/* Whether the log is on a screen, for option screen.hold (the console's arch_screen_active,
 * wired by arch/x86/arch_init.c: cpu/ calls no console code). Unset: no screen. */
void exit_set_screen_probe(bool (*on_screen)(void));

#endif
