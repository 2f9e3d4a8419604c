/* SPDX-License-Identifier: MIT */
/*
 * Recorded processors, for tests/unit/test_caps.c and the software PMU personalities
 * (arch/x86/model/personality.c): CPUID leaves and capability MSRs as
 * trace_caps_collect() would read them. Provenance of each value is stated per record:
 *
 *  [VBox]  VirtualBox's CPU database, src/VBox/VMM/VMMR3/cpus/<name>.h: VBoxCpuReport dumps of
 *          real processors, CPUID leaves and MSR values (IA32_PERF_CAPABILITIES, MISC_ENABLE).
 *  [AIDA]  AIDA64/EVEREST dumps of real processors shipped with Bochs,
 *          bochs/cpu/cpudb/intel/<name>.txt: CPUID leaves and IA32_MISC_ENABLE, but never
 *          IA32_PERF_CAPABILITIES.
 *  composed  values written for the test from the fields references.md 1.5 / 3.3 / 6.4 document for
 * that generation, because no dump of the MSR was available. Conclusions that rest on a composed
 * value are marked so in the test.
 *
 * Leaves above a record's maximum basic leaf are zero, as trace_caps_collect() leaves them;
 * leaf 07H is sub-leaf 0. Feature bits the decoder never reads are kept as dumped.
 */
#ifndef ARCH_X86_CAPS_CPU_RECORDS_H
#define ARCH_X86_CAPS_CPU_RECORDS_H

#include "arch/x86/caps/caps.h"

#define LEAF(a, b, c, d)                                                                           \
	{                                                                                          \
		.eax = (a), .ebx = (b), .ecx = (c), .edx = (d)                                     \
	}

/* Core 2 Duo X6800 (Conroe, Merom core, 06_0FH stepping 6). [VBox] Intel_Core2_X6800_2_93GHz. */
static const struct cpu_snapshot rec_core2_merom = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x0a,
    .leaf_01 = LEAF(0x000006f6, 0x00020800, 0x0000e3bd, 0xbfebfbff),
    .leaf_0a = LEAF(0x07280202, 0x00000000, 0x00000000, 0x00000000),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x82,
    .has_misc_enable = true,
    .misc_enable = 0x4062972489,
};

/* Xeon X5482 (Harpertown, Penryn core, 06_17H stepping 6). [VBox] Intel_Xeon_X5482_3_20GHz. */
static const struct cpu_snapshot rec_core2_penryn = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x0a,
    .leaf_01 = LEAF(0x00010676, 0x04040800, 0x000ce3bd, 0xbfebfbff),
    .leaf_0a = LEAF(0x07280202, 0x00000000, 0x00000000, 0x00000503),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x10c2,
    .has_misc_enable = true,
    .misc_enable = 0x4066a52489,
};

/* Atom 330 (Bonnell, 06_1CH stepping 2). [VBox] Intel_Atom_330_1_60GHz. */
static const struct cpu_snapshot rec_atom_bonnell = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x0a,
    .leaf_01 = LEAF(0x000106c2, 0x01040800, 0x0040e31d, 0xbfe9fbff),
    .leaf_0a = LEAF(0x07280203, 0x00000000, 0x00000000, 0x00002501),
    .has_perf_capabilities = true,
    .perf_capabilities = 0xc1,
    .has_misc_enable = true,
    .misc_enable = 0x60940488,
};

/*
 * Core i5-750 (Lynnfield, Nehalem, 06_1EH stepping 5). CPUID and MISC_ENABLE: [AIDA]
 * corei5_lynnfield_750. PERF_CAPABILITIES composed: LBR format 3, trap-like PEBS with arch
 * registers, PEBS format 1, SMM freeze (the recorded Penryn already has bit 12; the recorded
 * Sandy/Ivy Bridge parts in [VBox] read 0x31c3, i.e. the same plus full-width writes).
 */
static const struct cpu_snapshot rec_nehalem = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x0b,
    .leaf_01 = LEAF(0x000106e5, 0x00100800, 0x0098e3fd, 0xbfebfbff),
    .leaf_0a = LEAF(0x07300403, 0x00000044, 0x00000000, 0x00000603),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x11c3,
    .has_misc_enable = true,
    .misc_enable = 0x850089,
};

