/* SPDX-License-Identifier: MIT */
/*
 * USB mass storage (msc.h): enumeration (USB 2.0 9.1.2, 9.4.3 GET_DESCRIPTOR, 9.4.7
 * SET_CONFIGURATION), Bulk-Only Transport (BOT 1.0 5 "Data Transfer Conditions", 6.6 "Host
 * Error Handling", 6.7 "The Thirteen Cases"), and SCSI block commands (SBC-3) in its CBWs.
 */
#include "arch/x86/usb/msc.h"
#include "arch/x86/hw/xhci_regs.h"
#include "kernel/memmap.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define CONFIG_MAX  512 /* bytes of configuration descriptor read */
#define IO_CBW	    0
#define IO_CSW	    64
#define IO_DESC	    128
#define MAX_BLOCKS  0xffffu /* WRITE (10)'s 16-bit transfer length */
#define READY_TRIES 20

static long get_descriptor(struct msc *m, uint8_t type, void *buf, uint16_t len)
{
	struct usb_setup s = {USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, (uint16_t)(type << 8), 0, len};
	return xhci_control(m->x, m->slot, &s, buf, len);
}

/* The configuration's BOT SCSI interface and its two bulk endpoints. */
static bool find_bot(const uint8_t *p, size_t n, uint8_t *in, uint16_t *in_max, uint8_t *out,
		     uint16_t *out_max)
{
	bool ours = false;
	*in = *out = 0;
	for (size_t at = 0; at + 2 <= n && p[at] >= 2 && at + p[at] <= n; at += p[at]) {
		if (p[at + 1] == USB_DESC_INTERFACE && p[at] >= sizeof(struct usb_interface_desc)) {
			const struct usb_interface_desc *i = (const void *)(p + at);
			if (ours && *in && *out)
				break;
			ours = i->cls == USB_CLASS_MASS_STORAGE && i->subclass == USB_MSC_SCSI &&
			       i->protocol == USB_MSC_BOT && i->alternate == 0;
		} else if (ours && p[at + 1] == USB_DESC_ENDPOINT &&
			   p[at] >= sizeof(struct usb_endpoint_desc)) {
			struct usb_endpoint_desc e;
			memcpy(&e, p + at, sizeof(e));
			if ((e.attributes & 3) != USB_EP_XFER_BULK)
				continue;
			if (e.address & USB_EP_DIR_IN) {
				*in = e.address;
				*in_max = e.max_packet & 0x7ff;
			} else {
				*out = e.address;
				*out_max = e.max_packet & 0x7ff;
			}
		}
	}
	return *in && *out;
}

/* BOT 5.3.4 Reset Recovery: Bulk-Only Mass Storage Reset, then clear both halts. */
static void reset_recovery(struct msc *m)
{
	struct usb_setup r = {USB_TYPE_CLASS | USB_RECIP_INTERFACE, USB_MSC_RESET, 0, 0, 0};
	xhci_control(m->x, m->slot, &r, NULL, 0);
	xhci_bulk_unstall(m->x, m->slot, true);
	xhci_bulk_unstall(m->x, m->slot, false);
}

/* The CSW, once more after a stall (BOT 6.7.2: the host clears the halt and reads it again). */
static enum status read_csw(struct msc *m, struct bot_csw *csw)
{
	bool stalled;
	long n = xhci_bulk(m->x, m->slot, true, m->io + IO_CSW, sizeof(*csw), &stalled);
	if (n < 0 && stalled && xhci_bulk_unstall(m->x, m->slot, true) == STATUS_OK)
		n = xhci_bulk(m->x, m->slot, true, m->io + IO_CSW, sizeof(*csw), &stalled);
	if (n != (long)sizeof(*csw)) {
		fmt_snprintf(m->error, sizeof(m->error), "no CSW (%s)",
			     n < 0 ? xhci_last_error(m->x) : "short");
		return n == STATUS_TIMEOUT ? STATUS_TIMEOUT : STATUS_IO;
	}
	memcpy(csw, m->io + IO_CSW, sizeof(*csw));
	return STATUS_OK;
}

