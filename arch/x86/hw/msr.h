/* SPDX-License-Identifier: MIT */
/*
 * Every model-specific register number the kernel and the software PMU use, defined once
 * (Intel SDM Vol. 4, Chapter 2 "Model-Specific Registers (MSRs)": Table 2-2 for the
 * architectural IA32_* registers, the per-family tables for the model-specific LBR ones).
 * The bits of each register live in the hw/ header named next to it. Usable from assembly.
 */
#ifndef ARCH_X86_HW_MSR_H
#define ARCH_X86_HW_MSR_H

#ifdef __ASSEMBLER__
#define MSR_C(x) x
#else
#define MSR_C(x) x##u
#endif

/* ---- architectural system MSRs (SDM Vol. 4 Table 2-2) ------------------------------------ */
#define MSR_IA32_APIC_BASE MSR_C(0x1b) /* bits: hw/apic_regs.h (SDM Vol. 3A 10.4.4) */
/* The microcode update signature, in bits 63:32 after writing 0 and executing CPUID(1) (SDM Vol.
 * 3A 9.11.7.1 "Determining the Signature"). */
#define MSR_IA32_BIOS_SIGN_ID MSR_C(0x8b)
#define MSR_IA32_MISC_ENABLE  MSR_C(0x1a0) /* bits: hw/pmu_regs.h */
#define MSR_IA32_DEBUGCTL     MSR_C(0x1d9) /* bits: hw/pmu_regs.h (SDM Vol. 3B 17.4.1) */
/* IA32_PERF_CAPABILITIES exists when CPUID.01H:ECX.PDCM is set; bits: hw/pmu_regs.h */
#define MSR_IA32_PERF_CAPABILITIES MSR_C(0x345)
#define MSR_IA32_DS_AREA	   MSR_C(0x600) /* SDM Vol. 3B 17.4.9 */
#define X2APIC_MSR_BASE		   MSR_C(0x800) /* x2APIC: 800H + offset / 16 (SDM Vol. 3A 10.12.1.2) */
#define MSR_EFER		   MSR_C(0xc0000080) /* IA32_EFER, bits: hw/cpu_regs.h */
#define MSR_STAR		   MSR_C(0xc0000081) /* SYSCALL/SYSRET selectors (SDM Vol. 3A 5.8.8) */
#define MSR_LSTAR		   MSR_C(0xc0000082) /* SYSCALL target RIP */
#define MSR_FMASK		   MSR_C(0xc0000084) /* RFLAGS bits SYSCALL clears */
#define MSR_FS_BASE		   MSR_C(0xc0000100)
#define MSR_GS_BASE		   MSR_C(0xc0000101)
#define MSR_KERNEL_GS_BASE	   MSR_C(0xc0000102) /* SWAPGS source */

/* ---- architectural performance monitoring (SDM Vol. 3B 18.2; bits in hw/pmu_regs.h) -------- */
#define MSR_IA32_PMC0			MSR_C(0xc1) /* legacy alias: writes sign-extend bit 31 */
#define MSR_IA32_PERFEVTSEL0		MSR_C(0x186)
#define MSR_IA32_FIXED_CTR0		MSR_C(0x309)
#define MSR_IA32_FIXED_CTR_CTRL		MSR_C(0x38d)
#define MSR_IA32_PERF_GLOBAL_STATUS	MSR_C(0x38e)
#define MSR_IA32_PERF_GLOBAL_CTRL	MSR_C(0x38f)
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL	MSR_C(0x390) /* v4+: IA32_PERF_GLOBAL_STATUS_RESET */
#define MSR_IA32_PERF_GLOBAL_STATUS_SET MSR_C(0x391) /* v4+ */
#define MSR_IA32_PEBS_ENABLE		MSR_C(0x3f1) /* SDM Vol. 3B 18.8.1.1, 18.9.2 */
#define MSR_PEBS_DATA_CFG		MSR_C(0x3f2) /* adaptive PEBS (SDM Vol. 3B 18.9.2.3) */
#define MSR_PEBS_LD_LAT			MSR_C(0x3f6) /* load-latency threshold (SDM Vol. 3B 18.8.1.2) */
#define MSR_IA32_A_PMC0			MSR_C(0x4c1) /* full-width alias, IA32_PERF_CAPABILITIES[13] */

/* ---- model-specific (legacy) LBR stack (SDM Vol. 3B 17.4.8; Vol. 4 per-family tables) ----- */
#define MSR_LBR_SELECT	  MSR_C(0x1c8) /* Nehalem and later, Silvermont and later Atoms */
#define MSR_LBR_TOS	  MSR_C(0x1c9)
#define MSR_LER_FROM	  MSR_C(0x1dd) /* last exception record (LASTINTFROMIP) */
#define MSR_LER_TO	  MSR_C(0x1de)
#define MSR_LBR_CORE_FROM MSR_C(0x40) /* MSR_LASTBRANCH_0_FROM_IP: Core 2, Atom, Silvermont */
#define MSR_LBR_CORE_TO	  MSR_C(0x60)
#define MSR_LBR_NHM_FROM  MSR_C(0x680) /* MSR_LASTBRANCH_0_FROM_IP: Nehalem and later, KNL */
#define MSR_LBR_NHM_TO	  MSR_C(0x6c0)
#define MSR_LBR_INFO_0	  MSR_C(0xdc0) /* MSR_LBR_INFO_0: LBR formats 5 and 7 (SDM Vol. 3B 17.12) */

/* ---- Architectural LBR (SDM Vol. 3B chapter "Last Branch Records", CPUID.1CH) ------------- */
#define MSR_IA32_LBR_CTL   MSR_C(0x14ce) /* bits: hw/lbr_regs.h */
#define MSR_IA32_LBR_DEPTH MSR_C(0x14cf)
#define MSR_IA32_LBR_INFO0 MSR_C(0x1200)
#define MSR_IA32_LBR_FROM0 MSR_C(0x1500)
#define MSR_IA32_LBR_TO0   MSR_C(0x1600)

#endif
