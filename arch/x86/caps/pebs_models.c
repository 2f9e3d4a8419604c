/* SPDX-License-Identifier: MIT */
/*
 * Family 6 models by microarchitecture (SDM Vol. 4 Table 2-1's DisplayFamily_DisplayModel
 * values; Linux arch/x86/include/asm/intel-family.h names them).
 */
#include "arch/x86/caps/pebs_models.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/bits.h"

#define FAMILY_6 6

/* Nehalem (1AH, 1EH, 1FH, 2EH) and Westmere (25H, 2CH, 2FH). */
static const uint8_t nehalem_models[] = {0x1a, 0x1e, 0x1f, 0x2e, 0x25, 0x2c, 0x2f};
/* Sandy Bridge (2AH, 2DH) and Ivy Bridge (3AH, 3EH). */
static const uint8_t snb_ivb_models[] = {0x2a, 0x2d, 0x3a, 0x3e};
/* Atom family 6 models (Bonnell .. Crestmont) whose memory events differ: not tabled. */
static const uint8_t atom_models[] = {0x1c, 0x26, 0x27, 0x35, 0x36, 0x37, 0x4a,
				      0x4c, 0x4d, 0x5a, 0x5d, 0x5c, 0x5f, 0x7a,
				      0x86, 0x96, 0x9c, 0xaf, 0xb6, 0xbe, 0xdd};

static bool model_in(unsigned model, const uint8_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == model)
			return true;
	return false;
}

enum pebs_mem_uarch pebs_mem_uarch_of(unsigned family, unsigned model)
{
	if (family != FAMILY_6 || model_in(model, atom_models, ARRAY_SIZE(atom_models)))
		return PEBS_MEM_UARCH_NONE;
	if (model_in(model, nehalem_models, ARRAY_SIZE(nehalem_models)))
		return PEBS_MEM_UARCH_NEHALEM;
	if (model_in(model, snb_ivb_models, ARRAY_SIZE(snb_ivb_models)))
		return PEBS_MEM_UARCH_SANDY_BRIDGE;
	return PEBS_MEM_UARCH_LATER;
}
