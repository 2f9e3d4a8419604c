/* SPDX-License-Identifier: MIT */
/*
 * Ring 3 and back (all of it in .text.workload, so the single-step engine and QEMU's execution
 * log see the same instructions):
 *   arch_user_enter(entry, stack_top, arg): ring 0, saves its context on its own stack (the
 *     slot user_saved_kernel_rsp), IRETQ to ring 3 at entry with RSP = stack_top, RDI = arg,
 *     interrupts on (the watchdog's timer, PMIs);
 *   user_syscall_entry (IA32_LSTAR), with IF clear (IA32_FMASK: no interrupt ever lands on
 *     the program's stack, whose red zone is its own): SYS_NOP returns at once with SYSRETQ;
 *     SYS_EXIT, and user_abort (where a fault or the watchdog sends a run, run.c), go back to
 *     the saved context (the caller's RFLAGS included) with the status in RDI; every other
 *     number runs user_syscall (syscalls.c) on the kernel stack below the saved context,
 *     keeping every register but RAX (the result), RCX and R11 (SYSCALL's);
 *   arch_user_roundtrip(n), the "user" workload: n times SYSCALL(SYS_NOP) from its ring 3
 *     page, then SYSCALL(SYS_EXIT) with the count (each SYSCALL counts one, two if the RFLAGS
 *     image it left in R11 shows TF: the single-step engine must hide its own).
 * IA32_FMASK clears IF, DF and AC but leaves TF (arch/x86/cpu/usermode.c), so the kernel side
 * is stepped too: it is part of the workload. A PMI that falls in the kernel side is taken
 * when IF is set again: after SYSRETQ, or at user_if_restored. No SWAPGS: GS keeps the
 * kernel's per-CPU base in ring 3 (the pages it points at are supervisor-only), so the saved
 * context is per CPU (struct percpu's user_* fields, through %gs): a Linux program's threads
 * run on several CPUs at once (arch/x86/user/linux_thread.c).
 */
#include "arch/x86/hw/cpu_regs.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/user/linux_thread.h"

#define USER_CS		(0x20 | 3)
#define USER_DS		(0x18 | 3)
#define USER_CODE_VA	0x00007f0000000000
#define USER_STACK_TOP	0x00007f0000003000
#define SYS_NOP		0
#define SYS_EXIT	1
#define BT_EINVAL	-22

	/* The caller's context a run goes back to (user_abort pops it): its callee-saved
	 * registers and RFLAGS, saved on its stack, the stack's place in this CPU's slot. */
	.macro save_kernel_context
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushfq			/* the caller's RFLAGS, put back on the way out */
	movq %rsp, %gs:PERCPU_USER_KERNEL_RSP
	.endm

	.section .text.workload, "ax"
	.globl arch_user_roundtrip, user_syscall_entry, arch_user_enter, user_abort, user_if_restored
	.globl user_entry_end, linux_syscall_entry, linux_thread_enter

arch_user_enter:		/* a user program: interrupts on in ring 3 (the watchdog) */
	movl $RFLAGS_IF, %ecx
user_enter:			/* RCX = RFLAGS bits ring 3 gets on top of the caller's */
	save_kernel_context
	pushq $USER_DS
	pushq %rsi
	pushfq
	orq %rcx, (%rsp)
	pushq $USER_CS
	pushq %rdi
	movq %rdx, %rdi
	/* Every other register zero, as Linux starts a process (its start_thread and the
	 * zeroed pt_regs of a new exec): no kernel value reaches ring 3. */
	xorl %esi, %esi
	xorl %edx, %edx
	xorl %ecx, %ecx
	xorl %eax, %eax
	xorl %ebx, %ebx
	xorl %ebp, %ebp
	xorl %r8d, %r8d
	xorl %r9d, %r9d
	xorl %r10d, %r10d
	xorl %r11d, %r11d
	xorl %r12d, %r12d
	xorl %r13d, %r13d
	xorl %r14d, %r14d
	xorl %r15d, %r15d
	iretq

	/* linux_thread_enter(r): ring 3 as a new thread of a Linux program (linux_thread.c),
	 * every register from struct linux_thread_regs at RDI, RFLAGS the caller's and IF as
	 * user_enter gives them; its exit comes back through user_abort like the main thread's. */
