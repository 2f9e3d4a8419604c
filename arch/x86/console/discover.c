/* SPDX-License-Identifier: MIT */
/*
 * Finding the serial console (docs/hardware.md "Consoles"): the UART the config names, then the
 * ones the firmware describes (ACPI SPCR, DBG2), then PCI serial controllers, then the legacy COM
 * ports, each step reported. Until then the early console is COM1 when something answers there.
 */
#include "arch/x86/console/acpi_console.h"
#include "arch/x86/console/pci_uart.h"
#include "arch/x86/console/serial.h"
#include "arch/x86/console/uart16550.h"
#include "arch/x86/smp/acpi.h"
#include "kernel/arch_console.h"
#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define WHY_LEN 200

/* The PC/AT's four COM ports (IBM PC/AT Technical Reference; every PC BIOS since). */
static const uint16_t legacy_ports[] = {SERIAL_COM1_PORT, 0x2f8, 0x3e8, 0x2e8};

struct search {
	const struct boot_info *bi;
	const struct console_request *rq;
	char tried[WHY_LEN * 2]; /* "config: ...; SPCR: ...; ..." for the no-UART message */
	bool bad_request;
	char err[WHY_LEN];
};

static void note(struct search *s, const char *what)
{
	size_t used = strlen(s->tried);
	fmt_snprintf(s->tried + used, sizeof(s->tried) - used, "%s%s", used ? "; " : "", what);
}

/* The request's overrides on a description from any source. */
static void apply_overrides(const struct console_request *rq, struct uart_desc *d)
{
	if (rq->stride)
		d->stride = (uint8_t)rq->stride;
	if (rq->width)
		d->width = (uint8_t)rq->width;
	if (rq->clock)
		d->clock = rq->clock;
	if (rq->rtscts)
		d->rtscts = true;
}

/* Open d as the console; a report line either way. */
static bool try_uart(struct search *s, struct uart_desc *d)
{
	apply_overrides(s->rq, d);
	if (d->space == UART_SPACE_MMIO &&
	    (d->base >= s->bi->identity_limit || s->bi->identity_limit - d->base < 0x1000)) {
		kprintf("console: %s: MMIO at %#lx lies beyond the mapped %#lx: skipped\n",
			d->source, d->base, s->bi->identity_limit);
		note(s, d->source);
		return false;
	}
	/* serial.baud, else what the source says (SPCR's rate; 0 there and in DBG2: the rate the
	 * firmware set stays), else 115200. */
	uint32_t baud = s->rq->baud ? s->rq->baud : d->baud;
	char why[WHY_LEN];
	struct uart u;
	if (!uart_open(&u, d, baud, why, sizeof(why))) {
		kprintf("console: %s (%s %#lx): %s\n", d->source,
			d->space == UART_SPACE_IO ? "port" : "MMIO", d->base, why);
		char line[WHY_LEN];
		fmt_snprintf(line, sizeof(line), "%s: %s", d->source, why);
		note(s, line);
		if (u.rate_refused && uart_present(d)) {
			/* A UART is there but the rate is not: say so on it, at its own rate. */
			s->bad_request = true;
			fmt_snprintf(s->err, sizeof(s->err), "option 'serial.baud': on %s: %s",
				     d->source, why);
			if (uart_open(&u, d, 0, why, sizeof(why)))
				console_uart = u;
		}
		return false;
	}
	console_uart = u;
	return true;
}

static bool from_config(struct search *s)
{
	const struct console_request *rq = s->rq;
	if (!rq->port && !rq->mmio)
		return false;
	struct uart_desc d = {.space = rq->port ? UART_SPACE_IO : UART_SPACE_MMIO,
			      .base = rq->port ? rq->port : rq->mmio,
			      .stride = rq->port ? 1 : 4,
			      .width = rq->port ? 8 : 32,
			      .clock = UART_STD_CLOCK,
			      .baud = UART_DEFAULT_BAUD};
	fmt_snprintf(d.source, sizeof(d.source), "config");
	if (try_uart(s, &d))
		return true;
	if (rq->port)
		kprintf("warning: no UART answers at port %#lx (serial.port); looking further\n",
			(unsigned long)rq->port);
	else
		kprintf("warning: no UART answers at MMIO %#lx (serial.mmio); looking further\n",
			(unsigned long)rq->mmio);
	return false;
}

