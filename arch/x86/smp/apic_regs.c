/* SPDX-License-Identifier: MIT */
#include "arch/x86/hw/apic_regs.h"

#define XAPIC_ID_FIELD GENMASK(31, 24) /* Figure 10-6: the xAPIC ID is in bits 31:24 */

uint32_t apic_x2apic_msr(enum apic_reg reg)
{
	switch (reg) {
	case APIC_ICR_HIGH:
		return 0; /* folded into the 64-bit ICR at MSR 830H */
	default:
		return X2APIC_MSR_BASE + ((uint32_t)reg >> 4);
	}
}

bool apic_icr_compose(bool x2apic, uint32_t dest, enum apic_delivery mode, uint8_t vector,
		      enum apic_shorthand shorthand, uint64_t *icr)
{
	uint64_t v = FIELD_PREP(APIC_ICR_VECTOR, vector) |
		     FIELD_PREP(APIC_ICR_DELIVERY_MODE, mode) |
		     FIELD_PREP(APIC_ICR_SHORTHAND, shorthand);
	/* INIT assert and the others: level = assert, edge triggered (10.6.1, the INIT-SIPI-SIPI
	 * sequence of 8.4.4.1 uses INIT with level assert). */
	v |= APIC_ICR_LEVEL_ASSERT;
	if (shorthand == APIC_DEST_NONE) {
		if (x2apic) {
			v |= FIELD_PREP(APIC_ICR_X2APIC_DEST, dest);
		} else {
			if (dest > 0xff)
				return false;
			v |= FIELD_PREP(APIC_ICR_XAPIC_DEST, dest);
		}
	}
	*icr = v;
	return true;
}

uint32_t apic_id_from_reg(bool x2apic, uint32_t id_reg)
{
	return x2apic ? id_reg : (uint32_t)FIELD_GET(XAPIC_ID_FIELD, id_reg);
}
