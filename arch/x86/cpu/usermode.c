/* SPDX-License-Identifier: MIT */
/*
 * Ring 3 for workloads. SYSCALL/SYSRET (SDM Vol. 3A 5.8.8): IA32_STAR[47:32] is the SYSCALL
 * CS (SS = CS + 8); IA32_STAR[63:48] + 16 / + 8 are SYSRET's 64-bit CS / SS, which is why the
 * GDT orders user data before user code (arch/x86/cpu/desc.h). IA32_FMASK clears TF, IF, DF and AC
 * (as Linux's syscall_init does): a program's own TF does not step the kernel; the system call
 * runs with interrupts off (the watchdog ends a run in ring 3 only, arch/x86/user/run.c). The
 * single-step engine follows the program into ring 0 all the same (arch/x86/step/singlestep.c
 * lifts FMASK's TF for the one SYSCALL it steps).
 */
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/hw/cpuid.h"
#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "kernel/memory.h"
#include "lib/elf_user.h"
#include "lib/string.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_user.h"

static uint64_t lstar; /* usermode_init's syscall_entry, for every CPU */

bool usermode_smap;
static bool usermode_smep;

/* SMEP and SMAP where the CPU has them (CPUID.07H.0:EBX[7] and [20]), on this CPU. */
static void protect_from_user(void)
{
	struct cpuid_regs max = cpuid(CPUID_LEAF_VENDOR, 0);
	uint32_t ebx = max.eax >= CPUID_LEAF_EXT_FEAT ? cpuid(CPUID_LEAF_EXT_FEAT, 0).ebx : 0;
	uint64_t cr4 = read_cr4();
	if (ebx & C07_EBX_SMEP)
		cr4 |= CR4_SMEP;
	if (ebx & C07_EBX_SMAP)
		cr4 |= CR4_SMAP;
	write_cr4(cr4);
	usermode_smep = ebx & C07_EBX_SMEP;
	usermode_smap = ebx & C07_EBX_SMAP;
}

uint64_t usermode_xcr0;

/*
 * The vector registers a program compiled for this CPU may use (-msse4.2, -mavx2, -march=native):
 * SSE by CR4.OSFXSR/OSXMMEXCPT with CR0.EM clear and CR0.MP set (SDM Vol. 3A 9.6, "Initializing
 * SSE/SSE2/SSE3/SSSE3 Extensions"); AVX and AVX-512 by CR4.OSXSAVE and XCR0 where CPUID.01H:ECX
 * and leaf 0DH say the processor has them (SDM Vol. 1 13.3, 14.3). The kernel itself never
 * touches them (-mgeneral-regs-only), so a program's vector state is its own for the run.
 */
static void enable_vector_state(void)
{
	write_cr0((read_cr0() & ~CR0_EM) | CR0_MP);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	struct cpuid_regs l1 = cpuid(CPUID_LEAF_VERSION, 0);
	uint32_t max = cpuid(CPUID_LEAF_VENDOR, 0).eax;
	usermode_xcr0 = 0;
	if (!(l1.ecx & C01_ECX_XSAVE) || max < CPUID_LEAF_XSAVE)
		return;
	uint64_t supported = cpuid(CPUID_LEAF_XSAVE, 0).eax;
	uint64_t xcr0 = XCR0_X87 | XCR0_SSE;
	if ((l1.ecx & C01_ECX_AVX) && (supported & XCR0_AVX)) {
		xcr0 |= XCR0_AVX;
		if ((supported & XCR0_AVX512) == XCR0_AVX512)
			xcr0 |= XCR0_AVX512;
	}
	write_cr4(read_cr4() | CR4_OSXSAVE);
	__asm__ volatile("xsetbv" : : "c"(0), "a"((uint32_t)xcr0), "d"((uint32_t)(xcr0 >> 32)));
	usermode_xcr0 = xcr0;
}

void usermode_init_cpu(void)
{
	protect_from_user();
	enable_vector_state();
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* SYSRET: CS = base + 16 = user code, SS = base + 8 = user data (RPL 3 forced). */
	wrmsr(MSR_STAR, STAR_SYSCALL_CS(SEL_KERNEL_CODE) | STAR_SYSRET_BASE(SEL_KERNEL_DATA));
	wrmsr(MSR_LSTAR, lstar);
	wrmsr(MSR_FMASK, RFLAGS_TF | RFLAGS_IF | RFLAGS_DF | RFLAGS_AC);
}

bool usermode_init(uint64_t kernel_phys_base, const void *syscall_entry, const void *roundtrip_page)
{
	lstar = (uint64_t)syscall_entry;
	usermode_init_cpu();
	uint64_t code_pa = kernel_phys_base + ((uint64_t)roundtrip_page - KERNEL_VIRT_BASE);
	uint64_t stack_pa = page_alloc(1);
	if (!stack_pa || !paging_map_user_4k(USER_CODE_VA, code_pa, false, true) ||
	    !paging_map_user_4k(USER_STACK_VA, stack_pa, true, false)) {
		kprintf("error: cannot map the ring 3 workload pages\n");
		return false;
	}
	kprintf("usermode: SMEP %s, SMAP %s (CPUID.07H.0:EBX[7], [20]); vector state for programs: "
		"SSE%s%s (XCR0 %#lx)\n",
		usermode_smep ? "on" : "not on this CPU", usermode_smap ? "on" : "not on this CPU",
		usermode_xcr0 & XCR0_AVX ? ", AVX" : "",
		(usermode_xcr0 & XCR0_AVX512) == XCR0_AVX512 ? ", AVX-512" : "", usermode_xcr0);
	return true;
}

