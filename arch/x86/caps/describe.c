/* SPDX-License-Identifier: MIT */
/*
 * The banner's one line about the CPU (kernel/arch_cpu.h's arch_describe_cpu): vendor,
 * signature, brand string and hypervisor, from CPUID (SDM Vol. 2A, CPUID: leaves 0, 01H and
 * 80000002H-80000004H; a hypervisor's vendor leaf 40000000H when CPUID.01H:ECX[31] is set).
 */
#include "kernel/arch_cpu.h"
#include "arch/x86/caps/cpu_ident.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/hw/cpuid.h"
#include "lib/fmt.h"
#include "lib/string.h"

static void copy_regs(char *dst, const uint32_t *regs, unsigned n)
{
	memcpy(dst, regs, n * sizeof(uint32_t));
}

void arch_describe_cpu(char *out, size_t size)
{
	struct cpuid_regs v = cpuid(CPUID_LEAF_VENDOR, 0);
	char vendor[13];
	uint32_t vregs[3] = {v.ebx, v.edx, v.ecx}; /* "GenuineIntel" order */
	copy_regs(vendor, vregs, 3);
	vendor[12] = 0;

	struct cpuid_regs one = cpuid(CPUID_LEAF_VERSION, 0);
	struct cpu_signature sig = cpu_signature_decode(one.eax);

	char brand[49] = "";
	if (cpuid(CPUID_LEAF_EXT_MAX, 0).eax >= CPUID_LEAF_BRAND_LAST) {
		for (uint32_t leaf = CPUID_LEAF_BRAND_FIRST; leaf <= CPUID_LEAF_BRAND_LAST;
		     leaf++) {
			struct cpuid_regs b = cpuid(leaf, 0);
			uint32_t r[4] = {b.eax, b.ebx, b.ecx, b.edx};
			copy_regs(brand + 16 * (leaf - CPUID_LEAF_BRAND_FIRST), r, 4);
		}
		brand[48] = 0;
	}
	const char *b = brand;
	while (*b == ' ')
		b++;

	char hv[13] = "none";
	if (one.ecx & C01_ECX_HYPERVISOR) {
		struct cpuid_regs h = cpuid(CPUID_LEAF_HV_VENDOR, 0);
		uint32_t hregs[3] = {h.ebx, h.ecx, h.edx};
		copy_regs(hv, hregs, 3);
		hv[12] = 0;
	}
	fmt_snprintf(out, size,
		     "%s family %#x model %#x stepping %u (signature %#x) \"%s\", hypervisor: %s",
		     vendor, sig.family, sig.model, sig.stepping, one.eax,
		     *b ? b : "no brand string", hv[0] ? hv : "present, unnamed");
}