static bool from_acpi(struct search *s, const char *sig,
		      bool (*decode)(const void *, struct uart_desc *, char *, size_t))
{
	char why[WHY_LEN];
	const void *t = acpi_find_sdt(s->bi->acpi_rsdp, acpi_map_kernel, sig, why, sizeof(why));
	struct uart_desc d;
	if (!t || !decode(t, &d, why, sizeof(why))) {
		kprintf("console: %s: %s\n", sig, why);
		char line[WHY_LEN];
		fmt_snprintf(line, sizeof(line), "%s: none", sig);
		note(s, line);
		return false;
	}
	if (d.pci && !d.lpss) {
		uint32_t clock = lpss_uart_clock(d.pci_vendor, d.pci_device);
		if (clock) {
			d.lpss = true; /* an LPSS UART the table names by PCI ID */
			d.clock = clock;
		}
	}
	kprintf("console: %s names a UART at %s %#lx (stride %u, %u-bit, %s)\n", sig,
		d.space == UART_SPACE_IO ? "port" : "MMIO", d.base, d.stride, d.width,
		d.baud ? "its baud rate given" : "baud rate as configured");
	return try_uart(s, &d);
}

static bool from_pci(struct search *s)
{
	static struct pci_uart_scan scan; /* 8 descriptions: not on the stack */
	pci_uart_scan(&scan);
	kprintf("console: PCI: %u functions, %u serial controllers usable, %u not\n",
		scan.functions, scan.found, scan.skipped);
	if (!scan.found)
		note(s, "PCI: no 16550 or LPSS UART");
	for (unsigned i = 0; i < scan.found; i++)
		if (try_uart(s, &scan.uarts[i]))
			return true;
	return false;
}

static bool from_legacy(struct search *s)
{
	for (size_t i = 0; i < sizeof(legacy_ports) / sizeof(legacy_ports[0]); i++) {
		struct uart_desc d = {.space = UART_SPACE_IO,
				      .stride = 1,
				      .width = 8,
				      .base = legacy_ports[i],
				      .clock = UART_STD_CLOCK};
		fmt_snprintf(d.source, sizeof(d.source), "COM%zu", i + 1);
		if (!uart_present(&d))
			continue;
		if (try_uart(s, &d))
			return true;
	}
	note(s, "COM1-COM4: none answers");
	return false;
}

/* Is the next source to be tried: nothing found yet, no refusal, and the request allows it. */
static bool wanted(const struct search *s, bool found, enum console_source src)
{
	return !found && !s->bad_request && (s->rq->source == CONSOLE_AUTO || s->rq->source == src);
}

enum console_outcome arch_console_setup(const struct boot_info *bi,
					const struct console_request *rq, char *err,
					size_t err_size)
{
	static struct search s;
	memset(&s, 0, sizeof(s));
	s.bi = bi;
	s.rq = rq;
	struct uart before = console_uart;
	bool found = false;
	if (rq->source != CONSOLE_NONE) {
		found = from_config(&s);
		if (wanted(&s, found, CONSOLE_SPCR))
			found = from_acpi(&s, "SPCR", acpi_spcr_uart);
		if (wanted(&s, found, CONSOLE_DBG2))
			found = from_acpi(&s, "DBG2", acpi_dbg2_uart);
		if (wanted(&s, found, CONSOLE_PCI))
			found = from_pci(&s);
		if (wanted(&s, found, CONSOLE_LEGACY))
			found = from_legacy(&s);
	} else {
		note(&s, "serial=none asked for no serial console");
	}
	if (s.bad_request) {
		fmt_snprintf(err, err_size, "%s", s.err);
		return CONSOLE_BAD_REQUEST;
	}
	if (!found && before.open && rq->source != CONSOLE_NONE) {
		/* Asked for one kind that is not there: stay where the log already goes. */
		kprintf("warning: serial=%s: no UART found (%s); the console stays on %s\n",
			rq->source == CONSOLE_SPCR     ? "spcr"
			: rq->source == CONSOLE_DBG2   ? "dbg2"
			: rq->source == CONSOLE_PCI    ? "pci"
			: rq->source == CONSOLE_LEGACY ? "legacy"
						       : "auto",
			s.tried, before.d.source);
		console_uart = before;
		return CONSOLE_KEPT;
	}
	if (!found) {
		console_uart.open = false;
		fmt_snprintf(err, err_size, "%s", s.tried);
		return CONSOLE_ABSENT;
	}
	bool same = before.open && before.d.space == console_uart.d.space &&
		    before.d.base == console_uart.d.base && before.baud == console_uart.baud;
	return same ? CONSOLE_KEPT : CONSOLE_MOVED;
}
