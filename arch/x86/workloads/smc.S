/* SPDX-License-Identifier: MIT */
/*
 * arch_smc_workload(n): code that rewrites itself. smc_jcc is a JE (74H) the first time it
 * runs and a JNE (75H) the second: between the two, the workload stores 75H over its opcode
 * through smc_alias, a writable alias of the same physical byte (arch/x86/workloads/smc.c).
 * ZF is set both times, so the first is taken and the second falls through to the INC: the
 * SDM records one branch from smc_jcc, and a decoder that kept its first decoding would call
 * the second a JE whose target was not reached. Before the loop, smc_self overwrites its own
 * first byte (C6H, MOV Eb,Ib) with EBH (JMP rel8) as it executes: it ran, and retired, as the
 * MOV it was when it started (and never runs again in this run): no branch; a decoder that
 * read it after it ran would see a JMP. Returns n + 1. Its signature (smc.c): the JE and the
 * JNZ each taken once, the RET; 8 + 5 + 6 + 1 = 20 instructions.
 */
#define SMC_JNE 0x75
#define SMC_JMP 0xeb

	.section .text.workload, "ax"
	.globl arch_smc_workload, smc_jcc, smc_self, smc_end
arch_smc_workload:
	mov %rdi, %rax
	mov smc_alias(%rip), %rdx
	lea smc_self(%rip), %rsi	/* its alias: smc_alias + (smc_self - smc_jcc) */
	lea smc_jcc(%rip), %rcx
	sub %rcx, %rsi
	add %rdx, %rsi
smc_self:
	movb $SMC_JMP, (%rsi)
	mov $2, %ecx
1:	cmp %ecx, %ecx			/* ZF = 1 */
smc_jcc:
	je 2f
	inc %rax			/* only once it is a JNE */
2:	movb $SMC_JNE, (%rdx)
	dec %ecx
	jnz 1b				/* taken once */
	ret
smc_end:

	.section .note.GNU-stack,"",@progbits
