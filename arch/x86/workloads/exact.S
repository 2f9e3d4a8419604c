/* SPDX-License-Identifier: MIT */
/*
 * arch_exact_workload(n): the exactness classes the single-step engine must follow exactly,
 * each at a global label the test names (tests/qemu/exact.t checks them against QEMU's log).
 * The handlers are in exact.c. Returns n + 12: the INCs below, each
 * run once (two in exact_leaf, called twice; exact_page_b's and exact_c_target's, three times).
 *
 * Code that changes between decoding and running ("the processor executes the bytes present
 * when it fetches", SDM Vol. 3A 8.1.3 on self- and cross-modifying code):
 *   exact_bp       an INT3 byte (CCH) over the first byte of a CALL; the #BP handler puts
 *                  the CALL's E8H back and resumes at exact_bp: the CALL then runs, a taken
 *                  branch to exact_leaf
 *   exact_ud       a UD2 (and three NOPs); the #UD handler writes a CALL rel32 over the five
 *                  bytes and resumes there: the CALL runs
 * An exception in MOV SS's shadow ("MOV SS ... inhibits ... debug exceptions and interrupts"
 * until after the next instruction, SDM Vol. 3A 6.8.3; exceptions are not held back):
 *   exact_ss_int3  INT3 right after MOV SS: its #BP is recorded FROM the INT3 (SDM Vol. 3B
 *                  17.4.8.1: the FROM of an exception record is the instruction that raised it)
 *   exact_ss_intn  INT n right after MOV SS, to a vector with no handler (warned, resumed)
 * One trap for an interrupt handler's whole path:
 *   exact_intn     INT n to the same vector, not in a shadow: delivery, then IRET back
 * A fetch that faults (the trap of the instruction before comes first, SDM Vol. 3A 6.9; the
 * #PF is the workload's, whose handler maps the page and resumes, the fetch then runs again):
 *   exact_a_last   the last byte of a present page, a NOP falling through onto exact_page_b,
 *                  not present
 *   exact_b_jmp    a JMP onto exact_c_target, on a page not present
 *   exact_c_jmp    a JMP to exact_straddle, whose bytes run onto the next page, not present:
 *                  the fetch faults at exact_straddle (CR2 on the next page)
 *   exact_nc_jmp   a JMP to a non-canonical address: #GP ("If ... the target ... is
 *                  non-canonical", SDM Vol. 2A JMP, 64-bit mode exceptions), handled by
 *                  resuming at exact_nc_resume
 * A page of code taken away again after it ran (its blocks remembered by the engine):
 *   exact_again    exact_page_b called with every page mapped: its JMP onto exact_c_target and
 *                  the code there run without a fault (a block there, as a JMP's target)
 *   exact_unmap    an INT3 whose handler unmaps exact_c_target's page again (INVLPG); then
 *                  exact_page_b once more: its JMP onto exact_c_target faults again, and the
 *                  engine, which stops there before the fetch (a code breakpoint comes before
 *                  the fetch's #PF, SDM Vol. 3A 6.9, Table 6-2), must not read that page
 */
#define EXACT_VECTOR 0x80 /* no handler (arch/x86/cpu/vectors.h names the vectors in use) */

	.section .text.workload, "ax"
	.globl arch_exact_workload, exact_bp, exact_bp_ret, exact_ud, exact_ud_ret, exact_leaf
	.globl exact_ss_int3, exact_ss_intn, exact_intn, exact_nc_jmp, exact_nc_resume, exact_end
	.globl exact_again, exact_unmap
arch_exact_workload:
	push %rbx
	mov %rdi, %rax
exact_bp:
	.byte 0xcc			/* CALL exact_leaf once the handler puts E8H back; its */
	.long exact_leaf - exact_bp_ret	/* rel32, 88H 00H 00H 00H, reads as MOV and ADD (below) */
exact_bp_ret:
exact_ud:
	ud2				/* then CALL exact_leaf, written by the handler */
	nop
	nop
	nop
exact_ud_ret:
	mov %ss, %ecx
	mov %ecx, %ss
exact_ss_int3:
	int3
	inc %rax
	mov %ecx, %ss
exact_ss_intn:
	int $EXACT_VECTOR
	inc %rax
exact_intn:
	int $EXACT_VECTOR
	inc %rax
	call exact_fetch
exact_again:
	call exact_page_b
exact_unmap:
	int3
	call exact_page_b
	movabsq $0x8000000000000000, %rcx
exact_nc_jmp:
	jmp *%rcx
exact_nc_resume:
	inc %rax
	pop %rbx
	ret
	/* exact_leaf 88H bytes on, so that the rel32 under the INT3 decodes as whole instructions
	 * (88 00: MOV %al,(%rax); 00 00: ADD), as objdump and the decoder's own tests read it */
	.org exact_bp_ret + 0x88, 0xcc
exact_leaf:
	inc %rax
	ret
exact_end:

	.section .text.workload.fetch, "ax"
	.p2align 12
	.globl exact_page_a, exact_a_last, exact_page_b, exact_b_jmp, exact_c_target
	.globl exact_c_jmp, exact_straddle, exact_fetch_end
exact_page_a:
exact_fetch:
	jmp exact_a_last
	.org 0x1000 - 1, 0xcc
exact_a_last:
	nop
exact_page_b:				/* not present at the start of each run (exact.c) */
	inc %rax
exact_b_jmp:
	jmp exact_c_target
	.org 0x2000 + 0x100, 0xcc
exact_c_target:				/* on a page not present at the start */
	inc %rax
exact_c_jmp:
	jmp exact_straddle
	.org 0x3000 - 2, 0xcc
exact_straddle:
	movl $0x12345678, %edx		/* B8H and an imm32: two bytes here, three on the next page
					 * (not present at the start; no symbol there, so that
					 * objdump reads the MOV whole) */
	ret
exact_fetch_end:

/*
 * arch_dbreg_workload(n): arms a data breakpoint of its own (DR0 on dbreg_data, DR7: L0, R/W0
 * = 01B "break on data writes only", LEN0 = 11B four bytes, SDM Vol. 3B 17.2.4, 17.2.5) and
 * writes there: natively a #DB after the store (a trap, DR6.B0), which exact.c handles; then it
 * disarms it. Returns n. Stepped, the engine refuses it loudly (exactness class 7).
 */
#define DR7_L0_WRITE_4 0x000d0001 /* L0 = 1, R/W0 = 01B (bits 17:16), LEN0 = 11B (bits 19:18) */

	.section .text.workload, "ax"
	.globl arch_dbreg_workload, dbreg_arm, dbreg_store, dbreg_end
arch_dbreg_workload:
	lea dbreg_data(%rip), %rcx
	mov %rcx, %dr0
	mov $DR7_L0_WRITE_4, %ecx
dbreg_arm:
	mov %rcx, %dr7
dbreg_store:
	movl %edi, dbreg_data(%rip)
	xor %ecx, %ecx
	mov %rcx, %dr7
	mov %rdi, %rax
	ret
dbreg_end:

	.data
	.p2align 3
dbreg_data:
	.quad 0

	.section .note.GNU-stack,"",@progbits