/*
 * Core i7-4770 (Haswell, 06_3CH stepping 3). CPUID and MISC_ENABLE: [AIDA] corei7_haswell_4770.
 * PERF_CAPABILITIES: the value of the recorded Broadwell below (0x32c4: LBR format 4, PEBS
 * format 2), which references.md 3.3 and 6.4 give for Haswell and Broadwell alike.
 */
static const struct cpu_snapshot rec_haswell = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x0d,
    .leaf_01 = LEAF(0x000306c3, 0x00100800, 0x7ffafbff, 0xbfebfbff),
    .leaf_07 = LEAF(0x00000000, 0x00002fbb, 0x00000000, 0x00000000),
    .leaf_0a = LEAF(0x07300403, 0x00000000, 0x00000000, 0x00000603),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x32c4,
    .has_misc_enable = true,
    .misc_enable = 0x850089,
};

/* Core i7-5600U (Broadwell, 06_3DH stepping 4). [VBox] Intel_Core_i7_5600U. */
static const struct cpu_snapshot rec_broadwell = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x14,
    .leaf_01 = LEAF(0x000306d4, 0x00100800, 0x7ffafbff, 0xbfebfbff),
    .leaf_07 = LEAF(0x00000000, 0x021c2fbb, 0x00000000, 0x00000000),
    .leaf_0a = LEAF(0x07300403, 0x00000000, 0x00000000, 0x00000603),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x32c4,
    .has_misc_enable = true,
    .misc_enable = 0x850089,
};

/* Core i7-6700K (Skylake client, 06_5EH stepping 3). [VBox] Intel_Core_i7_6700K. */
static const struct cpu_snapshot rec_skylake = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x16,
    .leaf_01 = LEAF(0x000506e3, 0x02100800, 0x7ffafbbf, 0xbfebfbff),
    .leaf_07 = LEAF(0x00000000, 0x029c6fbf, 0x00000000, 0x00000000),
    .leaf_0a = LEAF(0x07300404, 0x00000000, 0x00000000, 0x00000603),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x33c5,
    .has_misc_enable = true,
    .misc_enable = 0x850089,
};

/*
 * Core i7-1065G7 (Ice Lake client, Sunny Cove, 06_7EH stepping 5). CPUID and MISC_ENABLE:
 * [AIDA] corei7_icelake-u. No Ice Lake server dump was at hand; the server part has the same
 * core PMU (references.md 6.4: PEBS format 4 on Ice Lake). PERF_CAPABILITIES composed: LBR format
 * 5, trap-like PEBS, arch registers, PEBS format 4, SMM freeze, full-width writes, baseline
 * (adaptive) PEBS, perf metrics = 0xf4c5.
 */
static const struct cpu_snapshot rec_icelake = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x1b,
    .leaf_01 = LEAF(0x000706e5, 0x00100800, 0x7ffafbbf, 0xbfebfbff),
    .leaf_07 = LEAF(0x00000000, 0xf2bf27ef, 0x40405f4e, 0xbc000410),
    .leaf_0a = LEAF(0x08300805, 0x00000000, 0x0000000f, 0x00008604),
    .has_perf_capabilities = true,
    .perf_capabilities = 0xf4c5,
    .has_misc_enable = true,
    .misc_enable = 0x4000850089,
};

/*
 * Core Ultra 5 245K (Arrow Lake-S, hybrid, 06_C6H stepping 2): logical CPU #0 (Lion Cove
 * P-core) and #2 (Skymont E-core). CPUID and MISC_ENABLE: [AIDA] arrow_lake. The two differ in
 * CPUID.1AH (core type) and CPUID.1CH:EAX[31] (LIP on the E-core). PERF_CAPABILITIES composed:
 * [5:0] = 3FH (the unconfirmed "no legacy LBR" value of references.md 1.5), trap-like PEBS, arch
 * registers, PEBS format 4 + baseline (what references.md 6.4 confirms for Alder Lake / Sapphire
 * Rapids; later formats are unconfirmed there), SMM freeze, full-width; perf metrics on the P-core
 * only.
 */
