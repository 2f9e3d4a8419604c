/* SPDX-License-Identifier: MIT */
#include "arch/x86/console/acpi_console.h"
#include "arch/x86/smp/acpi.h"
#include "lib/fmt.h"
#include "lib/string.h"

/* ACPI 6.5 Table 5.1: Generic Address Structure. */
struct acpi_gas {
	uint8_t space_id;  /* 0 system memory, 1 system I/O */
	uint8_t bit_width; /* register width in bits */
	uint8_t bit_offset;
	uint8_t access_width; /* 0 undefined (legacy), 1 byte, 2 word, 3 dword, 4 qword */
	uint64_t address;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_gas) == 12, "GAS is 12 bytes (ACPI Table 5.1)");

#define GAS_SPACE_MEMORY 0
#define GAS_SPACE_IO	 1
#define GAS_ACCESS_BYTE	 1
#define GAS_ACCESS_DWORD 3

/* SPCR (Microsoft, "Serial Port Console Redirection Table"; field offsets as in ACPICA's
 * struct acpi_table_spcr, Linux include/acpi/actbl3.h). Revision 2 is 80 bytes; revision 3
 * fills the UART clock at 76, revision 4 adds the precise baud rate at 80. */
struct acpi_spcr {
	struct acpi_sdt_header h; /* "SPCR" */
	uint8_t interface_type;	  /* a DBG2 serial port subtype (below) */
	uint8_t reserved[3];
	struct acpi_gas serial_port; /* address 0: console redirection disabled */
	uint8_t interrupt_type;
	uint8_t pc_interrupt;
	uint32_t interrupt;
	uint8_t baud_rate; /* 0 as configured, 3 9600, 4 19200, 6 57600, 7 115200 */
	uint8_t parity;
	uint8_t stop_bits;
	uint8_t flow_control; /* bit 1: RTS/CTS */
	uint8_t terminal_type;
	uint8_t language;
	uint16_t pci_device_id; /* 0xffff: not a PCI device */
	uint16_t pci_vendor_id;
	uint8_t pci_bus, pci_device, pci_function;
	uint32_t pci_flags;
	uint8_t pci_segment;
	uint32_t uart_clk_freq; /* revision 3+: Hz, 0 unknown */
	uint32_t precise_baud;	/* revision 4+: overrides baud_rate when not 0 */
} __attribute__((packed));
_Static_assert(offsetof(struct acpi_spcr, serial_port) == 40, "SPCR serial port at 40");
_Static_assert(offsetof(struct acpi_spcr, baud_rate) == 58, "SPCR baud rate at 58");
_Static_assert(offsetof(struct acpi_spcr, pci_device_id) == 64, "SPCR PCI device id at 64");
_Static_assert(offsetof(struct acpi_spcr, uart_clk_freq) == 76, "SPCR UART clock at 76");
_Static_assert(offsetof(struct acpi_spcr, precise_baud) == 80, "SPCR precise baud at 80");
#define SPCR_REV2_LENGTH      76 /* everything before uart_clk_freq */
#define SPCR_CLOCK_REVISION   3
#define SPCR_PRECISE_REVISION 4
#define SPCR_FLOW_RTSCTS      0x02
#define SPCR_PCI_NONE	      0xffff

/* DBG2 serial port subtypes (Microsoft "ACPI Debug Port Table", Table 3; Linux
 * include/acpi/actbl1.h ACPI_DBG2_*), the 16550 family this driver handles. */
enum dbg2_serial_subtype {
	DBG2_16550_COMPATIBLE = 0x0000,
	DBG2_16550_SUBSET = 0x0001,
	DBG2_ARM_PL011 = 0x0003,
	DBG2_16550_NVIDIA = 0x0005,
	DBG2_ARM_SBSA_32BIT = 0x000d,
	DBG2_ARM_SBSA_GENERIC = 0x000e,
	DBG2_16550_WITH_GAS = 0x0012,
	DBG2_INTEL_LPSS = 0x0014,
};
#define DBG2_PORT_SERIAL 0x8000