/* One command: CBW, data (len bytes in or out of buf), CSW; checked as BOT 6.3 says (a valid
 * and meaningful CSW: signature, tag, status). */
static enum status bot(struct msc *m, const uint8_t *cb, uint8_t cb_len, bool in, void *buf,
		       uint32_t len)
{
	struct bot_cbw cbw = {
	    BOT_CBW_SIGNATURE, ++m->tag, len, in ? BOT_CBW_IN : 0, 0, cb_len, {0}};
	memcpy(cbw.cb, cb, cb_len);
	memcpy(m->io + IO_CBW, &cbw, sizeof(cbw));
	bool stalled;
	long n = xhci_bulk(m->x, m->slot, false, m->io + IO_CBW, sizeof(cbw), &stalled);
	if (n != (long)sizeof(cbw)) {
		fmt_snprintf(m->error, sizeof(m->error), "CBW not taken: %s",
			     xhci_last_error(m->x));
		if (stalled)
			reset_recovery(m);
		return n == STATUS_TIMEOUT ? STATUS_TIMEOUT : STATUS_IO;
	}
	if (len) {
		n = xhci_bulk(m->x, m->slot, in, buf, len, &stalled);
		if (n < 0 && !stalled) {
			fmt_snprintf(m->error, sizeof(m->error), "data stage: %s",
				     xhci_last_error(m->x));
			return n == STATUS_TIMEOUT ? STATUS_TIMEOUT : STATUS_IO;
		}
		if (stalled)
			xhci_bulk_unstall(m->x, m->slot, in);
	}
	struct bot_csw csw;
	enum status st = read_csw(m, &csw);
	if (st)
		return st;
	if (csw.signature != BOT_CSW_SIGNATURE || csw.tag != cbw.tag ||
	    csw.status == BOT_CSW_PHASE) {
		reset_recovery(m);
		fmt_snprintf(m->error, sizeof(m->error), "CSW not valid (status %u): reset",
			     csw.status);
		return STATUS_IO;
	}
	if (csw.status != BOT_CSW_PASSED || csw.residue) {
		fmt_snprintf(m->error, sizeof(m->error),
			     "SCSI %#x failed (CSW status %u, residue %u)", cb[0], csw.status,
			     csw.residue);
		return STATUS_IO;
	}
	return STATUS_OK;
}

/* TEST UNIT READY until it passes (a unit attention after reset is normal: REQUEST SENSE
 * clears it, SPC-4 5.8.7). */
static enum status wait_ready(struct msc *m)
{
	for (unsigned i = 0; i < READY_TRIES; i++) {
		uint8_t tur[6] = {SCSI_TEST_UNIT_READY};
		if (bot(m, tur, 6, false, NULL, 0) == STATUS_OK)
			return STATUS_OK;
		uint8_t rs[6] = {SCSI_REQUEST_SENSE, 0, 0, 0, SCSI_SENSE_LEN, 0};
		bot(m, rs, 6, true, m->io + IO_DESC, SCSI_SENSE_LEN);
	}
	return STATUS_TIMEOUT;
}

static enum status read_capacity(struct msc *m)
{
	uint8_t cb[10] = {SCSI_READ_CAPACITY10};
	enum status st = bot(m, cb, 10, true, m->io + IO_DESC, 8);
	if (st)
		return st;
	const uint8_t *d = m->io + IO_DESC; /* big-endian (SBC-3 Table 66) */
	uint32_t last = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
	m->block_size = (uint32_t)d[4] << 24 | (uint32_t)d[5] << 16 | (uint32_t)d[6] << 8 | d[7];
	m->blocks = (uint64_t)last + 1;
	return STATUS_OK;
}

