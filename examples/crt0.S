/* SPDX-License-Identifier: MIT */
/*
 * The smallest C runtime for a baretrace user program (include/baretrace/user.h): at _start RDI
 * holds the workload's argument and RSP the top of the stack; main(arg) runs on a 16-byte
 * aligned stack (System V ABI: aligned before the CALL) and its result is the exit status.
 */
#define BT_SYS_EXIT 1

	.text
	.globl _start
_start:
	andq $-16, %rsp
	call main
	movq %rax, %rdi
	movl $BT_SYS_EXIT, %eax
	syscall
	ud2			/* never reached */

	.section .note.GNU-stack,"",@progbits
