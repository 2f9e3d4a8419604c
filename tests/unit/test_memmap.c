// UNIT-SOURCES: kernel/memmap.c kernel/build_id.c lib/fmt.c lib/string.c
/* Memory-map summaries and cacheability classes; build-id note parsing. */
#include "tests/unit/unit.h"
#include <string.h>
#include "kernel/memmap.h"
#include "kernel/build_id.h"

#define MiB (1ull << 20)

static const struct boot_mem_range sample[] = {
    {0x0, 0x9f, 0xf, BOOT_MEM_USABLE, 7},
    {0x9f000, 0x61, 0, BOOT_MEM_RESERVED, 0},
    {0x100000, 0x700, 0xf, BOOT_MEM_USABLE, 7},
    {0x800000, 0x8, 0xf, BOOT_MEM_ACPI_NVS, 10},
    {0x808000, 0x7f8, 0xf, BOOT_MEM_LOADER, 2},
    {0x1000000, 0x1f000, 0xf, BOOT_MEM_USABLE, 3},
    {0xe0000000, 0x10000, 1, BOOT_MEM_RESERVED, 0},
    {0xffc00000, 0x400, 1, BOOT_MEM_MMIO, 11},
    {0x100000000ull, 0x100, 0, 42, 99}, /* a type the kernel does not know */
};
static const struct memmap mm = {sample, sizeof(sample) / sizeof(sample[0])};

static void summary_counts_pages_and_extremes(void **state)
{
	(void)state;
	struct memmap_summary s;
	memmap_summarize(&mm, &s);
	assert_int_equal(s.pages_by_type[BOOT_MEM_USABLE], 0x9f + 0x700 + 0x1f000);
	assert_int_equal(s.ranges_by_type[BOOT_MEM_USABLE], 3);
	assert_int_equal(s.pages_by_type[BOOT_MEM_LOADER], 0x7f8);
	assert_int_equal(s.usable_top, 0x1000000 + 0x1f000 * PAGE_SIZE);
	assert_int_equal(s.highest_end, 0x100100000ull);
	assert_int_equal(s.unknown_types, 1);
	assert_string_equal(memmap_type_name(BOOT_MEM_ACPI_NVS), "acpi-nvs");
	assert_string_equal(memmap_type_name(42), "unknown");
	assert_string_equal(memmap_type_name(0), "unknown");
}

static void classify_ram_device_and_mixed(void **state)
{
	(void)state;
	assert_int_equal(memmap_classify(&mm, 0x1000000, 2 * MiB), MEMMAP_RAM);
	/* ACPI NVS + loader + usable together: all RAM-like. */
	assert_int_equal(memmap_classify(&mm, 0x800000, 0x10000), MEMMAP_RAM);
	/* First 2 MiB: usable, then reserved (VGA/BIOS hole), then usable: mixed. */
	assert_int_equal(memmap_classify(&mm, 0, 2 * MiB), MEMMAP_MIXED);
	assert_int_equal(memmap_classify(&mm, 0xa0000, 0x1000), MEMMAP_DEVICE);
	/* Reserved, MMIO and holes are device (uncached). */
	assert_int_equal(memmap_classify(&mm, 0xe0000000, 2 * MiB), MEMMAP_DEVICE);
	assert_int_equal(memmap_classify(&mm, 0xfee00000, 0x1000), MEMMAP_DEVICE);
	assert_int_equal(memmap_classify(&mm, 0x100000000ull, 0x1000), MEMMAP_DEVICE);
	assert_true(memmap_type_is_ram(BOOT_MEM_LOADER));
	assert_false(memmap_type_is_ram(BOOT_MEM_MMIO));
	assert_false(memmap_type_is_ram(BOOT_MEM_BAD));
}

static size_t put_note(uint8_t *p, uint32_t type, const char *name, const uint8_t *desc,
		       uint32_t descsz)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	uint32_t h[3] = {namesz, descsz, type};
	memcpy(p, h, sizeof(h));
	size_t off = sizeof(h);
	memset(p + off, 0, (namesz + 3) & ~3u);
	memcpy(p + off, name, namesz);
	off += (namesz + 3) & ~3u;
	memcpy(p + off, desc, descsz);
	return off + ((descsz + 3) & ~3u);
}

static void build_id_note_parsing(void **state)
{
	(void)state;
	uint8_t buf[256], out[BUILD_ID_MAX];
	const uint8_t id[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,	3,  4,	5,  6,
				7,    8,    9,	  10,	11, 12, 13, 14, 15, 16};
	const uint8_t other[4] = {1, 2, 3, 4};
	/* Another note first (same type, other owner), then the GNU build id. */
	size_t n = put_note(buf, 3, "Xen", other, sizeof(other));
	n += put_note(buf + n, 3, "GNU", id, sizeof(id));
	assert_int_equal(build_id_parse_note(buf, n, out, sizeof(out)), 20);
	assert_memory_equal(out, id, 20);
	/* Truncated: the descriptor runs past the end. */
	assert_int_equal(build_id_parse_note(buf, n - 4, out, sizeof(out)), 0);
	/* Too long for the caller's buffer. */
	assert_int_equal(build_id_parse_note(buf, n, out, 8), 0);
	/* No build id at all. */
	assert_int_equal(build_id_parse_note(buf, put_note(buf, 1, "GNU", other, 4), out, 32), 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(summary_counts_pages_and_extremes),
    cmocka_unit_test(classify_ram_device_and_mixed),
    cmocka_unit_test(build_id_note_parsing),
};
UNIT_MAIN(tests)
