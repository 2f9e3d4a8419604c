/* SPDX-License-Identifier: MIT */
/*
 * arch_fault_workload(n): a workload that takes exceptions the kernel handles and resumes
 * from (arch/x86/workloads/faults.c): an INT3 (#BP, a trap: execution continues after it) and
 * a store to a page that is mapped only on its first touch (#PF, a fault: the store runs
 * again once the kernel has mapped the page). Returns n, read back from that page.
 */
#define LAZY_PAGE_VA 0x00007f0000100000

	.section .text.workload, "ax"
	.globl arch_fault_workload, fault_workload_int3, fault_workload_end
arch_fault_workload:
fault_workload_int3:
	int3				/* a delivery to the #BP stub (retires: a trap) */
	movabsq $LAZY_PAGE_VA, %rax
	movq %rdi, (%rax)		/* a delivery to the #PF stub, then again: retires */
	movq (%rax), %rax
	ret				/* ret: 1 */
fault_workload_end:

	.section .note.GNU-stack,"",@progbits
