/* SPDX-License-Identifier: MIT */
#include "arch/x86/pmu/ds_area.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/pmu/access.h"
#include "kernel/arch_cpu.h"
#include "kernel/memmap.h"
#include "kernel/memory.h"
#include "lib/string.h"

static struct ds_percpu areas[MAX_CPUS];

static uint64_t pages_of(uint64_t bytes)
{
	return (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
}

/* Keep the buffer when it is large enough, else replace it. */
static bool ensure(uint64_t *phys, uint64_t *bytes, uint64_t want)
{
	if (*phys && *bytes >= want)
		return true;
	if (*phys)
		page_free(*phys, pages_of(*bytes));
	*bytes = pages_of(want) * PAGE_SIZE;
	*phys = page_alloc_uncleared(pages_of(want)); /* read only where written */
	if (!*phys)
		*bytes = 0;
	return *phys != 0;
}

bool ds_area_prepare(unsigned cpu, uint64_t bts_bytes, uint64_t pebs_bytes)
{
	if (cpu >= MAX_CPUS)
		return false;
	struct ds_percpu *d = &areas[cpu];
	_Static_assert(sizeof(struct ds_area64) <= PAGE_SIZE, "the DS area fits one page");
	if (!d->area_phys)
		d->area_phys = page_alloc(DS_AREA_PAGES);
	if (!d->area_phys || !ensure(&d->bts_phys, &d->bts_bytes, bts_bytes) ||
	    !ensure(&d->pebs_phys, &d->pebs_bytes, pebs_bytes))
		return false;
	d->area = arch_phys_to_virt(d->area_phys);
	return true;
}

struct ds_percpu *ds_area_this_cpu(void)
{
	struct ds_percpu *d = &areas[this_cpu()->index];
	if (!d->area)
		return 0;
	memset(d->area, 0, sizeof(*d->area));
	return d;
}

int ds_area_install(const struct ds_percpu *d)
{
	return pmu_wrmsr(MSR_IA32_DS_AREA, d->area_phys);
}
