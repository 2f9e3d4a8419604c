/* SPDX-License-Identifier: MIT */
/*
 * Entry stubs for all 256 vectors. Each pushes a zero error code where the CPU pushes none
 * (SDM Vol. 3A Table 6-1: only some exceptions push one; interrupts never do), then its vector,
 * saves every general-purpose register into a struct trap_frame (arch/x86/cpu/trap.h) and calls
 * trap_dispatch(frame) (#DB: trap_debug). When that returns, the registers are restored and
 * IRETQ resumes.
 */
	.text
	.code64

.macro STUB_ADDR v
	.quad exc_stub_\v
.endm

.macro EXC_STUB v
	.if \v == 1
	/* #DB: in the step's hot page, falling into debug_common (below) */
	.else
	.p2align 4
exc_stub_\v:
	.if !(\v == 8 || \v == 10 || \v == 11 || \v == 12 || \v == 13 || \v == 14 || \v == 17 || \v == 21 || \v == 29 || \v == 30)
	pushq $0
	.endif
	pushq $\v
	jmp exception_common
	.endif
.endm

.altmacro
.set v, 0
.rept 256
	EXC_STUB %v
	.set v, v + 1
.endr

/* Save every general-purpose register into a struct trap_frame, call \handler(frame), restore
 * them and drop the vector and error code: the trap returns through trap_iret. */
.macro TRAP_COMMON name, handler
\name:
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
	call \handler
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
.endm

	/* #DB: the single-step engine's trap after every stepped instruction goes to its claim
	 * first (trap_debug), all in one page with the code it runs (TRAP_STEP_HOT,
	 * arch/x86/cpu/trap.h). It returns through an IRETQ of its own: a debug exception's
	 * return is never a record of the software PMU's (arch/x86/spmu/singlestep.c). */
	.pushsection .text.step_hot, "ax"
	.p2align 4
exc_stub_1:
	pushq $0
	pushq $1
	TRAP_COMMON debug_common, trap_debug
	iretq
	.popsection

	.p2align 4
	TRAP_COMMON exception_common, trap_dispatch
	.globl trap_iret
trap_iret:			/* every handler returns here (the software PMU's IRET record) */
	iretq

	.section .rodata
	.p2align 3
	.globl trap_stub_table
trap_stub_table:
.set v, 0
.rept 256
	STUB_ADDR %v
	.set v, v + 1
.endr

	.section .note.GNU-stack,"",@progbits
