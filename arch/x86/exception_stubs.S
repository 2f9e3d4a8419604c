/* SPDX-License-Identifier: MIT */
/*
 * Entry stubs for the 32 exception vectors. Each pushes a zero error code where the CPU pushes
 * none (SDM Vol. 3A Table 6-1), then its vector, saves every general-purpose register into a
 * struct trap_frame (arch/x86/trap.h) and calls exception_dispatch(frame). If that returns
 * (a caught or handled exception), the registers are restored and IRETQ resumes.
 */
	.text
	.code64

.macro EXC_STUB v
	.p2align 4
exc_stub_\v:
	.if !(\v == 8 || \v == 10 || \v == 11 || \v == 12 || \v == 13 || \v == 14 || \v == 17 || \v == 21 || \v == 29 || \v == 30)
	pushq $0
	.endif
	pushq $\v
	jmp exception_common
.endm

.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	EXC_STUB \v
.endr

	.p2align 4
exception_common:
	cld
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, %rdi
	/* Align the stack for the C call; keep the frame pointer in rbx (callee-saved). */
	movq %rsp, %rbx
	andq $-16, %rsp
	call exception_dispatch
	movq %rbx, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp /* vector and error code */
	iretq

	.section .rodata
	.p2align 3
	.globl exception_stub_table
exception_stub_table:
.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.quad exc_stub_\v
.endr

	.section .note.GNU-stack,"",@progbits
