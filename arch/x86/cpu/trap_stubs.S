/* SPDX-License-Identifier: MIT */
/*
 * Entry stubs for all 256 vectors. Each pushes a zero error code where the CPU pushes none
 * (SDM Vol. 3A Table 6-1: only some exceptions push one; interrupts never do), then its vector,
 * saves every general-purpose register into a struct trap_frame (arch/x86/cpu/trap.h) and calls
 * trap_dispatch(frame). When that returns, the registers are restored and IRETQ resumes. (#DB's
 * gate names the single-step engine's entry, which comes here for every #DB not its own:
 * arch/x86/step/singlestep_entry.S.)
 */
#include "arch/x86/cpu/trap_frame.h"

	.text
	.code64

.macro STUB_ADDR v
	.quad exc_stub_\v
.endm

.macro EXC_STUB v
	.p2align 4
exc_stub_\v:
	.if !(\v == 8 || \v == 10 || \v == 11 || \v == 12 || \v == 13 || \v == 14 || \v == 17 || \v == 21 || \v == 29 || \v == 30)
	pushq $0
	.endif
	pushq $\v
	jmp exception_common
.endm

.altmacro
.set v, 0
.rept 256
	EXC_STUB %v
	.set v, v + 1
.endr

/* Save every general-purpose register into a struct trap_frame, call trap_dispatch(frame),
 * restore them and drop the vector and error code: the trap returns through trap_iret. */
	.p2align 4
exception_common:
	SAVE_TRAP_REGS
	movq %rsp, %rdi
	/* Align the stack for the C call; keep the frame pointer in rbx (callee-saved). */
	movq %rsp, %rbx
	andq $-16, %rsp
	call trap_dispatch
	movq %rbx, %rsp
	RESTORE_TRAP_REGS
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
