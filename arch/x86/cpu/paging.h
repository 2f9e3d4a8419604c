/* SPDX-License-Identifier: MIT */
#ifndef ARCH_X86_CPU_PAGING_H
#define ARCH_X86_CPU_PAGING_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/boot_info.h"
#include "kernel/memmap.h"

/*
 * Build and load the kernel's own page tables:
 *  - identity map of [0, bi->identity_limit): write-back RAM and uncached device memory
 *    (memmap_classify), RW, NX; page 0 absent to catch NULL dereferences;
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
/* Map a 4 KiB page of kernel text again (read-only, executable) at va -> pa, after
 * paging_unmap_kernel_4k (a workload whose code fetch faults on purpose). */
bool paging_map_kernel_text_4k(uint64_t va, uint64_t pa);
/* Map one user-accessible 4 KiB page (ring 3 workloads). */
bool paging_map_user_4k(uint64_t va, uint64_t pa, bool writable, bool exec);
/* The identity page at pa (a 4 KiB leaf below 2 MiB) becomes read+execute, or back to
 * read+write+NX: the AP trampoline alone needs this. */
bool paging_set_identity_exec(uint64_t pa, bool exec);
/* Translate through the live tables (for self-tests and dumps). */
bool paging_translate(uint64_t va, uint64_t *pa, uint64_t *flags, uint64_t *size);

#endif
