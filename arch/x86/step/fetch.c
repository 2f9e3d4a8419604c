/* SPDX-License-Identifier: MIT */
/*
 * What the single-step engine may read of the workload's code without faulting (exactness
 * class 3). The engine decodes the instruction at the address a trap lands on before it runs;
 * that address is the workload's: it may lie on a page that is not present (code falling
 * through or branching onto it), run from a present page onto an absent one, or be
 * non-canonical. Such a fetch faults for the workload, after the single-step trap of the
 * instruction before it (SDM Vol. 3A 6.9: the trap of the previous instruction is serviced
 * before the fetch of the next faults); the engine itself must never fault on it. So before it
 * reads, it makes sure each page the instruction's bytes may lie on is present and reads only
 * the bytes on pages that are. A walk of the paging structures CR3 names (SDM Vol. 3A 4.5,
 * Tables 4-14 to 4-20: P in every entry on the way, a PS leaf ends the walk) decides for a
 * page the first time; a page found present is remembered (a few per CPU), and from then on
 * one byte of it is read with cpu_probe_byte, whose fault goes no further than trap dispatch,
 * in case the workload took the page away since. Under QEMU's TCG a walk on every step took
 * four more pages into QEMU's small softmmu TLB (measured: make bench), and a probe that faults
 * shows in QEMU's execution log as an exception stub entered (which the oracle tests read):
 * the walk keeps the probe from faulting but where the workload unmapped a page it ran
 * without an exception or a system call in between (where the engine forgets the pages,
 * ss_code_forget: a handler or the kernel may have changed the mappings).
 */
#include "arch/x86/step/singlestep.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/trap.h"
#include "kernel/arch_cpu.h"
#include "lib/x86_decode.h"

#define LEVELS	   4  /* 4-level paging (SDM Vol. 3A 4.5) */
#define INDEX_BITS 9  /* 512 entries a table */
#define MEMO_WAYS  16 /* pages remembered present, per CPU, by their page number's low bits */

#define PAGE_SHIFT	12 /* the 4-KByte page */
#define CANONICAL_BITS	48 /* linear-address width under 4-level paging (SDM Vol. 1 3.3.7.1) */
#define CANONICAL_SHIFT (64 - CANONICAL_BITS)

/* Whether va is canonical (bits 63:47 all equal, SDM Vol. 1 3.3.7.1). */
static inline bool canonical(uint64_t va)
{
	return (uint64_t)((int64_t)(va << CANONICAL_SHIFT) >> CANONICAL_SHIFT) == va;
}

/* Whether the page holding va is present in the paging structures CR3 names now (false also
 * where va is not canonical); *t: where it goes and the tables read on the way (ss_translate's);
 * *writable:
 * whether R/W is set in every entry on the way (SDM Vol. 3A 4.6.1: "Data may be written to any
 * linear address with a valid translation" only where R/W = 1 in every paging-structure entry
 * controlling the translation, with CR0.WP = 1 for supervisor writes, which paging_init sets). */
static bool page_walk(uint64_t va, struct ss_translation *t, bool *writable)
{
	t->ntables = 0; /* no walk: not canonical */
	*writable = true;
	if (!canonical(va))
		return false;
	uint64_t table = read_cr3() & PTE_ADDR;
	for (int level = LEVELS; level >= 1; level--) {
		const uint64_t *tab = arch_phys_to_virt(table);
		unsigned shift = PAGE_SHIFT + INDEX_BITS * (unsigned)(level - 1);
		uint64_t e = tab[(va >> shift) & (PT_ENTRIES - 1)];
		t->table[t->ntables++] = table;
		if (!(e & PTE_P))
			return false;
		*writable &= (e & PTE_RW) != 0;
		if (level == 1 || (level < LEVELS && (e & PTE_PS))) {
			/* a PS leaf maps 2 MiB or 1 GiB: its address bits below `shift` are
			 * PAT and reserved bits, not the frame's (SDM Vol. 3A Tables 4-17, 4-15) */
			t->size = 1ull << shift;
			t->pa = (e & PTE_ADDR & ~(t->size - 1)) | (va & (t->size - 1));
			return true;
		}
		table = e & PTE_ADDR;
	}
	return false;
}

