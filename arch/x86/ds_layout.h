/* SPDX-License-Identifier: MIT */
/*
 * Debug Store layouts, defined once for the drivers, the software PMU and the host decoder:
 * the 64-bit DS buffer-management area (SDM Vol. 3B 17.4.9, Figure 17-8 "IA-32e Mode DS Save
 * Area") and the 64-bit BTS record (Figure 17-9). DEBUGCTL bits that govern BTS (SDM 17.4.1,
 * Figure 17-3) live here too.
 */
#ifndef ARCH_X86_DS_LAYOUT_H
#define ARCH_X86_DS_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "lib/bits.h"

#define MSR_IA32_DEBUGCTL 0x1d9u /* SDM Vol. 4 Table 2-2 */
#define MSR_IA32_DS_AREA  0x600u

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

/* The 64-bit DS buffer-management area (DTES64 layout). */
struct ds_area64 {
	uint64_t bts_base;
	uint64_t bts_index; /* next record is written here */
	uint64_t bts_abs_max;
	uint64_t bts_threshold;
	uint64_t pebs_base;
	uint64_t pebs_index;
	uint64_t pebs_abs_max;
	uint64_t pebs_threshold;
	uint64_t pebs_counter_reset[48]; /* GP then fixed counters; offsets by format */
};
_Static_assert(offsetof(struct ds_area64, bts_index) == 0x08, "Figure 17-8: BTS index");
_Static_assert(offsetof(struct ds_area64, bts_threshold) == 0x18, "BTS interrupt threshold");
_Static_assert(offsetof(struct ds_area64, pebs_base) == 0x20, "PEBS buffer base");
_Static_assert(offsetof(struct ds_area64, pebs_threshold) == 0x38, "PEBS threshold");
_Static_assert(offsetof(struct ds_area64, pebs_counter_reset) == 0x40, "PEBS counter reset");
_Static_assert(sizeof(struct ds_area64) == 0x1c0, "8 header qwords + 48 reset slots");

/* A 64-bit BTS record (Figure 17-9). */
struct bts_record {
	uint64_t from;
	uint64_t to;
	uint64_t flags;
};
#define BTS_FLAG_PREDICTED BIT(4)
_Static_assert(sizeof(struct bts_record) == 24, "BTS record is 24 bytes");
_Static_assert(offsetof(struct bts_record, flags) == 16, "flags at offset 16");

#endif
