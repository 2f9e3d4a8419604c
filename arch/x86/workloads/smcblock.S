/* SPDX-License-Identifier: MIT */
/*
 * Code that changes where per-block stepping (docs/engine.md "Per-block stepping
 * (ss.block)") has already decoded it, and loops whose counter a store reaches through another
 * page. Six workloads (named only), on one page of kernel text (smcw_page0), each with its
 * branch signature worked out from this source (smcblock.c; tests/qemu/smcblock.t holds them
 * and the engine's records against QEMU's execution log, with ss.block=on and off):
 *
 *   smcblock   a block that rewrites one of its own later instructions (a NOP or TEST into a
 *              taken JMP or JE, its closing branch's displacement, an immediate its closing Jcc
 *              reads), runs it, and puts the old bytes back before the block ends: by MOV,
 *              ADD/SUB, XCHG, a MOV with an index register, PUSH through an RSP set onto the
 *              code, through the direct map and through the workload's own alias; in a chain's
 *              last block; and a store into the next block (which then runs its new bytes);
 *   smcloop    counted loops (lib/x86_loop.h) whose runs rewrite the code of the next run (a
 *              NOP or TEST into a JMP over an instruction, the counter's step), the last run
 *              putting the old bytes back; and a loop that swaps a TEST and a JMP every run;
 *   smcjcc32   a JE rel32 (0F 84) whose condition and displacement change between two calls of
 *              the function that holds it, by INC/DEC and ADD/SUB; and one in a chain's later
 *              block, rewritten by MOV from a table between the chain's runs;
 *   aliasctr   counted loops whose counter is a memory word [base + disp], decremented (or
 *              counted up) once more a run by a store with the same base and disp +- 4096,
 *              which paging maps onto the same physical word (SUB, DEC, ADD, MOV, XCHG, a store
 *              with an index register): the CPU makes fewer runs than the body says for the
 *              counter, and ends with the same counter;
 *   aliascode  a counted loop with a memory counter whose store with the counter's base hits
 *              the loop's own code (a NOP into a JMP for the next run, the last run putting it
 *              back);
 *   aliasdata  the same aliasing store hitting a data word that is not the counter: no effect
 *              on the runs (the loop must stay counted and exact).
 *
 * The processor executes the bytes present when it fetches them (SDM Vol. 3A 8.1.3 "Handling
 * Self- and Cross-Modifying Code"): a block's instruction a store before it changed runs as
 * its new bytes, each branch it takes then is one, with its record (SDM Vol. 3B 17.4.8.1).
 * Kernel text is mapped read-only (CR0.WP): the code is written through the direct map
 * (smcw_dmap: add it to a code address) or through the window smcblock.c maps (smcw_own; the
 * class-2 loops reach it at SMCW_CODE_OFF from their data base), another linear address than
 * the one the code is fetched at. Where the changed instruction runs in the same straight line
 * as the store, a CPUID comes between ("Store modified code (as data) into code segment;
 * Execute a serializing instruction; (* For example, CPUID instruction *) Execute new code",
 * 8.1.3 option 2; SDM Vol. 3A 11.6: a write through another linear address is resynchronized by
 * a serializing operation); where it runs in a later run of a loop or after a jump, the jump is
 * option 1 ("Jump to new code or an intermediate location"): a CPUID in a loop's body would
 * make it no counted loop (lib/x86_loop.c follows no CPUID), so these rely on the jump and on
 * 11.6's physical-address check ("A write to a memory location in a code segment that is
 * currently cached in the processor causes the associated cache line (or lines) to be
 * invalidated. This check is based on the physical address of the instruction."), as QEMU's
 * TCG, the oracle, drops its translations of a physical page written. CPUID affects no flag
 * (SDM Vol. 2A CPUID, "Flags Affected: None").
 *
 * Instruction counts: "(k)" after an instruction numbers it within its stretch; each
 * stretch says how many retire; branches say how often they are taken. A JMP written over a NOP
 * or TEST is recorded FROM that address; the sessions' self-check decodes the bytes there
 * after the run (the NOP or TEST back) and counts it as a delivery apart, so the signatures
 * (smcblock.c) leave those out of their classes.
 */
#define SMCW_WIN      0x00007f0000400000 /* smcblock.c's window: */
#define SMCW_DATA     SMCW_WIN		 /* a data page, */
#define PAGE	      4096		 /* and the same physical page again at SMCW_DATA + PAGE; */
#define SMCW_CODE_OFF 0x2000		 /* the code's pages from SMCW_DATA + this, writable */

/* Opcodes (SDM Vol. 2, Tables A-2 and A-3). */
#define OPC_OPSIZE  0x66 /* operand-size prefix: 66 90 is the two-byte NOP (XCHG AX, AX) */
#define OPC_NOP	    0x90
#define OPC_TEST_AL 0xa8 /* TEST AL, imm8: two bytes, as JMP rel8 and Jcc rel8 */
#define OPC_JMP8    0xeb /* JMP rel8 */
#define OPC_JE8	    0x74 /* JE/JZ rel8 */
#define OPC_ESC0F   0x0f /* the two-byte opcode map */
#define OPC_JE32    0x84 /* 0F 84: JE rel32 */
#define OPC_JNE32   0x85 /* 0F 85: JNE rel32 */
#define TEST_TO_JMP (OPC_JMP8 - OPC_TEST_AL)