static enum status configure(struct msc *m)
{
	struct usb_device_desc dev;
	if (get_descriptor(m, USB_DESC_DEVICE, m->io + IO_DESC, sizeof(dev)) < 0) {
		fmt_snprintf(m->error, sizeof(m->error), "device descriptor: %s",
			     xhci_last_error(m->x));
		return STATUS_IO;
	}
	memcpy(&dev, m->io + IO_DESC, sizeof(dev));
	m->vendor = dev.vendor;
	m->product = dev.product;
	uint8_t *conf = m->io + IO_DESC;
	if (get_descriptor(m, USB_DESC_CONFIG, conf, CONFIG_MAX) < 0) {
		fmt_snprintf(m->error, sizeof(m->error), "configuration descriptor: %s",
			     xhci_last_error(m->x));
		return STATUS_IO;
	}
	struct usb_config_desc c;
	memcpy(&c, conf, sizeof(c));
	uint8_t in, out;
	uint16_t in_max = 0, out_max = 0;
	size_t total = c.total < CONFIG_MAX ? c.total : CONFIG_MAX;
	if (!find_bot(conf, total, &in, &in_max, &out, &out_max)) {
		fmt_snprintf(m->error, sizeof(m->error),
			     "device %04x:%04x is not USB mass storage over Bulk-Only Transport "
			     "(class 8, subclass 6, protocol 50h)",
			     m->vendor, m->product);
		return STATUS_UNSUPPORTED;
	}
	struct usb_setup set = {0, USB_REQ_SET_CONFIG, c.value, 0, 0};
	if (xhci_control(m->x, m->slot, &set, NULL, 0) < 0 ||
	    xhci_bulk_config(m->x, m->slot, in, in_max, out, out_max) != STATUS_OK) {
		fmt_snprintf(m->error, sizeof(m->error), "configuring it: %s",
			     xhci_last_error(m->x));
		return STATUS_IO;
	}
	return STATUS_OK;
}

enum status msc_attach(struct msc *m, struct xhci *x, unsigned port)
{
	memset(m, 0, sizeof(*m));
	m->x = x;
	m->port = port;
	m->io = xhci_dma(PAGE_SIZE);
	if (!m->io)
		return STATUS_NO_MEMORY;
	m->slot = xhci_attach(x, port, m->error, sizeof(m->error));
	if (!m->slot)
		return STATUS_IO;
	enum status st = configure(m);
	if (st)
		return st;
	if (wait_ready(m) != STATUS_OK || read_capacity(m) != STATUS_OK) {
		fmt_snprintf(m->error + strlen(m->error), sizeof(m->error) - strlen(m->error),
			     " (the unit is not ready, or its capacity unreadable)");
		return STATUS_IO;
	}
	return STATUS_OK;
}

static enum status rw10(struct msc *m, uint8_t op, uint64_t lba, uint32_t count, void *buf)
{
	if (!count || count > MAX_BLOCKS || lba + count > m->blocks || lba + count > 0xffffffffu) {
		fmt_snprintf(m->error, sizeof(m->error), "blocks %lu+%u: outside the device (%lu)",
			     lba, count, m->blocks);
		return STATUS_INVALID;
	}
	uint8_t cb[10] = {
	    op,		  0, (uint8_t)(lba >> 24),  (uint8_t)(lba >> 16), (uint8_t)(lba >> 8),
	    (uint8_t)lba, 0, (uint8_t)(count >> 8), (uint8_t)count,	  0};
	return bot(m, cb, 10, op == SCSI_READ10, buf, count * m->block_size);
}

enum status msc_read(struct msc *m, uint64_t lba, uint32_t count, void *buf)
{
	return rw10(m, SCSI_READ10, lba, count, buf);
}

enum status msc_write(struct msc *m, uint64_t lba, uint32_t count, const void *buf)
{
	return rw10(m, SCSI_WRITE10, lba, count, (void *)buf);
}

enum status msc_sync(struct msc *m)
{
	uint8_t cb[10] = {SCSI_SYNC_CACHE10};
	return bot(m, cb, 10, false, NULL, 0);
}
