/* SPDX-License-Identifier: MIT */
/* CPU identification from CPUID leaf 01H and the vendor/brand leaves. */
#ifndef ARCH_X86_CAPS_CPU_IDENT_H
#define ARCH_X86_CAPS_CPU_IDENT_H

#include <stdint.h>

struct cpu_signature {
	uint32_t family, model, stepping; /* display values: extended fields folded in */
};

/*
 * CPUID.01H:EAX -> display family/model (SDM Vol. 2A CPUID, "Version Information"):
 * family = base + extended family when base == 0FH; model = (extended model << 4) + base
 * when base family is 06H or 0FH. Pure.
 */
struct cpu_signature cpu_signature_decode(uint32_t eax);

#endif
