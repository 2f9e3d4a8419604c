/* SPDX-License-Identifier: MIT */
/*
 * arch_wl_counted(n), n >= 10: counted loops (lib/x86_loop.h), each of a form a compiler makes,
 * and loops cut by the faults of their own loads (arch/x86/workloads/counted.c maps the pages
 * of COUNTED_WINDOW on their first touch: a #PF, then the load runs again). The single-step
 * engine runs each loop to its exit with one trap and accounts its runs from the counter; a
 * fault inside a run cuts it where the counter says. The result, from the source below:
 *	A  n + (n - 1) + ... + 1		n (n + 1) / 2	(jumps back: n - 1)
 *	B  0 + 1 + ... + (n - 1)		n (n - 1) / 2	(n - 1)
 *	C  one a run while 3k < n, k = 1, 2, ...	ceil(n / 3)	(ceil(n / 3) - 1)
 *	D  one a run, 10 runs			10		(9; #PF in runs 1 and 6)
 *	E  two a run, 10 runs			20		(9; #PF in runs 1 and 6)
 *	F  4 x 5 nested				20		(4 x 4 inner, 3 outer)
 *	G  one a run, rcx = -5, -3, ..., 9	8		(7)
 *	H  three a run, 10 runs			30		(9; #PF in runs 1 and 10)
 *	I  four a run, 10 runs			40		(9; #PF in runs 1 and 10)
 *	J  five a run, 10 runs			50		(9; #PF in runs 1 and 6)
 *	K  six a run, 10 runs			60		(9; #PF in runs 1 and 4)
 *	L  T four times, P three		4 + 21 = 25	(P's JMP 3; #PF in P's run 1,
 *							 T's runs 1 and 3)
 *	M  chains with sides: 8 runs		75		(X's Jcc 1, Y's 1, V's JMP 6;
 *							 #PF in runs 1 and 3)
 *	N  seven a run, 10 runs			70		(9; #PF in runs 1 and 6)
 * n^2 + ceil(n / 3) + 408 in all (counted.c, arch_wl_counted_result).
 */
#define COUNTED_WINDOW 0x00007f0000200000 /* 19 pages, mapped on first touch (counted.c) */
#define PAGE 4096

	.section .text.workload, "ax"
	.globl arch_wl_counted, arch_wl_counted_end
	.globl counted_a_jcc, counted_b_jcc, counted_c_jcc, counted_d_jcc, counted_e_jcc
	.globl counted_f_jcc, counted_g_jcc, counted_h_jcc, counted_i_jcc, counted_j_jcc
	.globl counted_k_jcc
	.globl counted_d_load, counted_e_load, counted_h_load, counted_i_load, counted_j_load
	.globl counted_k_load, counted_l_jmp, counted_l_load1, counted_l_load2
	.globl counted_m_jcc1, counted_m_jcc2, counted_m_jmp, counted_m_load, counted_n_load
	.globl counted_n_jcc
	.p2align 4
arch_wl_counted:
	pushq %rbp
	movq %rsp, %rbp
	subq $32, %rsp
	xorl %eax, %eax
	/* A: a register counted down to 0 (SUB sets the flags JNE reads) */
	movl %edi, %ecx
1:	addq %rcx, %rax
	subl $1, %ecx
counted_a_jcc:
	jne 1b
	/* B: the counter a volatile word on the stack (GCC's code for `volatile i`) */
	movq $0, -8(%rbp)
2:	movq -8(%rbp), %rdx
	addq %rdx, %rax
	movq -8(%rbp), %rdx
	addq $1, %rdx
	movq %rdx, -8(%rbp)
	movq -8(%rbp), %rdx
	cmpq %rdi, %rdx
counted_b_jcc:
	jb 2b
	/* C: a 32-bit word counted by 3 in memory, compared with a register (CMP m32, r32) */
	movl $0, -20(%rbp)
3:	addl $3, -20(%rbp)
	addq $1, %rax
	cmpl %edi, -20(%rbp)
counted_c_jcc:
	jb 3b
	/* D: a load before the counter's update, over COUNTED_WINDOW's first two pages, five
	 * words before the second: it faults in run 1 (first page) and run 6 (second) */
	movabsq $COUNTED_WINDOW + PAGE - 40, %rsi
	xorl %ecx, %ecx
4:
counted_d_load:
	movq (%rsi,%rcx,8), %rdx
	addq $1, %rax
	addq $1, %rcx
	cmpq $10, %rcx
counted_d_jcc:
	jb 4b
	/* E: the load after the update, over the last two pages: faults in runs 1 and 6, where
	 * the counter has moved on already */
	movabsq $COUNTED_WINDOW + 3 * PAGE - 40 + 8, %rsi
	xorl %ecx, %ecx
5:	addq $1, %rcx
counted_e_load:
	movq -8(%rsi,%rcx,8), %rdx
	addq $2, %rax
	cmpq $10, %rcx
counted_e_jcc:
	jb 5b
	/* F: an inner loop counted by DEC (INC/DEC keep CF; JNZ reads ZF) inside another */
	movl $4, %r8d
6:	movl $5, %ecx
7:	addq $1, %rax
	decl %ecx
counted_f_jcc:
	jnz 7b
	decl %r8d
	jnz 6b
	/* G: signed, from below zero, by 2 */
	movq $-7, %rcx
8:	addq $1, %rax
	addq $2, %rcx
	cmpq $9, %rcx
counted_g_jcc:
	jl 8b
	/* H: a 32-bit word in memory counted up by ADDL (the counter in memory), the load after
	 * its update over pages 4 and 5, i = 1 .. 10 after it: the first run's load the first on
	 * page 4, the last run's (its jump not taken) the first on page 5 */
	movabsq $COUNTED_WINDOW + 5 * PAGE - 64, %rsi
	movl $0, -24(%rbp)
