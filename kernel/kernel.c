/* SPDX-License-Identifier: MIT */
/* State of the running kernel that several parts read: its own module, below all of them. */
#include "kernel/kernel.h"
#include "kernel/arch_cpu.h"

static const struct boot_info *boot_info;

const struct boot_info *kernel_boot_info(void)
{
	return boot_info;
}

void kernel_set_boot_info(const struct boot_info *bi)
{
	boot_info = bi;
}

static const char *const status_names[] = {
    [RUN_PASS] = "PASS",
    [RUN_FAIL] = "FAIL",
    [RUN_SKIP] = "SKIP",
    [RUN_BAD_CONFIG] = "BAD-INPUT",
    [RUN_INCOMPLETE] = "INCOMPLETE",
};

const char *run_status_name(enum run_status status)
{
	return (unsigned)status < sizeof(status_names) / sizeof(status_names[0])
		   ? status_names[status]
		   : "FAIL";
}
