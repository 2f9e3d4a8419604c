/* SPDX-License-Identifier: MIT */
/*
 * The handlers of the exactness workload (arch/x86/workloads/exact.S): each exception it
 * takes on purpose, and what the handler does before resuming it: put a breakpoint's byte
 * back, patch a UD2 into a CALL, map a code page whose fetch faulted, leave a non-canonical
 * jump. Before every run the code and the pages are put back as the source has them (kernel
 * text is read-only, CR0.WP: the bytes are written through the identity mapping of the same
 * physical page, as smc.c does).
 */
#include "arch/x86/workloads/exact.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/workloads/workloads.h"
#include "kernel/arch_cpu.h"

extern const char exact_bp[], exact_bp_ret[], exact_ud[], exact_ud_ret[], exact_leaf[];
extern const char exact_ss_int3[], exact_nc_jmp[], exact_nc_resume[], exact_unmap[];
extern const char exact_page_b[], exact_c_target[], exact_straddle[];

#define OP_INT3	    0xcc
#define OP_CALL	    0xe8 /* CALL rel32 */
#define OP_NOP	    0x90
#define CALL_LEN    5
#define NONCANON    0x8000000000000000ull /* exact.S's jump target */
#define FETCH_PAGES 3

/* DR6 (SDM Vol. 3B 17.2.3): B0, breakpoint 0's condition met; the value with none recorded. */
#define DR6_B0	 BIT(0)
#define DR6_INIT 0xffff0ff0ull

#define STRADDLE_HEAD 2 /* exact_straddle's bytes before the page end (exact.S) */
static const char *const fetch_pages[FETCH_PAGES] = {exact_page_b, exact_c_target,
						     exact_straddle + STRADDLE_HEAD};
static uint64_t fetch_pa[FETCH_PAGES]; /* their physical pages, found while mapped */

/* A writable alias of the kernel text byte at va (the identity mapping of its page). */
static uint8_t *alias_of(const char *va)
{
	uint64_t pa, flags, size;
	if (!paging_translate((uint64_t)va, &pa, &flags, &size))
		return NULL;
	return arch_phys_to_virt(pa);
}

/* Write CALL exact_leaf (E8H, rel32 from the end of its five bytes) at `at`. */
static void write_call(const char *at)
{
	uint8_t *p = alias_of(at);
	int32_t rel = (int32_t)(exact_leaf - (at + CALL_LEN));
	if (!p)
		return;
	for (unsigned i = 1; i < CALL_LEN; i++)
		p[i] = (uint8_t)((uint32_t)rel >> (8 * (i - 1)));
	p[0] = OP_CALL;
}

void arch_exact_workload_reset(void)
{
	uint8_t *bp = alias_of(exact_bp), *ud = alias_of(exact_ud);
	if (bp)
		bp[0] = OP_INT3; /* the rel32 after it stays exact.S's */
	if (ud) {
		ud[0] = 0x0f; /* UD2: 0F 0B (SDM Vol. 2B UD) */
		ud[1] = 0x0b;
		ud[2] = ud[3] = ud[4] = OP_NOP;
	}
	for (unsigned i = 0; i < FETCH_PAGES; i++) {
		uint64_t va = ALIGN_DOWN((uint64_t)fetch_pages[i], PAGE_4K), pa, flags, size;
		if (paging_translate(va, &pa, &flags, &size)) {
			fetch_pa[i] = pa;
			paging_unmap_kernel_4k(va);
		}
	}
}

/* A fetch that faulted on one of the pages the reset took away: map it back. */
static bool map_fetch_page(uint64_t cr2)
{
	for (unsigned i = 0; i < FETCH_PAGES; i++) {
		uint64_t va = ALIGN_DOWN((uint64_t)fetch_pages[i], PAGE_4K);
		if (ALIGN_DOWN(cr2, PAGE_4K) == va && fetch_pa[i])
			return paging_map_kernel_text_4k(va, fetch_pa[i]);
	}
	return false;
}

bool exact_fixup(struct trap_frame *f)
{
	if (f->vector == VEC_BP && f->rip == (uint64_t)exact_bp + 1) {
		alias_of(exact_bp)[0] = OP_CALL; /* the breakpoint's byte back */
		f->rip = (uint64_t)exact_bp;
		return true;
	}
	if (f->vector == VEC_BP && f->rip == (uint64_t)exact_ss_int3 + 1)
		return true;
	if (f->vector == VEC_BP && f->rip == (uint64_t)exact_unmap + 1) {
		paging_unmap_kernel_4k(ALIGN_DOWN((uint64_t)exact_c_target, PAGE_4K)); /* again */
		return true;
	}
	if (f->vector == VEC_UD && f->rip == (uint64_t)exact_ud) {
		write_call(exact_ud);
		return true;
	}
	if (f->vector == VEC_PF && !(f->error_code & PF_ERR_PRESENT))
		return map_fetch_page(read_cr2());
	if (f->vector == VEC_DB && (read_dr6() & DR6_B0)) {
		write_dr6(DR6_INIT); /* DR6's bits are sticky (SDM Vol. 3B 17.2.3) */
		return true;	     /* dbreg_store's data breakpoint, natively */
	}
	/* #GP at the JMP (the SDM's rule) or at the target's fetch (QEMU's TCG). */
	if (f->vector == VEC_GP && (f->rip == (uint64_t)exact_nc_jmp || f->rip == NONCANON)) {
		f->rip = (uint64_t)exact_nc_resume;
		return true;
	}
	return false;
}
