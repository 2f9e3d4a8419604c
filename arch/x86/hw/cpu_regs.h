/* SPDX-License-Identifier: MIT */
/*
 * Control registers, IA32_EFER, STAR and RFLAGS bits, defined once (Intel SDM Vol. 3A 2.2.1
 * Table 2-1 for EFER, 2.5 Figure 2-7 for CR0/CR4, 5.8.8 for STAR; Vol. 1 3.4.3 for RFLAGS).
 * MSR numbers are in hw/msr.h. Usable from assembly (lib/bits.h's BIT() is a plain shift
 * there).
 */
#ifndef ARCH_X86_HW_CPU_REGS_H
#define ARCH_X86_HW_CPU_REGS_H

#include "arch/x86/hw/msr.h"
#include "lib/bits.h"

/* CR0 (SDM Vol. 3A 2.5, Figure 2-7) */
#define CR0_PE BIT(0)
#define CR0_MP BIT(1)
#define CR0_EM BIT(2)
#define CR0_TS BIT(3)
#define CR0_NE BIT(5)
#define CR0_WP BIT(16) /* supervisor writes honour read-only pages */
#define CR0_PG BIT(31)

/* CR4 (SDM Vol. 3A 2.5) */
#define CR4_PAE	       BIT(5)
#define CR4_PGE	       BIT(7)
#define CR4_OSFXSR     BIT(9)
#define CR4_OSXMMEXCPT BIT(10)
#define CR4_LA57       BIT(12) /* 5-level paging */
#define CR4_OSXSAVE    BIT(18) /* XSETBV/XGETBV and XCR0 enabled (SDM Vol. 1 13.3) */
#define CR4_SMEP       BIT(20) /* SDM Vol. 3A 4.6: no instruction fetch from user pages in ring 0 */
#define CR4_SMAP       BIT(21) /* 4.6: no data access to user pages in ring 0 unless RFLAGS.AC */

/* XCR0: the state components XSAVE manages and their instructions may use (SDM Vol. 1 13.3,
 * "Enabling the XSAVE Feature Set and XSAVE-Enabled Features"). Bit 0 must be set; AVX needs
 * SSE; the three AVX-512 components go together, with AVX. */
#define XCR0_X87    BIT(0)
#define XCR0_SSE    BIT(1)
#define XCR0_AVX    BIT(2)
#define XCR0_AVX512 (BIT(5) | BIT(6) | BIT(7)) /* opmask, ZMM_Hi256, Hi16_ZMM */

/* IA32_EFER (SDM Vol. 3A 2.2.1, Table 2-1) */
#define EFER_SCE BIT(0)
#define EFER_LME BIT(8)
#define EFER_LMA BIT(10)
#define EFER_NXE BIT(11)

/* IA32_STAR (SDM Vol. 3A 5.8.8): SYSCALL CS/SS base in [47:32], SYSRET base in [63:48]. */
#define STAR_SYSCALL_CS(sel)  ((uint64_t)(sel) << 32)
#define STAR_SYSRET_BASE(sel) ((uint64_t)(sel) << 48)

/* RFLAGS (SDM Vol. 1 3.4.3) */
#define RFLAGS_CF     BIT(0)
#define RFLAGS_FIXED1 BIT(1) /* reserved, always 1 */
#define RFLAGS_TF     BIT(8)
#define RFLAGS_IF     BIT(9)
#define RFLAGS_DF     BIT(10)
#define RFLAGS_RF     BIT(16)
#define RFLAGS_AC     BIT(18)

#endif
