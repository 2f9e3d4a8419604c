/* SPDX-License-Identifier: MIT */
/*
 * Which PEBS memory events a processor has (the event codes: hw/pmu_regs.h), by family 6 model:
 * Nehalem/Westmere's MEM_INST_RETIRED (SDM Vol. 3B 18.8.1), Sandy/Ivy Bridge's load latency
 * only (18.9.4), Haswell and later big cores with all loads and all stores (18.3.8); the Atom
 * cores, whose memory events differ, are not tabled. Pure: host-tested.
 */
#ifndef ARCH_X86_CAPS_PEBS_MODELS_H
#define ARCH_X86_CAPS_PEBS_MODELS_H

enum pebs_mem_uarch {
	PEBS_MEM_UARCH_NONE,	     /* not tabled */
	PEBS_MEM_UARCH_NEHALEM,	     /* Nehalem, Westmere */
	PEBS_MEM_UARCH_SANDY_BRIDGE, /* Sandy Bridge, Ivy Bridge */
	PEBS_MEM_UARCH_LATER,	     /* Haswell and later big cores */
};

enum pebs_mem_uarch pebs_mem_uarch_of(unsigned family, unsigned model);

#endif
