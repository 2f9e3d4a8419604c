/* SPDX-License-Identifier: MIT */
/*
 * Saving and restoring the general-purpose registers of a struct trap_frame (cpu/trap.h), for
 * the assembly entry stubs: the trap stubs (cpu/trap_stubs.S) and the single-step engine's own
 * #DB entry (step/singlestep_entry.S) lay the frame out alike. At higher addresses than the
 * registers lie the vector and the error code the stub pushed, then the CPU's own frame (SDM
 * Vol. 3A 6.14.2).
 */
#ifndef ARCH_X86_CPU_TRAP_FRAME_H
#define ARCH_X86_CPU_TRAP_FRAME_H

/* The CPU's frame (RIP, CS, RFLAGS, RSP, SS) within struct trap_frame: after the 15 registers,
 * the vector and the error code (trap.h asserts it). */
#define TRAP_FRAME_RIP (17 * 8)

#ifdef __ASSEMBLER__
/* clang-format off */
/* struct trap_frame's register part, r15 lowest; the direction flag cleared for C (SysV ABI). */
.macro SAVE_TRAP_REGS
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
.endm

/* The registers back from the frame (a handler may have changed them), then the vector and
 * error code dropped: the CPU's frame is next, for IRETQ. */
.macro RESTORE_TRAP_REGS
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
	addq $16, %rsp
.endm
/* clang-format on */
#endif

#endif
