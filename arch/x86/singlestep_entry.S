/* SPDX-License-Identifier: MIT */
/*
 * ss_enter(fn, arg): set RFLAGS.TF, call fn(arg), clear TF, return fn's result. It lives in
 * .text.workload with the workloads, so QEMU's execution log filtered to that range sees the
 * same instructions the engine steps. A POPF that sets TF traps only after the instruction
 * that follows it (SDM Vol. 3B 17.3.1.4), so the first step reported is the CALL at
 * ss_first_insn; the POPF that clears TF is the last one.
 */
#define RFLAGS_TF 0x100

	.section .text.workload, "ax"
	.globl ss_enter, ss_first_insn, ss_exit
ss_enter:
	pushq %rbp
	movq %rsp, %rbp
	movq %rdi, %rax
	movq %rsi, %rdi
	pushfq
	orq $RFLAGS_TF, (%rsp)
	popfq
ss_first_insn:
	call *%rax
	pushfq
	andq $~RFLAGS_TF, (%rsp)
	popfq
ss_exit:
	popq %rbp
	ret

	.section .note.GNU-stack,"",@progbits
