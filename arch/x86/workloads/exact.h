/* SPDX-License-Identifier: MIT */
#ifndef ARCH_X86_WORKLOADS_EXACT_H
#define ARCH_X86_WORKLOADS_EXACT_H

#include <stdbool.h>

struct trap_frame;

/* The exceptions the exactness workload takes on purpose (exact.S): true if handled. */
bool exact_fixup(struct trap_frame *f);

#endif
