/* SPDX-License-Identifier: MIT */
#ifndef ARCH_X86_CPU_PAGING_H
#define ARCH_X86_CPU_PAGING_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/boot_info.h"
#include "kernel/memmap.h"

/*
 * Build and load the kernel's own page tables:
 *  - the direct map: [0, bi->identity_limit) at KERNEL_DIRECT_BASE (arch_phys_to_virt):
 *    write-back RAM and uncached device memory (memmap_classify), RW, NX; physical page 0
 *    absent. No identity map: the lower half is the user program's (kernel/program.h),
 *    empty otherwise, so a NULL dereference faults;
 *  - the kernel image at KERNEL_VIRT_BASE with W^X: text R+X, rodata R+NX, data/bss RW+NX,
 *    and the boot stack's guard page absent.
 * Sets IA32_EFER.NXE when CPUID says NX exists and CR0.WP. Returns false on allocation failure.
 */
bool paging_init(const struct boot_info *bi, const struct memmap *mm);
bool paging_nx_enabled(void);
uint64_t paging_root(void);
/* Map one kernel-virtual 4 KiB page (stacks, per-CPU areas), not executable. */
bool paging_map_kernel_4k(uint64_t va, uint64_t pa, bool writable);
/* Remove a 4 KiB mapping made with paging_map_kernel_4k (the page is not freed). */
bool paging_unmap_kernel_4k(uint64_t va);
/* Device registers at [pa, pa + len): mapped uncached, writable, not executable, in a window of
 * their own (MMIO_VIRT_BASE, 4 GiB), wherever the physical address is (a 64-bit BAR above the
 * identity map). Returns the virtual address of pa, or NULL when the window or memory for the
 * tables runs out. */
#define MMIO_VIRT_BASE 0xfffffffe00000000ull
#define MMIO_VIRT_SIZE (4ull << 30)
void *paging_map_mmio(uint64_t pa, uint64_t len);
/* Map a 4 KiB page of kernel text again (read-only, executable) at va -> pa, after
 * paging_unmap_kernel_4k (a workload whose code fetch faults on purpose). */
bool paging_map_kernel_text_4k(uint64_t va, uint64_t pa);
/* Map one user-accessible 4 KiB page (ring 3 workloads). */
bool paging_map_user_4k(uint64_t va, uint64_t pa, bool writable, bool exec);
/* The identity page at pa (below 1 MiB) mapped read+execute, or unmapped again: the AP
 * trampoline alone needs it, while the APs start (arch/x86/smp/smp.c). */
bool paging_set_identity_exec(uint64_t pa, bool exec);
/* Translate through the live tables (for self-tests and dumps). */
bool paging_translate(uint64_t va, uint64_t *pa, uint64_t *flags, uint64_t *size);

#endif
