/* SPDX-License-Identifier: MIT */
/* The record stream onto the USB stick's trace partition (stick.h, lib/trace_part.h). */
#include "arch/x86/usb/stick.h"
#include <stddef.h>
#include "arch/x86/cpu/spinlock.h"
#include "arch/x86/smp/timer.h"
#include "arch/x86/usb/msc.h"
#include "kernel/arch_cpu.h"
#include "kernel/boot_info.h"
#include "kernel/kernel.h"
#include "kernel/console.h"
#include "lib/crc32.h"
#include "lib/fmt.h"
#include "lib/gpt.h"
#include "lib/string.h"
#include "lib/trace_part.h"

#define BUF_BYTES (64u << 10) /* a write: 128 sectors */
#define MAX_XHCI  4
#define SECTOR	  TRACE_PART_SECTOR

static struct stick {
	bool opened, active, dead, full;
	struct msc m;
	uint64_t first, last; /* the partition's LBAs on the device, inclusive */
	uint64_t boot_id;
	uint8_t *buf; /* BUF_BYTES, DMA: the data on its way */
	uint8_t *blk; /* one page, DMA: the head, commit blocks */
	size_t fill;
	uint64_t flushed; /* data bytes on the stick */
	uint32_t crc;	  /* of them */
	uint64_t frames, frames_flushed;
	uint64_t lost;	       /* bytes not written (failed, vanished, full) */
	uint64_t checkpoint;   /* flushed bytes at the last checkpoint */
	uint64_t write_cycles; /* TSC cycles in writes */
	struct spinlock lock;
} st;

/* The one way to the device's blocks: inside the trace partition, or refused. */
static bool write_blocks(uint64_t rel, uint32_t count, const void *buf)
{
	uint64_t lba = st.first + rel;
	if (rel > st.last - st.first || count == 0 || count - 1 > st.last - lba) {
		kprintf(
		    "stick: error: refused a write of blocks %lu+%u: outside the trace partition "
		    "(%lu-%lu)\n",
		    lba, count, st.first, st.last);
		return false;
	}
	uint64_t t0 = arch_timestamp();
	enum status s = msc_write(&st.m, lba, count, buf);
	st.write_cycles += arch_timestamp() - t0;
	if (s == STATUS_OK)
		return true;
	bool gone = !xhci_port_alive(st.m.x, st.m.port);
	kprintf("stick: error: writing blocks %lu+%u: %s%s; the capture on the stick ends "
		"INCOMPLETE after %lu bytes (the serial line carries on)\n",
		lba, count, st.m.error,
		gone ? " (the stick is gone: its port is not connected)" : "", st.flushed);
	st.dead = true;
	return false;
}

static void commit(enum trace_part_state state)
{
	struct trace_part_commit *c = (void *)st.blk;
	trace_part_commit_make(c, st.boot_id, state, st.flushed, st.frames_flushed, st.crc);
	write_blocks(TRACE_PART_COMMIT_LBA, 1, c);
	st.checkpoint = st.flushed;
}

/* The buffer's whole sectors (all of it when `all`, the last one padded) to the data area. */
static void flush(bool all)
{
	size_t bytes = all ? st.fill : st.fill / SECTOR * SECTOR;
	if (!bytes || st.dead)
		return;
	uint64_t room = trace_part_capacity(st.last - st.first + 1) - st.flushed;
	if (bytes > room) {
		st.full = true;
		st.lost += bytes - room;
		bytes = (size_t)room;
		kprintf("stick: error: the trace partition is full after %lu bytes; the rest of "
			"the stream is not on the stick (make usb TRACE_MIB=N for a larger one)\n",
			st.flushed + bytes);
	}
	uint32_t sectors = (uint32_t)((bytes + SECTOR - 1) / SECTOR);
	memset(st.buf + bytes, 0, sectors * SECTOR - bytes);
	if (bytes && !write_blocks(TRACE_PART_DATA_LBA + st.flushed / SECTOR, sectors, st.buf)) {
		st.lost += st.fill;
		st.fill = 0;
		return;
	}
	st.crc = crc32_update(st.crc, st.buf, bytes);
	st.flushed += bytes;
	st.frames_flushed = st.frames;
	memmove(st.buf, st.buf + bytes, st.fill - bytes);
	st.fill -= bytes;
	if (st.full) {
		st.lost += st.fill;
		st.fill = 0;
	}
}