linux_thread_enter:
	save_kernel_context
	pushq $USER_DS
	pushq LTR_RSP(%rdi)
	pushfq
	orq $RFLAGS_IF, (%rsp)
	pushq $USER_CS
	pushq LTR_RIP(%rdi)
	movq LTR_RAX(%rdi), %rax
	movq LTR_RBX(%rdi), %rbx
	movq LTR_RCX(%rdi), %rcx
	movq LTR_RDX(%rdi), %rdx
	movq LTR_RSI(%rdi), %rsi
	movq LTR_RBP(%rdi), %rbp
	movq LTR_R8(%rdi), %r8
	movq LTR_R9(%rdi), %r9
	movq LTR_R10(%rdi), %r10
	movq LTR_R11(%rdi), %r11
	movq LTR_R12(%rdi), %r12
	movq LTR_R13(%rdi), %r13
	movq LTR_R14(%rdi), %r14
	movq LTR_R15(%rdi), %r15
	movq LTR_RDI(%rdi), %rdi
	iretq
arch_user_roundtrip:		/* rdi = n goes along to ring 3, with the caller's IF */
	movq %rdi, %rdx
	movabsq $USER_CODE_VA, %rdi
	movabsq $USER_STACK_TOP, %rsi
	xorl %ecx, %ecx
	jmp user_enter

user_syscall_entry:		/* ring 0, RCX = user RIP, R11 = user RFLAGS, IF clear */
	cmpq $SYS_EXIT, %rax	/* all 64 bits: 2^32 + 1 is no exit */
	je 1f
	testq %rax, %rax
	jnz 2f
	sysretq			/* SYS_NOP */
1:	btq $63, %rdi		/* a status of 2^63 or more would read as the kernel's fault */
	jnc user_abort		/* encoding (kernel/arch_user.h): refused, BT_EINVAL */
	movq $BT_EINVAL, %rax
	sysretq
2:	movq %rsp, %gs:PERCPU_USER_RSP
	movq %gs:PERCPU_USER_KERNEL_RSP, %rsp
	andq $-16, %rsp		/* below the saved context, aligned for the C call */
	pushq %rcx
	pushq %r11
	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %r8
	pushq %r9
	pushq %r10
	movl %eax, %ecx		/* user_syscall(a0, a1, a2, nr) */
	call user_syscall
	popq %r10
	popq %r9
	popq %r8
	popq %rdx
	popq %rsi
	popq %rdi
	popq %r11
	popq %rcx
	movq %gs:PERCPU_USER_RSP, %rsp
	sysretq

	/* IA32_LSTAR's target while a Linux program runs (run.c): every number goes to
	 * linux_syscall (linux.c) with struct linux_call on the kernel stack; exit and
	 * exit_group set linux_exit_now, and the run ends with linux_exit_status. */
linux_syscall_entry:
	movq %rsp, %gs:PERCPU_USER_RSP
	movq %gs:PERCPU_USER_KERNEL_RSP, %rsp
	andq $-16, %rsp
	pushq %gs:PERCPU_USER_RSP	/* struct linux_call's tail: what a new thread starts with */
	pushq %r15
	pushq %r14
	pushq %r13
	pushq %r12
	pushq %rbp
	pushq %rbx
	pushq %rcx
	pushq %r11
	pushq %r9
	pushq %r8
	pushq %r10
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rax		/* struct linux_call: nr, then the six arguments */
	subq $8, %rsp		/* 16-byte alignment for the call */
	leaq 8(%rsp), %rdi
	call linux_syscall
	cmpb $0, %gs:PERCPU_LINUX_EXIT_NOW
	jne 3f
	addq $16, %rsp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %r10
	popq %r8
	popq %r9
	popq %r11
	popq %rcx
	movq %gs:PERCPU_USER_RSP, %rsp
	sysretq
3:	movq %gs:PERCPU_LINUX_EXIT_STATUS, %rdi
	/* fall through to user_abort */

user_abort:			/* RDI = the status; IF clear */
	movq %gs:PERCPU_USER_KERNEL_RSP, %rsp
	popfq			/* the caller's RFLAGS: its IF again */
user_if_restored:		/* IF is clear from user_syscall_entry up to here */
	movq %rdi, %rax
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	ret
user_entry_end:

	/* Ring 3 code: its own page, mapped user-executable at USER_CODE_VA. */
	.section .text.workload.user, "ax"
	.p2align 12
	.globl user_code_page
user_code_page:
	xorl %ebx, %ebx
1:	movl $SYS_NOP, %eax
	syscall
	btl $8, %r11d		/* CF = RFLAGS.TF as SYSCALL saved it in R11: 0 natively ... */
	adcq $1, %rbx		/* ... and when stepped (the engine keeps TF its own), or the count runs off */
	cmpq %rdi, %rbx
	jb 1b
	movq %rbx, %rdi
	movl $SYS_EXIT, %eax
	syscall
	ud2			/* never reached */
	.p2align 12


	.section .note.GNU-stack,"",@progbits
