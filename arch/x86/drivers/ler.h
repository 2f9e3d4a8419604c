/* SPDX-License-Identifier: MIT */
/*
 * The last exception record (MSR_LER_FROM_IP / MSR_LER_TO_IP, SDM Vol. 3B 17.4.8.3 and the
 * per-family LBR sections): the branch that led to the most recent exception or interrupt, read
 * after a BTS or LBR session and at every exception a workload takes.
 */
#ifndef ARCH_X86_DRIVERS_LER_H
#define ARCH_X86_DRIVERS_LER_H

#include <stdint.h>
#include "lib/status.h"

/* Both MSRs; the refused one in *msr. */
enum status ler_read(uint64_t *from, uint64_t *to, uint32_t *msr);

#endif