/* Runs of the loops (their signatures follow, smcblock.c). */
#define SMCL_A_RUNS	8
#define SMCL_B_RUNS	6
#define SMCL_C_SWITCH	19 /* the step is 2 while the counter is below, then 1 */
#define SMCL_C_END	20
#define SMCL_D_RUNS	6
#define SMCJ_RUNS	4
#define ALIASCTR_A_N	20
#define ALIASCTR_B_N	16
#define ALIASCTR_C_END	30
#define ALIASCTR_D_N	12
#define ALIASCTR_E_N	10
#define ALIASCTR_F_N	8
#define ALIASCODE_N	8
#define ALIASDATA_N	40

	.section .text.workload, "ax"
	.globl smcw_page0, smcw_end
	.globl arch_wl_smcblock, arch_wl_smcblock_end, arch_wl_smcloop, arch_wl_smcloop_end
	.globl arch_wl_smcjcc32, arch_wl_smcjcc32_end, arch_wl_aliasctr, arch_wl_aliasctr_end
	.globl arch_wl_aliascode, arch_wl_aliascode_end, arch_wl_aliasdata, arch_wl_aliasdata_end
	.globl smcb_a_slot, smcb_b_slot, smcb_c_slot, smcb_d_slot, smcb_e_slot, smcb_f_jmp
	.globl smcb_f_fix, smcb_g_jcc, smcb_g_fix, smcb_h_slot, smcb_i_slot, smcb_j_jcc
	.globl smcb_loop, smcb_h2, smcb_h3
	.globl smcl_a_slot, smcl_a_jcc, smcl_b_slot, smcl_b_jcc, smcl_c_add, smcl_c_jcc
	.globl smcl_d_slot, smcl_d_jcc
	.globl smcj_f, smcj_f_jcc, smcj_f_ft, smcj_f_t1, smcj_f_t2, smcj_q_jcc, smcj_q_ft
	.globl smcj_q_r1, smcj_q_r2
	.globl aliasctr_a_jcc, aliasctr_b_jcc, aliasctr_c_jcc, aliasctr_d_jcc, aliasctr_e_jcc
	.globl aliasctr_f_jcc, aliascode_slot, aliascode_jcc, aliasdata_jcc
	.p2align 12
smcw_page0:

/*
 * smcblock(n): ten stretches A-J, each a block that rewrites its own later instruction, runs
 * it and puts the old bytes back (but I: the next block's), run twice (smcb_loop: the blocks
 * decoded afresh, then remembered). Returns n + 2 * (1 + 2 + ... + 10) = n + 110.
 * Instructions: 12 before the passes, 106 a pass, 7 after: 231. Taken: JMP 12 a pass (24),
 * JE 1 a pass (G) and the pass loop's JNZ once (3), RET 1; and 7 a pass FROM rewritten NOPs
 * and TESTs (deliveries apart to the self-check).
 */
arch_wl_smcblock:
	pushq %rbx			/* (1) CPUID writes EBX */
	pushq %r12			/* (2) */
	pushq %r13			/* (3) */
	pushq %r14			/* (4) */
	pushq %r15			/* (5) */
	xorl %eax, %eax			/* (6) */
	cmpb $0, smcw_ready(%rip)	/* (7) */
	je smcb_out			/* (8) not taken: the window is mapped */
	movq %rdi, %r12			/* (9) the result */
	movq smcw_dmap(%rip), %r13	/* (10) code + r13: its direct-map alias */
	movq smcw_own(%rip), %r14	/* (11) code + r14: the window's alias */
	movl $2, %r15d			/* (12) two passes */
smcb_loop:
	/* A: MOVW through the direct map, a NOP into a JMP over an ADD. 11 instructions. */
	leaq smcb_a_slot(%rip), %r10	/* (1) */
	addq %r13, %r10			/* (2) */
	movzwl (%r10), %r11d		/* (3) the NOP's bytes */
	movzwl smcb_a_jmp(%rip), %eax	/* (4) JMP smcb_a_back (.rodata) */
	movw %ax, (%r10)		/* (5) */
	xorl %eax, %eax			/* (6) */
	cpuid				/* (7) */
smcb_a_slot:
	.byte OPC_OPSIZE, OPC_NOP	/* (8) runs as the JMP: taken */
smcb_a_x:
	addq $1000, %r12		/* never */
smcb_a_back:
	movw %r11w, (%r10)		/* (9) the NOP again */
	addq $1, %r12			/* (10) */
	jmp smcb_b			/* (11) taken */
	/* B: ADD and SUB on the opcode byte through the window, a TEST into a JMP. 9. */