static const struct cpu_snapshot rec_arrowlake_p = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x23,
    .leaf_01 = LEAF(0x000c0662, 0x00800800, 0x7ffafbff, 0xbfebfbff),
    .leaf_07 = LEAF(0x00000002, 0x239ca7eb, 0x994027ac, 0xfc18c430),
    .leaf_0a = LEAF(0x0d300806, 0x00000280, 0x00000007, 0x00008603),
    .leaf_1a = LEAF(0x40000003, 0x00000000, 0x00000000, 0x00000000),
    .leaf_1c = LEAF(0x4000000b, 0x00000007, 0x000f0007, 0x00000000),
    .has_perf_capabilities = true,
    .perf_capabilities = 0xf4ff,
    .has_misc_enable = true,
    .misc_enable = 0x4000840089,
};

static const struct cpu_snapshot rec_arrowlake_e = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x23,
    .leaf_01 = LEAF(0x000c0662, 0x10800800, 0x7ffafbff, 0xbfebfbff),
    .leaf_07 = LEAF(0x00000002, 0x239ca7eb, 0x994027ac, 0xfc18c430),
    .leaf_0a = LEAF(0x0d300806, 0x00000280, 0x00000007, 0x00008603),
    .leaf_1a = LEAF(0x20000003, 0x00000000, 0x00000000, 0x00000000),
    .leaf_1c = LEAF(0xc000000b, 0x00000007, 0x000f0007, 0x00000000),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x74ff,
    .has_misc_enable = true,
    .misc_enable = 0x4000840089,
};

/*
 * Wildcat Lake (hybrid, 06_D5H stepping 1), logical CPU #0 (Cougar Cove P-core). CPUID and
 * MISC_ENABLE: [AIDA] wildcat_lake. Every CPU of that dump reads MISC_ENABLE = 0x851089, i.e.
 * bit 12 PEBS_UNAVAILABLE set: a real part where the MSR, not CPUID, says "no PEBS" (probably
 * in favour of architectural PEBS, which references.md 6.4 lists as unconfirmed and out of scope).
 * PERF_CAPABILITIES composed as for the Arrow Lake P-core.
 */
static const struct cpu_snapshot rec_wildcatlake_p = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x28,
    .leaf_01 = LEAF(0x000d0651, 0x00800800, 0x7ffafbff, 0xbfebfbff),
    .leaf_07 = LEAF(0x00000002, 0x239ca7eb, 0x994007ac, 0xfc18c430),
    .leaf_0a = LEAF(0x0d300806, 0x00000280, 0x00000007, 0x00008603),
    .leaf_1a = LEAF(0x40000004, 0x00000000, 0x00000000, 0x00000000),
    .leaf_1c = LEAF(0x4000000b, 0x00000007, 0x000f0007, 0x00000000),
    .has_perf_capabilities = true,
    .perf_capabilities = 0xf4ff,
    .has_misc_enable = true,
    .misc_enable = 0x851089,
};

/* Pentium N3530 (Bay Trail, Silvermont, 06_37H stepping 8). [VBox] Intel_Pentium_N3530_2_16GHz. */
static const struct cpu_snapshot rec_silvermont = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x0b,
    .leaf_01 = LEAF(0x00030678, 0x02100800, 0x41d8e3bf, 0xbfebfbff),
    .leaf_07 = LEAF(0x00000000, 0x00002282, 0x00000000, 0x00000000),
    .leaf_0a = LEAF(0x07280203, 0x00000000, 0x00000000, 0x00004503),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x32c1,
    .has_misc_enable = true,
    .misc_enable = 0x850089,
};

/*
 * Goldmont Plus (Gemini Lake, 06_7AH stepping 8, the signature of test_cpu_ident.c): composed,
 * no dump was at hand. Leaf 01H as public Gemini Lake dumps show it; leaf 07H left 0 (no hybrid
 * or Arch LBR bit); 0AH: v4, 4 GP x 48, 3 fixed x 48. PERF_CAPABILITIES: LBR format 7 (INFO2,
 * the one per-family format references.md 1.5 confirms), PEBS format 3 trap-like with arch
 * registers, SMM freeze, full-width = 0x33c7. MISC_ENABLE: the usual firmware value of the records
 * above.
 */
