/* SPDX-License-Identifier: MIT */
/*
 * Architectural performance-monitoring MSRs and their bits, defined once for the drivers and
 * the software PMU (SDM Vol. 3B 18.2 architectural performance monitoring; references.md 7.1-7.2).
 */
#ifndef ARCH_X86_HW_PMU_REGS_H
#define ARCH_X86_HW_PMU_REGS_H

#include "arch/x86/hw/msr.h"
#include "lib/bits.h"

/* IA32_PERFEVTSELx (SDM 18.2.1.1, Figure 18-1). */
#define EVTSEL_EVENT GENMASK(7, 0)
#define EVTSEL_UMASK GENMASK(15, 8)
#define EVTSEL_USR   BIT(16)
#define EVTSEL_OS    BIT(17)
#define EVTSEL_EDGE  BIT(18)
#define EVTSEL_PC    BIT(19)
#define EVTSEL_INT   BIT(20)
#define EVTSEL_ANY   BIT(21)
#define EVTSEL_EN    BIT(22)
#define EVTSEL_INV   BIT(23)
#define EVTSEL_CMASK GENMASK(31, 24)
#define EVTSEL_VALID GENMASK(31, 0)
#define EVTSEL_ADAPTIVE                                                                            \
	BIT(34) /* adaptive PEBS record on this counter (references.md 6.1, 7.1)                   \
		 */

/* IA32_FIXED_CTR_CTRL: 4 bits per counter (SDM 18.2.2, Figure 18-2). */
#define FIXED_CTRL_OS(m)    BIT(4 * (m))
#define FIXED_CTRL_USR(m)   BIT(4 * (m) + 1)
#define FIXED_CTRL_ANY(m)   BIT(4 * (m) + 2)
#define FIXED_CTRL_PMI(m)   BIT(4 * (m) + 3)
#define FIXED_CTRL_FIELD(m) genmask(4 * (m) + 3, 4 * (m)) /* m known at run time */
#define FIXED_CTRL_ADAPTIVE(m)                                                                     \
	BIT(32 + 4 * (m)) /* adaptive PEBS on fixed counter m (references.md 6.1) */

/* IA32_PERF_GLOBAL_STATUS (references.md 7.2). */
#define GLOBAL_FIXED_SHIFT	32 /* fixed counter m is bit 32 + m of GLOBAL_CTRL and GLOBAL_STATUS */
#define GLOBAL_STATUS_FIXED(m)	BIT(GLOBAL_FIXED_SHIFT + (m))
#define GLOBAL_STATUS_LBR_FRZ	BIT(58)
#define GLOBAL_STATUS_CTR_FRZ	BIT(59)
#define GLOBAL_STATUS_ASCI	BIT(60) /* SGX anti-side-channel indication, not an overflow */
#define GLOBAL_STATUS_DS_BUFFER BIT(62) /* PEBS buffer threshold; not set by BTS */
#define GLOBAL_STATUS_COND_CHGD BIT(63)

/* Architectural events the model counts (SDM 18.2.1.2, Table 18-1). */
#define ARCH_EVENT_CORE_CYCLES	0x3c /* umask 00H; also 01H reference cycles */
#define ARCH_EVENT_INSTRUCTIONS 0xc0 /* umask 00H */
#define ARCH_EVENT_BRANCHES	0xc4 /* umask 00H */

/* PEBS memory events with a data address, event select and unit mask: Nehalem/Westmere
 * MEM_INST_RETIRED.LOADS 0BH/01H, .STORES 0BH/02H, .LATENCY_ABOVE_THRESHOLD 0BH/10H (SDM Vol. 3B
 * 18.8.1, Linux mem_ld_nhm "event=0x0b,umask=0x10"); Sandy Bridge and later big cores
 * MEM_TRANS_RETIRED.LATENCY_ABOVE_THRESHOLD 1CDH (18.9.4.2, Linux mem_ld_snb/mem_ld_hsw); Haswell
 * onwards all loads D0H/81H and all stores D0H/82H (MEM_UOPS_RETIRED on Haswell/Broadwell,
 * MEM_INST_RETIRED from Skylake, 18.3.8; Linux mem_st_hsw "event=0xd0,umask=0x82"). */