/* Translations remembered, per CPU, by 4-KByte page number's low bits (XLATE_WAYS): what a TLB
 * does, and forgotten where a TLB's entries may be (ss_code_forget: the run's start, an
 * exception or interrupt and its handler, a system call, the workload's INVLPG, INVPCID or MOV
 * to a control register). A paging-structure entry written without one of those may be used
 * or not ("the processor may use" the old translation, SDM Vol. 3A 4.10.4.1 and 4.10.4.2). */
#define XLATE_WAYS 8
struct xlate_memo {
	uint64_t page; /* page number + 1; 0: none */
	struct ss_translation t;
};
static struct xlate_memo xlate_memos[MAX_CPUS][XLATE_WAYS];
static uint32_t xlate_gens[MAX_CPUS]; /* ss_code_forget's calls on the CPU */

uint32_t ss_translation_gen(void)
{
	return xlate_gens[this_cpu()->index];
}

bool ss_translate(uint64_t va, struct ss_translation *t)
{
	uint64_t page = (va >> PAGE_SHIFT) + 1;
	struct xlate_memo *m = &xlate_memos[this_cpu()->index][page % XLATE_WAYS];
	if (m->page == page) {
		*t = m->t;
		t->pa = (t->pa & ~(t->size - 1)) | (va & (t->size - 1));
		return true;
	}
	bool writable;
	if (!page_walk(va, t, &writable))
		return false;
	m->page = page;
	m->t = *t;
	return true;
}

static bool page_present(uint64_t va)
{
	struct ss_translation t;
	bool writable;
	return page_walk(va, &t, &writable);
}

static uint64_t present_pages[MAX_CPUS][MEMO_WAYS];  /* page number + 1; 0: none */
static uint64_t readonly_pages[MAX_CPUS][MEMO_WAYS]; /* the same, mapped read-only */

static inline bool readable(uint64_t va)
{
	if (!canonical(va))
		return false;
	uint64_t page = (va >> PAGE_SHIFT) + 1;
	uint64_t *memo = &present_pages[this_cpu()->index][page % MEMO_WAYS];
	if (*memo != page) {
		if (!page_present(va))
			return false;
		*memo = page;
	}
	return cpu_probe_byte((const void *)va);
}

void ss_code_forget(void)
{
	uint64_t *memo = present_pages[this_cpu()->index];
	uint64_t *ro = readonly_pages[this_cpu()->index];
	for (unsigned i = 0; i < MEMO_WAYS; i++)
		memo[i] = ro[i] = 0;
	struct xlate_memo *x = xlate_memos[this_cpu()->index];
	for (unsigned i = 0; i < XLATE_WAYS; i++)
		x[i].page = 0;
	xlate_gens[this_cpu()->index]++;
}

bool ss_code_readonly(uint64_t ip)
{
	if (!canonical(ip))
		return false;
	uint64_t page = (ip >> PAGE_SHIFT) + 1;
	uint64_t *memo = &readonly_pages[this_cpu()->index][page % MEMO_WAYS];
	if (*memo == page)
		return true;
	struct ss_translation t;
	bool writable;
	if (!page_walk(ip, &t, &writable) || writable)
		return false;
	*memo = page;
	return true;
}

TRAP_STEP_HOT unsigned ss_code_readable(uint64_t ip)
{
	if (!readable(ip))
		return 0;
	uint64_t last = ip + X86_MAX_INSN_LENGTH - 1;
	if ((last >> PAGE_SHIFT) == (ip >> PAGE_SHIFT) || readable(last))
		return X86_MAX_INSN_LENGTH;
	return (unsigned)(PAGE_4K - (ip & (PAGE_4K - 1))); /* up to the page that did not answer */
}