9:	addl $1, -24(%rbp)
	movl -24(%rbp), %ecx
counted_h_load:
	movq -8(%rsi,%rcx,8), %rdx
	addq $3, %rax
	cmpl $10, -24(%rbp)
counted_h_jcc:
	jb 9b
	/* I: counted down by DEC from 10 (JNZ), the load before the update over pages 6 and 7:
	 * ecx = 10 .. 1 at the load, the first run's the first on page 7, the last run's the
	 * first on page 6 */
	movabsq $COUNTED_WINDOW + 7 * PAGE - 16, %rsi
	movl $10, %ecx
10:
counted_i_load:
	movq (%rsi,%rcx,8), %rdx
	addq $4, %rax
	decl %ecx
counted_i_jcc:
	jnz 10b
	/* J: the counter carried through a copy (GCC's fill loop in crc32: i in rdx copied to r8,
	 * rdx overwritten with another value, then set to r8 + 1), the load in between, where
	 * only r8 holds the run's counter, over pages 8 and 9: r8 = 0 .. 9 at the load, faults in
	 * run 1 (page 8) and run 6 (page 9) */
	movabsq $COUNTED_WINDOW + 9 * PAGE - 40, %rsi
	xorl %edx, %edx
11:	movq %rdx, %r8
	leal 5(%rax), %edx
counted_j_load:
	movq (%rsi,%r8,8), %rcx
	addq $5, %rax
	leaq 1(%r8), %rdx
	cmpq $10, %rdx
counted_j_jcc:
	jb 11b
	/* K: the counter written twice a run (by 1 and by 1: 2 a run, 0 to 20), the load between
	 * the two writes over pages 10 and 11: rcx = 1, 3, .., 19 at the load, 16 bytes apart
	 * from 48 before page 11, faults in run 1 (page 10) and run 4 (page 11) */
	movabsq $COUNTED_WINDOW + 11 * PAGE - 48, %rsi
	xorl %ecx, %ecx
12:	addq $1, %rcx
counted_k_load:
	movq -8(%rsi,%rcx,8), %rdx
	addq $6, %rax
	addq $1, %rcx
	cmpq $20, %rcx
counted_k_jcc:
	jb 12b
	/* L: a block ending in a direct JMP, P, run with the block it jumps to, T, as one
	 * (per-block stepping's chains, block.c arm_chain), as GCC lays out crc32's outer loop: T
	 * (rcx 1 .. 4 after its ADD), U (out at rcx = 4), P, JMP back to T. P's load faults in its
	 * first run (page 12): a stop on the prefix's own path; T's load, rcx = 0 .. 3 before the
	 * ADD, 8 bytes apart from 16 before page 14, in runs 1 (page 13, T entered from K) and 3
	 * (page 14: T after P's JMP, in a chain). */
	movabsq $COUNTED_WINDOW + 12 * PAGE, %rsi
	movabsq $COUNTED_WINDOW + 14 * PAGE - 16, %rdi
	xorl %ecx, %ecx
13:	addq $1, %rax
counted_l_load2:
	movq (%rdi,%rcx,8), %rdx
	addq $1, %rcx
	testq %rcx, %rcx
	jne 14f
	nop /* never reached: T's fall-through */
14:	cmpq $4, %rcx
	je 15f
	addq $7, %rax
counted_l_load1:
	movq (%rsi), %rdx
counted_l_jmp:
	jmp 13b
15:	/* M: a loop of five blocks, X Y Z V and two side blocks, run as chains of up to three
	 * (block.c arm_chain: which block is a chain's first, middle or last turns as they are
	 * armed): X's Jcc forward taken once (rcx = 3, to S1, then Y), Y's once (rcx = 5, to S2,
	 * then X: Z and V skipped), Z's out at rcx = 8, V's JMP back to X. Y's load, rcx = 1 .. 8,
	 * 8 bytes apart from 16 before page 16, faults in runs 1 (page 15) and 3 (page 16, Y
	 * entered from S1). X 8 x 1, Y 8 x 2, Z 7 x 3, S1 10, S2 20: 75. */
	movabsq $COUNTED_WINDOW + 16 * PAGE - 24, %rsi
	xorl %ecx, %ecx
16:	addq $1, %rcx
	addq $1, %rax
	cmpq $3, %rcx
counted_m_jcc1:
	je 18f
17:	addq $2, %rax
counted_m_load:
	movq (%rsi,%rcx,8), %rdx
	cmpq $5, %rcx
counted_m_jcc2:
	je 19f
	addq $3, %rax
	nop
	cmpq $8, %rcx
	je 20f
	nop
counted_m_jmp:
	jmp 16b
18:	addq $10, %rax
	nop
	jmp 17b
19:	addq $20, %rax
	nop
	jmp 16b
	/* N: J's copy at 32 bits (i in edx copied to r8d, edx overwritten, then r8d + 1, CMP of
	 * 32 bits), the counter's upper half not zero before the first run (a 32-bit witness
	 * holds the low half only): r8 = 0 .. 9 at the load, 8 bytes apart from 40 before page
	 * 18, faults in runs 1 (page 17) and 6 (page 18). 10 x 7: 70. */
20:	movabsq $COUNTED_WINDOW + 18 * PAGE - 40, %rsi
	movabsq $0x500000000, %rdx
21:	movl %edx, %r8d
	leal 7(%rax), %edx
counted_n_load:
	movq (%rsi,%r8,8), %rcx
	addq $7, %rax
	leal 1(%r8), %edx
	cmpl $10, %edx
counted_n_jcc:
	jb 21b
	leave
	ret
arch_wl_counted_end:

	.section .note.GNU-stack,"",@progbits
