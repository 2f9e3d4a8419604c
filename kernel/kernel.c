/* SPDX-License-Identifier: MIT */
/* State of the running kernel that several parts read: its own module, below all of them. */
#include "kernel/kernel.h"

static const struct boot_info *boot_info;

const struct boot_info *kernel_boot_info(void)
{
	return boot_info;
}

void kernel_set_boot_info(const struct boot_info *bi)
{
	boot_info = bi;
}
