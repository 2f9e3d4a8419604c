/* SPDX-License-Identifier: MIT */
/*
 * AP start-up trampoline (SDM Vol. 3A 8.4.4.1 / 9.4.4.1, "Typical AP Initialization
 * Sequence"). A STARTUP IPI with vector VV starts the AP in real mode at CS:IP = VV00:0000,
 * i.e. at physical VV000H: the page the loader reserved below 1 MiB, where smp.c copies this
 * blob and patches the fields marked PATCHED with absolute values (the blob is assembled in
 * the kernel image but runs at the low address, so it holds no other absolute references).
 * Real mode -> protected mode (own flat GDT) -> PAE, CR3, EFER.LME(+NXE), paging -> 64-bit
 * code segment -> jump to ap_entry64 in the kernel, which takes its stack from ap_boot_stack.
 */
#include "arch/x86/hw/cpu_regs.h"

#define TR_SEL_CODE32 0x08
#define TR_SEL_DATA32 0x10
#define TR_SEL_CODE64 0x18

	.section .rodata.trampoline, "a"
	.globl trampoline_start, trampoline_end
	.globl tr_gdt_base, tr_pm32_target, tr_lm64_target, tr_cr3, tr_efer_set
	.p2align 12
trampoline_start:
	.code16
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl (tr_gdt_ptr - trampoline_start)
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	/* ljmpl $TR_SEL_CODE32, $pm32 (absolute, PATCHED) */
	.byte 0x66, 0xea
tr_pm32_target:
	.long 0
	.word TR_SEL_CODE32

	.code32
tr_pm32:
	movw $TR_SEL_DATA32, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	/* "mov imm32, %eax; mov %eax, %cr3" with the immediate PATCHED */
	.byte 0xb8
tr_cr3:
	.long 0
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	.byte 0x0d /* or imm32, %eax: EFER.LME, and NXE when the BSP uses NX (PATCHED) */
tr_efer_set:
	.long 0
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP), %eax
	movl %eax, %cr0
	/* ljmp $TR_SEL_CODE64, $lm64 (absolute, PATCHED) */
	.byte 0xea
tr_lm64_target:
	.long 0
	.word TR_SEL_CODE64

	.code64
tr_lm64:
	movabsq $ap_entry64, %rax
	jmpq *%rax

	.p2align 3
tr_gdt:
	.quad 0				/* null */
	.quad 0x00cf9a000000ffff	/* 0x08: 32-bit code, base 0, limit 4 GiB */
	.quad 0x00cf92000000ffff	/* 0x10: 32-bit data */
	.quad 0x00af9a000000ffff	/* 0x18: 64-bit code (L=1) */
tr_gdt_end:
tr_gdt_ptr:
	.word tr_gdt_end - tr_gdt - 1
tr_gdt_base:
	.long 0				/* PATCHED: physical address of tr_gdt */
trampoline_end:

	/* Offsets of the code the patches point at, for smp.c. */
	.globl tr_pm32_offset, tr_lm64_offset, tr_gdt_offset
	.p2align 2
tr_pm32_offset: .long tr_pm32 - trampoline_start
tr_lm64_offset: .long tr_lm64 - trampoline_start
tr_gdt_offset:	.long tr_gdt - trampoline_start

	.text
	/* 64-bit kernel side: a stack, then C. RSP comes from ap_boot_stack (one AP at a time). */
	.globl ap_entry64
ap_entry64:
	movabsq $ap_boot_stack, %rax
	movq (%rax), %rsp
	xorl %ebp, %ebp
	pushq $0
	popfq
	call ap_main
1:	cli
	hlt
	jmp 1b

	.section .note.GNU-stack,"",@progbits