/* DBG2 fixed part and one Debug Device Information structure (ACPICA struct acpi_dbg2_device). */
struct acpi_dbg2 {
	struct acpi_sdt_header h; /* "DBG2" */
	uint32_t info_offset;	  /* of the first device structure, from the table start */
	uint32_t info_count;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_dbg2) == 44, "DBG2 fixed part is 44 bytes");

struct acpi_dbg2_device {
	uint8_t revision;
	uint16_t length;
	uint8_t register_count; /* Generic Address Structures at base_address_offset */
	uint16_t namepath_length, namepath_offset;
	uint16_t oem_data_length, oem_data_offset;
	uint16_t port_type, port_subtype;
	uint16_t reserved;
	uint16_t base_address_offset; /* from the start of this structure */
	uint16_t address_size_offset;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_dbg2_device) == 22, "DBG2 device information is 22 bytes");

static const char *subtype_name(unsigned t)
{
	switch (t) {
	case DBG2_16550_COMPATIBLE:
		return "16550";
	case DBG2_16550_SUBSET:
		return "16550 subset";
	case DBG2_ARM_PL011:
		return "ARM PL011";
	case DBG2_16550_NVIDIA:
		return "NVIDIA 16550";
	case DBG2_ARM_SBSA_32BIT:
	case DBG2_ARM_SBSA_GENERIC:
		return "ARM SBSA UART";
	case DBG2_16550_WITH_GAS:
		return "16550 described by its GAS";
	case DBG2_INTEL_LPSS:
		return "Intel LPSS";
	default:
		return "not a 16550";
	}
}

/* The register layout from a GAS: I/O or memory, access width, stride. */
static bool uart_from_gas(const struct acpi_gas *g, unsigned subtype, const char *table,
			  struct uart_desc *d, char *why, size_t why_size)
{
	switch (subtype) {
	case DBG2_16550_COMPATIBLE:
	case DBG2_16550_SUBSET:
	case DBG2_16550_NVIDIA:
	case DBG2_16550_WITH_GAS:
	case DBG2_INTEL_LPSS:
		break;
	default:
		fmt_snprintf(why, why_size,
			     "%s: interface type %#x (%s) is not supported; accepted: the 16550 "
			     "family (0x0, 0x1, 0x5, 0x12) and Intel LPSS (0x14)",
			     table, subtype, subtype_name(subtype));
		return false;
	}
	if (g->address == 0) {
		fmt_snprintf(why, why_size, "%s: base address 0 (console redirection disabled)",
			     table);
		return false;
	}
	memset(d, 0, sizeof(*d));
	d->base = g->address;
	d->lpss = subtype == DBG2_INTEL_LPSS;
	if (g->space_id == GAS_SPACE_IO) {
		d->space = UART_SPACE_IO;
		d->stride = 1;
		d->width = 8;
	} else if (g->space_id == GAS_SPACE_MEMORY) {
		d->space = UART_SPACE_MMIO;
		/* The access width says how to touch a register; 32-bit accesses come with a
		 * 4-byte stride (Linux drivers/tty/serial/earlycon.c: mmio32 sets regshift 2).
		 * Width 0 ("undefined, legacy") falls back to the register's bit width. Some
		 * firmware claims byte access on a 32-bit-stride UART: serial.stride overrides. */
		unsigned bits = g->access_width == GAS_ACCESS_DWORD	     ? 32
				: g->access_width == GAS_ACCESS_BYTE	     ? 8
				: g->access_width == 0 && g->bit_width == 32 ? 32
									     : 8;
		if (d->lpss)
			bits = 32; /* LPSS UARTs: 32-bit registers, reg-shift 2 (Linux
				      drivers/mfd/intel-lpss-pci.c uart_properties) */
		d->width = (uint8_t)bits;
		d->stride = bits == 32 ? 4 : 1;
	} else {
		fmt_snprintf(why, why_size,
			     "%s: address space %u is neither system memory (0) nor I/O (1)", table,
			     g->space_id);
		return false;
	}
	d->clock = d->lpss ? 0 : UART_STD_CLOCK;
	fmt_snprintf(d->source, sizeof(d->source), "%s", table);
	return true;
}

