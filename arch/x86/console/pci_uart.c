/* SPDX-License-Identifier: MIT */
#include "arch/x86/console/pci_uart.h"
#include "arch/x86/cpu/cpu.h"
#include "lib/bits.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA	   0xcfc
#define PCI_CONFIG_ENABLE  BIT(31)
#define PCI_BUSES	   256
#define PCI_DEVICES	   32
#define PCI_FUNCTIONS	   8

/* Type 0 configuration header offsets (PCI Local Bus 3.0, 6.1). */
#define PCI_VENDOR_ID	  0x00 /* 0xffff: no function */
#define PCI_COMMAND	  0x04
#define PCI_CLASS_REV	  0x08 /* class 31:24, subclass 23:16, interface 15:8 */
#define PCI_HEADER_TYPE	  0x0c /* byte 2 of this dword; bit 7: multi-function */
#define PCI_BAR0	  0x10
#define PCI_BARS	  6
#define PCI_CMD_IO	  BIT(0)
#define PCI_CMD_MEMORY	  BIT(1)
#define PCI_BAR_IO	  BIT(0)
#define PCI_BAR_MEM64	  0x4 /* memory BAR type bits 2:1 = 10b: 64-bit */
#define PCI_BAR_TYPE_MASK 0x6
#define PCI_BAR_IO_MASK	  0xfffffffcu
#define PCI_BAR_MEM_MASK  0xfffffff0u
#define PCI_HEADER_MULTI  0x80
#define PCI_HEADER_LAYOUT 0x7f /* 0: device, 1: PCI-PCI bridge, 2: CardBus */

#define PCI_CLASS_SERIAL  0x07
#define PCI_SUBCLASS_UART 0x00
#define PCI_IF_16550	  0x02 /* 16550; 03h-06h are its 16650..16950 successors */
#define PCI_IF_16950	  0x06
#define PCI_VENDOR_INTEL  0x8086
#define PCI_NONE	  0xffff
#define LPSS_CLOCK_SPT	  120000000u /* Linux drivers/mfd/intel-lpss-pci.c spt_uart_info */
#define LPSS_CLOCK_BXT	  100000000u /* ... bxt_uart_info */

static uint32_t conf_read(unsigned bus, unsigned dev, unsigned fn, unsigned off)
{
	outl(PCI_CONFIG_ADDRESS,
	     PCI_CONFIG_ENABLE | bus << 16 | dev << 11 | fn << 8 | (off & 0xfc));
	return inl(PCI_CONFIG_DATA);
}

static void conf_write16(unsigned bus, unsigned dev, unsigned fn, unsigned off, uint16_t v)
{
	outl(PCI_CONFIG_ADDRESS,
	     PCI_CONFIG_ENABLE | bus << 16 | dev << 11 | fn << 8 | (off & 0xfc));
	outw((uint16_t)(PCI_CONFIG_DATA + (off & 2)), v);
}

/*
 * Intel LPSS UART device IDs and their input clocks, from Linux drivers/mfd/intel-lpss-pci.c
 * (intel_lpss_pci_ids: the entries with spt_uart_info, 120 MHz, or bxt_uart_info, 100 MHz).
 */
