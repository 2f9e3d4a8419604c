/* SPDX-License-Identifier: MIT */
/*
 * compat_run(n) (arch_compat_workload in compat.c): code in a compatibility-mode (32-bit) code segment (exactness
 * class 5). IA-32e mode runs a code segment whose descriptor has L = 0 and D = 1 as 32-bit
 * code (SDM Vol. 3A 3.4.5: "L ... If L = 0 and the processor is in IA-32e mode, the code
 * segment executes in compatibility mode"): no REX prefix ("REX prefixes ... are only
 * available in 64-bit mode", Vol. 2A 2.2.1: 40H-4FH are INC and DEC), 32-bit addresses that
 * wrap at 4 GiB ("the effective address ... is truncated to the address size", Vol. 1 3.3.7),
 * 4-byte stack slots. Its EIP is 32 bits, so the code runs at COMPAT_VA, a low alias of the
 * physical page that holds compat_page (arch/x86/workloads/compat.c maps it, a data page and
 * a stack before each run, and takes them away after).
 *
 * Two passes over compat_body, each entered and left by far transfers:
 *   pass 1: IRETQ into the 32-bit segment (compat_entry_iret), LJMP ptr16:32 back to 64-bit
 *           code at compat_back_a (in the same page: a 32-bit EIP cannot name the kernel's
 *           addresses), which jumps on to compat_resume_a;
 *   pass 2: LRETQ into it (compat_entry_lret), LRET (32-bit: EIP and CS popped as 4-byte
 *           slots) back to compat_back_b, then compat_resume_b.
 * compat_body (reached by a 32-bit CALL, left by RET) loops n times (n >= 2):
 *   compat_inc_je   INC %eax; JE (40H 74H: a REX.W-less JE in 64-bit mode): EAX runs from
 *                   -2 up, so the JE is taken on the second iteration alone (+100), the
 *                   other iterations fall through (+3) and JMP over
 *   compat_wrap     a load from EBX + EDI = FFFFF000H + (COMPAT_DATA + 1000H): 2^32 +
 *                   COMPAT_DATA, which wraps to COMPAT_DATA (the dword 1 there)
 *   compat_inc_ld   INC %ebx; MOV (%ebx),%edx (43H 8BH 13H: one load, by the MOV at +1; read as
 *                   64-bit code, one REX.XB MOV at the INC)
 *   compat_moffs    MOV moffs32,%eax (A1H and four bytes: nine in 64-bit mode), the dword 1
 *   compat_dec_jnz  DEC %ecx; JNZ (49H 75H: a REX.WB JNZ in 64-bit mode), taken n - 1 times
 * Each iteration adds 3 (100 on the second) and the three loaded dwords of 1: per pass
 * 3(n - 1) + 100 + 3n, two passes 12n + 194 (n = 10: 314).
 */
#define SEL_KERNEL_CODE	  0x08 /* arch/x86/cpu/desc.h (compat.c checks these) */
#define SEL_KERNEL_DATA	  0x10
#define SEL_KERNEL_CODE32 0x38
#define COMPAT_VA	  0xc0000000 /* compat_page's alias (compat.c) */
#define COMPAT_DATA	  0xc0001000 /* the data page: the dword 1 at its start */
#define COMPAT_STACK_TOP  0xc0006000 /* four pages of stack below it */
#define WRAP_BASE	  0xfffff000
#define AT(label)	  (COMPAT_VA + ((label) - compat_page)) /* a label's alias */

	.section .text.workload, "ax"
	.globl compat_run, compat_resume_a, compat_resume_b
compat_run:
	push %rbx
	push %rbp
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, compat_saved_rsp(%rip)
	mov %edi, compat_n(%rip)
	/* pass 1: IRETQ to the 32-bit segment (SS:RSP, RFLAGS, CS:RIP) */
	mov %edi, %ecx
	mov $COMPAT_STACK_TOP, %eax	/* above 2^31: zero-extended by a MOV, not PUSH imm32 */
	mov $AT(compat_entry_iret), %edx
	pushq $SEL_KERNEL_DATA
	push %rax
	pushfq
	pushq $SEL_KERNEL_CODE32
	push %rdx
	iretq
compat_resume_a:
	mov compat_saved_rsp(%rip), %rsp
	mov %eax, compat_sum(%rip)
	/* pass 2: LRETQ to it (RIP, then CS, as 8-byte slots), on the stack the IRETQ loaded */
	mov compat_n(%rip), %ecx
	mov $COMPAT_STACK_TOP, %esp
	mov $AT(compat_entry_lret), %edx
	pushq $SEL_KERNEL_CODE32
	push %rdx
	lretq
compat_resume_b:
	mov compat_saved_rsp(%rip), %rsp
	mov %eax, %eax			/* the upper halves are undefined after compatibility mode */
	add compat_sum(%rip), %eax
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbp
	pop %rbx
	ret

	/* The aliased page: 64-bit code first (the way back), then the 32-bit code. */
	.section .text.workload.compat, "ax"
	.p2align 12
	.globl compat_page, compat_back_a, compat_back_b, compat_code32, compat_entry_iret
	.globl compat_entry_lret, compat_body, compat_inc_je, compat_wrap, compat_inc_ld
	.globl compat_moffs, compat_dec_jnz, compat_code32_end
compat_page:
compat_back_a:				/* 64-bit code at the low alias (EAX: the result) */
	movabs $compat_resume_a, %rdx
	jmp *%rdx
compat_back_b:
	movabs $compat_resume_b, %rdx
	jmp *%rdx

	.code32
compat_code32:
compat_entry_iret:
	call compat_body
	ljmp $SEL_KERNEL_CODE, $AT(compat_back_a)
compat_entry_lret:
	call compat_body
	pushl $SEL_KERNEL_CODE
	pushl $AT(compat_back_b)
	lret
compat_body:				/* ecx = n; returns the pass's sum in eax */
	mov $-2, %eax
	xor %esi, %esi
compat_inc_je:
	inc %eax
	je 2f
	add $3, %esi
	jmp 3f
2:	add $100, %esi
3:
	mov $WRAP_BASE, %ebx
	mov $(COMPAT_DATA + 0x1000), %edi
compat_wrap:
	mov (%ebx,%edi,1), %edx
	add %edx, %esi
	mov $(COMPAT_DATA - 1), %ebx
compat_inc_ld:
	inc %ebx
	mov (%ebx), %edx
	add %edx, %esi
	mov %eax, %ebp
compat_moffs:
	movl COMPAT_DATA, %eax
	add %eax, %esi
	mov %ebp, %eax
compat_dec_jnz:
	dec %ecx
	jnz compat_inc_je
	mov %esi, %eax
	ret
compat_code32_end:
	.code64
	.p2align 12, 0xcc
compat_page_end:

	.data
	.p2align 3
compat_saved_rsp:
	.quad 0
compat_n:
	.long 0
compat_sum:
	.long 0

	.section .note.GNU-stack,"",@progbits
