/* SPDX-License-Identifier: MIT */
/* The kernel's acpi_map_fn: ACPI tables are reached through the direct map (paging.c),
 * which covers [0, boot_info.identity_limit); anything beyond it is refused, never touched. */
#include "arch/x86/smp/acpi.h"
#include "kernel/arch_cpu.h"
#include "kernel/boot_info.h"
#include "kernel/kernel.h"

const void *acpi_map_kernel(uint64_t phys, size_t len)
{
	const struct boot_info *bi = kernel_boot_info();
	if (phys >= bi->identity_limit || len > bi->identity_limit - phys)
		return NULL;
	return arch_phys_to_virt(phys);
}
