/* SPDX-License-Identifier: MIT */
/*
 * Architectural performance-monitoring MSRs and their bits, defined once for the drivers and
 * the software PMU (SDM Vol. 3B 18.2 architectural performance monitoring; reference 7.1-7.2).
 */
#ifndef ARCH_X86_PMU_REGS_H
#define ARCH_X86_PMU_REGS_H

#include "lib/bits.h"

#define MSR_IA32_PMC0			0xc1u /* legacy alias: writes sign-extend bit 31 */
#define MSR_IA32_PERFEVTSEL0		0x186u
#define MSR_IA32_FIXED_CTR0		0x309u
#define MSR_IA32_FIXED_CTR_CTRL		0x38du
#define MSR_IA32_PERF_GLOBAL_STATUS	0x38eu
#define MSR_IA32_PERF_GLOBAL_CTRL	0x38fu
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL	0x390u /* v4+: IA32_PERF_GLOBAL_STATUS_RESET */
#define MSR_IA32_PERF_GLOBAL_STATUS_SET 0x391u /* v4+ */
#define MSR_IA32_A_PMC0			0x4c1u /* full-width alias, IA32_PERF_CAPABILITIES[13] */
#define MSR_IA32_PEBS_ENABLE		0x3f1u /* bit n: PEBS on GP counter n (reference 6.1) */

/* IA32_PERFEVTSELx (SDM 18.2.1.1, Figure 18-1). */
#define EVTSEL_EVENT	GENMASK(7, 0)
#define EVTSEL_UMASK	GENMASK(15, 8)
#define EVTSEL_USR	BIT(16)
#define EVTSEL_OS	BIT(17)
#define EVTSEL_EDGE	BIT(18)
#define EVTSEL_PC	BIT(19)
#define EVTSEL_INT	BIT(20)
#define EVTSEL_ANY	BIT(21)
#define EVTSEL_EN	BIT(22)
#define EVTSEL_INV	BIT(23)
#define EVTSEL_CMASK	GENMASK(31, 24)
#define EVTSEL_VALID	GENMASK(31, 0)
#define EVTSEL_ADAPTIVE BIT(34) /* adaptive PEBS record on this counter (reference 6.1, 7.1) */

/* IA32_FIXED_CTR_CTRL: 4 bits per counter (SDM 18.2.2, Figure 18-2). */
#define FIXED_CTRL_OS(m)       BIT(4 * (m))
#define FIXED_CTRL_USR(m)      BIT(4 * (m) + 1)
#define FIXED_CTRL_ANY(m)      BIT(4 * (m) + 2)
#define FIXED_CTRL_PMI(m)      BIT(4 * (m) + 3)
#define FIXED_CTRL_ADAPTIVE(m) BIT(32 + 4 * (m)) /* adaptive PEBS on fixed counter m (ref 6.1) */

/* IA32_PERF_GLOBAL_STATUS (reference 7.2). */
#define GLOBAL_STATUS_FIXED(m)	BIT(32 + (m))
#define GLOBAL_STATUS_LBR_FRZ	BIT(58)
#define GLOBAL_STATUS_CTR_FRZ	BIT(59)
#define GLOBAL_STATUS_DS_BUFFER BIT(62) /* PEBS buffer threshold; not set by BTS */
#define GLOBAL_STATUS_COND_CHGD BIT(63)

/* Architectural events the model counts (SDM 18.2.1.2, Table 18-1). */
#define ARCH_EVENT_CORE_CYCLES	0x3c /* umask 00H; also 01H reference cycles */
#define ARCH_EVENT_INSTRUCTIONS 0xc0 /* umask 00H */
#define ARCH_EVENT_BRANCHES	0xc4 /* umask 00H */

/* Model-specific LBR MSRs (SDM Vol. 4 Table 2-x; reference 3.1). */
#define MSR_LBR_SELECT 0x1c8u
#define MSR_LBR_TOS    0x1c9u
#define MSR_LER_FROM   0x1ddu /* last exception record (LASTINTFROMIP) */
#define MSR_LER_TO     0x1deu
#define LBR_CORE_FROM  0x40u /* MSR_LASTBRANCH_0_FROM_IP: Core 2, Atom, Silvermont */
#define LBR_CORE_TO    0x60u
#define LBR_NHM_FROM   0x680u /* MSR_LASTBRANCH_0_FROM_IP: Nehalem and later */
#define LBR_NHM_TO     0x6c0u
#define LBR_SKL_INFO   0xdc0u /* MSR_LBR_INFO_0: formats 5 and 7 */

/* PEBS configuration MSRs (reference 6.1). */
#define MSR_PEBS_DATA_CFG 0x3f2u
#define MSR_PEBS_LD_LAT	  0x3f6u

/* IA32_PEBS_ENABLE bits (reference 6.1; SDM Vol. 3B 18.8.1.1 for Nehalem's PEBS_EN/LL_EN). */
#define PEBS_ENABLE_GP(n)     BIT(n)	     /* PEBS on IA32_PMCn */
#define PEBS_ENABLE_LD_LAT(n) BIT(32 + (n))  /* load latency on PMCn: n < 4, perfmon < v5 */
#define PEBS_ENABLE_FIXED(m)  BIT(32 + (m))  /* extended PEBS on IA32_FIXED_CTRm (PERF_CAP[14]) */
#define PEBS_LD_LAT_THRESHOLD GENMASK(15, 0) /* MSR_PEBS_LD_LAT: minimum latency in cycles */

/* Legacy LBR record fields by format (IA32_PERF_CAPABILITIES[5:0]; SDM Vol. 3B 17.4.8.1,
 * 17.12 for LBR_INFO; reference 1.5 table, 3.4). Same names and values as the software PMU's
 * private copies in spmu_lbr.c, so either may include this header. */
#define LBR_FMT0_FROM	   GENMASK(31, 0)  /* format 0: FROM in the FROM MSR's low half ... */
#define LBR_FMT0_TO	   GENMASK(63, 32) /* ... and TO in its high half (ref 1.5) */
#define LBR_FROM_MISPRED   BIT(63)	   /* formats 3, 4, 6 */
#define LBR_FROM_IN_TX	   BIT(62)	   /* format 4 */
#define LBR_FROM_ABORT	   BIT(61)	   /* format 4 */
#define LBR_INFO_MISPRED   BIT(63)	   /* MSR_LBR_INFO_x, formats 5 and 7 */
#define LBR_INFO_IN_TX	   BIT(62)	   /* format 5 only */
#define LBR_INFO_ABORT	   BIT(61)	   /* format 5 only */
#define LBR_INFO_CYCLES	   GENMASK(15, 0)
#define LBR_FMT6_TO_CYCLES GENMASK(63, 48) /* format 6: TO[47:0] is the address */

/* Architectural LBR_INFO bits spmu_arch_lbr.h does not define (reference 4.3). */
#define ARCH_LBR_INFO_IN_TX BIT(62)
#define ARCH_LBR_INFO_ABORT BIT(61)

#endif
