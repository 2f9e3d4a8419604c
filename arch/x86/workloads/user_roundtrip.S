/* SPDX-License-Identifier: MIT */
/*
 * The ring 3 <-> ring 0 round-trip workload (all of it in .text.workload, so the single-step
 * engine and QEMU's execution log see the same instructions):
 *   arch_user_roundtrip(n): ring 0, saves its context, IRETQ to ring 3 at the user alias of
 *     user_code_page (arch/x86/cpu/usermode.c maps it at USER_CODE_VA);
 *   user code: n times SYSCALL(SYS_NOP), then SYSCALL(SYS_EXIT) with the count (each SYSCALL
 *     counts one, two if the RFLAGS image it left in R11 shows TF: the single-step engine must
 *     hide its own);
 *   user_syscall_entry (IA32_LSTAR): SYS_NOP returns with SYSRETQ; SYS_EXIT restores the saved
 *     context and returns from arch_user_roundtrip with the count.
 * IA32_FMASK leaves TF alone, so the kernel side is stepped too: the round trip is the
 * workload. No SWAPGS: GS keeps the kernel's per-CPU base in ring 3 (trusted test code, which
 * never touches GS). One CPU at a time: the saved context is a single slot.
 */
#define USER_CS		(0x20 | 3)
#define USER_DS		(0x18 | 3)
#define USER_CODE_VA	0x00007f0000000000
#define USER_STACK_TOP	0x00007f0000003000
#define SYS_NOP		0
#define SYS_EXIT	1

	.section .text.workload, "ax"
	.globl arch_user_roundtrip, user_syscall_entry, arch_user_enter

/* arch_user_enter(entry, stack_top, arg): the same round trip into a user program (kernel/
 * program.c): ring 3 at entry with RSP = stack_top and RDI = arg; its SYS_EXIT returns here
 * with the status it passed in RDI. */
arch_user_enter:
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, saved_kernel_rsp(%rip)
	pushq $USER_DS
	pushq %rsi
	pushfq
	pushq $USER_CS
	pushq %rdi
	movq %rdx, %rdi
	xorl %esi, %esi
	xorl %edx, %edx
	iretq

arch_user_roundtrip:		/* rdi = n goes along to ring 3 */
	movq %rdi, %rdx
	movabsq $USER_CODE_VA, %rdi
	movabsq $USER_STACK_TOP, %rsi
	jmp arch_user_enter

user_syscall_entry:		/* ring 0, RCX = user RIP, R11 = user RFLAGS */
	cmpl $SYS_EXIT, %eax
	je 1f
	sysretq
1:	movq saved_kernel_rsp(%rip), %rsp
	movq %rdi, %rax		/* the count the user side reached */
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	ret

	/* Ring 3 code: its own page, mapped user-executable at USER_CODE_VA. */
	.section .text.workload.user, "ax"
	.p2align 12
	.globl user_code_page
user_code_page:
	xorl %ebx, %ebx
1:	movl $SYS_NOP, %eax
	syscall
	btl $8, %r11d		/* CF = RFLAGS.TF as SYSCALL saved it in R11: 0 natively ... */
	adcq $1, %rbx		/* ... and when stepped, or the count runs off (issue 13) */
	cmpq %rdi, %rbx
	jb 1b
	movq %rbx, %rdi
	movl $SYS_EXIT, %eax
	syscall
	ud2			/* never reached */
	.p2align 12

	.bss
	.p2align 3
saved_kernel_rsp:
	.quad 0

	.section .note.GNU-stack,"",@progbits
