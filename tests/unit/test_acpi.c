// UNIT-SOURCES: arch/x86/smp/acpi.c lib/fmt.c lib/string.c
/* RSDP -> XSDT/RSDT -> MADT over synthetic tables placed in a fake physical memory. */
#include "tests/unit/unit.h"
#include <string.h>
#include "arch/x86/smp/acpi.h"

static uint8_t mem[0x10000]; /* "physical" 0x0 .. 0x10000 */

static const void *map(uint64_t phys, size_t len)
{
	if (phys > sizeof(mem) || len > sizeof(mem) - phys)
		return NULL;
	return mem + phys;
}

static void fix_checksum(uint8_t *p, size_t len, size_t at)
{
	p[at] = 0;
	uint8_t s = 0;
	for (size_t i = 0; i < len; i++)
		s = (uint8_t)(s + p[i]);
	p[at] = (uint8_t)(0x100 - s);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void header(uint64_t at, const char *sig, uint32_t len)
{
	memcpy(mem + at, sig, 4);
	put32(mem + at + 4, len);
	mem[at + 8] = 1;
	memcpy(mem + at + 10, "BTRACE", 6);
}

#define RSDP 0x100
#define XSDT 0x200
#define RSDT 0x300
#define FACP 0x400
#define MADT 0x500

/* MADT with: LAPIC id 0 enabled, LAPIC id 1 enabled, LAPIC id 2 disabled+online-capable,
 * x2APIC id 300 enabled, x2APIC id 1 again (duplicate), an IOAPIC, an address override. */
static uint32_t build_madt(void)
{
	uint8_t *m = mem + MADT;
	uint32_t off = 44;
	put32(m + 36, 0xfee00000);
	put32(m + 40, 1);
	const uint8_t lapics[3][3] = {{0, 0, 1}, {1, 1, 1}, {2, 2, 2}}; /* uid, id, flags */
	for (int i = 0; i < 3; i++) {
		uint8_t e[8] = {0, 8, lapics[i][0], lapics[i][1], lapics[i][2], 0, 0, 0};
		memcpy(m + off, e, 8);
		off += 8;
	}
	uint8_t io[12] = {1, 12, 0, 0, 0, 0, 0xc0, 0xfe, 0, 0, 0, 0};
	memcpy(m + off, io, 12);
	off += 12;
	uint8_t x2[16] = {9, 16};
	put32(x2 + 4, 300);
	put32(x2 + 8, 1);
	put32(x2 + 12, 7);
	memcpy(m + off, x2, 16);
	off += 16;
	put32(x2 + 4, 1); /* duplicate of LAPIC id 1 */
	memcpy(m + off, x2, 16);
	off += 16;
	uint8_t ov[12] = {5, 12};
	put64(ov + 4, 0xfee10000ull);
	memcpy(m + off, ov, 12);
	off += 12;
	header(MADT, "APIC", off);
	fix_checksum(m, off, 9);
	return off;
}

static void build_all(uint8_t revision)
{
	memset(mem, 0, sizeof(mem));
	build_madt();
	header(FACP, "FACP", 36);
	fix_checksum(mem + FACP, 36, 9);
	header(XSDT, "XSDT", 36 + 16);
	put64(mem + XSDT + 36, FACP);
	put64(mem + XSDT + 44, MADT);
	fix_checksum(mem + XSDT, 52, 9);
	header(RSDT, "RSDT", 36 + 8);
	put32(mem + RSDT + 36, FACP);
	put32(mem + RSDT + 40, MADT);
	fix_checksum(mem + RSDT, 44, 9);
	uint8_t *r = mem + RSDP;
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "BTRACE", 6);
	r[15] = revision;
	put32(r + 16, RSDT);
	put32(r + 20, 36);
	put64(r + 24, XSDT);
	fix_checksum(r, 20, 8);
	fix_checksum(r, 36, 32);
}

static void reads_cpus_through_xsdt(void **state)
{
	(void)state;
	static struct acpi_madt_info info;
	char err[200] = "";
	build_all(2);
	assert_true(acpi_read_madt(RSDP, map, &info, err, sizeof(err)));
	assert_int_equal(info.ncpus, 4); /* the duplicate x2APIC entry for id 1 is dropped */
	assert_int_equal(info.cpus[0].apic_id, 0);
	assert_true(info.cpus[0].enabled);
	assert_false(info.cpus[2].enabled);
	assert_true(info.cpus[2].online_capable);
	assert_int_equal(info.cpus[3].apic_id, 300);
	assert_true(info.cpus[3].from_x2apic);
	assert_int_equal(info.cpus[3].acpi_uid, 7);
	assert_int_equal(info.lapic_base, 0xfee10000ull); /* the override wins */
	assert_true(info.pcat_compat);
	assert_int_equal(info.ioapics, 1);
}

static void falls_back_to_rsdt(void **state)
{
	(void)state;
	static struct acpi_madt_info info;
	char err[200] = "";
	build_all(0); /* ACPI 1.0: RSDT only */
	assert_true(acpi_read_madt(RSDP, map, &info, err, sizeof(err)));
	assert_int_equal(info.ncpus, 4);
	build_all(2);
	mem[XSDT + 20]++; /* corrupt the XSDT checksum: the RSDT still works */
	assert_true(acpi_read_madt(RSDP, map, &info, err, sizeof(err)));
	assert_int_equal(info.ncpus, 4);
}

static void reports_corruption(void **state)
{
	(void)state;
	static struct acpi_madt_info info;
	char err[200];
	build_all(2);
	mem[RSDP]++;
	assert_false(acpi_read_madt(RSDP, map, &info, err, sizeof(err)));
	assert_non_null(strstr(err, "RSD PTR"));
	build_all(2);
	mem[RSDP + 10]++; /* inside the first 20 bytes */
	assert_false(acpi_read_madt(RSDP, map, &info, err, sizeof(err)));
	assert_non_null(strstr(err, "checksum"));
	build_all(2);
	mem[MADT + 50]++;
	assert_false(acpi_read_madt(RSDP, map, &info, err, sizeof(err)));
	assert_non_null(strstr(err, "APIC"));
	assert_non_null(strstr(err, "checksum"));
	build_all(2);
	mem[MADT + 45] = 200; /* first entry's length runs past the table */
	fix_checksum(mem + MADT, 44 + 3 * 8 + 12 + 16 + 16 + 12, 9);
	assert_false(acpi_read_madt(RSDP, map, &info, err, sizeof(err)));
	assert_non_null(strstr(err, "beyond the table"));
	build_all(2);
	memcpy(mem + MADT, "XXXX", 4); /* no MADT listed any more */
	assert_false(acpi_read_madt(RSDP, map, &info, err, sizeof(err)));
	assert_non_null(strstr(err, "no 'APIC' table listed"));
	assert_false(acpi_read_madt(0, map, &info, err, sizeof(err)));
	assert_non_null(strstr(err, "no RSDP"));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(reads_cpus_through_xsdt),
    cmocka_unit_test(falls_back_to_rsdt),
    cmocka_unit_test(reports_corruption),
};
UNIT_MAIN(tests)
