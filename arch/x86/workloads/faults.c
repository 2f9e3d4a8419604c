/* SPDX-License-Identifier: MIT */
/*
 * Exceptions a workload takes on purpose, handled here so that it resumes (the single-step
 * engine must survive them): #BP from fault_workload_int3 (a trap: return to the next
 * instruction), #PF on the lazily mapped page (map it, return: the access runs again), and
 * the #UD of flags_ud2 (arch_flags_workload), resumed two bytes on: a handler that moves the
 * resume address, and reports in RDX the trap flag it finds in the frame; and the single-step
 * #DB the same workload asks for itself (flags_popf_tf), once, with TF set in the frame.
 */
#include "arch/x86/workloads/faults.h"
#include "arch/x86/workloads/exact.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/workloads/workloads.h"
#include "kernel/arch_workloads.h"
#include "kernel/memory.h"

extern const char fault_workload_int3[], flags_ud2[], flags_tf_trap[];

#define UD2_LENGTH 2 /* 0F 0B */

static uint64_t lazy_page_pa;
static uint64_t faults_handled;

extern const char fault_workload_end[];

/* From faults_entry.S: one RET of its own; the INT3 and the #PF go to exception stubs
 * (deliveries, which a signature leaves out); five instructions retire. */
void arch_fault_workload_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_fault_workload, fault_workload_end);
	s->taken[WL_RET] = 1;
	s->instructions = 5;
}

bool workload_fault_fixup(struct trap_frame *f)
{
	if (f->vector == VEC_BP && f->rip == (uint64_t)fault_workload_int3 + 1) {
		faults_handled++;
		return true;
	}
	if (f->vector == VEC_UD && f->rip == (uint64_t)flags_ud2) {
		f->rip += UD2_LENGTH;
		f->rdx = f->rflags & RFLAGS_TF; /* what a handler reads of the workload's RFLAGS */
		faults_handled++;
		return true;
	}
	if (f->vector == VEC_DB && f->rip == (uint64_t)flags_tf_trap && (f->rflags & RFLAGS_TF)) {
		f->rflags &= ~RFLAGS_TF; /* the workload's own single-stepping ends here */
		f->rdx = 1;
		faults_handled++;
		return true;
	}
	if (f->vector == VEC_PF && ALIGN_DOWN(read_cr2(), PAGE_4K) == LAZY_PAGE_VA &&
	    !(f->error_code & PF_ERR_PRESENT)) {
		if (!lazy_page_pa)
			lazy_page_pa = page_alloc(1);
		if (!lazy_page_pa || !paging_map_kernel_4k(LAZY_PAGE_VA, lazy_page_pa, true))
			return false;
		faults_handled++;
		return true;
	}
	return exact_fixup(f) || arch_wl_counted_fixup(f);
}

void workload_faults_reset(void)
{
	uint64_t pa, flags, size;
	if (paging_translate(LAZY_PAGE_VA, &pa, &flags, &size))
		paging_unmap_kernel_4k(LAZY_PAGE_VA);
}

uint64_t workload_faults_handled(void)
{
	return faults_handled;
}

void arch_fault_workload_reset(void)
{
	workload_faults_reset();
}
