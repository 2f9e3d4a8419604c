/* SPDX-License-Identifier: MIT */
/*
 * Personalities of the software PMU: the CPUID leaves and capability MSRs of real processors,
 * so that capability detection (arch/x86/trace_caps.c) decides about the model exactly as it
 * would about the silicon. Values are those of tests/unit/cpu_records.h, where their sources
 * are given (public CPUID/MSR dumps; composed fields are marked there).
 */
#include "arch/x86/spmu.h"
#include "lib/string.h"

#define LEAF(a, b, c, d)                                                                           \
	{                                                                                          \
		(a), (b), (c), (d)                                                                 \
	}
#define LBR_NHM_FROM  0x680u /* MSR_LASTBRANCH_0_FROM_IP, Nehalem and later (reference 3.1) */
#define LBR_NHM_TO    0x6c0u
#define LBR_CORE_FROM 0x40u /* MSR_LASTBRANCH_0_FROM_IP, Core 2 / Atom (reference 3.1) */
#define LBR_CORE_TO   0x60u
#define LBR_SKL_INFO  0xdc0u /* MSR_LBR_INFO_0, formats 5 and 7 */

static const struct spmu_personality personalities[] = {
    {
	.name = "skylake",
	.what = "Core i7-6700K (Skylake, 06_5EH): LBR format 5 depth 32, PEBS format 3, "
		"perfmon v4",
	.snap =
	    {
		.vendor = "GenuineIntel",
		.max_basic_leaf = 0x16,
		.leaf_01 = LEAF(0x000506e3, 0x02100800, 0x7ffafbbf, 0xbfebfbff),
		.leaf_07 = LEAF(0x00000000, 0x029c6fbf, 0x00000000, 0x00000000),
		.leaf_0a = LEAF(0x07300404, 0x00000000, 0x00000000, 0x00000603),
		.has_perf_capabilities = true,
		.perf_capabilities = 0x33c5,
		.has_misc_enable = true,
		.misc_enable = 0x850089,
	    },
	.lbr_from_base = LBR_NHM_FROM,
	.lbr_to_base = LBR_NHM_TO,
	.lbr_info_base = LBR_SKL_INFO,
	.lbr_select = true,
    },
    {
	.name = "nehalem",
	.what = "Core i5-750 (Nehalem, 06_1EH): LBR format 3 depth 16, PEBS format 1, "
		"perfmon v3",
	.snap =
	    {
		.vendor = "GenuineIntel",
		.max_basic_leaf = 0x0b,
		.leaf_01 = LEAF(0x000106e5, 0x00100800, 0x0098e3fd, 0xbfebfbff),
		.leaf_0a = LEAF(0x07300403, 0x00000044, 0x00000000, 0x00000603),
		.has_perf_capabilities = true,
		.perf_capabilities = 0x11c3,
		.has_misc_enable = true,
		.misc_enable = 0x850089,
	    },
	.lbr_from_base = LBR_NHM_FROM,
	.lbr_to_base = LBR_NHM_TO,
	.lbr_info_base = 0,
	.lbr_select = true,
    },
    {
	.name = "core2",
	.what = "Xeon X5482 (Penryn, 06_17H): LBR format 2 depth 4, PEBS format 0 on PMC0, "
		"perfmon v2",
	.snap =
	    {
		.vendor = "GenuineIntel",
		.max_basic_leaf = 0x0a,
		.leaf_01 = LEAF(0x00010676, 0x04040800, 0x000ce3bd, 0xbfebfbff),
		.leaf_0a = LEAF(0x07280202, 0x00000000, 0x00000000, 0x00000503),
		.has_perf_capabilities = true,
		.perf_capabilities = 0x10c2,
		.has_misc_enable = true,
		.misc_enable = 0x4066a52489,
	    },
	.lbr_from_base = LBR_CORE_FROM,
	.lbr_to_base = LBR_CORE_TO,
	.lbr_info_base = 0,
	.lbr_select = false, /* Core 2 filters in software only (reference 3.3) */
    },
    {
	.name = "icelake",
	.what = "Core i7-1065G7 (Ice Lake, 06_7EH; the server part has the same core PMU): "
		"LBR format 5 depth 32, adaptive PEBS format 4, perfmon v5",
	.snap =
	    {
		.vendor = "GenuineIntel",
		.max_basic_leaf = 0x1b,
		.leaf_01 = LEAF(0x000706e5, 0x00100800, 0x7ffafbbf, 0xbfebfbff),
		.leaf_07 = LEAF(0x00000000, 0xf2bf27ef, 0x40405f4e, 0xbc000410),
		.leaf_0a = LEAF(0x08300805, 0x00000000, 0x0000000f, 0x00008604),
		.has_perf_capabilities = true,
		.perf_capabilities = 0xf4c5,
		.has_misc_enable = true,
		.misc_enable = 0x4000850089,
	    },
	.lbr_from_base = LBR_NHM_FROM,
	.lbr_to_base = LBR_NHM_TO,
	.lbr_info_base = LBR_SKL_INFO,
	.lbr_select = true,
    },
    {
	.name = "arrowlake",
	.what = "Core Ultra 9 285K P-core (Arrow Lake, 06_C6H): Architectural LBR depth 32, "
		"adaptive PEBS format 4, perfmon v6",
	.snap =
	    {
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
	    },
	/* Architectural LBR: MSRs from CPUID.1CH, none of the legacy ones. */
	.lbr_from_base = 0,
	.lbr_to_base = 0,
	.lbr_info_base = 0,
	.lbr_select = false,
    },
};

const struct spmu_personality *spmu_personality_at(unsigned i)
{
	return i < sizeof(personalities) / sizeof(personalities[0]) ? &personalities[i] : NULL;
}

const struct spmu_personality *spmu_personality_find(const char *name)
{
	for (unsigned i = 0; spmu_personality_at(i); i++)
		if (strcmp(personalities[i].name, name) == 0)
			return &personalities[i];
	return NULL;
}