smcb_b:
	leaq smcb_b_slot(%rip), %r10	/* (1) */
	addq %r14, %r10			/* (2) */
	addb $TEST_TO_JMP, (%r10)	/* (3) */
	xorl %eax, %eax			/* (4) */
	cpuid				/* (5) */
smcb_b_slot:
	.byte OPC_TEST_AL, smcb_b_back - smcb_b_x /* (6) runs as JMP smcb_b_back: taken */
smcb_b_x:
	addq $1000, %r12		/* never */
smcb_b_back:
	subb $TEST_TO_JMP, (%r10)	/* (7) */
	addq $2, %r12			/* (8) */
	jmp smcb_c			/* (9) taken */
	/* C: XCHG through the direct map, a TEST into a JE with ZF set. 10. */
smcb_c:
	leaq smcb_c_slot(%rip), %r10	/* (1) */
	addq %r13, %r10			/* (2) */
	movl $OPC_JE8, %r11d		/* (3) */
	xchgb %r11b, (%r10)		/* (4) the JE in, the TEST's opcode out */
	xorl %eax, %eax			/* (5) ZF = 1 */
	cpuid				/* (6) */
smcb_c_slot:
	.byte OPC_TEST_AL, smcb_c_back - smcb_c_x /* (7) runs as JE smcb_c_back: taken */
smcb_c_x:
	addq $1000, %r12		/* never */
smcb_c_back:
	xchgb %r11b, (%r10)		/* (8) the TEST back */
	addq $3, %r12			/* (9) */
	jmp smcb_d			/* (10) taken */
	/* D: MOV with an index register ([slot + direct map's distance]). 9. */
smcb_d:
	leaq smcb_d_slot(%rip), %r10	/* (1) */
	movq %r13, %r9			/* (2) */
	movb $OPC_JMP8, (%r10,%r9)	/* (3) */
	xorl %eax, %eax			/* (4) */
	cpuid				/* (5) */
smcb_d_slot:
	.byte OPC_TEST_AL, smcb_d_back - smcb_d_x /* (6) runs as JMP smcb_d_back: taken */
smcb_d_x:
	addq $1000, %r12		/* never */
smcb_d_back:
	movb $OPC_TEST_AL, (%r10,%r9)	/* (7) */
	addq $4, %r12			/* (8) */
	jmp smcb_e			/* (9) taken */
	/* E: PUSH with RSP set just past the slot's 8 bytes in the window: the slot's first
	 * byte a JMP; POP and PUSH again put the 8 bytes back. Interrupts held off meanwhile
	 * (no frame may go onto that stack; #DB and NMI have stacks of their own, IST). 19. */
smcb_e:
	pushfq				/* (1) */
	cli				/* (2) */
	leaq smcb_e_slot(%rip), %r10	/* (3) */
	addq %r14, %r10			/* (4) */
	movq (%r10), %r9		/* (5) the 8 bytes from the slot */
	movq %r9, %r8			/* (6) */
	movb $OPC_JMP8, %r8b		/* (7) */
	movq %rsp, %r11			/* (8) */
	leaq 8(%r10), %rsp		/* (9) */
	pushq %r8			/* (10) the store */
	xorl %eax, %eax			/* (11) */
	cpuid				/* (12) */
smcb_e_slot:
	.byte OPC_TEST_AL, smcb_e_back - smcb_e_x /* (13) runs as JMP smcb_e_back: taken */
smcb_e_x:
	addq $1000, %r12		/* never */
smcb_e_back:
	popq %rax			/* (14) RSP past the slot's 8 bytes again */
	pushq %r9			/* (15) the old bytes */
	movq %r11, %rsp			/* (16) */
	popfq				/* (17) */
	addq $5, %r12			/* (18) */
	jmp smcb_f			/* (19) taken */
	/* F: the block's closing JMP: its rel8 moved onto smcb_f_fix (its next instruction),
	 * which moves it back onto smcb_f_to. 9. */
smcb_f:
	leaq smcb_f_jmp(%rip), %r10	/* (1) */
	addq %r13, %r10			/* (2) */
	subb $(smcb_f_to - smcb_f_fix), 1(%r10) /* (3) */
	xorl %eax, %eax			/* (4) */
	cpuid				/* (5) */
	addq $6, %r12			/* (6) */
smcb_f_jmp:
	.byte OPC_JMP8, smcb_f_to - (smcb_f_jmp + 2) /* (7) taken, to smcb_f_fix */
smcb_f_fix:
	addb $(smcb_f_to - smcb_f_fix), 1(%r10) /* (8) reached by the rewritten JMP alone */
smcb_f_to:
	jmp smcb_g			/* (9) taken */
	/* G: the block's closing JE (ZF set): its rel8 moved onto smcb_g_fix, which moves it
	 * back. 9. */
smcb_g:
	leaq smcb_g_jcc(%rip), %r10	/* (1) */
	addq %r14, %r10			/* (2) */
	subb $(smcb_g_to - smcb_g_fix), 1(%r10) /* (3) */
	xorl %eax, %eax			/* (4) ZF = 1 */
	cpuid				/* (5) */