static const struct lpss_id {
	uint16_t device;
	uint32_t clock;
} lpss_ids[] = {
    /* SPT-LP, SPT-H, KBL-H, CNL-LP, CNL-H, CML-LP, CML-H, CML-V, ICL-LP, ICL-N, JSL: 120 MHz */
    {0x9d27, LPSS_CLOCK_SPT},
    {0x9d28, LPSS_CLOCK_SPT},
    {0x9d66, LPSS_CLOCK_SPT},
    {0xa127, LPSS_CLOCK_SPT},
    {0xa128, LPSS_CLOCK_SPT},
    {0xa166, LPSS_CLOCK_SPT},
    {0xa2a7, LPSS_CLOCK_SPT},
    {0xa2a8, LPSS_CLOCK_SPT},
    {0xa2e6, LPSS_CLOCK_SPT},
    {0x9da8, LPSS_CLOCK_SPT},
    {0x9da9, LPSS_CLOCK_SPT},
    {0x9dc7, LPSS_CLOCK_SPT},
    {0xa328, LPSS_CLOCK_SPT},
    {0xa329, LPSS_CLOCK_SPT},
    {0xa347, LPSS_CLOCK_SPT},
    {0x02a8, LPSS_CLOCK_SPT},
    {0x02a9, LPSS_CLOCK_SPT},
    {0x02c7, LPSS_CLOCK_SPT},
    {0x06a8, LPSS_CLOCK_SPT},
    {0x06a9, LPSS_CLOCK_SPT},
    {0x06c7, LPSS_CLOCK_SPT},
    {0xa3a7, LPSS_CLOCK_SPT},
    {0xa3a8, LPSS_CLOCK_SPT},
    {0xa3e6, LPSS_CLOCK_SPT},
    {0x34a8, LPSS_CLOCK_SPT},
    {0x34a9, LPSS_CLOCK_SPT},
    {0x34c7, LPSS_CLOCK_SPT},
    {0x38a8, LPSS_CLOCK_SPT},
    {0x4da8, LPSS_CLOCK_SPT},
    {0x4da9, LPSS_CLOCK_SPT},
    {0x4dc7, LPSS_CLOCK_SPT},
    /* BXT, APL, GLK, TGL-LP, TGL-H, EHL, ADL-P/M/S, RPL-S, MTL-P, MTP-S, LNL-M, ARL-H,
     * LKF, EBG, PTL: 100 MHz */
    {0x0abc, LPSS_CLOCK_BXT},
    {0x0abe, LPSS_CLOCK_BXT},
    {0x0ac0, LPSS_CLOCK_BXT},
    {0x0aee, LPSS_CLOCK_BXT},
    {0x1abc, LPSS_CLOCK_BXT},
    {0x1abe, LPSS_CLOCK_BXT},
    {0x1ac0, LPSS_CLOCK_BXT},
    {0x1aee, LPSS_CLOCK_BXT},
    {0x5abc, LPSS_CLOCK_BXT},
    {0x5abe, LPSS_CLOCK_BXT},
    {0x5ac0, LPSS_CLOCK_BXT},
    {0x5aee, LPSS_CLOCK_BXT},
    {0x31bc, LPSS_CLOCK_BXT},
    {0x31be, LPSS_CLOCK_BXT},
    {0x31c0, LPSS_CLOCK_BXT},
    {0x31ee, LPSS_CLOCK_BXT},
    {0xa0a8, LPSS_CLOCK_BXT},
    {0xa0a9, LPSS_CLOCK_BXT},
    {0xa0c7, LPSS_CLOCK_BXT},
    {0xa0da, LPSS_CLOCK_BXT},
    {0xa0db, LPSS_CLOCK_BXT},
    {0xa0dc, LPSS_CLOCK_BXT},
    {0xa0dd, LPSS_CLOCK_BXT},
    {0x43a7, LPSS_CLOCK_BXT},
    {0x43a8, LPSS_CLOCK_BXT},
    {0x43a9, LPSS_CLOCK_BXT},
    {0x43da, LPSS_CLOCK_BXT},
    {0x4b28, LPSS_CLOCK_BXT},
    {0x4b29, LPSS_CLOCK_BXT},
    {0x4b4d, LPSS_CLOCK_BXT},
    {0x51a8, LPSS_CLOCK_BXT},
    {0x51a9, LPSS_CLOCK_BXT},
    {0x51c7, LPSS_CLOCK_BXT},
    {0x54a8, LPSS_CLOCK_BXT},
    {0x54a9, LPSS_CLOCK_BXT},
    {0x54c7, LPSS_CLOCK_BXT},
    {0x7aa8, LPSS_CLOCK_BXT},
    {0x7aa9, LPSS_CLOCK_BXT},
    {0x7adc, LPSS_CLOCK_BXT},
    {0x7afe, LPSS_CLOCK_BXT},
    {0x7a28, LPSS_CLOCK_BXT},
    {0x7a29, LPSS_CLOCK_BXT},
    {0x7a5c, LPSS_CLOCK_BXT},
    {0x7a7e, LPSS_CLOCK_BXT},
    {0x7e25, LPSS_CLOCK_BXT},
    {0x7e26, LPSS_CLOCK_BXT},
    {0x7e52, LPSS_CLOCK_BXT},
    {0x7f28, LPSS_CLOCK_BXT},
    {0x7f29, LPSS_CLOCK_BXT},
    {0x7f5c, LPSS_CLOCK_BXT},
    {0x7f5d, LPSS_CLOCK_BXT},
    {0xa825, LPSS_CLOCK_BXT},
    {0xa826, LPSS_CLOCK_BXT},
    {0xa852, LPSS_CLOCK_BXT},
    {0x7725, LPSS_CLOCK_BXT},
    {0x7726, LPSS_CLOCK_BXT},
    {0x7752, LPSS_CLOCK_BXT},
    {0x98a8, LPSS_CLOCK_BXT},
    {0x98a9, LPSS_CLOCK_BXT},
    {0x98c7, LPSS_CLOCK_BXT},
    {0x1bad, LPSS_CLOCK_BXT},
    {0x1bae, LPSS_CLOCK_BXT},
    {0xe325, LPSS_CLOCK_BXT},
    {0xe326, LPSS_CLOCK_BXT},
    {0xe352, LPSS_CLOCK_BXT},
    {0xe425, LPSS_CLOCK_BXT},
    {0xe426, LPSS_CLOCK_BXT},
    {0xe452, LPSS_CLOCK_BXT},
};

