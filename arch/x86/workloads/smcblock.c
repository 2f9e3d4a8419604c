/* SPDX-License-Identifier: MIT */
/*
 * The memory of the workloads of code that changes under per-block stepping
 * (arch/x86/workloads/smcblock.S) and their branch signatures, worked out from the source's
 * counting comments.
 *
 * Their code (smcw_page0 .. smcw_end, kernel text, read-only) is written through two aliases of
 * its physical pages: the direct map (smcw_dmap, added to a code address) and a window of the
 * workloads' own (smcw_own), writable, not executable; beside it a data page mapped twice, at
 * SMCW_DATA and SMCW_DATA + 4 KiB, the aliasing loops' counters. Before every run (each session
 * runs the same code: ss, BTS, LBR) the reset maps what is not mapped yet and puts back every
 * code byte that differs from the code as it was at the first reset, before any of them ran.
 * A window address taken by another mapping leaves the workloads unready: they return 0 and
 * fail their sessions.
 */
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/workloads/workloads.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_workloads.h"
#include "kernel/memory.h"

/* smcblock.S's window: the data page twice, then the code's pages. */
#define SMCW_WIN       0x00007f0000400000ull
#define SMCW_DATA      SMCW_WIN
#define SMCW_CODE      (SMCW_WIN + 2 * PAGE_4K) /* smcblock.S's SMCW_CODE_OFF */
#define SMCW_MAX_PAGES 2			/* of code */

extern const char smcw_page0[], smcw_end[];
extern const char arch_wl_smcblock_end[], arch_wl_smcloop_end[], arch_wl_smcjcc32_end[];
extern const char arch_wl_aliasctr_end[], arch_wl_aliascode_end[], arch_wl_aliasdata_end[];

/* Read by smcblock.S. */
uint64_t smcw_dmap, smcw_own;
uint8_t smcw_ready;

static uint8_t pristine[SMCW_MAX_PAGES * PAGE_4K]; /* the code before any run */
static bool have_pristine;
static uint64_t data_pa;

/* va mapped onto pa, writable: true where it already is. */
static bool map_once(uint64_t va, uint64_t pa)
{
	uint64_t now, flags, size;
	if (paging_translate(va, &now, &flags, &size))
		return now == pa && (flags & PTE_RW);
	return paging_map_kernel_4k(va, pa, true);
}

/* The code's first physical page: its pages contiguous (the kernel image is), or 0. */
static uint64_t code_pa(uint64_t pages)
{
	uint64_t pa0 = 0, pa, flags, size;
	for (uint64_t i = 0; i < pages; i++) {
		if (!paging_translate((uint64_t)smcw_page0 + i * PAGE_4K, &pa, &flags, &size) ||
		    (i && pa != pa0 + i * PAGE_4K))
			return 0;
		if (!i)
			pa0 = pa;
	}
	return pa0;
}

void arch_smcw_reset(void)
{
	uint64_t bytes = (uint64_t)(smcw_end - smcw_page0);
	uint64_t pages = (bytes + PAGE_4K - 1) / PAGE_4K, pa0 = code_pa(pages);
	smcw_ready = 0;
	if (!data_pa)
		data_pa = page_alloc(1);
	if (pages > SMCW_MAX_PAGES || !pa0 || !data_pa || !map_once(SMCW_DATA, data_pa) ||
	    !map_once(SMCW_DATA + PAGE_4K, data_pa))
		return;
	for (uint64_t i = 0; i < pages; i++)
		if (!map_once(SMCW_CODE + i * PAGE_4K, pa0 + i * PAGE_4K))
			return;
	smcw_dmap = (uint64_t)arch_phys_to_virt(pa0) - (uint64_t)smcw_page0;
	smcw_own = SMCW_CODE - (uint64_t)smcw_page0;
	volatile uint8_t *code = arch_phys_to_virt(pa0);
	if (!have_pristine) {
		for (uint64_t i = 0; i < bytes; i++)
			pristine[i] = code[i];
		have_pristine = true;
	}
	for (uint64_t i = 0; i < bytes; i++)
		if (code[i] != pristine[i])
			code[i] = pristine[i];
	volatile uint64_t *data = arch_phys_to_virt(data_pa);
	for (unsigned i = 0; i < PAGE_4K / sizeof(uint64_t); i++)
		data[i] = 0;
	smcw_ready = 1;
}

/* From smcblock.S's comments: its instructions and taken branches, by class (the JMPs written
 * over NOPs and TESTs are deliveries apart to the self-check: not counted). */
void arch_wl_smcblock_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_wl_smcblock, arch_wl_smcblock_end);
	/* a pass: A 11, B 9, C 10, D 9, E 19, F 9, G 9, H 11, J 10, I 9 */
	s->instructions = 12 + 2 * 106 + 7;
	s->taken[WL_JMP] = 2 * (1 + 1 + 1 + 1 + 1 + 2 + 1 + 3 + 1); /* A-E, F, G, H, I */
	s->taken[WL_COND] = 2 * 1 + 1;				    /* G's JE; the pass loop */
	s->taken[WL_RET] = 1;
}

void arch_wl_smcloop_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_wl_smcloop, arch_wl_smcloop_end);
	s->instructions = 36 + (9 + 7 * 8) + (12 + 5 * 11) + 11 * 8 + (3 * 6 + 3 * 5);
	s->taken[WL_JMP] = 4;
	s->taken[WL_COND] = 7 + 5 + 10 + 5;
	s->taken[WL_RET] = 1;
}

void arch_wl_smcjcc32_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_wl_smcjcc32, arch_wl_smcjcc32_end);
	s->instructions = 22 + 4 * 5 + 5 + (17 + 17 + 16 + 17) + 5;
	s->taken[WL_CALL] = 4;
	s->taken[WL_RET] = 4 + 1;
	s->taken[WL_COND] = 3 + 3 + 3;
	s->taken[WL_JMP] = 4 * 2 + 3;
}

void arch_wl_aliasctr_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_wl_aliasctr, arch_wl_aliasctr_end);
	s->instructions = 23 + 10 * 5 + 8 * 5 + 10 * 5 + 6 * 8 + 5 * 7 + 4 * 5;
	s->taken[WL_JMP] = 6;
	s->taken[WL_COND] = 9 + 7 + 9 + 5 + 4 + 3;
	s->taken[WL_RET] = 1;
}

void arch_wl_aliascode_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_wl_aliascode, arch_wl_aliascode_end);
	s->instructions = 10 + (9 + 7 * 8) + 2;
	s->taken[WL_JMP] = 1;
	s->taken[WL_COND] = 7;
	s->taken[WL_RET] = 1;
}

void arch_wl_aliasdata_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_wl_aliasdata, arch_wl_aliasdata_end);
	s->instructions = 9 + 40 * 5 + 4;
	s->taken[WL_JMP] = 1;
	s->taken[WL_COND] = 39;
	s->taken[WL_RET] = 1;
}