smcb_g_jcc:
	.byte OPC_JE8, smcb_g_to - (smcb_g_jcc + 2) /* (6) taken, to smcb_g_fix */
	ud2				/* its fall-through: never (ZF = 1) */
smcb_g_fix:
	addb $(smcb_g_to - smcb_g_fix), 1(%r10) /* (7) reached by the rewritten JE alone */
smcb_g_to:
	addq $7, %r12			/* (8) */
	jmp smcb_h			/* (9) taken */
	/* H: three blocks ending in JMPs, the first two storing nothing (a chain, docs/engine.md
	 * "Chains"), the last the one that rewrites itself. 11. */
smcb_h:
	addq $8, %r12			/* (1) */
	leaq smcb_h_slot(%rip), %r10	/* (2) */
	jmp smcb_h2			/* (3) taken */
	ud2
smcb_h2:
	addq %r13, %r10			/* (4) */
	jmp smcb_h3			/* (5) taken */
	ud2
smcb_h3:
	movb $OPC_JMP8, (%r10)		/* (6) */
	xorl %eax, %eax			/* (7) */
	cpuid				/* (8) */
smcb_h_slot:
	.byte OPC_TEST_AL, smcb_h_back - smcb_h_x /* (9) runs as JMP smcb_h_back: taken */
smcb_h_x:
	addq $1000, %r12		/* never */
smcb_h_back:
	movb $OPC_TEST_AL, (%r10)	/* (10) */
	jmp smcb_j			/* (11) taken */
	/* J: an immediate the closing JE reads: CMP $0 run as CMP $1, the 0 back after it.
	 * 10. */
smcb_j:
	leaq smcb_j_cmp_end - 1(%rip), %r10 /* (1) the CMP's imm8, its last byte */
	addq %r13, %r10			/* (2) */
	movb $1, (%r10)			/* (3) */
	xorl %r11d, %r11d		/* (4) */
	xorl %eax, %eax			/* (5) */
	cpuid				/* (6) */
	cmpl $0, %r11d			/* (7) runs as CMP $1: ZF = 0 */
smcb_j_cmp_end:
	movb $0, (%r10)			/* (8) */
smcb_j_jcc:
	je smcb_i			/* (9) not taken */
	addq $9, %r12			/* (10) */
	/* I: a store into the next block, reached by a jump (8.1.3 option 1), which runs its
	 * new bytes and puts the old ones back. 9. */
smcb_i:
	leaq smcb_i_slot(%rip), %r10	/* (1) */
	addq %r14, %r10			/* (2) */
	movb $OPC_JMP8, (%r10)		/* (3) */
	jmp smcb_i2			/* (4) taken */
	ud2
smcb_i2:
	addq $10, %r12			/* (5) */
smcb_i_slot:
	.byte OPC_TEST_AL, smcb_i_back - smcb_i_x /* (6) runs as JMP smcb_i_back: taken */
smcb_i_x:
	addq $1000, %r12		/* never */
smcb_i_back:
	movb $OPC_TEST_AL, (%r10)	/* (7) */
	decl %r15d			/* (8) */
	jnz smcb_loop			/* (9) taken once */
	movq %r12, %rax			/* (1) of the 7 after the passes */
smcb_out:
	popq %r15			/* (2) */
	popq %r14			/* (3) */
	popq %r13			/* (4) */
	popq %r12			/* (5) */
	popq %rbx			/* (6) */
	ret				/* (7) */
arch_wl_smcblock_end:

/*
 * smcloop(n): counted loops whose runs rewrite the next run's code through the direct map or
 * the window, the jump back being the jump to the new code (8.1.3 option 1); the last run puts
 * the old bytes back. Returns n + 1008 + 1012 + 33 + 3024 = n + 5077.
 * Instructions: 36 outside the loops, A 9 + 7 * 8 = 65, B 12 + 5 * 11 = 67, C 11 * 8 = 88,
 * D 3 * 6 + 3 * 5 = 33: 289. Taken: JMP 4, Jcc 7 + 5 + 10 + 5 = 27, RET 1; and 7 + 5 + 3
 * FROM rewritten NOPs and TESTs.
 */
arch_wl_smcloop:
	pushq %r12			/* (1) */
	pushq %r13			/* (2) */
	pushq %r14			/* (3) */
	xorl %eax, %eax			/* (4) */
	cmpb $0, smcw_ready(%rip)	/* (5) */
	je smcl_out			/* (6) not taken */
	movq %rdi, %r12			/* (7) */
	movq smcw_dmap(%rip), %r13	/* (8) */
	movq smcw_own(%rip), %r14	/* (9) */
	/* A: a register counter (DEC, JNZ), 8 runs: the slot a NOP in run 1, a JMP over
	 * smcl_a_x in runs 2-8 (MOVW through the direct map, chosen by CMOV: the NOP again in
	 * the last run). Entered by a jump to its start: a trap there arms it before run 1. */
	leaq smcl_a_slot(%rip), %r10	/* (10) */
	addq %r13, %r10			/* (11) */
	movzwl (%r10), %r8d		/* (12) the NOP */
	movzwl smcl_a_jmp(%rip), %r9d	/* (13) the JMP */
	movl $SMCL_A_RUNS, %ecx		/* (14) */
	jmp smcl_a_slot			/* (15) taken */
	ud2