uint32_t lpss_uart_clock(uint16_t vendor, uint16_t device)
{
	if (vendor != PCI_VENDOR_INTEL)
		return 0;
	for (size_t i = 0; i < sizeof(lpss_ids) / sizeof(lpss_ids[0]); i++)
		if (lpss_ids[i].device == device)
			return lpss_ids[i].clock;
	return 0;
}

/* The first decoded BAR: I/O, or 32/64-bit memory. Decoding is switched on for it. */
static bool first_bar(unsigned bus, unsigned dev, unsigned fn, struct uart_desc *d)
{
	for (unsigned i = 0; i < PCI_BARS; i++) {
		uint32_t bar = conf_read(bus, dev, fn, PCI_BAR0 + 4 * i);
		uint64_t base;
		bool io = bar & PCI_BAR_IO;
		if (io)
			base = bar & PCI_BAR_IO_MASK;
		else {
			base = bar & PCI_BAR_MEM_MASK;
			if ((bar & PCI_BAR_TYPE_MASK) == PCI_BAR_MEM64 && i + 1 < PCI_BARS)
				base |= (uint64_t)conf_read(bus, dev, fn, PCI_BAR0 + 4 * ++i) << 32;
		}
		if (!base)
			continue;
		uint32_t cmd = conf_read(bus, dev, fn, PCI_COMMAND) & 0xffff;
		uint32_t want = io ? PCI_CMD_IO : PCI_CMD_MEMORY;
		if (!(cmd & want))
			conf_write16(bus, dev, fn, PCI_COMMAND, (uint16_t)(cmd | want));
		d->space = io ? UART_SPACE_IO : UART_SPACE_MMIO;
		d->base = base;
		return true;
	}
	return false;
}

static void consider(struct pci_uart_scan *s, unsigned bus, unsigned dev, unsigned fn, uint32_t id)
{
	uint16_t vendor = id & 0xffff, device = id >> 16;
	uint32_t cls = conf_read(bus, dev, fn, PCI_CLASS_REV);
	uint8_t base_class = cls >> 24, sub = (cls >> 16) & 0xff, prog_if = (cls >> 8) & 0xff;
	uint32_t lpss = lpss_uart_clock(vendor, device);
	bool serial = base_class == PCI_CLASS_SERIAL && sub == PCI_SUBCLASS_UART;
	if (!serial && !lpss)
		return;
	if (!lpss && (prog_if < PCI_IF_16550 || prog_if > PCI_IF_16950)) {
		s->skipped++; /* an 8250/16450 without FIFO, or unknown */
		return;
	}
	struct uart_desc d = {0};
	if (s->found == PCI_UARTS_MAX || !first_bar(bus, dev, fn, &d)) {
		s->skipped++;
		return;
	}
	d.pci = true;
	d.pci_bus = (uint8_t)bus;
	d.pci_dev = (uint8_t)dev;
	d.pci_fn = (uint8_t)fn;
	d.pci_vendor = vendor;
	d.pci_device = device;
	d.lpss = lpss != 0;
	d.clock = lpss ? lpss : UART_STD_CLOCK;
	d.baud = UART_DEFAULT_BAUD;
	/* LPSS UARTs: 32-bit registers 4 bytes apart (Linux intel-lpss-pci.c uart_properties:
	 * reg-io-width 4, reg-shift 2); classic PCI 16550s: byte registers, stride 1. */
	d.width = lpss ? 32 : 8;
	d.stride = lpss ? 4 : 1;
	fmt_snprintf(d.source, sizeof(d.source), "PCI %02x:%02x.%x %04x:%04x%s", bus, dev, fn,
		     vendor, device, lpss ? " LPSS" : "");
	s->uarts[s->found++] = d;
}

/* One present function: counted, considered when it is a device (header layout 0); its header
 * type byte is returned (bit 7 on function 0: more functions follow). */
static uint8_t scan_function(struct pci_uart_scan *s, unsigned bus, unsigned dev, unsigned fn,
			     uint32_t id)
{
	uint8_t hdr = (conf_read(bus, dev, fn, PCI_HEADER_TYPE) >> 16) & 0xff;
	s->functions++;
	if ((hdr & PCI_HEADER_LAYOUT) == 0)
		consider(s, bus, dev, fn, id);
	return hdr;
}

void pci_uart_scan(struct pci_uart_scan *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned bus = 0; bus < PCI_BUSES; bus++)
		for (unsigned dev = 0; dev < PCI_DEVICES; dev++) {
			uint32_t id = conf_read(bus, dev, 0, PCI_VENDOR_ID);
			if ((id & 0xffff) == PCI_NONE)
				continue;
			if (!(scan_function(s, bus, dev, 0, id) & PCI_HEADER_MULTI))
				continue;
			for (unsigned fn = 1; fn < PCI_FUNCTIONS; fn++) {
				id = conf_read(bus, dev, fn, PCI_VENDOR_ID);
				if ((id & 0xffff) != PCI_NONE)
					scan_function(s, bus, dev, fn, id);
			}
		}
}
