/* SPDX-License-Identifier: MIT */
/*
 * ss_enter(fn, arg, extra_flags): set RFLAGS.TF (and extra_flags: IF when the workload should
 * take interrupts such as the model's virtual PMI), call fn(arg), clear TF, restore the
 * caller's flags, return fn's result. It lives in .text.workload with the workloads, so QEMU's
 * execution log filtered to that range sees the same instructions the engine steps. A POPF
 * that sets TF traps only after the instruction that follows it (SDM Vol. 3B 17.3.1.4), so
 * the first step reported is the CALL at ss_first_insn; the POPF before ss_exit, which clears
 * TF, is the last one.
 */
#include "arch/x86/hw/cpu_regs.h"

	.section .text.workload, "ax"
	.globl ss_enter, ss_first_insn, ss_exit
ss_enter:
	pushq %rbp
	movq %rsp, %rbp
	pushfq			/* the caller's flags, restored at the end */
	movq %rdi, %rax
	movq %rsi, %rdi
	orq $RFLAGS_TF, %rdx	/* rdx = TF | extra_flags */
	pushfq
	orq %rdx, (%rsp)
	popfq
ss_first_insn:
	call *%rax
	pushfq
	andq $~RFLAGS_TF, (%rsp)
	popfq
ss_exit:
	popfq
	popq %rbp
	ret

/* A #DB handler that only returns (arch_step_floor): the platform's own trap round trip. */
	.text
	.globl ss_floor_trap
	.p2align 4
ss_floor_trap:
	iretq

	.section .note.GNU-stack,"",@progbits
