/* SPDX-License-Identifier: MIT */
/*
 * x86_setjmp/x86_longjmp: save and restore the callee-saved registers, RSP and the return
 * address (System V AMD64 ABI). Used to abandon a self-test function at a caught exception.
 * struct x86_jmp_buf layout: rbx, rbp, r12, r13, r14, r15, rsp, rip (8 bytes each).
 */
	.text
	.globl x86_setjmp
x86_setjmp:
	movq %rbx, 0(%rdi)
	movq %rbp, 8(%rdi)
	movq %r12, 16(%rdi)
	movq %r13, 24(%rdi)
	movq %r14, 32(%rdi)
	movq %r15, 40(%rdi)
	leaq 8(%rsp), %rdx	/* RSP as it will be after our return */
	movq %rdx, 48(%rdi)
	movq (%rsp), %rdx	/* return address */
	movq %rdx, 56(%rdi)
	xorl %eax, %eax
	ret

	.globl x86_longjmp
x86_longjmp:
	movq %rsi, %rax
	testq %rax, %rax
	jnz 1f
	incq %rax		/* longjmp(buf, 0) returns 1, as in C */
1:	movq 0(%rdi), %rbx
	movq 8(%rdi), %rbp
	movq 16(%rdi), %r12
	movq 24(%rdi), %r13
	movq 32(%rdi), %r14
	movq 40(%rdi), %r15
	movq 48(%rdi), %rsp
	jmpq *56(%rdi)

	.section .note.GNU-stack,"",@progbits