/* The bytes page `va` of segment s holds: the file's where the segment has them, else 0. */
static void fill_page(const struct elf_user_image *img, const struct elf_user_segment *s,
		      uint64_t va, uint8_t *page)
{
	memset(page, 0, ELF_USER_PAGE);
	uint64_t file_lo = s->vaddr, file_hi = s->vaddr + s->filesz;
	uint64_t lo = va > file_lo ? va : file_lo;
	uint64_t hi = va + ELF_USER_PAGE < file_hi ? va + ELF_USER_PAGE : file_hi;
	if (lo < hi)
		memcpy(page + (lo - va), img->elf.data + s->offset + (lo - s->vaddr), hi - lo);
}

static uint64_t page_down(uint64_t x)
{
	return x & ~(ELF_USER_PAGE - 1);
}

/* Through the kernel's direct map of the page behind va (the user mapping may be read-only). */
static uint8_t *page_of(uint64_t va)
{
	uint64_t pa, flags, size;
	return paging_translate(va, &pa, &flags, &size) ? arch_phys_to_virt(page_down(pa)) : NULL;
}

/* A PIE relocation's 8 bytes, through the direct map (they may straddle two pages). */
static void write_user_u64(void *ctx, uint64_t va, uint64_t value)
{
	(void)ctx;
	for (unsigned i = 0; i < sizeof(value); i++) {
		uint8_t *page = page_of(va + i);
		if (page)
			page[(va + i) & (ELF_USER_PAGE - 1)] = (uint8_t)(value >> (8 * i));
	}
}

bool arch_user_program_map(const struct elf_user_image *img, uint64_t stack_top,
			   uint64_t stack_pages)
{
	for (unsigned i = 0; i < img->n; i++) {
		const struct elf_user_segment *s = &img->seg[i];
		for (uint64_t va = page_down(s->vaddr); va < s->vaddr + s->memsz;
		     va += ELF_USER_PAGE) {
			uint64_t pa = page_alloc(1);
			if (!pa || !paging_map_user_4k(va, pa, s->write, s->exec)) {
				kprintf("error: program: no memory or no mapping for page %#lx\n",
					va);
				return false;
			}
			fill_page(img, s, va, arch_phys_to_virt(pa));
		}
	}
	/* The stack, with an unmapped guard page below it (a run-away push faults). */
	for (uint64_t k = 1; k <= stack_pages; k++) {
		uint64_t pa = page_alloc(1);
		if (!pa || !paging_map_user_4k(stack_top - k * ELF_USER_PAGE, pa, true, false)) {
			kprintf("error: program: no memory for its stack\n");
			return false;
		}
		memset(arch_phys_to_virt(pa), 0, ELF_USER_PAGE);
	}
	elf_user_relocate(img, write_user_u64, NULL);
	return true;
}

void arch_user_program_reset(const struct elf_user_image *img, uint64_t stack_top,
			     uint64_t stack_pages)
{
	for (unsigned i = 0; i < img->n; i++) {
		const struct elf_user_segment *s = &img->seg[i];
		for (uint64_t va = page_down(s->vaddr); s->write && va < s->vaddr + s->memsz;
		     va += ELF_USER_PAGE) {
			uint8_t *page = page_of(va);
			if (page)
				fill_page(img, s, va, page);
		}
	}
	for (uint64_t k = 1; k <= stack_pages; k++) {
		uint8_t *page = page_of(stack_top - k * ELF_USER_PAGE);
		if (page)
			memset(page, 0, ELF_USER_PAGE);
	}
	elf_user_relocate(img, write_user_u64, NULL);
}

bool arch_user_region_map(uint64_t lo, uint64_t pages)
{
	for (uint64_t k = 0; k < pages; k++) {
		uint64_t pa = page_alloc(1); /* zeroed */
		if (!pa || !paging_map_user_4k(lo + k * ELF_USER_PAGE, pa, true, false)) {
			kprintf(
			    "error: program: no memory for page %#lx of its heap or mmap arena\n",
			    (unsigned long)(lo + k * ELF_USER_PAGE));
			return false;
		}
	}
	return true;
}

void arch_user_region_zero(uint64_t lo, uint64_t hi)
{
	for (uint64_t va = page_down(lo); va < hi; va += ELF_USER_PAGE) {
		uint8_t *page = page_of(va);
		if (page)
			memset(page, 0, ELF_USER_PAGE);
	}
}

bool arch_user_copy_out(uint64_t va, const void *src, uint64_t len)
{
	const uint8_t *s = src;
	for (uint64_t i = 0; i < len; i++) {
		uint8_t *page = page_of(va + i);
		if (!page)
			return false;
		page[(va + i) & (ELF_USER_PAGE - 1)] = s[i];
	}
	return true;
}