void stick_put(const uint8_t *frame, size_t len)
{
	if (!st.active)
		return;
	uint64_t flags = spin_lock_irqsave(&st.lock);
	if (st.dead || st.full) {
		st.lost += len;
	} else {
		while (len) {
			size_t piece = BUF_BYTES - st.fill < len ? BUF_BYTES - st.fill : len;
			memcpy(st.buf + st.fill, frame, piece);
			st.fill += piece;
			frame += piece;
			len -= piece;
			if (st.fill == BUF_BYTES) {
				flush(false);
				if (st.dead || st.full) {
					st.lost += len;
					break;
				}
			}
		}
		st.frames++;
		if (!st.dead && !st.full && st.flushed - st.checkpoint >= TRACE_PART_CHECKPOINT)
			commit(TRACE_PART_WRITING);
	}
	spin_unlock_irqrestore(&st.lock, flags);
}

/* ---- finding the stick ---------------------------------------------------------------------- */

/* The device's GPT: its trace partition, bounds checked by gpt_find against the usable LBAs and
 * here against the device. */
static bool find_partition(char *why, size_t size)
{
	if (st.m.block_size != SECTOR) {
		fmt_snprintf(why, size, "blocks of %u bytes (accepted: %u)", st.m.block_size,
			     SECTOR);
		return false;
	}
	uint8_t header[SECTOR];
	struct gpt_found f;
	uint64_t bytes;
	enum gpt_result r = GPT_NO_TABLE;
	if (msc_read(&st.m, 1, 1, st.buf) == STATUS_OK) {
		memcpy(header, st.buf, SECTOR);
		r = gpt_read_header(header, &f, &bytes);
	}
	if (r == GPT_OK && bytes <= BUF_BYTES && f.entries_lba < st.m.blocks &&
	    msc_read(&st.m, f.entries_lba, (uint32_t)((bytes + SECTOR - 1) / SECTOR), st.buf) ==
		STATUS_OK)
		r = gpt_find(header, st.buf, trace_part_type, &f);
	else if (r == GPT_OK)
		r = GPT_BAD_ENTRIES;
	if (r == GPT_OK &&
	    (f.last_lba >= st.m.blocks || f.last_lba - f.first_lba < TRACE_PART_DATA_LBA))
		r = GPT_BAD_BOUNDS;
	if (r != GPT_OK) {
		fmt_snprintf(why, size, "%s", gpt_result_name(r));
		return false;
	}
	st.first = f.first_lba;
	st.last = f.last_lba;
	return true;
}

static bool try_port(struct xhci *x, unsigned port, char *why, size_t size)
{
	enum status s = msc_attach(&st.m, x, port);
	if (s) {
		fmt_snprintf(why, size, "%s", st.m.error);
		return false;
	}
	return find_partition(why, size);
}

/* The loader's word on the boot device (kernel/boot_info.h): on USB, the controller's PCI
 * device and function and the root port (0 when unknown or not USB). */
static unsigned boot_port(const struct xhci_pci *pci)
{
	const struct boot_info *bi = kernel_boot_info();
	if (!bi || bi->size < offsetof(struct boot_info, boot_usb_ports) + BOOT_USB_DEPTH_MAX ||
	    bi->boot_dev_kind != BOOT_DEV_USB || bi->boot_pci_dev != pci->dev ||
	    bi->boot_pci_fn != pci->fn)
		return 0;
	return bi->boot_usb_ports[0] + 1u; /* the device path's port numbers count from 0 */
}