smcl_a_slot:
	.byte OPC_OPSIZE, OPC_NOP	/* a1: JMP smcl_a_back in runs 2-8: taken 7 */
smcl_a_x:
	addq $1000, %r12		/* a2: run 1 only */
smcl_a_back:
	addq $1, %r12			/* a3 */
	movl %r9d, %edx			/* a4 */
	cmpl $1, %ecx			/* a5 the last run? */
	cmovel %r8d, %edx		/* a6 */
	movw %dx, (%r10)		/* a7 the next run's slot */
	decl %ecx			/* a8 */
smcl_a_jcc:
	jnz smcl_a_slot			/* a9 taken 7 */
	/* B: counted up to 6 (CMP, JB), the slot's opcode byte changed by ADD through the window
	 * by a CMOV's choice: +TEST_TO_JMP after run 1, -TEST_TO_JMP after run 6, 0 between. */
	leaq smcl_b_slot(%rip), %r10	/* (16) */
	addq %r14, %r10			/* (17) */
	xorl %ecx, %ecx			/* (18) */
	movl $TEST_TO_JMP, %r8d		/* (19) */
	movl $-TEST_TO_JMP, %r9d	/* (20) its low byte: the opposite modulo 256 */
	jmp smcl_b_slot			/* (21) taken */
	ud2
smcl_b_slot:
	.byte OPC_TEST_AL, smcl_b_back - smcl_b_x /* b1: JMP smcl_b_back in runs 2-6: taken 5 */
smcl_b_x:
	addq $1000, %r12		/* b2: run 1 only */
smcl_b_back:
	addq $1, %rcx			/* b3 the counter, 1 .. 6 */
	xorl %edx, %edx			/* b4 */
	cmpq $1, %rcx			/* b5 */
	cmovel %r8d, %edx		/* b6 */
	cmpq $SMCL_B_RUNS, %rcx		/* b7 */
	cmovel %r9d, %edx		/* b8 */
	addb %dl, (%r10)		/* b9 */
	addq $2, %r12			/* b10 */
	cmpq $SMCL_B_RUNS, %rcx		/* b11 */
smcl_b_jcc:
	jb smcl_b_slot			/* b12 taken 5 */
	/* C: the counter's own step, an immediate the JB reads through the counter: 1 in run 1,
	 * then 2 while the counter is below SMCL_C_SWITCH, then 1 (MOV through the window, the
	 * next run's): the counter 1, 3, 5, .., 19, 20: 11 runs, where the body read with its
	 * first bytes says 20. */
	leaq smcl_c_add_end - 1(%rip), %r10 /* (22) the ADD's imm8, its last byte */
	addq %r14, %r10			/* (23) */
	xorl %ecx, %ecx			/* (24) */
	movl $2, %r8d			/* (25) */
	jmp smcl_c_add			/* (26) taken */
	ud2
smcl_c_add:
	addq $1, %rcx			/* c1 the counter */
smcl_c_add_end:
	addq $3, %r12			/* c2 */
	movl $1, %edx			/* c3 */
	cmpq $SMCL_C_SWITCH, %rcx	/* c4 */
	cmovbl %r8d, %edx		/* c5 */
	movb %dl, (%r10)		/* c6 the next run's step */
	cmpq $SMCL_C_END, %rcx		/* c7 */
smcl_c_jcc:
	jb smcl_c_add			/* c8 taken 10 */
	/* D: XCHG through the direct map swaps the slot's TEST and JMP every run (no counted
	 * loop: XCHG is not among the forms lib/x86_loop.c follows): a TEST in runs 1, 3, 5,
	 * a JMP in runs 2, 4, 6, the TEST again after run 6. */
	leaq smcl_d_slot(%rip), %r10	/* (27) */
	addq %r13, %r10			/* (28) */
	movl $OPC_JMP8, %r11d		/* (29) */
	movl $SMCL_D_RUNS, %ecx		/* (30) */
	jmp smcl_d_slot			/* (31) taken */
	ud2
smcl_d_slot:
	.byte OPC_TEST_AL, smcl_d_back - smcl_d_x /* d1: JMP smcl_d_back in runs 2, 4, 6: taken 3 */
smcl_d_x:
	addq $1000, %r12		/* d2: runs 1, 3, 5 */
smcl_d_back:
	xchgb %r11b, (%r10)		/* d3 */
	addq $4, %r12			/* d4 */
	decl %ecx			/* d5 */
smcl_d_jcc:
	jnz smcl_d_slot			/* d6 taken 5 */
	movq %r12, %rax			/* (32) */
