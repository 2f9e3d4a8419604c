/* SPDX-License-Identifier: MIT */
/*
 * arch_edge_workload(n): the instructions a discontinuity rule gets wrong, each at a global
 * label so tests can name it (tests/qemu/edges.t). What the SDM records, from this source:
 *   edge_call_next      call to the next instruction (the PIC idiom): a taken near call
 *   edge_jmp_next       jmp .+2: a taken near jump
 *   edge_jmp_ind_next   jmp *%rcx to the next instruction: taken
 *   edge_call_ind_next  call *%rcx to the next instruction: taken
 *   edge_jz_taken       jz to the next instruction with ZF=1 (after xor): taken
 *   edge_jnz_not_taken  jnz with ZF=1: not taken, no record
 *   edge_jrcxz_taken    jrcxz to the next instruction with RCX=0: taken
 *   edge_loop_self      loop to itself with RCX=3: taken twice, then falls through
 *   edge_rep_movsb      rep movsb of 100 bytes: one instruction, no branch (SDM Vol. 3B
 *                       17.3.1.4: a single-step trap after each iteration)
 *   edge_rep_stosq      rep stosq of 10 quadwords: the same
 * Returns n + 5.
 */
	.section .text.workload, "ax"
	.globl arch_edge_workload
	.globl edge_call_next, edge_jmp_next, edge_jmp_ind_next, edge_call_ind_next
	.globl edge_jz_taken, edge_jnz_not_taken, edge_jrcxz_taken, edge_loop_self
	.globl edge_rep_movsb, edge_rep_stosq, edges_end
arch_edge_workload:
	push %rbx
	mov %rdi, %rax
edge_call_next:
	call 1f
1:	pop %rbx			/* the return address: 1b */
	inc %rax
edge_jmp_next:
	jmp 2f
2:	lea 3f(%rip), %rcx
edge_jmp_ind_next:
	jmp *%rcx
3:	lea 4f(%rip), %rcx
edge_call_ind_next:
	call *%rcx
4:	pop %rbx
	inc %rax
	xor %ecx, %ecx			/* ZF = 1, RCX = 0 */
edge_jz_taken:
	jz 5f
5:
edge_jnz_not_taken:
	jnz 6f
6:
edge_jrcxz_taken:
	jrcxz 7f
7:	inc %rax
	mov $3, %ecx
edge_loop_self:
	loop edge_loop_self
	mov %rax, %r8
	sub $256, %rsp
	cld
	mov %rsp, %rdi
	lea arch_edge_workload(%rip), %rsi
	mov $100, %ecx
edge_rep_movsb:
	rep movsb
	mov %rsp, %rdi
	xor %eax, %eax
	mov $10, %ecx
edge_rep_stosq:
	rep stosq
	mov 72(%rsp), %rax		/* the last quadword stored: 0 */
	add $256, %rsp
	lea 2(%r8, %rax), %rax
	pop %rbx
	ret
edges_end:

	.section .note.GNU-stack,"",@progbits

/*
 * arch_flags_workload(n): the trap flag is the engine's, never the workload's. Returns n plus
 * RFLAGS.TF as the workload sees it twice (PUSHF) and as its exception handler sees it, so n
 * natively and n stepped if TF is hidden:
 *   flags_popf       POPF of an image with TF clear: stepping must go on after it
 *   flags_jmp_popf   a jmp after it: recorded
 *   flags_mov_ss     MOV SS holds the single-step trap until after the next instruction
 *                    (SDM Vol. 3B 6.8.3): one trap for two instructions
 *   flags_jmp_mov_ss the jmp in its shadow: recorded FROM the jmp, not from the MOV
 *   flags_ud2        #UD, resumed by the kernel two bytes on (workloads/faults.c): it never
 *                    retires; its one record is the exception's delivery. The handler puts
 *                    the RFLAGS.TF it finds in the exception frame in RDX: counted too
 *   flags_jmp_ud2    the jmp there: recorded from its own address
 *   flags_popf_tf    POPF of an image with TF set: the workload single-steps itself; the
 *                    trap comes after the instruction that follows (SDM Vol. 3B 17.3.1.4),
 *                    at flags_tf_trap, where its handler (workloads/faults.c) finds TF set
 *                    in the frame, clears it and sets RDX to 1: counted (minus one) too
 */
	.section .text.workload, "ax"
	.globl arch_flags_workload, flags_popf, flags_jmp_popf, flags_mov_ss, flags_jmp_mov_ss
	.globl flags_ud2, flags_jmp_ud2, flags_popf_tf, flags_tf_trap, flags_end
arch_flags_workload:
	push %rbx
	mov %rdi, %rax
	pushfq
	pop %rbx
	and $0x100, %ebx
	add %rbx, %rax
	pushfq
	andq $~0x100, (%rsp)
flags_popf:
	popfq
flags_jmp_popf:
	jmp 1f
1:	mov %ss, %ecx
flags_mov_ss:
	mov %ecx, %ss
flags_jmp_mov_ss:
	jmp 2f
2:	xorl %edx, %edx
flags_ud2:
	ud2
flags_jmp_ud2:
	jmp 3f
3:	add %rdx, %rax
	xorl %edx, %edx
	pushfq
	orq $0x100, (%rsp)
flags_popf_tf:
	popfq
	nop
flags_tf_trap:
	dec %rdx
	add %rdx, %rax
	pushfq
	pop %rbx
	and $0x100, %ebx
	add %rbx, %rax
	pop %rbx
	ret
flags_end:

	.section .note.GNU-stack,"",@progbits