/* The ports in the order to try: the one booted from first. */
static unsigned port_at(unsigned i, unsigned first)
{
	if (!first)
		return i;
	if (i == 1)
		return first;
	return i <= first ? i - 1 : i;
}

static bool find_stick(bool quiet)
{
	struct xhci_pci pci;
	char why[XHCI_WHY_MAX];
	unsigned controllers = 0;
	for (unsigned n = 0; n < MAX_XHCI && xhci_pci_find(n, &pci); n++) {
		controllers++;
		struct xhci *x = xhci_start(&pci, why, sizeof(why));
		if (!x) {
			kprintf("stick: xHCI %02x:%02x.%x: %s\n", pci.bus, pci.dev, pci.fn, why);
			continue;
		}
		unsigned first = boot_port(&pci);
		if (first > xhci_ports(x))
			first = 0;
		for (unsigned i = 1; i <= xhci_ports(x); i++) {
			unsigned port = port_at(i, first);
			if (!xhci_port_connected(x, port))
				continue;
			if (try_port(x, port, why, sizeof(why))) {
				kprintf(
				    "stick: USB mass storage %04x:%04x on xHCI %02x:%02x.%x port "
				    "%u%s: %lu blocks of %u bytes; trace partition LBAs %lu-%lu "
				    "(%lu MiB)\n",
				    st.m.vendor, st.m.product, pci.bus, pci.dev, pci.fn, port,
				    port == first ? " (the loader booted from it)" : "",
				    st.m.blocks, st.m.block_size, st.first, st.last,
				    (st.last - st.first + 1) / 2048);
				return true;
			}
			kprintf("stick: xHCI %02x:%02x.%x port %u: %s\n", pci.bus, pci.dev, pci.fn,
				port, why);
		}
	}
	if (controllers)
		kprintf("stick: no USB stick with a trace partition (type %s) on %u xHCI "
			"controller%s\n",
			TRACE_PART_TYPE_TEXT, controllers, controllers == 1 ? "" : "s");
	else if (!quiet)
		kprintf("stick: no xHCI controller on PCI\n");
	return false;
}

bool stick_open(const char *build_id, const char *options, bool quiet)
{
	if (st.active)
		return true;
	st.buf = xhci_dma(BUF_BYTES);
	st.blk = xhci_dma(SECTOR);
	if (!st.buf || !st.blk) {
		kprintf("stick: no memory for its buffer\n");
		return false;
	}
	if (!find_stick(quiet))
		return false;
	st.boot_id = arch_timestamp();
	struct trace_part_head *h = (void *)st.blk;
	trace_part_head_make(h, st.boot_id, st.last - st.first + 1, build_id, options);
	if (!write_blocks(TRACE_PART_HEAD_LBA, 1, h))
		return false;
	commit(TRACE_PART_WRITING); /* a stale capture's commit block is gone */
	if (st.dead)
		return false;
	st.active = st.opened = true;
	return true;
}

bool stick_active(void)
{
	return st.active;
}

bool stick_lost(void)
{
	return st.opened && (st.dead || st.lost);
}

void stick_close(void)
{
	if (!st.active)
		return;
	uint64_t flags = spin_lock_irqsave(&st.lock);
	flush(true);
	if (!st.dead)
		commit(st.full ? TRACE_PART_FULL : TRACE_PART_COMPLETE);
	if (!st.dead && msc_sync(&st.m) != STATUS_OK)
		kprintf("stick: SYNCHRONIZE CACHE failed: %s\n", st.m.error);
	uint64_t us = tsc_to_us(st.write_cycles);
	st.active = false;
	spin_unlock_irqrestore(&st.lock, flags);
	kprintf("stick: %s: %lu bytes in %lu frames on the trace partition, %lu bytes lost; "
		"written at %lu bytes/s (%lu us in writes)\n",
		st.dead	  ? "INCOMPLETE"
		: st.full ? "FULL"
			  : "complete",
		st.flushed, st.frames_flushed, st.lost, us ? st.flushed * 1000000 / us : 0, us);
}
