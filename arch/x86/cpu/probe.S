/* SPDX-License-Identifier: MIT */
/*
 * bool cpu_probe_byte(const void *p): read one byte at p, true if the read worked, false if it
 * faulted (#PF: not present, or a user page with SMAP and RFLAGS.AC clear; #GP: a
 * non-canonical p). trap_dispatch (trap.c) sends a #PF or #GP at cpu_probe_at to
 * cpu_probe_fail before anything else sees it. One load on the page itself: cheaper than a walk
 * of the paging structures, whose tables each take an entry of QEMU's small softmmu TLB. In the
 * single-step engine's hot page (TRAP_STEP_HOT, trap.h): the engine probes the workload's code
 * on every step (arch/x86/step/fetch.c).
 */
	.section .text.step_hot, "ax"
	.globl cpu_probe_byte, cpu_probe_at, cpu_probe_fail
cpu_probe_byte:
cpu_probe_at:
	movb (%rdi), %al
	movl $1, %eax
	ret
cpu_probe_fail:
	xorl %eax, %eax
	ret

	.section .note.GNU-stack,"",@progbits
