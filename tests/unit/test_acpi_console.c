// UNIT-SOURCES: arch/x86/console/acpi_console.c arch/x86/smp/acpi.c lib/fmt.c lib/string.c
/*
 * The console UART from ACPI SPCR and DBG2 tables. The tables are written in iasl's data-table
 * language (tests/unit/acpi/, one .dsl file each) and compiled by Debian's iasl, an encoder
 * independent of the decoder under test; each expectation below is the value written in that .dsl
 * file, read through the rules of Microsoft's SPCR and DBG2 specifications (quoted where they
 * decide).
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "acpi_tables.h" /* generated: table_<name>[] from tests/unit/acpi/<name>.dsl */
#include "arch/x86/console/acpi_console.h"
#include "arch/x86/smp/acpi.h"

static uint8_t mem[0x4000]; /* "physical" memory: RSDP, XSDT, one table */

#define RSDP  0x100
#define XSDT  0x200
#define TABLE 0x1000

static const void *map(uint64_t phys, size_t len)
{
	if (phys > sizeof(mem) || len > sizeof(mem) - phys)
		return NULL;
	return mem + phys;
}

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

/* An ACPI 2.0 RSDP -> XSDT -> the table, as firmware lays them out. */
static void install(const unsigned char *table, size_t len)
{
	memset(mem, 0, sizeof(mem));
	memcpy(mem + TABLE, table, len);
	uint8_t *r = mem + RSDP;
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "BTRACE", 6);
	r[15] = 2; /* revision */
	uint32_t rlen = 36;
	memcpy(r + 20, &rlen, 4);
	uint64_t xsdt = XSDT, tab = TABLE;
	memcpy(r + 24, &xsdt, 8);
	r[8] = (uint8_t)-sum(r, 20);
	r[32] = (uint8_t)-sum(r, 36);
	uint8_t *x = mem + XSDT;
	uint32_t xlen = 36 + 8;
	memcpy(x, "XSDT", 4);
	memcpy(x + 4, &xlen, 4);
	x[8] = 1;
	memcpy(x + 36, &tab, 8);
	x[9] = (uint8_t)-sum(x, xlen);
}

static char why[256];

typedef bool (*decode_fn)(const void *, struct uart_desc *, char *, size_t);

/* Install the table, find it by signature as the kernel does, decode it. */
static bool decode(const char *sig, decode_fn fn, const unsigned char *t, size_t n,
		   struct uart_desc *d)
{
	install(t, n);
	const void *found = acpi_find_sdt(RSDP, map, sig, why, sizeof(why));
	return found && fn(found, d, why, sizeof(why));
}

static bool spcr(const unsigned char *t, size_t n, struct uart_desc *d)
{
	return decode("SPCR", acpi_spcr_uart, t, n, d);
}

static bool dbg2(const unsigned char *t, size_t n, struct uart_desc *d)
{
	return decode("DBG2", acpi_dbg2_uart, t, n, d);
}

#define SPCR(name, d) spcr(table_##name, sizeof(table_##name), d)
#define DBG2(name, d) dbg2(table_##name, sizeof(table_##name), d)

/* spcr_io.dsl: Space ID 01 (SystemIO), address 0x3F8, Baud Rate 07, Flow Control 02.
 * SPCR: "Baud Rate: 7 = 115200"; "Flow Control: Bit[1] RTS/CTS hardware flow control". */
static void spcr_port_io(void **state)
{
	(void)state;
	struct uart_desc d;
	assert_true(SPCR(spcr_io, &d));
	assert_int_equal(d.space, UART_SPACE_IO);
	assert_int_equal(d.base, 0x3f8);
	assert_int_equal(d.stride, 1);
	assert_int_equal(d.width, 8);
	assert_int_equal(d.baud, 115200);
	assert_true(d.rtscts);
	assert_int_equal(d.clock, 1843200); /* revision 2 gives none: the PC UART crystal */
	assert_false(d.pci);		    /* PCI Device ID FFFF: "not a PCI device" */
	assert_false(d.lpss);
	assert_string_equal(d.source, "SPCR");
}