smcl_out:
	popq %r14			/* (33) */
	popq %r13			/* (34) */
	popq %r12			/* (35) */
	ret				/* (36) */
arch_wl_smcloop_end:

/*
 * smcjcc32(n): a JE rel32 rewritten between runs of the code that holds it. Returns
 * n + 2114 + 1218 = n + 3332. Instructions: 22 in the calls' stretch (the 4 CALLs among them),
 * 5 a call in smcj_f (20), 5 before the loop, 17 + 17 + 16 + 17 in its runs, 5 after: 119.
 * Taken: CALL 4, RET 4 + 1, Jcc 3 (smcj_f_jcc) + 3 (smcj_q_jcc) + 3 (the loop's JB), JMP
 * 4 * 2 + 3 = 11.
 */
arch_wl_smcjcc32:
	pushq %r12			/* (1) */
	pushq %r13			/* (2) */
	pushq %r14			/* (3) */
	xorl %eax, %eax			/* (4) */
	cmpb $0, smcw_ready(%rip)	/* (5) */
	je smcj_out			/* (6) not taken */
	movq %rdi, %r12			/* (7) */
	leaq smcj_f_jcc(%rip), %r13	/* (8) */
	movq %r13, %r14			/* (9) */
	addq smcw_dmap(%rip), %r13	/* (10) the Jcc's direct-map alias */
	addq smcw_own(%rip), %r14	/* (11) its window alias */
	/* Four calls of smcj_f, its JE rel32 rewritten between them (the function's blocks
	 * remembered from the call before). */
	xorl %esi, %esi			/* (12) */
	call smcj_f			/* (13) JE, ZF = 1: taken to smcj_f_t1 (+101) */
	incb 1(%r13)			/* (14) 0F 84 into 0F 85: JNE */
	call smcj_f			/* (15) JNE, ZF = 1: not taken (+11) */
	addl $(smcj_f_t2 - smcj_f_t1), 2(%r14) /* (16) the rel32 onto smcj_f_t2 */
	movl $1, %esi			/* (17) */
	call smcj_f			/* (18) JNE, ZF = 0: taken to smcj_f_t2 (+1001) */
	decb 1(%r13)			/* (19) JE again */
	xorl %esi, %esi			/* (20) */
	call smcj_f			/* (21) JE, ZF = 1: taken to smcj_f_t2 (+1001) */
	subl $(smcj_f_t2 - smcj_f_t1), 2(%r14) /* (22) back onto smcj_f_t1 */
	/* A loop of 4 runs: a block that writes the JE's condition byte (through the direct map)
	 * and its rel32 (through the window) from smcj_tab, then a chain P -> Q (docs/engine.md
	 * "Chains") whose later block Q ends in that Jcc, remembered from the run before.
	 * Runs 1-4: JE to R1 (ZF = 1: taken, +100), JNE to R1 (ZF = 1: not taken, +10), JNE to
	 * R2 (ZF = 0: taken, +1000), JE to R1 (taken, +100: the first bytes again); each +2 in
	 * P and Q. */
	leaq smcj_q_jcc(%rip), %r13	/* (1) */
	movq %r13, %r14			/* (2) */
	addq smcw_dmap(%rip), %r13	/* (3) */
	addq smcw_own(%rip), %r14	/* (4) */
	xorl %ecx, %ecx			/* (5) */
smcj_loop:
	leaq smcj_tab(%rip), %rdx	/* l1 */
	movzbl (%rdx,%rcx,8), %eax	/* l2 the condition's opcode byte */
	movb %al, 1(%r13)		/* l3 */
	movl 4(%rdx,%rcx,8), %eax	/* l4 the rel32 */
	movl %eax, 2(%r14)		/* l5 */
	movzbl 1(%rdx,%rcx,8), %esi	/* l6 0: ZF = 1 at the Jcc */
	jmp smcj_p			/* l7 taken 4 */
	ud2
smcj_p:
	addq $1, %r12			/* p1 */
	jmp smcj_q			/* p2 taken 4 */
	ud2
smcj_q:
	addq $1, %r12			/* q1 */
	testl %esi, %esi		/* q2 */
smcj_q_jcc:
	.byte OPC_ESC0F, OPC_JE32	/* q3 taken 3 (runs 1, 3, 4) */
	.long smcj_q_r1 - smcj_q_ft
smcj_q_ft:
	addq $10, %r12			/* run 2 */
	jmp smcj_join			/* taken 1 */
smcj_q_r1:
	addq $100, %r12			/* runs 1, 4 */
	jmp smcj_join			/* taken 2 */
smcj_q_r2:
	addq $1000, %r12		/* run 3 */
smcj_join:
	incl %ecx			/* j1 */
	cmpl $SMCJ_RUNS, %ecx		/* j2 */
	jb smcj_loop			/* j3 taken 3 */
	movq %r12, %rax			/* (1) */
smcj_out:
	popq %r14			/* (2) */
	popq %r13			/* (3) */
	popq %r12			/* (4) */
	ret				/* (5) */
