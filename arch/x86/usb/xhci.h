/* SPDX-License-Identifier: MIT */
/*
 * A polled xHCI host-controller driver, just enough for one USB mass-storage device: find the
 * controller on PCI, take it from the firmware, reset it, run one command ring and one event
 * ring, reset a port, address the device on it, and move data over its default control pipe
 * and two bulk endpoints (xHCI 1.2; the registers in arch/x86/hw/xhci_regs.h). No interrupts:
 * every wait polls the event ring against a TSC deadline, so a dead or vanished device ends in
 * a time-out with a message, never a hang.
 */
#ifndef ARCH_X86_USB_XHCI_H
#define ARCH_X86_USB_XHCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/status.h"

#define XHCI_WHY_MAX 160

struct xhci;

/* What a PCI function is (bus, device, function), and where its xHCI registers are. */
struct xhci_pci {
	uint8_t bus, dev, fn;
	uint64_t bar, bar_size;
};

/* The n-th xHCI controller on PCI bus 0..255 (n from 0); false when there is none. */
bool xhci_pci_find(unsigned n, struct xhci_pci *out);
/* Take the controller from the firmware (USB Legacy Support), reset it and start it; NULL with
 * the reason in why. */
struct xhci *xhci_start(const struct xhci_pci *pci, char *why, size_t size);
unsigned xhci_ports(const struct xhci *x);
/* Port `port` (from 1): connected? Reset it (USB2 ports) and address the device on it; its
 * speed. Returns the slot, or 0 with the reason. */
unsigned xhci_attach(struct xhci *x, unsigned port, char *why, size_t size);
/* Something connected to port `port`? */
bool xhci_port_connected(struct xhci *x, unsigned port);
/* Still connected and enabled? */
bool xhci_port_alive(struct xhci *x, unsigned port);

/* A control transfer on the slot's default pipe: setup (8 bytes, USB 2.0 9.3), data of len
 * bytes in (when setup->type has USB_DIR_IN) or out, into or from buf (physically contiguous:
 * xhci_dma). Returns the bytes moved or a negative enum status. */
struct usb_setup;
long xhci_control(struct xhci *x, unsigned slot, const struct usb_setup *setup, void *buf,
		  size_t len);
/* The slot's bulk IN and OUT endpoints (endpoint addresses and max packet sizes), configured. */
enum status xhci_bulk_config(struct xhci *x, unsigned slot, uint8_t in_ep, uint16_t in_max,
			     uint8_t out_ep, uint16_t out_max);
/* A bulk transfer of len bytes (in: true from the device) of buf, a DMA buffer. Returns the
 * bytes moved, or a negative enum status; *stalled is set when the endpoint stalled (then
 * xhci_bulk_unstall clears it). */
long xhci_bulk(struct xhci *x, unsigned slot, bool in, void *buf, size_t len, bool *stalled);
enum status xhci_bulk_unstall(struct xhci *x, unsigned slot, bool in);
/* The last failure's description (completion code, time-out), for messages. */
const char *xhci_last_error(const struct xhci *x);
/* Memory a controller reads and writes: zeroed, page-aligned, physically contiguous; NULL
 * when memory is short. */
void *xhci_dma(size_t bytes);
uint64_t xhci_phys(const void *p);

#endif
