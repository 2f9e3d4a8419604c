/* SPDX-License-Identifier: MIT */
/*
 * Personalities of the software PMU: the CPUID leaves and capability MSRs of real processors,
 * so that capability detection (arch/x86/caps/caps.c) decides about the model exactly as it
 * would about the silicon. The values are arch/x86/caps/cpu_records.h's recorded processors, where
 * the sources are given (public CPUID/MSR dumps; composed fields are marked there).
 * Memory events (loads, stores, load latency; counters.h says where each code is from):
 * Nehalem's MEM_INST_RETIRED umasks, Skylake and later MEM_INST_RETIRED.ALL_LOADS/ALL_STORES
 * and MEM_TRANS_RETIRED.LOAD_LATENCY; Core 2 (PEBS format 0, no data address) none.
 */
#include "arch/x86/model/spmu.h"
#include "arch/x86/hw/pmu_regs.h"
#include "arch/x86/caps/cpu_records.h"
#include "kernel/arch_trace.h"
#include "lib/string.h"

static const struct spmu_personality personalities[] = {
    {
	.name = "skylake",
	.what = "Core i7-6700K (Skylake, 06_5EH): LBR format 5 depth 32, PEBS format 3, "
		"perfmon v4",
	.snap = &rec_skylake,
	.lbr_from_base = MSR_LBR_NHM_FROM,
	.lbr_to_base = MSR_LBR_NHM_TO,
	.lbr_info_base = MSR_LBR_INFO_0,
	.lbr_select = true,
	.bts_predicted = true,
	.mem_events = {SPMU_EVENT(EVENT_MEM_INST_RETIRED, UMASK_ALL_LOADS),
		       SPMU_EVENT(EVENT_MEM_INST_RETIRED, UMASK_ALL_STORES),
		       SPMU_EVENT(EVENT_MEM_TRANS_RETIRED, UMASK_LOAD_LATENCY)},
    },
    {
	.name = "nehalem",
	.what = "Core i5-750 (Nehalem, 06_1EH): LBR format 3 depth 16, PEBS format 1, "
		"perfmon v3",
	.snap = &rec_nehalem,
	.lbr_from_base = MSR_LBR_NHM_FROM,
	.lbr_to_base = MSR_LBR_NHM_TO,
	.lbr_info_base = 0,
	.lbr_select = true,
	.lbr_select_erratum = true,
	.bts_predicted = true,
	.mem_events = {SPMU_EVENT(EVENT_NHM_MEM_INST, UMASK_NHM_LOADS),
		       SPMU_EVENT(EVENT_NHM_MEM_INST, UMASK_NHM_STORES),
		       SPMU_EVENT(EVENT_NHM_MEM_INST, UMASK_NHM_LATENCY)},
    },
    {
	.name = "core2",
	.what = "Xeon X5482 (Penryn, 06_17H): LBR format 2 depth 4, PEBS format 0 on PMC0, "
		"perfmon v2",
	.snap = &rec_core2_penryn,
	.lbr_from_base = MSR_LBR_CORE_FROM,
	.lbr_to_base = MSR_LBR_CORE_TO,
	.lbr_info_base = 0,
	.lbr_select = false,	  /* Core 2 filters in software only (references.md 3.3) */
	.bts_predicted = false,	  /* Intel Core microarchitecture: no such bit */
	.tr_undefines_lbr = true, /* Intel Core microarchitecture (Penryn) */
    },
    {
	.name = "icelake",
	.what = "Core i7-1065G7 (Ice Lake, 06_7EH; the server part has the same core PMU): "
		"LBR format 5 depth 32, adaptive PEBS format 4, perfmon v5",
	.snap = &rec_icelake,
	.lbr_from_base = MSR_LBR_NHM_FROM,
	.lbr_to_base = MSR_LBR_NHM_TO,
	.lbr_info_base = MSR_LBR_INFO_0,
	.lbr_select = true,
	.bts_predicted = true,
	.mem_events = {SPMU_EVENT(EVENT_MEM_INST_RETIRED, UMASK_ALL_LOADS),
		       SPMU_EVENT(EVENT_MEM_INST_RETIRED, UMASK_ALL_STORES),
		       SPMU_EVENT(EVENT_MEM_TRANS_RETIRED, UMASK_LOAD_LATENCY)},
    },
    {
	.name = "arrowlake",
	.what = "Core Ultra 9 285K P-core (Arrow Lake, 06_C6H): Architectural LBR depth 32, "
		"adaptive PEBS format 4, perfmon v6",
	.snap = &rec_arrowlake_p,
	/* Architectural LBR: MSRs from CPUID.1CH, none of the legacy ones. */
	.lbr_from_base = 0,
	.lbr_to_base = 0,
	.lbr_info_base = 0,
	.lbr_select = false,
	.bts_predicted = true,
	.mem_events = {SPMU_EVENT(EVENT_MEM_INST_RETIRED, UMASK_ALL_LOADS),
		       SPMU_EVENT(EVENT_MEM_INST_RETIRED, UMASK_ALL_STORES),
		       SPMU_EVENT(EVENT_MEM_TRANS_RETIRED, UMASK_LOAD_LATENCY)},
    },
    {
	.name = "kvm",
	.what = "a KVM guest (QEMU -cpu host,migratable=no) on a Core i7-6700K host: perfmon "
		"v2, LBR format 5 depth 32, no DS (no BTS, no PEBS), BTF writes dropped",
	.snap = &rec_kvm_skylake,
	.lbr_from_base = MSR_LBR_NHM_FROM,
	.lbr_to_base = MSR_LBR_NHM_TO,
	.lbr_info_base = MSR_LBR_INFO_0,
	.lbr_select = true,
	.bts_predicted = true,
	.mem_events = {SPMU_EVENT(EVENT_MEM_INST_RETIRED, UMASK_ALL_LOADS),
		       SPMU_EVENT(EVENT_MEM_INST_RETIRED, UMASK_ALL_STORES),
		       SPMU_EVENT(EVENT_MEM_TRANS_RETIRED, UMASK_LOAD_LATENCY)},
	.kvm_guest = true,
	.explicit_only = true,
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

const char *arch_spmu_name(unsigned i, bool *explicit_only)
{
	const struct spmu_personality *p = spmu_personality_at(i);
	*explicit_only = p && p->explicit_only;
	return p ? p->name : NULL;
}

const char *spmu_personality_name(const struct spmu_personality *p)
{
	return p->name;
}

const char *spmu_personality_what(const struct spmu_personality *p)
{
	return p->what;
}

const struct trace_caps *spmu_caps(const struct spmu *m)
{
	return &m->caps;
}

const struct spmu_personality *spmu_personality_of(const struct spmu *m)
{
	return m->p;
}