/* 5 instructions a call: the ADD, TEST, the Jcc, one ADD, RET. */
smcj_f:
	addq $1, %r12
	testl %esi, %esi
smcj_f_jcc:
	.byte OPC_ESC0F, OPC_JE32
	.long smcj_f_t1 - smcj_f_ft
smcj_f_ft:
	addq $10, %r12
	ret
smcj_f_t1:
	addq $100, %r12
	ret
smcj_f_t2:
	addq $1000, %r12
	ret
arch_wl_smcjcc32_end:

/*
 * aliasctr(n): counted loops whose counter is a word at [base + disp] of the data page, and a
 * second store a run with the same base at disp + PAGE (or disp - PAGE, the base on the alias)
 * that paging maps onto the same word. The body read alone says the counter moves by 1 a run
 * (that store reaching another word); the CPU moves it by 2 (or 3). Returns
 * n + 10 + 72 + 10 + 6 + 5 + 4 = n + 107. Instructions: 23 outside the loops, A 10 * 5,
 * B 8 * 5, C 10 * 5, D 6 * 8, E 5 * 7, F 4 * 5: 266. Taken: JMP 6, Jcc 9 + 7 + 9 + 5 + 4 + 3
 * = 37, RET 1.
 */
arch_wl_aliasctr:
	pushq %rbx			/* (1) */
	xorl %eax, %eax			/* (2) */
	cmpb $0, smcw_ready(%rip)	/* (3) */
	je aliasctr_out			/* (4) not taken */
	movq %rdi, %rax			/* (5) */
	movabsq $SMCW_DATA, %rbx	/* (6) */
	/* A: SUB, and SUB through the page after: 20, 18, .., 2: 10 runs (the body says 20). */
	movl $ALIASCTR_A_N, 8(%rbx)	/* (7) */
	jmp aliasctr_a			/* (8) taken */
	ud2
aliasctr_a:
	subl $1, 8(%rbx)
	addq $1, %rax
	subl $1, PAGE + 8(%rbx)
	cmpl $0, 8(%rbx)
aliasctr_a_jcc:
	jne aliasctr_a			/* taken 9 */
	/* B: the base on the alias page, DEC through the page before, then DEC of the counter
	 * (the JNZ's flags): 16, 14, .., 2 at the load: 8 runs (the body says 16), +72. */
	leaq PAGE(%rbx), %r8		/* (9) */
	movl $ALIASCTR_B_N, 16(%r8)	/* (10) */
	jmp aliasctr_b			/* (11) taken */
	ud2
aliasctr_b:
	movl 16(%r8), %edx
	addq %rdx, %rax
	decl 16 - PAGE(%r8)
	decl 16(%r8)
aliasctr_b_jcc:
	jnz aliasctr_b			/* taken 7 */
	/* C: counted up by ADD 1, and by 2 more through the alias, below a register's 30:
	 * 3, 6, .., 30: 10 runs (the body says 30). */
	movl $0, 24(%rbx)		/* (12) */
	movl $ALIASCTR_C_END, %r9d	/* (13) */
	jmp aliasctr_c			/* (14) taken */
	ud2
aliasctr_c:
	addl $1, 24(%rbx)
	addl $2, PAGE + 24(%rbx)
	addq $1, %rax
	cmpl %r9d, 24(%rbx)
aliasctr_c_jcc:
	jb aliasctr_c			/* taken 9 */
	/* D: 64 bits through registers (GCC's volatile counter), the alias's MOV one less
	 * again: 12, 10, .., 2: 6 runs (the body says 12). */
	movq $ALIASCTR_D_N, 32(%rbx)	/* (15) */
	jmp aliasctr_d			/* (16) taken */
	ud2
aliasctr_d:
	movq 32(%rbx), %rdx
	subq $1, %rdx
	movq %rdx, 32(%rbx)
	leaq -1(%rdx), %rsi
	movq %rsi, PAGE + 32(%rbx)
	addq $1, %rax
	cmpq $0, 32(%rbx)
aliasctr_d_jcc:
	jne aliasctr_d			/* taken 5 */
	/* E: XCHG as the alias's store (no counted loop: lib/x86_loop.c does not follow it):
	 * 10, 8, .., 2: 5 runs. */
	movl $ALIASCTR_E_N, 40(%rbx)	/* (17) */
	jmp aliasctr_e			/* (18) taken */
	ud2
aliasctr_e:
	subl $1, 40(%rbx)
	movl 40(%rbx), %edx
	subl $1, %edx
	xchgl %edx, PAGE + 40(%rbx)
	addq $1, %rax
	cmpl $0, 40(%rbx)
aliasctr_e_jcc:
	jne aliasctr_e			/* taken 4 */
	/* F: the alias's store with an index register (PAGE in r9): 8, 6, 4, 2: 4 runs. */
	movl $ALIASCTR_F_N, 48(%rbx)	/* (19) */
	movl $PAGE, %r9d		/* (20) */
	jmp aliasctr_f			/* (21) taken */
	ud2
