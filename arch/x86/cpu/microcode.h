/* SPDX-License-Identifier: MIT */
#ifndef ARCH_X86_CPU_MICROCODE_H
#define ARCH_X86_CPU_MICROCODE_H

#include <stdbool.h>
#include <stdint.h>

/* The running CPU's microcode revision (IA32_BIOS_SIGN_ID[63:32]); false if the MSR faulted. */
bool cpu_microcode_revision(uint32_t *rev);

#endif
