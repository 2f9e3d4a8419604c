/* SPDX-License-Identifier: MIT */
/* State of the running kernel that several generic parts read. */
#ifndef KERNEL_KERNEL_H
#define KERNEL_KERNEL_H

#include "kernel/arch_cpu.h"

struct boot_info;

/* The loader's hand-off, validated by kernel_main (never NULL after that). */
const struct boot_info *kernel_boot_info(void);
/* kernel_main only, once it has validated the hand-off. */
void kernel_set_boot_info(const struct boot_info *bi);
/* The word of the last line, "run finished: PASS" (FAIL, SKIP, BAD-INPUT). */
const char *run_status_name(enum run_status status);

#endif