static const struct cpu_snapshot rec_goldmont_plus = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x18,
    .leaf_01 = LEAF(0x000706a8, 0x00100800, 0x4ff8ebbf, 0xbfebfbff),
    .leaf_0a = LEAF(0x07300404, 0x00000000, 0x00000000, 0x00000603),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x33c7,
    .has_misc_enable = true,
    .misc_enable = 0x850089,
};

/* Ryzen 7 1700 (Zen, Summit Ridge, 17_01H stepping 1). [AIDA] bochs/cpu/cpudb/amd/ryzen.txt.
 * DS and PDCM are clear, so no MSR is read. */
static const struct cpu_snapshot rec_amd_zen = {
    .vendor = "AuthenticAMD",
    .max_basic_leaf = 0x0d,
    .leaf_01 = LEAF(0x00800f11, 0x00100800, 0x7ed8320b, 0x178bfbff),
    .leaf_07 = LEAF(0x00000000, 0x209c01a9, 0x00000000, 0x00000000),
};

/*
 * QEMU 7.2 TCG, -cpu Skylake-Client: composed from qemu-ovmf-facts.md ("CPUID leaf 0AH = 0;
 * DS, DTES64, DS-CPL, PDCM = 0; CPUID.7 EDX Arch-LBR = 0" for every model), with QEMU's
 * hypervisor bit; the remaining feature bits are illustrative. DS and PDCM are clear, so
 * trace_caps_collect() reads no MSR.
 */
static const struct cpu_snapshot rec_qemu_tcg = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x0d,
    .leaf_01 = LEAF(0x000506e3, 0x00000800, 0xfed83203, 0x078bfbff),
    .leaf_07 = LEAF(0x00000000, 0x00000000, 0x00000000, 0x00000000),
};

/*
 * A KVM guest (QEMU -accel kvm -cpu host,migratable=no) on the Core i7-6700K above, composed
 * from upstream Linux 6.x and QEMU, not dumped from a running guest:
 * - CPUID.01H: the host's, less what KVM masks (Linux arch/x86/kvm/cpuid.c kvm_set_cpu_caps:
 *   DTES64, MONITOR, DS-CPL, VMX, SMX, EST, TM2 in ECX; DS, ACPI, TM, PBE in EDX; DS and
 *   DTES64 come back only with EPT-friendly PEBS, vmx.c vmx_set_cpu_caps), PDCM kept, the
 *   hypervisor bit set: ECX 7FFAFBBFH -> FFFAFA03H, EDX BFEBFBFFH -> 1F8BFBFFH.
 * - CPUID.0AH (cpuid.c, pmu.c kvm_init_pmu_capability): version min(host, 2) = 2, 4 GP
 *   counters of 48 bits, 3 fixed of 48 bits, EDX[15] AnyThread deprecated set by KVM.
 * - IA32_PERF_CAPABILITIES (vmx.c vmx_get_perf_capabilities): full-width writes (bit 13) and
 *   the host's LBR format 5; no PEBS bits without EPT-friendly PEBS: 2005H.
 * - IA32_MISC_ENABLE: KVM's reset value has BTS and PEBS unavailable (x86.c kvm_vcpu_reset),
 *   QEMU's fast strings and performance monitoring available (target/i386/cpu.c
 *   x86_cpu_reset): 1881H. Not read by the decoder here (CPUID.01H:EDX.DS = 0).
 * - CPUID.40000000H: "KVMKVMKVM".
 */
static const struct cpu_snapshot rec_kvm_skylake = {
    .vendor = "GenuineIntel",
    .max_basic_leaf = 0x16,
    .leaf_01 = LEAF(0x000506e3, 0x02100800, 0xfffafa03, 0x1f8bfbff),
    .leaf_07 = LEAF(0x00000000, 0x029c6fbf, 0x00000000, 0x00000000),
    .leaf_0a = LEAF(0x07300402, 0x00000000, 0x00000000, 0x00008603),
    .has_perf_capabilities = true,
    .perf_capabilities = 0x2005,
    .has_misc_enable = false,
    .misc_enable = 0x1881,
    .hv_vendor = "KVMKVMKVM",
};

#endif
