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
#include "arch/x86/cpu/trap_frame.h"

#define DB_VECTOR 1 /* #DB (SDM Vol. 3A Table 6-1; VEC_DB in arch/x86/cpu/trap.h) */

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

/*
 * The #DB gate's handler (ss_install_entry), in one page with the code it runs (TRAP_STEP_HOT,
 * arch/x86/cpu/trap.h). The whole struct trap_frame is saved first (its registers are what a
 * counted loop's count and its end are read from, block.c); then ss_trap: the plain step
 * (ss_plain_trap, most traps) with the CPU's frame in it as its argument; for any other trap,
 * ss_debug_trap with the same frame. The engine's traps return through an IRETQ of their own
 * (a debug exception's return is never a record of the software PMU's). A #DB that is not the
 * engine's (INT1, INT 1, the workload stepping itself, any #DB outside a stepped run) goes on
 * to #DB's stub in trap_stub_table, as if it had come there: trap dispatch, the workload's
 * handler.
 */
	.section .text.step_hot, "ax"
	.globl ss_debug_entry
	.p2align 4
ss_debug_entry:
	pushq $0		/* #DB pushes no error code (SDM Vol. 3A Table 6-1) */
	pushq $DB_VECTOR
	SAVE_TRAP_REGS
	/* The CPU aligned RSP to 16 before its five-word frame (SDM Vol. 3A 6.14.2): after 17
	 * more words it is aligned for the call. */
	movq %rsp, %rdi
	call ss_trap
	testb %al, %al
	jz 2f
	RESTORE_TRAP_REGS
	iretq
2:	RESTORE_TRAP_REGS
	jmp *trap_stub_table + 8 * DB_VECTOR(%rip)

/*
 * A translated block's hand-back (arch/x86/step/xlate.c, lib/x86_xlate.h): INT 0xe2 from
 * ring 3 (VEC_XLATE_HANDBACK, gate DPL 3), its whole frame saved as the #DB entry saves it;
 * ss_xlate_handback moves RIP back to the workload's own code. Any other INT 0xe2 goes on to
 * the vector's stub in trap_stub_table: trap dispatch, an unexpected interrupt said.
 */
#define XLATE_VECTOR 0xe2
	.text
	.globl ss_xlate_entry
	.p2align 4
ss_xlate_entry:
	pushq $0
	pushq $XLATE_VECTOR
	SAVE_TRAP_REGS
	movq %rsp, %rdi
	call ss_xlate_handback
	testb %al, %al
	jz 2f
	RESTORE_TRAP_REGS
	iretq
2:	RESTORE_TRAP_REGS
	jmp *trap_stub_table + 8 * XLATE_VECTOR(%rip)

/* arch_step_bp_cost's loop (ARCH_BP_LOOP_INSNS = 9 instructions an iteration: seven ADDs, DEC,
 * JNZ; rdi iterations) and its #DB handler: RF set in the frame, so that the breakpoint on
 * ss_bp_head lets the instruction run on return (SDM Vol. 3B 17.3.1.1), and IRETQ. */
	.section .text.workload, "ax"
	.globl ss_bp_loop, ss_bp_head
	.p2align 6
ss_bp_loop:
	xorl %eax, %eax
ss_bp_head:
	.rept 7
	addq $1, %rax
	.endr
	decq %rdi
	jnz ss_bp_head
	ret

	.text
	.globl ss_bp_trap
	.p2align 4
ss_bp_trap:
	orq $RFLAGS_RF, 2 * 8(%rsp)	/* RIP, CS, RFLAGS (SDM Vol. 3A Figure 6-9) */
	iretq

/* A #DB handler that only returns (arch_step_floor): the platform's own trap round trip. */
	.text
	.globl ss_floor_trap
	.p2align 4
ss_floor_trap:
	iretq

	.section .note.GNU-stack,"",@progbits
