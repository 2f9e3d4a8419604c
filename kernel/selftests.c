/* SPDX-License-Identifier: MIT */
/* Self-tests of generic bring-up: the loader's hand-off, the memory map, the page allocator. */
#include "kernel/selftest.h"
#include "kernel/boot_info.h"
#include "kernel/build_id.h"
#include "kernel/memmap.h"
#include "kernel/memory.h"
#include "lib/fmt.h"
#include "lib/string.h"

#include "kernel/kernel.h"
#include "kernel/arch_cpu.h"
extern const uint8_t __build_id_note[], __rodata_end[];

#define RSDP_SIGNATURE "RSD PTR " /* ACPI 6.x 5.2.5.3 */

SELFTEST(boot_info)
{
	const struct boot_info *bi = kernel_boot_info();
	uint8_t id[BUILD_ID_MAX];
	size_t n = build_id_parse_note(__build_id_note, (size_t)(__rodata_end - __build_id_note),
				       id, sizeof(id));
	report(n > 0 && n == bi->build_id_len && memcmp(id, bi->build_id, n) == 0,
	       "the loader's build id matches the running kernel's (%zu bytes)", n);
	uint64_t now = arch_timestamp();
	report(bi->tsc_loader_entry < bi->tsc_handoff && bi->tsc_handoff < now,
	       "TSC stamps are ordered: loader entry < hand-off < now");
	report(bi->tsc_hz >= 100000000ull && bi->tsc_hz <= 20000000000ull,
	       "TSC rate %lu Hz is plausible (0.1-20 GHz)", bi->tsc_hz);
	if (bi->acpi_rsdp) {
		report(memcmp(arch_phys_to_virt(bi->acpi_rsdp), RSDP_SIGNATURE, 8) == 0,
		       "RSDP at %#lx carries its signature (ACPI %u GUID)", bi->acpi_rsdp,
		       bi->acpi_revision);
	} else {
		report_skip("no ACPI RSDP in the firmware configuration table");
	}
	report(bi->trampoline_phys && bi->trampoline_phys < 0x100000 &&
		   !(bi->trampoline_phys & 0xfff),
	       "AP trampoline page %#lx is page-aligned below 1 MiB", bi->trampoline_phys);
}

static bool in_range_of_type(const struct memmap *mm, uint64_t phys, uint32_t type)
{
	for (size_t i = 0; i < mm->count; i++) {
		const struct boot_mem_range *r = &mm->ranges[i];
		if (r->type == type && phys >= r->phys && phys < r->phys + r->pages * PAGE_SIZE)
			return true;
	}
	return false;
}

SELFTEST(memmap)
{
	const struct boot_info *bi = kernel_boot_info();
	struct memmap mm = {arch_phys_to_virt(bi->mmap), bi->mmap_count};
	struct memmap_summary s;
	memmap_summarize(&mm, &s);
	report(mm.count > 0 && s.pages_by_type[BOOT_MEM_USABLE] * PAGE_SIZE >= (16ull << 20),
	       "memory map has %zu ranges and %lu MiB usable", mm.count,
	       s.pages_by_type[BOOT_MEM_USABLE] * PAGE_SIZE >> 20);
	report(in_range_of_type(&mm, bi->kernel_phys_base, BOOT_MEM_LOADER) &&
		   in_range_of_type(&mm, (uint64_t)bi - KERNEL_DIRECT_BASE, BOOT_MEM_LOADER),
	       "kernel image and boot_info lie in loader-owned memory");
	report(s.unknown_types == 0, "every range has a known type");
	bool sorted_disjoint = true;
	for (size_t i = 1; i < mm.count; i++)
		if (mm.ranges[i].phys < mm.ranges[i - 1].phys + mm.ranges[i - 1].pages * PAGE_SIZE)
			sorted_disjoint = false;
	report(sorted_disjoint, "ranges are sorted and do not overlap");
}

SELFTEST(page_alloc)
{
	const struct boot_info *bi = kernel_boot_info();
	struct pmm *p = memory_allocator();
	uint64_t before = p->free_pages;
	uint64_t a = page_alloc(1), b = page_alloc(3);
	report(a && b && a != b && !(a & 0xfff) && !(b & 0xfff), "two allocations: %#lx, %#lx", a,
	       b);
	report(p->free_pages == before - 4, "free count drops by the 4 pages taken");
	const uint8_t *bytes = arch_phys_to_virt(b);
	bool zero = true;
	for (uint64_t i = 0; i < 3 * PAGE_SIZE; i++)
		zero &= bytes[i] == 0;
	report(zero, "allocated pages are zeroed");
	report(a >= LOW_MEMORY_RESERVED && b >= LOW_MEMORY_RESERVED,
	       "nothing below 1 MiB is handed out");
	report(pmm_page_in_use(p, bi->kernel_phys_base) && pmm_page_in_use(p, (uint64_t)bi) &&
		   pmm_page_in_use(p, bi->trampoline_phys),
	       "kernel image, boot_info and trampoline are never free");
	report(page_free(a, 1) && page_free(b, 3) && p->free_pages == before,
	       "freeing restores the free count");
	report(!page_free(a, 1), "a double free is refused");
}

SELFTEST(fmt)
{
	char buf[64];
	int n = fmt_snprintf(buf, sizeof(buf), "%p|%-4s|%05d|%#x", (void *)0xffffffff80001000ull,
			     "ab", -42, 255);
	report(strcmp(buf, "0xffffffff80001000|ab  |-0042|0xff") == 0 && n == (int)strlen(buf),
	       "kernel build of the formatter: '%s'", buf);
}
