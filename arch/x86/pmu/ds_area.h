/* SPDX-License-Identifier: MIT */
/*
 * The per-CPU Debug Store save area (SDM Vol. 3B 17.4.9, Figure 17-8; references.md 5.1-5.3): one
 * DS management area and its BTS and PEBS buffers per CPU, allocated by the boot CPU (the page
 * allocator is not shared) and kept between sessions. They live in the identity map, which is
 * part of the one set of page tables every address space of this kernel uses (ring 0 and the
 * ring 3 workloads share CR3), so they never fault whatever runs; page-aligned, as Linux does.
 * Each session programs IA32_DS_AREA on its CPU through the PMU accessor.
 */
#ifndef ARCH_X86_PMU_DS_AREA_H
#define ARCH_X86_PMU_DS_AREA_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/hw/ds_layout.h"

#define DS_AREA_PAGES 1 /* the management area itself */

struct ds_percpu {
	uint64_t area_phys;		/* IA32_DS_AREA value (linear = physical here) */
	struct ds_area64 *area;		/* its kernel pointer */
	uint64_t bts_phys, bts_bytes;	/* BTS buffer */
	uint64_t pebs_phys, pebs_bytes; /* PEBS buffer */
};

/* Boot CPU: give CPU `cpu` buffers of at least these sizes (rounded up to pages); false when
 * memory runs out. */
bool ds_area_prepare(unsigned cpu, uint64_t bts_bytes, uint64_t pebs_bytes);
/* The running CPU's area, buffers unset (base = index = ... = 0); NULL if not prepared. */
struct ds_percpu *ds_area_this_cpu(void);
/* Program IA32_DS_AREA on the running CPU; a PMU accessor status. */
int ds_area_install(const struct ds_percpu *d);

#endif
