/* SPDX-License-Identifier: MIT */
/*
 * What the single-step engine may read of the workload's code without faulting (issue 34,
 * class 3). The engine decodes the instruction at the address a trap lands on before it runs;
 * that address is the workload's: it may lie on a page that is not present (code falling
 * through or branching onto it), run from a present page onto an absent one, or be
 * non-canonical. Such a fetch faults for the workload, after the single-step trap of the
 * instruction before it (SDM Vol. 3A 6.9: the trap of the previous instruction is serviced
 * before the fetch of the next faults); the engine itself must never fault on it. So before it
 * reads, it walks the paging structures CR3 names (SDM Vol. 3A 4.5, Tables 4-14 to 4-20: P in
 * every entry on the way, a PS leaf ends the walk) and reads only the bytes that lie on
 * present pages.
 */
#include "arch/x86/spmu/singlestep.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/trap.h"
#include "kernel/arch_cpu.h"
#include "lib/x86_decode.h"

#define LEVELS		4  /* 4-level paging (SDM Vol. 3A 4.5) */
#define INDEX_BITS	9  /* 512 entries a table */
#define PAGE_SHIFT	12 /* the 4-KByte page */
#define CANONICAL_BITS	48 /* linear-address width under 4-level paging (SDM Vol. 1 3.3.7.1) */
#define CANONICAL_SHIFT (64 - CANONICAL_BITS)

/* Whether va is canonical (bits 63:47 all equal, SDM Vol. 1 3.3.7.1). */
static inline bool canonical(uint64_t va)
{
	return (uint64_t)((int64_t)(va << CANONICAL_SHIFT) >> CANONICAL_SHIFT) == va;
}

/* Whether the page holding va is present in the paging structures CR3 names now. */
TRAP_STEP_HOT static bool page_present(uint64_t va)
{
	if (!canonical(va))
		return false;
	uint64_t table = read_cr3() & PTE_ADDR;
	for (int level = LEVELS; level >= 1; level--) {
		const uint64_t *t = arch_phys_to_virt(table);
		unsigned shift = PAGE_SHIFT + INDEX_BITS * (unsigned)(level - 1);
		uint64_t e = t[(va >> shift) & (PT_ENTRIES - 1)];
		if (!(e & PTE_P))
			return false;
		if (level == 1 || (level < LEVELS && (e & PTE_PS)))
			return true;
		table = e & PTE_ADDR;
	}
	return true;
}

TRAP_STEP_HOT unsigned ss_code_readable(uint64_t ip)
{
	if (!page_present(ip))
		return 0;
	uint64_t last = ip + X86_MAX_INSN_LENGTH - 1;
	if ((last >> PAGE_SHIFT) == (ip >> PAGE_SHIFT) || page_present(last))
		return X86_MAX_INSN_LENGTH;
	return (unsigned)(PAGE_4K - (ip & (PAGE_4K - 1))); /* up to the absent page */
}
