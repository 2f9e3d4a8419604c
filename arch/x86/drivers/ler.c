/* SPDX-License-Identifier: MIT */
#include "arch/x86/drivers/ler.h"
#include "arch/x86/hw/msr.h"
#include "arch/x86/pmu/access.h"

enum status ler_read(uint64_t *from, uint64_t *to, uint32_t *msr)
{
	*from = *to = 0;
	enum status st = pmu_rdmsr(MSR_LER_FROM, from);
	*msr = MSR_LER_FROM;
	if (st == STATUS_OK) {
		st = pmu_rdmsr(MSR_LER_TO, to);
		*msr = MSR_LER_TO;
	}
	return st;
}
