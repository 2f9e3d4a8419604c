/* SPDX-License-Identifier: MIT */
/*
 * Legacy (model-specific) LBR stack depth per microarchitecture. The record format comes from
 * IA32_PERF_CAPABILITIES[5:0]; the depth does not appear in any register and is known only per
 * model (references.md 3.3: Linux's intel_pmu_lbr_init_* and Fuchsia lbr, both citing SDM Vol. 3B
 * Table 17-4). Pure data, used by trace_caps_decode().
 */
#ifndef ARCH_X86_CAPS_LBR_MODELS_H
#define ARCH_X86_CAPS_LBR_MODELS_H

#include <stdint.h>
#include "lib/bits.h"

/* Quirks attached to a row (references.md 1.5, 3.3, 8). */
#define LBR_QUIRK_STEPPING_10 BIT(0) /* Bonnell: LBR + freeze-on-PMI broken below stepping 10 */
#define LBR_MIN_STEPPING_10   10u
#define LBR_QUIRK_KNL_FORMAT  BIT(1) /* Knights Landing/Mill: reports format 1, behaves as 3 */
/* No MSR_LBR_SELECT: Core 2 and the Bonnell/Saltwell Atoms filter in software only (Linux
 * intel_pmu_lbr_init_core / _atom set no lbr_sel_map). */
#define LBR_QUIRK_NO_SELECT BIT(2)
/* Nehalem/Westmere: LBR_SELECT's jump classes also gate near calls (Linux
 * intel_pmu_lbr_init_nhm's erratum note); Sandy Bridge fixed it (SDM Vol. 3B 17.8). */
#define LBR_QUIRK_NHM_SELECT BIT(3)
/* Bonnell/Saltwell: setting FREEZE_LBRS_ON_PMI clears DEBUGCTL.TR (SDM 253668-032US 16.5). */
#define LBR_QUIRK_FREEZE_CLEARS_TR BIT(4)

/* Where the stack's FROM/TO MSRs start (hw/msr.h; Linux intel_pmu_lbr_init_*). */
enum lbr_regs {
	LBR_REGS_CORE, /* MSR_LBR_CORE_FROM/TO: Core 2, Bonnell/Saltwell, Silvermont/Airmont */
	LBR_REGS_NHM,  /* MSR_LBR_NHM_FROM/TO: Nehalem and later cores, Goldmont and later, KNL */
};

struct lbr_model {
	uint8_t model;	  /* display model, family 06H */
	uint8_t depth;	  /* entries */
	uint8_t regs;	  /* enum lbr_regs */
	uint8_t quirks;	  /* LBR_QUIRK_* */
	const char *name; /* microarchitecture (row of references.md 3.3) */
};

/* The row for family 06H, `model`; NULL when the model is not in the table. */
const struct lbr_model *lbr_model_find(uint32_t family, uint32_t model);

#endif
