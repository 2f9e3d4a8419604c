/* SPDX-License-Identifier: MIT */
/*
 * Interrupt vector assignments. The PMI has a vector nobody shares (IPIs get their own), so
 * the PMI/DS service routine never has to guess why it ran. Higher vectors have higher
 * priority classes (SDM Vol. 3A 10.8.3.1): the spurious vector is conventionally 0xFF.
 */
#ifndef ARCH_X86_CPU_VECTORS_H
#define ARCH_X86_CPU_VECTORS_H

/* A Linux program's threads (arch/x86/user/thread_host.c): INT from its system calls' stepped
 * side into the kernel's, and the IPI that wakes a thread's CPU (a wake-up, a TLB shootdown,
 * the process's end). */
#define VEC_LINUX_THREAD 0xe0
#define VEC_LINUX_IPI	 0xe1
/* A translated block hands its runs back to the single-step engine (arch/x86/step/xlate.c,
 * lib/x86_xlate.h XLATE_HANDBACK_VEC): an INT from ring 3, its gate DPL 3. */
#define VEC_XLATE_HANDBACK 0xe2
#define VEC_PMI		   0xf0 /* LVT performance-counter entry (unless delivered as NMI) */
#define VEC_IPI_CALL	   0xf1 /* cross-CPU function calls */
#define VEC_APIC_TIMER	   0xf2 /* LVT timer (calibration) */
#define VEC_APIC_ERROR	   0xfe /* LVT error */
#define VEC_APIC_SPURIOUS                                                                          \
	0xff /* spurious-interrupt vector register; bits 3:0 must be 1111b                         \
	      * on P6/Pentium parts (SDM 10.9) */

#endif
