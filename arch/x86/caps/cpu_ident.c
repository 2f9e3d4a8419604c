/* SPDX-License-Identifier: MIT */
#include "arch/x86/caps/cpu_ident.h"
#include "lib/bits.h"

#define SIG_STEPPING	    GENMASK(3, 0)
#define SIG_MODEL	    GENMASK(7, 4)
#define SIG_FAMILY	    GENMASK(11, 8)
#define SIG_EXTENDED_MODEL  GENMASK(19, 16)
#define SIG_EXTENDED_FAMILY GENMASK(27, 20)

struct cpu_signature cpu_signature_decode(uint32_t eax)
{
	uint32_t base_family = (uint32_t)FIELD_GET(SIG_FAMILY, eax);
	uint32_t base_model = (uint32_t)FIELD_GET(SIG_MODEL, eax);
	struct cpu_signature s = {
	    .family = base_family,
	    .model = base_model,
	    .stepping = (uint32_t)FIELD_GET(SIG_STEPPING, eax),
	};
	if (base_family == 0xf)
		s.family += (uint32_t)FIELD_GET(SIG_EXTENDED_FAMILY, eax);
	if (base_family == 0x6 || base_family == 0xf)
		s.model += (uint32_t)FIELD_GET(SIG_EXTENDED_MODEL, eax) << 4;
	return s;
}
