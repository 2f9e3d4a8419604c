/* SPDX-License-Identifier: MIT */
/* The facility drivers by facility (driver.h), and the check every driver's register access
 * goes through. */
#include "arch/x86/drivers/driver.h"
#include "arch/x86/pmu/access.h"

const struct facility_driver *facility_driver_of(enum trace_facility f, const struct trace_caps *c)
{
	switch (f) {
	case TRACE_BTS:
		return &bts_driver;
	case TRACE_BTSINT:
		return &btsint_driver;
	case TRACE_PEBS:
		return &pebs_driver;
	case TRACE_BTF:
		return &btf_driver;
	case TRACE_PMC:
		return &pmc_driver;
	default: /* TRACE_LBR: as the CPU has it (both say why not, when it has none) */
		return c && c->lbr.kind == TC_LBR_ARCH ? &lbr_arch_driver : &lbr_legacy_driver;
	}
}

const struct facility_driver *facility_driver_for(enum trace_facility f, const struct trace_caps *c,
						  const struct trace_options *o)
{
	if (f == TRACE_LBR && o && o->lbr_period)
		return &lbr_sample_driver;
	return facility_driver_of(f, c);
}

bool drv_check(struct facility_run *r, enum status st, uint32_t msr, const char *what)
{
	if (st == STATUS_OK)
		return true;
	const char *reason = pmu_last_refusal();
	r->print("error: %s: %s: MSR %#x refused (#GP)%s%s\n", r->label, what, msr,
		 *reason ? ": " : "", reason);
	r->ok = false;
	return false;
}
