/* SPDX-License-Identifier: MIT */
#include "kernel/memmap.h"

static const char *const type_names[] = {
    [BOOT_MEM_USABLE] = "usable",	  [BOOT_MEM_LOADER] = "loader",
    [BOOT_MEM_RESERVED] = "reserved",	  [BOOT_MEM_ACPI_RECLAIM] = "acpi-reclaim",
    [BOOT_MEM_ACPI_NVS] = "acpi-nvs",	  [BOOT_MEM_MMIO] = "mmio",
    [BOOT_MEM_PERSISTENT] = "persistent", [BOOT_MEM_BAD] = "bad",
};

const char *memmap_type_name(uint32_t type)
{
	if (type < sizeof(type_names) / sizeof(type_names[0]) && type_names[type])
		return type_names[type];
	return "unknown";
}

void memmap_summarize(const struct memmap *mm, struct memmap_summary *s)
{
	*s = (struct memmap_summary){0};
	for (size_t i = 0; i < mm->count; i++) {
		const struct boot_mem_range *r = &mm->ranges[i];
		uint64_t end = r->phys + r->pages * PAGE_SIZE;
		if (r->type >= BOOT_MEM_USABLE && r->type <= BOOT_MEM_BAD) {
			s->pages_by_type[r->type] += r->pages;
			s->ranges_by_type[r->type]++;
		} else {
			s->unknown_types++;
		}
		if (r->type == BOOT_MEM_USABLE && end > s->usable_top)
			s->usable_top = end;
		if (end > s->highest_end)
			s->highest_end = end;
	}
}

/*
 * Reserved and MMIO ranges, and addresses no range describes (the PCI hole, the local APIC),
 * are mapped uncached. Firmware "reserved" ranges can hold device windows (e.g. PCIe ECAM on
 * some boards), so uncached is the safe reading; RAM mapped uncached is only slower.
 */
bool memmap_type_is_ram(uint32_t type)
{
	switch (type) {
	case BOOT_MEM_USABLE:
	case BOOT_MEM_LOADER:
	case BOOT_MEM_ACPI_RECLAIM:
	case BOOT_MEM_ACPI_NVS:
	case BOOT_MEM_PERSISTENT:
		return true;
	default:
		return false;
	}
}

enum memmap_class memmap_classify(const struct memmap *mm, uint64_t phys, uint64_t len)
{
	uint64_t end = phys + len, ram_bytes = 0;
	for (size_t i = 0; i < mm->count; i++) {
		const struct boot_mem_range *r = &mm->ranges[i];
		if (!memmap_type_is_ram(r->type))
			continue;
		uint64_t rs = r->phys, re = r->phys + r->pages * PAGE_SIZE;
		uint64_t lo = rs > phys ? rs : phys, hi = re < end ? re : end;
		if (lo < hi)
			ram_bytes += hi - lo;
	}
	if (ram_bytes == 0)
		return MEMMAP_DEVICE;
	return ram_bytes >= len ? MEMMAP_RAM : MEMMAP_MIXED;
}