/* spcr_mmio32.dsl: Interface Type 12h, SystemMemory, Bit Width 20h, Encoded Access Width 03
 * (DWord), 0xFE032000. A dword-accessed 16550 has its registers 4 bytes apart (Linux
 * earlycon "mmio32": regshift 2). */
static void spcr_mmio_32bit_stride(void **state)
{
	(void)state;
	struct uart_desc d;
	assert_true(SPCR(spcr_mmio32, &d));
	assert_int_equal(d.space, UART_SPACE_MMIO);
	assert_int_equal(d.base, 0xfe032000);
	assert_int_equal(d.width, 32);
	assert_int_equal(d.stride, 4);
	assert_int_equal(d.baud, 115200);
	assert_false(d.rtscts);
}

/* spcr_mmio_bytebug.dsl: Access Width 01 (byte) on a 32-bit register: decoded as given (the
 * serial.stride option corrects such firmware); Baud Rate 06 = 57600. */
static void spcr_byte_access_taken_as_given(void **state)
{
	(void)state;
	struct uart_desc d;
	assert_true(SPCR(spcr_mmio_bytebug, &d));
	assert_int_equal(d.width, 8);
	assert_int_equal(d.stride, 1);
	assert_int_equal(d.baud, 57600);
}

/* spcr_pci.dsl: PCI Vendor 1B36, Device 0002 at 00:03.0, port 0xE000, Baud Rate 0: "as is". */
static void spcr_pci_device_and_rate_as_is(void **state)
{
	(void)state;
	struct uart_desc d;
	assert_true(SPCR(spcr_pci, &d));
	assert_true(d.pci);
	assert_int_equal(d.pci_vendor, 0x1b36);
	assert_int_equal(d.pci_device, 0x0002);
	assert_int_equal(d.pci_bus, 0);
	assert_int_equal(d.pci_dev, 3);
	assert_int_equal(d.pci_fn, 0);
	assert_int_equal(d.base, 0xe000);
	assert_int_equal(d.baud, 0);
}

static void spcr_refusals_name_the_problem(void **state)
{
	(void)state;
	struct uart_desc d;
	assert_false(SPCR(spcr_pl011, &d)); /* Interface Type 03: ARM PL011 */
	assert_non_null(strstr(why, "interface type 0x3 (ARM PL011) is not supported"));
	assert_non_null(strstr(why, "accepted: the 16550 family"));
	assert_false(SPCR(spcr_disabled, &d)); /* "Address: 0 = console redirection disabled" */
	assert_non_null(strstr(why, "base address 0"));
}

/* A table whose bytes do not sum to 0 (ACPI 6.5, 5.2.6 "Checksum: Entire table must sum to
 * zero") is refused before it is decoded. */
static void corrupt_checksum_is_refused(void **state)
{
	(void)state;
	unsigned char bad[sizeof(table_spcr_io)];
	memcpy(bad, table_spcr_io, sizeof(bad));
	bad[44] ^= 0x10; /* address 0x3F8 -> 0x3E8, checksum unchanged */
	struct uart_desc d;
	assert_false(spcr(bad, sizeof(bad), &d));
	assert_non_null(strstr(why, "SPCR"));
	assert_non_null(strstr(why, "checksum"));
}

/* Revisions 3 and 4 (fields the 2020 iasl does not know: patched into the revision-2 table and
 * re-summed): UART Clock Frequency at byte 76, Precise Baud Rate at 80, which "overrides the
 * Baud Rate field when non-zero". */