#define EVENT_NHM_MEM_INST	0x0b
#define UMASK_NHM_LOADS		0x01
#define UMASK_NHM_STORES	0x02
#define UMASK_NHM_LATENCY	0x10
#define EVENT_MEM_TRANS_RETIRED 0xcd
#define UMASK_LOAD_LATENCY	0x01
#define EVENT_MEM_INST_RETIRED	0xd0
#define UMASK_ALL_LOADS		0x81
#define UMASK_ALL_STORES	0x82

/* IA32_PEBS_ENABLE bits (references.md 6.1; SDM Vol. 3B 18.8.1.1 for Nehalem's PEBS_EN/LL_EN). */
#define PEBS_ENABLE_GP(n)     BIT(n)	     /* PEBS on IA32_PMCn */
#define PEBS_ENABLE_LD_LAT(n) BIT(32 + (n))  /* load latency on PMCn: n < 4, perfmon < v5 */
#define PEBS_ENABLE_FIXED(m)  BIT(32 + (m))  /* extended PEBS on IA32_FIXED_CTRm (PERF_CAP[14]) */
#define PEBS_LD_LAT_THRESHOLD GENMASK(15, 0) /* MSR_PEBS_LD_LAT: minimum latency in cycles */

/* IA32_DEBUGCTL (SDM Vol. 3B 17.4.1, Figure 17-3). */
#define DEBUGCTL_LBR		       BIT(0)
#define DEBUGCTL_BTF		       BIT(1)
#define DEBUGCTL_TR		       BIT(6)
#define DEBUGCTL_BTS		       BIT(7)
#define DEBUGCTL_BTINT		       BIT(8)
#define DEBUGCTL_BTS_OFF_OS	       BIT(9)  /* needs DS-CPL (CPUID.01H:ECX[4]) */
#define DEBUGCTL_BTS_OFF_USR	       BIT(10) /* needs DS-CPL */
#define DEBUGCTL_FREEZE_LBRS_ON_PMI    BIT(11)
#define DEBUGCTL_FREEZE_PERFMON_ON_PMI BIT(12)
#define DEBUGCTL_FREEZE_WHILE_SMM      BIT(14) /* needs IA32_PERF_CAPABILITIES[12] */

/* IA32_PERF_CAPABILITIES (SDM Vol. 3B 18.4.1 / 18.4.4.2 for bits 6-11; Linux
 * arch/x86/include/asm/perf_event.h PERF_CAP_*). */
#define PCAP_LBR_FORMAT	      GENMASK(5, 0)
#define PCAP_PEBS_TRAP	      BIT(6)
#define PCAP_PEBS_ARCH_REG    BIT(7)
#define PCAP_PEBS_FORMAT      GENMASK(11, 8)
#define PCAP_SMM_FREEZE	      BIT(12) /* also SDM Vol. 3B 16.4.1 */
#define PCAP_FULL_WIDTH_WRITE BIT(13)
#define PCAP_PEBS_BASELINE    BIT(14)
#define PCAP_PERF_METRICS     BIT(15)
#define PCAP_PEBS_OUTPUT_PT   BIT(16)
#define PCAP_PEBS_TIMING_INFO BIT(17)
/* bit 18: reserved (was mis-named anythread_deprecated in Linux) */
#define PCAP_RDPMC_METRICS_CLEAR BIT(19)

/* PEBS record formats (IA32_PERF_CAPABILITIES[11:8]; SDM Vol. 3B 18.6.2.4, 18.9.2): 0-6
 * are described; adaptive groups need format 4 or later with PERF_CAPABILITIES[14] (Linux
 * forces the baseline bit to 0 below 4). */
#define PEBS_FORMAT_LAST_KNOWN 6
#define PEBS_FORMAT_ADAPTIVE   4

/* IA32_MISC_ENABLE (SDM Vol. 4 Table 2-2; SDM Vol. 3B 17.4.9 for the BTS/PEBS bits). */
#define MISC_EMON	      BIT(7)
#define MISC_BTS_UNAVAILABLE  BIT(11)
#define MISC_PEBS_UNAVAILABLE BIT(12)

#endif
