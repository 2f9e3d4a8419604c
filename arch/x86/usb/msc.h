/* SPDX-License-Identifier: MIT */
/*
 * A USB mass-storage device over Bulk-Only Transport (BOT 1.0) with SCSI commands (SBC-3):
 * found on an xHCI port, configured, its capacity read, and blocks read and written.
 */
#ifndef ARCH_X86_USB_MSC_H
#define ARCH_X86_USB_MSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86/usb/xhci.h"
#include "lib/status.h"

struct msc {
	struct xhci *x;
	unsigned slot, port;
	uint32_t tag;
	uint64_t blocks; /* READ CAPACITY (10): last LBA + 1 */
	uint32_t block_size;
	uint16_t vendor, product;
	uint8_t *io; /* DMA page for CBW, CSW, descriptors */
	char error[XHCI_WHY_MAX];
};

/* The device on `port`: a BOT SCSI mass-storage interface? Then configured and ready, with its
 * capacity. STATUS_OK, or STATUS_UNSUPPORTED (not mass storage) or another status, said in
 * m->error. */
enum status msc_attach(struct msc *m, struct xhci *x, unsigned port);
/* count blocks from lba, to or from buf (a DMA buffer of count * block_size bytes).
 * STATUS_OK, or the status with m->error said. */
enum status msc_read(struct msc *m, uint64_t lba, uint32_t count, void *buf);
enum status msc_write(struct msc *m, uint64_t lba, uint32_t count, const void *buf);
enum status msc_sync(struct msc *m);

#endif
