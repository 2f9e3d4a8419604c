/* SPDX-License-Identifier: MIT */
/*
 * Kernel entry from the UEFI loader (contract in kernel/boot_info.h): long mode, CPL 0,
 * interrupts off, RDI = boot_info. Switch to the kernel's boot stack (with an unmapped guard
 * page below it, see arch/x86/cpu/paging.c), clear RFLAGS and call kernel_main(boot_info).
 */
#define BOOT_STACK_SIZE 65536

	.section .text.entry, "ax"
	.globl _start
_start:
	cli
	cld
	leaq boot_stack_top(%rip), %rsp
	xorl %ebp, %ebp
	pushq $0		/* RFLAGS = 0 (IF, TF, DF, AC all clear) */
	popfq
	call kernel_main
1:	cli
	hlt
	jmp 1b

	.section .bss
	.p2align 12
	.globl boot_stack_guard
boot_stack_guard:
	.skip 4096
	.globl boot_stack_bottom
boot_stack_bottom:
	.skip BOOT_STACK_SIZE
	.globl boot_stack_top
boot_stack_top:

	.section .note.GNU-stack,"",@progbits
