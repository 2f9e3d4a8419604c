/* SPDX-License-Identifier: MIT */
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/cpu.h"
#include "kernel/arch_cpu.h"
#include "kernel/console.h"
#include "kernel/memory.h"

extern const char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern const char __data_start[], __kernel_end[], boot_stack_guard[];

static uint64_t root;
static uint64_t nx_bit; /* PTE_NX when EFER.NXE is on, else 0 (the bit is reserved then) */

static uint64_t alloc_table(void *ctx)
{
	(void)ctx;
	return page_alloc(1);
}

static void *identity(void *ctx, uint64_t phys)
{
	(void)ctx;
	return arch_phys_to_virt(phys);
}

static const struct pt_ops kernel_pt_ops = {.alloc_table = alloc_table, .phys_to_virt = identity};

static uint64_t device_or_ram_flags(uint32_t type_is_ram)
{
	return PTE_RW | nx_bit | (type_is_ram ? 0 : PTE_UNCACHED);
}

static bool map_direct_4k(uint64_t chunk, const struct memmap *mm)
{
	for (uint64_t pa = chunk; pa < chunk + PAGE_2M; pa += PAGE_4K) {
		if (pa == 0)
			continue; /* physical page 0 stays absent: a stray 0 + base faults */
		bool ram = memmap_classify(mm, pa, PAGE_4K) == MEMMAP_RAM;
		if (pt_map(&kernel_pt_ops, root, KERNEL_DIRECT_BASE + pa, pa, PAGE_4K,
			   device_or_ram_flags(ram)))
			return false;
	}
	return true;
}

static bool map_direct(uint64_t limit, const struct memmap *mm)
{
	for (uint64_t chunk = 0; chunk < limit; chunk += PAGE_2M) {
		enum memmap_class c = memmap_classify(mm, chunk, PAGE_2M);
		if (chunk == 0 || c == MEMMAP_MIXED) {
			if (!map_direct_4k(chunk, mm))
				return false;
			continue;
		}
		if (pt_map(&kernel_pt_ops, root, KERNEL_DIRECT_BASE + chunk, chunk, PAGE_2M,
			   device_or_ram_flags(c == MEMMAP_RAM)))
			return false;
	}
	return true;
}

static bool map_kernel_range(const struct boot_info *bi, const char *start, const char *end,
			     uint64_t flags)
{
	for (uint64_t va = (uint64_t)start; va < ALIGN_UP((uint64_t)end, PAGE_4K); va += PAGE_4K) {
		if (va == (uint64_t)boot_stack_guard)
			continue; /* a stack overflow faults here instead of corrupting bss */
		uint64_t pa = bi->kernel_phys_base + (va - KERNEL_VIRT_BASE);
		if (pt_map(&kernel_pt_ops, root, va, pa, PAGE_4K, flags))
			return false;
	}
	return true;
}

bool paging_init(const struct boot_info *bi, const struct memmap *mm)
{
	if (cpuid(CPUID_LEAF_EXT_FEATURES, 0).edx & C80000001_EDX_NX) {
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
		nx_bit = PTE_NX;
	}
	/* Below 4 GiB: APs load CR3 from 32-bit code in the trampoline (arch/x86/smp/trampoline.S).
	 */
	root = page_alloc_below(1, PAGE_1G * 4);
	if (!root)
		return false;
	if (!map_direct(bi->identity_limit, mm) ||
	    !map_kernel_range(bi, __text_start, __text_end, 0) ||
	    !map_kernel_range(bi, __rodata_start, __rodata_end, nx_bit) ||
	    !map_kernel_range(bi, __data_start, __kernel_end, PTE_RW | nx_bit))
		return false;
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(root);
	return true;
}

bool paging_nx_enabled(void)
{
	return nx_bit != 0;
}

uint64_t paging_root(void)
{
	return root;
}

bool paging_translate(uint64_t va, uint64_t *pa, uint64_t *flags, uint64_t *size)
{
	return pt_translate(&kernel_pt_ops, root, va, pa, flags, size);
}

bool paging_map_kernel_4k(uint64_t va, uint64_t pa, bool writable)
{
	uint64_t flags = nx_bit | (writable ? PTE_RW : 0);
	if (pt_map(&kernel_pt_ops, root, va, pa, PAGE_4K, flags) != PT_OK)
		return false;
	invlpg(va);
	return true;
}

void *paging_map_mmio(uint64_t pa, uint64_t len)
{
	static uint64_t next = MMIO_VIRT_BASE;
	uint64_t first = ALIGN_DOWN(pa, PAGE_4K), end = ALIGN_UP(pa + len, PAGE_4K);
	if (end <= first || end - first > MMIO_VIRT_BASE + MMIO_VIRT_SIZE - next)
		return NULL;
	uint64_t va = next;
	for (uint64_t p = first; p < end; p += PAGE_4K) {
		if (pt_map(&kernel_pt_ops, root, va + (p - first), p, PAGE_4K,
			   nx_bit | PTE_RW | PTE_UNCACHED) != PT_OK)
			return NULL;
		invlpg(va + (p - first));
	}
	next += end - first;
	return (void *)(va + (pa - first));
}

bool paging_set_identity_exec(uint64_t pa, bool exec)
{
	if (exec)
		return pt_map(&kernel_pt_ops, root, pa, pa, PAGE_4K, 0) == PT_OK;
	if (!pt_unmap_4k(&kernel_pt_ops, root, pa))
		return false;
	invlpg(pa);
	return true;
}

bool paging_map_user_4k(uint64_t va, uint64_t pa, bool writable, bool exec)
{
	uint64_t flags = PTE_US | (writable ? PTE_RW : 0) | (exec ? 0 : nx_bit);
	if (pt_map(&kernel_pt_ops, root, va, pa, PAGE_4K, flags) != PT_OK)
		return false;
	invlpg(va);
	return true;
}

bool paging_map_kernel_text_4k(uint64_t va, uint64_t pa)
{
	if (pt_map(&kernel_pt_ops, root, va, pa, PAGE_4K, 0) != PT_OK)
		return false;
	invlpg(va);
	return true;
}

bool paging_unmap_kernel_4k(uint64_t va)
{
	if (!pt_unmap_4k(&kernel_pt_ops, root, va))
		return false;
	invlpg(va);
	return true;
}
