/* SPDX-License-Identifier: MIT */
/*
 * Legacy (model-specific) LBR stack depth per microarchitecture. The record format comes from
 * IA32_PERF_CAPABILITIES[5:0]; the depth does not appear in any register and is known only per
 * model (ref 3.3: Linux's intel_pmu_lbr_init_* and [Fuchsia], both citing SDM Vol. 3B Table
 * 17-4). Pure data, used by trace_caps_decode().
 */
#ifndef ARCH_X86_LBR_MODELS_H
#define ARCH_X86_LBR_MODELS_H

#include <stdint.h>
#include "lib/bits.h"

/* Quirks attached to a row (ref 1.5, 3.3, 8). */
#define LBR_QUIRK_STEPPING_10 BIT(0) /* Bonnell: LBR + freeze-on-PMI broken below stepping 10 */
#define LBR_QUIRK_KNL_FORMAT  BIT(1) /* Knights Landing/Mill: reports format 1, behaves as 3 */

struct lbr_model {
	uint8_t model;	  /* display model, family 06H */
	uint8_t depth;	  /* entries */
	uint8_t quirks;	  /* LBR_QUIRK_* */
	const char *name; /* microarchitecture (row of ref 3.3) */
};

/* The row for family 06H, `model`; NULL when the model is not in the table. */
const struct lbr_model *lbr_model_find(uint32_t family, uint32_t model);

#endif
