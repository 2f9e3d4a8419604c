/* SPDX-License-Identifier: MIT */
/*
 * Depths from references.md 3.3 (Linux intel_pmu_lbr_init_{core,atom,slm,nhm,snb,hsw,skl,knl};
 * Fuchsia lbr gives the same numbers citing SDM Table 17-4). The model numbers themselves are the
 * family 06H display models of Linux's arch/x86/include/asm/intel-family.h, which is not among the
 * reference's read sources: they are well established, and the ones our recorded processors
 * carry (arch/x86/caps/cpu_records.h) agree with them. A model missing here is reported as unknown
 * rather than guessed. Parts with Architectural LBR (Sapphire Rapids, Alder Lake and later,
 * references.md 3.3 last row) need no row: their depth comes from CPUID.1CH.
 */
#include "arch/x86/caps/lbr_models.h"
#include <stddef.h>

#define FAMILY_6 0x6u

#define DEPTH_CORE2 4  /* init_core */
#define DEPTH_ATOM  8  /* init_atom, init_slm, init_knl */
#define DEPTH_NHM   16 /* init_nhm, init_snb, init_hsw */
#define DEPTH_SKL   32 /* init_skl: Skylake and later cores, Goldmont and later Atoms */

static const struct lbr_model lbr_models[] = {
    {0x0f, DEPTH_CORE2, LBR_REGS_CORE, LBR_QUIRK_NO_SELECT, "Core 2 (Merom)"},
    {0x16, DEPTH_CORE2, LBR_REGS_CORE, LBR_QUIRK_NO_SELECT, "Core 2 (Merom-L)"},
    {0x17, DEPTH_CORE2, LBR_REGS_CORE, LBR_QUIRK_NO_SELECT, "Core 2 (Penryn)"},
    {0x1d, DEPTH_CORE2, LBR_REGS_CORE, LBR_QUIRK_NO_SELECT, "Core 2 (Dunnington)"},
    /* Linux disables LBR on model 1CH below stepping 10 ("LBR disabled due to erratum"). */
    {0x1c, DEPTH_ATOM, LBR_REGS_CORE,
     LBR_QUIRK_STEPPING_10 | LBR_QUIRK_NO_SELECT | LBR_QUIRK_FREEZE_CLEARS_TR, "Atom (Bonnell)"},
    {0x26, DEPTH_ATOM, LBR_REGS_CORE, LBR_QUIRK_NO_SELECT | LBR_QUIRK_FREEZE_CLEARS_TR,
     "Atom (Bonnell mid)"},
    {0x27, DEPTH_ATOM, LBR_REGS_CORE, LBR_QUIRK_NO_SELECT | LBR_QUIRK_FREEZE_CLEARS_TR,
     "Atom (Saltwell mid)"},
    {0x35, DEPTH_ATOM, LBR_REGS_CORE, LBR_QUIRK_NO_SELECT | LBR_QUIRK_FREEZE_CLEARS_TR,
     "Atom (Saltwell tablet)"},
    {0x36, DEPTH_ATOM, LBR_REGS_CORE, LBR_QUIRK_NO_SELECT | LBR_QUIRK_FREEZE_CLEARS_TR,
     "Atom (Saltwell)"},
    {0x37, DEPTH_ATOM, LBR_REGS_CORE, 0, "Atom (Silvermont)"},
    {0x4a, DEPTH_ATOM, LBR_REGS_CORE, 0, "Atom (Silvermont mid)"},
    {0x4d, DEPTH_ATOM, LBR_REGS_CORE, 0, "Atom (Silvermont-D)"},
    {0x5d, DEPTH_ATOM, LBR_REGS_CORE, 0, "Atom (Silvermont mid2)"},
    {0x4c, DEPTH_ATOM, LBR_REGS_CORE, 0, "Atom (Airmont)"},
    {0x5a, DEPTH_ATOM, LBR_REGS_CORE, 0, "Atom (Airmont mid)"},
    {0x75, DEPTH_ATOM, LBR_REGS_CORE, 0, "Atom (Airmont NP)"},
    {0x1a, DEPTH_NHM, LBR_REGS_NHM, LBR_QUIRK_NHM_SELECT, "Nehalem-EP"},
    {0x1e, DEPTH_NHM, LBR_REGS_NHM, LBR_QUIRK_NHM_SELECT, "Nehalem"},
    {0x1f, DEPTH_NHM, LBR_REGS_NHM, LBR_QUIRK_NHM_SELECT, "Nehalem-G"},
    {0x2e, DEPTH_NHM, LBR_REGS_NHM, LBR_QUIRK_NHM_SELECT, "Nehalem-EX"},
    {0x25, DEPTH_NHM, LBR_REGS_NHM, LBR_QUIRK_NHM_SELECT, "Westmere"},
    {0x2c, DEPTH_NHM, LBR_REGS_NHM, LBR_QUIRK_NHM_SELECT, "Westmere-EP"},
    {0x2f, DEPTH_NHM, LBR_REGS_NHM, LBR_QUIRK_NHM_SELECT, "Westmere-EX"},
    {0x2a, DEPTH_NHM, LBR_REGS_NHM, 0, "Sandy Bridge"},
    {0x2d, DEPTH_NHM, LBR_REGS_NHM, 0, "Sandy Bridge-X"},
    {0x3a, DEPTH_NHM, LBR_REGS_NHM, 0, "Ivy Bridge"},
    {0x3e, DEPTH_NHM, LBR_REGS_NHM, 0, "Ivy Bridge-X"},
    {0x3c, DEPTH_NHM, LBR_REGS_NHM, 0, "Haswell"},
    {0x3f, DEPTH_NHM, LBR_REGS_NHM, 0, "Haswell-X"},
    {0x45, DEPTH_NHM, LBR_REGS_NHM, 0, "Haswell-L"},
    {0x46, DEPTH_NHM, LBR_REGS_NHM, 0, "Haswell-G"},
    {0x3d, DEPTH_NHM, LBR_REGS_NHM, 0, "Broadwell"},
    {0x47, DEPTH_NHM, LBR_REGS_NHM, 0, "Broadwell-G"},
    {0x4f, DEPTH_NHM, LBR_REGS_NHM, 0, "Broadwell-X"},
    {0x56, DEPTH_NHM, LBR_REGS_NHM, 0, "Broadwell-D"},
    {0x4e, DEPTH_SKL, LBR_REGS_NHM, 0, "Skylake-L"},
    {0x5e, DEPTH_SKL, LBR_REGS_NHM, 0, "Skylake"},
    {0x55, DEPTH_SKL, LBR_REGS_NHM, 0, "Skylake-X"},
    {0x8e, DEPTH_SKL, LBR_REGS_NHM, 0, "Kaby Lake-L"},
    {0x9e, DEPTH_SKL, LBR_REGS_NHM, 0, "Kaby/Coffee Lake"},
    {0xa5, DEPTH_SKL, LBR_REGS_NHM, 0, "Comet Lake"},
    {0xa6, DEPTH_SKL, LBR_REGS_NHM, 0, "Comet Lake-L"},
    {0x66, DEPTH_SKL, LBR_REGS_NHM, 0, "Cannon Lake-L"},
    {0x7d, DEPTH_SKL, LBR_REGS_NHM, 0, "Ice Lake"},
    {0x7e, DEPTH_SKL, LBR_REGS_NHM, 0, "Ice Lake-L"},
    {0x6a, DEPTH_SKL, LBR_REGS_NHM, 0, "Ice Lake-X"},
    {0x6c, DEPTH_SKL, LBR_REGS_NHM, 0, "Ice Lake-D"},
    {0x9d, DEPTH_SKL, LBR_REGS_NHM, 0, "Ice Lake NNPI"},
    {0x8c, DEPTH_SKL, LBR_REGS_NHM, 0, "Tiger Lake-L"},
    {0x8d, DEPTH_SKL, LBR_REGS_NHM, 0, "Tiger Lake"},
    {0xa7, DEPTH_SKL, LBR_REGS_NHM, 0, "Rocket Lake"},
    {0x5c, DEPTH_SKL, LBR_REGS_NHM, 0, "Atom (Goldmont)"},
    {0x5f, DEPTH_SKL, LBR_REGS_NHM, 0, "Atom (Goldmont-D)"},
    {0x7a, DEPTH_SKL, LBR_REGS_NHM, 0, "Atom (Goldmont Plus)"},
    {0x86, DEPTH_SKL, LBR_REGS_NHM, 0, "Atom (Tremont-D)"},
    {0x96, DEPTH_SKL, LBR_REGS_NHM, 0, "Atom (Tremont)"},
    {0x9c, DEPTH_SKL, LBR_REGS_NHM, 0, "Atom (Tremont-L)"},
    /* references.md 1.5 / 8: KNL reports LBR_FORMAT_LIP but has the mispredict bit (Linux: format
       3). */
    {0x57, DEPTH_ATOM, LBR_REGS_NHM, LBR_QUIRK_KNL_FORMAT, "Knights Landing"},
    {0x85, DEPTH_ATOM, LBR_REGS_NHM, LBR_QUIRK_KNL_FORMAT, "Knights Mill"},
};

const struct lbr_model *lbr_model_find(uint32_t family, uint32_t model)
{
	if (family != FAMILY_6)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(lbr_models); i++)
		if (lbr_models[i].model == model)
			return &lbr_models[i];
	return NULL;
}