static void spcr_revision4_clock_and_precise_rate(void **state)
{
	(void)state;
	unsigned char t[88] = {0};
	memcpy(t, table_spcr_mmio32, sizeof(table_spcr_mmio32));
	uint32_t len = sizeof(t), clock = 48000000, precise = 1500000;
	memcpy(t + 4, &len, 4);
	t[8] = 4;
	memcpy(t + 76, &clock, 4);
	memcpy(t + 80, &precise, 4);
	t[9] = 0;
	t[9] = (uint8_t)-sum(t, len);
	struct uart_desc d;
	assert_true(spcr(t, len, &d));
	assert_int_equal(d.clock, 48000000);
	assert_int_equal(d.baud, 1500000);
	t[8] = 2; /* the same bytes as revision 2: fields beyond it are not read */
	t[9] = 0;
	t[9] = (uint8_t)-sum(t, len);
	assert_true(spcr(t, len, &d));
	assert_int_equal(d.clock, 1843200);
	assert_int_equal(d.baud, 115200);
}

/* dbg2_usb_then_mmio32.dsl: device 0 Port Type 8002h (USB), device 1 Port Type 8000h (serial)
 * subtype 0012h at SystemMemory 0xFE036000, dword access. DBG2 carries no baud rate. */
static void dbg2_skips_to_the_serial_port(void **state)
{
	(void)state;
	struct uart_desc d;
	assert_true(DBG2(dbg2_usb_then_mmio32, &d));
	assert_int_equal(d.space, UART_SPACE_MMIO);
	assert_int_equal(d.base, 0xfe036000);
	assert_int_equal(d.width, 32);
	assert_int_equal(d.stride, 4);
	assert_int_equal(d.baud, 0);
	assert_string_equal(d.source, "DBG2");
}

/* dbg2_pl011_then_lpss.dsl: a PL011 (subtype 3) is passed over; subtype 0014h is Intel LPSS. */
static void dbg2_lpss_after_a_pl011(void **state)
{
	(void)state;
	struct uart_desc d;
	assert_true(DBG2(dbg2_pl011_then_lpss, &d));
	assert_true(d.lpss);
	assert_int_equal(d.base, 0xfe032000);
	assert_int_equal(d.stride, 4);
	assert_int_equal(d.width, 32);
}

static void dbg2_without_a_16550(void **state)
{
	(void)state;
	struct uart_desc d;
	assert_false(DBG2(dbg2_no_uart, &d));
	assert_non_null(strstr(why, "ARM PL011"));
}

/* Structures that point outside the table are refused, never read. */
static void dbg2_bad_offsets(void **state)
{
	(void)state;
	unsigned char t[sizeof(table_dbg2_usb_then_mmio32)];
	memcpy(t, table_dbg2_usb_then_mmio32, sizeof(t));
	uint32_t off = 0x400;
	memcpy(t + 36, &off, 4); /* Info Offset beyond the table */
	t[9] = 0;
	t[9] = (uint8_t)-sum(t, sizeof(t));
	struct uart_desc d;
	assert_false(dbg2(t, sizeof(t), &d));
	assert_non_null(strstr(why, "outside the table"));
	install(table_spcr_io, sizeof(table_spcr_io));
	assert_null(acpi_find_sdt(RSDP, map, "DBG2", why, sizeof(why)));
	assert_non_null(strstr(why, "no 'DBG2' table listed in the XSDT"));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(spcr_port_io),
    cmocka_unit_test(spcr_mmio_32bit_stride),
    cmocka_unit_test(spcr_byte_access_taken_as_given),
    cmocka_unit_test(spcr_pci_device_and_rate_as_is),
    cmocka_unit_test(spcr_refusals_name_the_problem),
    cmocka_unit_test(corrupt_checksum_is_refused),
    cmocka_unit_test(spcr_revision4_clock_and_precise_rate),
    cmocka_unit_test(dbg2_skips_to_the_serial_port),
    cmocka_unit_test(dbg2_lpss_after_a_pl011),
    cmocka_unit_test(dbg2_without_a_16550),
    cmocka_unit_test(dbg2_bad_offsets),
};

UNIT_MAIN(tests)
