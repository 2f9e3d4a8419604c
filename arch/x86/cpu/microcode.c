/* SPDX-License-Identifier: MIT */
/*
 * The running CPU's microcode revision, for the hardware report. SDM Vol. 3A 9.11.7.1: "write
 * all 0s ... to the IA32_BIOS_SIGN_ID MSR, execute the CPUID instruction with EAX = 1" and read
 * the MSR: the signature is in bits 63:32. The accesses are guarded: a hypervisor may refuse
 * them (#GP); QEMU's TCG reads 0.
 */
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/microcode.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/hw/cpuid.h"
#include "arch/x86/hw/msr.h"
#include "kernel/arch_cpu.h"

#define BIOS_SIGN_ID_REV_SHIFT 32

static void read_signature(void *arg)
{
	uint64_t *v = arg;
	wrmsr(MSR_IA32_BIOS_SIGN_ID, 0);
	(void)cpuid(CPUID_LEAF_VERSION, 0);
	*v = rdmsr(MSR_IA32_BIOS_SIGN_ID);
}

bool cpu_microcode_revision(uint32_t *rev)
{
	uint64_t v = 0;
	struct caught_exception e;
	if (arch_catch_exception(VEC_GP, read_signature, &v, &e))
		return false;
	*rev = (uint32_t)(v >> BIOS_SIGN_ID_REV_SHIFT);
	return true;
}
