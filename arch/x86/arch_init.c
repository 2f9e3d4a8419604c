/* SPDX-License-Identifier: MIT */
/* The architecture half of bring-up, and CPU description for the banner. */
#include "kernel/arch.h"
#include "kernel/console.h"
#include "arch/x86/cpu.h"
#include "arch/x86/cpu_ident.h"
#include "arch/x86/desc.h"
#include "arch/x86/paging.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define CPUID_VENDOR	       0x00000000u
#define CPUID_VERSION	       0x00000001u
#define CPUID_EXT_MAX	       0x80000000u
#define CPUID_BRAND_FIRST      0x80000002u
#define CPUID_BRAND_LAST       0x80000004u
#define CPUID_1_ECX_HYPERVISOR BIT(31)
#define CPUID_HV_VENDOR	       0x40000000u

void *arch_phys_to_virt(uint64_t phys)
{
	return (void *)phys; /* identity map (arch/x86/paging.c) */
}

uint64_t arch_timestamp(void)
{
	return rdtsc();
}

bool arch_init(const struct boot_info *bi, const struct memmap *mm)
{
	gdt_init();
	idt_init();
	if (!paging_init(bi, mm)) {
		kprintf("error: out of memory building the kernel page tables\n");
		return false;
	}
	return true;
}

static void copy_regs(char *dst, const uint32_t *regs, unsigned n)
{
	memcpy(dst, regs, n * sizeof(uint32_t));
}

void arch_describe_cpu(char *out, size_t size)
{
	struct cpuid_regs v = cpuid(CPUID_VENDOR, 0);
	char vendor[13];
	uint32_t vregs[3] = {v.ebx, v.edx, v.ecx}; /* "GenuineIntel" order */
	copy_regs(vendor, vregs, 3);
	vendor[12] = 0;

	struct cpuid_regs one = cpuid(CPUID_VERSION, 0);
	struct cpu_signature sig = cpu_signature_decode(one.eax);

	char brand[49] = "";
	if (cpuid(CPUID_EXT_MAX, 0).eax >= CPUID_BRAND_LAST) {
		for (uint32_t leaf = CPUID_BRAND_FIRST; leaf <= CPUID_BRAND_LAST; leaf++) {
			struct cpuid_regs b = cpuid(leaf, 0);
			uint32_t r[4] = {b.eax, b.ebx, b.ecx, b.edx};
			copy_regs(brand + 16 * (leaf - CPUID_BRAND_FIRST), r, 4);
		}
		brand[48] = 0;
	}
	const char *b = brand;
	while (*b == ' ')
		b++;

	char hv[13] = "none";
	if (one.ecx & CPUID_1_ECX_HYPERVISOR) {
		struct cpuid_regs h = cpuid(CPUID_HV_VENDOR, 0);
		uint32_t hregs[3] = {h.ebx, h.ecx, h.edx};
		copy_regs(hv, hregs, 3);
		hv[12] = 0;
	}
	fmt_snprintf(out, size,
		     "%s family %#x model %#x stepping %u (signature %#x) \"%s\", hypervisor: %s",
		     vendor, sig.family, sig.model, sig.stepping, one.eax,
		     *b ? b : "no brand string", hv[0] ? hv : "present, unnamed");
}