bool acpi_spcr_uart(const void *table, struct uart_desc *d, char *why, size_t why_size)
{
	const struct acpi_spcr *s = table;
	if (s->h.length < SPCR_REV2_LENGTH) {
		fmt_snprintf(why, why_size, "SPCR: %u bytes, shorter than revision 2's %u",
			     s->h.length, SPCR_REV2_LENGTH);
		return false;
	}
	struct acpi_gas g;
	memcpy(&g, &s->serial_port, sizeof(g));
	if (!uart_from_gas(&g, s->interface_type, "SPCR", d, why, why_size))
		return false;
	static const uint32_t bauds[8] = {0, 0, 0, 9600, 19200, 0, 57600, 115200};
	d->baud = s->baud_rate < 8 ? bauds[s->baud_rate] : 0;
	if (s->h.revision >= SPCR_CLOCK_REVISION &&
	    s->h.length >= offsetof(struct acpi_spcr, precise_baud) && s->uart_clk_freq)
		d->clock = s->uart_clk_freq;
	if (s->h.revision >= SPCR_PRECISE_REVISION && s->h.length >= sizeof(*s) && s->precise_baud)
		d->baud = s->precise_baud;
	d->rtscts = s->flow_control & SPCR_FLOW_RTSCTS;
	if (s->pci_device_id != SPCR_PCI_NONE && s->pci_vendor_id != SPCR_PCI_NONE) {
		d->pci = true;
		d->pci_vendor = s->pci_vendor_id;
		d->pci_device = s->pci_device_id;
		d->pci_bus = s->pci_bus;
		d->pci_dev = s->pci_device;
		d->pci_fn = s->pci_function;
	}
	return true;
}

bool acpi_dbg2_uart(const void *table, struct uart_desc *d, char *why, size_t why_size)
{
	const struct acpi_dbg2 *t = table;
	const uint8_t *base = table;
	uint32_t len = t->h.length;
	if (len < sizeof(*t)) {
		fmt_snprintf(why, why_size, "DBG2: %u bytes, shorter than its fixed part", len);
		return false;
	}
	uint32_t off = t->info_offset;
	const char *seen = "no serial port";
	for (uint32_t i = 0; i < t->info_count; i++) {
		struct acpi_dbg2_device dev;
		if (off < sizeof(*t) || off > len || len - off < sizeof(dev)) {
			fmt_snprintf(
			    why, why_size,
			    "DBG2: device %u at offset %u lies outside the table (%u bytes)", i,
			    off, len);
			return false;
		}
		memcpy(&dev, base + off, sizeof(dev));
		if (dev.length < sizeof(dev) || dev.length > len - off) {
			fmt_snprintf(why, why_size,
				     "DBG2: device %u has length %u beyond the table", i,
				     dev.length);
			return false;
		}
		if (dev.port_type == DBG2_PORT_SERIAL && dev.register_count >= 1) {
			struct acpi_gas g;
			if (dev.base_address_offset + sizeof(g) > dev.length) {
				fmt_snprintf(why, why_size,
					     "DBG2: device %u's address lies outside its structure",
					     i);
				return false;
			}
			memcpy(&g, base + off + dev.base_address_offset, sizeof(g));
			if (uart_from_gas(&g, dev.port_subtype, "DBG2", d, why, why_size)) {
				d->baud = 0; /* DBG2 gives no rate: keep the firmware's */
				return true;
			}
			seen = why; /* a serial port, but not ours: keep looking */
		}
		off += dev.length;
	}
	if (seen != why)
		fmt_snprintf(why, why_size, "DBG2: %u devices, %s", t->info_count, seen);
	return false;
}