aliasctr_f:
	subl $1, 48(%rbx)
	subl $1, 48(%rbx,%r9)
	addq $1, %rax
	cmpl $0, 48(%rbx)
aliasctr_f_jcc:
	jne aliasctr_f			/* taken 3 */
aliasctr_out:
	popq %rbx			/* (22) */
	ret				/* (23) */
arch_wl_aliasctr_end:

/*
 * aliascode(n): a counted loop, its counter at [rbx + 8], whose MOVW with the same base at
 * SMCW_CODE_OFF + (aliascode_slot - smcw_page0) writes the loop's own first instruction (the
 * window maps the code there): a JMP over aliascode_x for runs 2-8, chosen by CMOV, the NOP
 * again in run 8. Returns n + 1000 + 8. Instructions: 10 before the loop, 9 + 7 * 8 = 65 in
 * it, 2 after: 77. Taken: JMP 1, JNE 7, RET 1; and 7 FROM the rewritten NOP.
 */
arch_wl_aliascode:
	pushq %rbx			/* (1) */
	xorl %eax, %eax			/* (2) */
	cmpb $0, smcw_ready(%rip)	/* (3) */
	je aliascode_out		/* (4) not taken */
	movq %rdi, %rax			/* (5) */
	movabsq $SMCW_DATA, %rbx	/* (6) */
	movl $ALIASCODE_N, 8(%rbx)	/* (7) */
	movzwl aliascode_slot(%rip), %r8d /* (8) the NOP */
	movzwl aliascode_jmp(%rip), %r9d /* (9) the JMP */
	jmp aliascode_slot		/* (10) taken */
	ud2
aliascode_slot:
	.byte OPC_OPSIZE, OPC_NOP	/* s1: JMP aliascode_back in runs 2-8: taken 7 */
aliascode_x:
	addq $1000, %rax		/* s2: run 1 only */
aliascode_back:
	movl %r9d, %edx			/* s3 */
	cmpl $1, 8(%rbx)		/* s4 the last run? */
	cmovel %r8d, %edx		/* s5 */
	movw %dx, SMCW_CODE_OFF + (aliascode_slot - smcw_page0)(%rbx) /* s6 */
	addq $1, %rax			/* s7 */
	subl $1, 8(%rbx)		/* s8 */
aliascode_jcc:
	jne aliascode_slot		/* s9 taken 7 */
aliascode_out:
	popq %rbx			/* (11) */
	ret				/* (12) */
arch_wl_aliascode_end:

/*
 * aliasdata(n): the aliasing store of aliasctr reaching [rbx + 16], not the counter at
 * [rbx + 8]: 40 runs as the body says. Returns n + 40 + 3 * 40 = n + 160. Instructions: 9
 * before the loop, 40 * 5, 4 after: 213. Taken: JMP 1, JNE 39, RET 1.
 */
arch_wl_aliasdata:
	pushq %rbx			/* (1) */
	xorl %eax, %eax			/* (2) */
	cmpb $0, smcw_ready(%rip)	/* (3) */
	je aliasdata_out		/* (4) not taken */
	movq %rdi, %rax			/* (5) */
	movabsq $SMCW_DATA, %rbx	/* (6) */
	movl $ALIASDATA_N, 8(%rbx)	/* (7) */
	movl $0, 16(%rbx)		/* (8) */
	jmp aliasdata_loop		/* (9) taken */
	ud2
aliasdata_loop:
	subl $1, 8(%rbx)
	addl $3, PAGE + 16(%rbx)
	addq $1, %rax
	cmpl $0, 8(%rbx)
aliasdata_jcc:
	jne aliasdata_loop		/* taken 39 */
	movl 16(%rbx), %edx		/* (10) */
	addq %rdx, %rax			/* (11) */
aliasdata_out:
	popq %rbx			/* (12) */
	ret				/* (13) */
arch_wl_aliasdata_end:
smcw_end:

	.section .rodata
/* The JMPs written over the two-byte NOPs: JMP rel8 over the instruction after them. */
smcb_a_jmp:
	.byte OPC_JMP8, smcb_a_back - smcb_a_x
smcl_a_jmp:
	.byte OPC_JMP8, smcl_a_back - smcl_a_x
aliascode_jmp:
	.byte OPC_JMP8, aliascode_back - aliascode_x
/* smcjcc32's loop: per run the Jcc's second opcode byte, ZF's source (0: ZF = 1), and its
 * rel32. */
	.p2align 3
smcj_tab:
	.byte OPC_JE32, 0, 0, 0
	.long smcj_q_r1 - smcj_q_ft
	.byte OPC_JNE32, 0, 0, 0
	.long smcj_q_r1 - smcj_q_ft
	.byte OPC_JNE32, 1, 0, 0
	.long smcj_q_r2 - smcj_q_ft
	.byte OPC_JE32, 0, 0, 0
	.long smcj_q_r1 - smcj_q_ft

	.section .note.GNU-stack,"",@progbits
