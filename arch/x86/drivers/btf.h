/* SPDX-License-Identifier: MIT */
/*
 * The BTF driver (arch/x86/drivers/btf.c): single-stepping on branches (SDM Vol. 3B 17.4.3).
 */
#ifndef ARCH_X86_DRIVERS_BTF_H
#define ARCH_X86_DRIVERS_BTF_H

#include <stdint.h>

struct btf_state {
	uint64_t rearm_failed; /* traps after which DEBUGCTL.BTF could not be set again */
};

#endif
