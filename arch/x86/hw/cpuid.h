/* SPDX-License-Identifier: MIT */
/*
 * CPUID leaves and the bits the kernel reads, defined once (Intel SDM Vol. 2A, CPUID
 * instruction, Tables 3-8 to 3-11; Linux arch/x86/include/asm/perf_event.h for the
 * performance-monitoring leaves 0AH and 1CH, which it calls cpuid10_* and cpuid28_*).
 */
#ifndef ARCH_X86_HW_CPUID_H
#define ARCH_X86_HW_CPUID_H

#include "lib/bits.h"

/* Leaves (SDM Vol. 2A, CPUID). */
#define CPUID_LEAF_VENDOR	0x00u	    /* max basic leaf, vendor string */
#define CPUID_LEAF_VERSION	0x01u	    /* signature and feature flags */
#define CPUID_LEAF_EXT_FEAT	0x07u	    /* sub-leaf 0: structured extended features */
#define CPUID_LEAF_PERFMON	0x0au	    /* architectural performance monitoring */
#define CPUID_LEAF_XSAVE	0x0du	    /* sub-leaf 0: XCR0 bits the processor supports */
#define CPUID_LEAF_HYBRID	0x1au	    /* native model ID / hybrid core type */
#define CPUID_LEAF_ARCH_LBR	0x1cu	    /* Architectural LBR enumeration */
#define CPUID_LEAF_TSC		0x15u	    /* TSC/core crystal clock ratio */
#define CPUID_LEAF_FREQ		0x16u	    /* processor frequency information */
#define CPUID_LEAF_HV_VENDOR	0x40000000u /* hypervisor vendor (when C01_ECX_HYPERVISOR) */
#define CPUID_LEAF_EXT_MAX	0x80000000u /* max extended leaf */
#define CPUID_LEAF_EXT_FEATURES 0x80000001u
#define CPUID_LEAF_BRAND_FIRST	0x80000002u /* processor brand string, 3 leaves */
#define CPUID_LEAF_BRAND_LAST	0x80000004u
#define CPUID_VENDOR_LEN	12 /* CPUID.0:EBX,EDX,ECX as characters */

/* CPUID.80000001H:EDX (SDM Vol. 2A Table 3-8). */
#define C80000001_EDX_NX BIT(20) /* execute-disable bit */

/* CPUID.01H (SDM Vol. 2A Tables 3-10 (ECX) and 3-11 (EDX)). */
#define C01_ECX_DTES64	   BIT(2)  /* 64-bit DS area layout */
#define C01_ECX_DS_CPL	   BIT(4)  /* CPL-qualified debug store, SDM Vol. 3B 17.4.6 */
#define C01_ECX_PDCM	   BIT(15) /* IA32_PERF_CAPABILITIES exists */
#define C01_ECX_X2APIC	   BIT(21)
#define C01_ECX_XSAVE	   BIT(26) /* XSAVE/XRSTOR, XSETBV/XGETBV, XCR0 */
#define C01_ECX_AVX	   BIT(28)
#define C01_ECX_HYPERVISOR BIT(31) /* reserved on bare metal (reads 0), set by hypervisors */
#define C01_EBX_APIC_ID	   GENMASK(31, 24) /* initial APIC ID (SDM Vol. 2A CPUID, leaf 01H) */
#define C01_EDX_DS	   BIT(21)	   /* Debug Store; IA32_MISC_ENABLE BTS/PEBS bits valid */

/* CPUID.07H.0:EBX and EDX (SDM Vol. 2A Table 3-8). */
#define C07_EBX_SMEP	 BIT(7)	 /* supervisor-mode execution prevention */
#define C07_EBX_SMAP	 BIT(20) /* supervisor-mode access prevention, STAC/CLAC */
#define C07_EDX_HYBRID	 BIT(15)
#define C07_EDX_ARCH_LBR BIT(19)

/* CPUID.0AH (SDM Vol. 3B 18.2; Linux cpuid10_eax/ebx/edx). */
#define C0A_EAX_VERSION		     GENMASK(7, 0)
#define C0A_EAX_GP_COUNT	     GENMASK(15, 8)
#define C0A_EAX_GP_WIDTH	     GENMASK(23, 16)
#define C0A_EAX_EBX_LEN		     GENMASK(31, 24)
#define C0A_EDX_FIXED_COUNT	     GENMASK(4, 0) /* v2-v4; v5+ adds the ECX bitmap */
#define C0A_EDX_FIXED_WIDTH	     GENMASK(12, 5)
#define C0A_EDX_ANYTHREAD_DEPRECATED BIT(15) /* meaningful for v5+ only */

/* CPUID.1AH:EAX, native model ID enumeration (SDM Vol. 2A, CPUID leaf 1AH). */
#define C1A_EAX_CORE_TYPE    GENMASK(31, 24)
#define C1A_EAX_NATIVE_MODEL GENMASK(23, 0)
#define CORE_TYPE_INTEL_ATOM 0x20
#define CORE_TYPE_INTEL_CORE 0x40

/* CPUID.1CH, Architectural LBR enumeration (SDM Vol. 2A leaf 1CH; Linux cpuid28_*). */
#define C1C_EAX_DEPTH_MASK	  GENMASK(7, 0) /* bit n set => depth 8 * (n + 1) supported */
#define C1C_EAX_DEEP_CSTATE_RESET BIT(30)
#define C1C_EAX_LIP		  BIT(31)
#define C1C_EBX_CPL_FILTER	  BIT(0)
#define C1C_EBX_BRANCH_FILTER	  BIT(1)
#define C1C_EBX_CALL_STACK	  BIT(2)
#define C1C_ECX_MISPREDICT	  BIT(0)
#define C1C_ECX_TIMED		  BIT(1)
#define C1C_ECX_BRANCH_TYPE	  BIT(2)
#define C1C_ECX_BRANCH_COUNTERS	  GENMASK(19, 16)
#define ARCH_LBR_DEPTH_STEP	  8

#endif
