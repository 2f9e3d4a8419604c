/* SPDX-License-Identifier: MIT */
/* The "user" workload, for the architecture's workload table (arch/x86/workloads/table.c). */
#ifndef ARCH_X86_USER_ROUNDTRIP_H
#define ARCH_X86_USER_ROUNDTRIP_H

#include <stdint.h>
#include "kernel/arch_workloads.h"

/* The ring 3 <-> ring 0 round-trip workload: n SYSCALL/SYSRET pairs from ring 3, entered with
 * IRETQ and left through a final SYSCALL; returns n (entry.S). */
uint64_t arch_user_roundtrip(uint64_t n);
/* Its branch signature, from entry.S (run.c). */
void arch_user_roundtrip_signature(uint64_t n, struct workload_signature *s);

#endif
