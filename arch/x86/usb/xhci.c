/* SPDX-License-Identifier: MIT */
/*
 * The xHCI controller (xhci.h): bring-up (xHCI 1.2 4.2 "Host Controller Initialization"), the
 * command and event rings (4.9 "TRB Ring", 4.9.4 "Event Ring Management"), port reset (4.3.1
 * "Resetting a Root Hub Port"), device slots (4.3.2 "Device Slot Assignment", 4.3.3 "Device
 * Slot Initialization"), endpoints (4.6.6 "Configure Endpoint") and transfers (4.11.2.2
 * control, 4.11.2.1 Normal TRBs), all polled.
 */
#include "arch/x86/usb/xhci.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/hw/xhci_regs.h"
#include "arch/x86/smp/timer.h"
#include "kernel/arch_cpu.h"
#include "kernel/memory.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define RING_TRBS	 256 /* one page: the last is the Link TRB */
#define MAX_SLOTS	 8
#define CMD_TIMEOUT_US	 2000000
#define XFER_TIMEOUT_US	 5000000
#define RESET_TIMEOUT_US 1000000
#define MAX_DCI		 31
#define BAR_MAP_MAX	 (1u << 20) /* registers mapped at most (xHCI's BAR: 64 KiB and up) */

struct ring {
	struct xhci_trb *trb;
	unsigned at;
	uint32_t cycle;
};

struct slot_state {
	struct ring ep[MAX_DCI + 1]; /* by Device Context Index; only 1 and the bulk pair used */
	uint8_t in_dci, out_dci;
	uint8_t port;
	void *in_ctx, *out_ctx;
};

struct xhci {
	volatile uint8_t *cap, *op, *rt, *db;
	unsigned ports, max_slots, ctx_size;
	uint64_t *dcbaa;
	struct ring cmd;
	struct xhci_trb *events;
	unsigned ev_at;
	uint32_t ev_cycle;
	struct slot_state slot[MAX_SLOTS + 1];
	char error[XHCI_WHY_MAX];
};

static struct xhci controller;

/* ---- memory ---------------------------------------------------------------------------------- */

void *xhci_dma(size_t bytes)
{
	uint64_t pages = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t pa = page_alloc(pages); /* zeroed */
	return pa ? arch_phys_to_virt(pa) : NULL;
}

/* The kernel maps physical memory linearly (arch_phys_to_virt: the identity map today, a
 * direct map at an offset tomorrow): one page's offset gives every one's. */
uint64_t xhci_phys(const void *p)
{
	uint64_t delta = (uint64_t)arch_phys_to_virt(PAGE_SIZE) - PAGE_SIZE;
	return (uint64_t)p - delta;
}

/* ---- registers --------------------------------------------------------------------------------
 */

static uint32_t rd32(volatile uint8_t *base, unsigned off)
{
	return *(volatile uint32_t *)(base + off);
}

static void wr32(volatile uint8_t *base, unsigned off, uint32_t v)
{
	*(volatile uint32_t *)(base + off) = v;
}

/* 64-bit registers as two 32-bit writes, low first (xHCI 1.2 5.1: "32-bit ... accesses to
 * 64-bit registers": a controller without AC64 may take only the low half). */
static void wr64(volatile uint8_t *base, unsigned off, uint64_t v)
{
	wr32(base, off, (uint32_t)v);
	wr32(base, off + 4, (uint32_t)(v >> 32));
}

static bool wait_bits(volatile uint8_t *base, unsigned off, uint32_t mask, uint32_t want,
		      uint64_t us)
{
	uint64_t end = tsc_deadline(us);
	while ((rd32(base, off) & mask) != want) {
		if (tsc_passed(end))
			return false;
		cpu_pause();
	}
	return true;
}

/* ---- PCI configuration space (mechanism #1, PCI Local Bus 3.0 3.2.2.3.2) ----------------------
 */

#define PCI_CONFIG_ADDRESS_PORT 0xcf8
#define PCI_CONFIG_DATA_PORT	0xcfc
#define PCI_CONFIG_ON		BIT(31)

static uint32_t cfg_read(unsigned bus, unsigned dev, unsigned fn, unsigned off)
{
	outl(PCI_CONFIG_ADDRESS_PORT,
	     PCI_CONFIG_ON | bus << 16 | dev << 11 | fn << 8 | (off & 0xfc));
	return inl(PCI_CONFIG_DATA_PORT);
}

static void cfg_write(unsigned bus, unsigned dev, unsigned fn, unsigned off, uint32_t v)
{
	outl(PCI_CONFIG_ADDRESS_PORT,
	     PCI_CONFIG_ON | bus << 16 | dev << 11 | fn << 8 | (off & 0xfc));
	outl(PCI_CONFIG_DATA_PORT, v);
}

static bool pci_is_xhci(unsigned bus, unsigned dev, unsigned fn, struct xhci_pci *out)
{
	if ((cfg_read(bus, dev, fn, PCI_REG_ID) & 0xffffu) == 0xffffu ||
	    cfg_read(bus, dev, fn, PCI_REG_CLASS) >> 8 != PCI_CLASS_XHCI)
		return false;
	uint32_t lo = cfg_read(bus, dev, fn, PCI_REG_BAR0);
	uint64_t bar = lo & PCI_BAR_MEM_MASK;
	if ((lo & PCI_BAR_TYPE) == PCI_BAR_64)
		bar |= (uint64_t)cfg_read(bus, dev, fn, PCI_REG_BAR0 + 4) << 32;
	/* its size: all ones written, the bits that stay 0 read back (PCI 3.0 6.2.5.1), with
	 * memory decoding off meanwhile */
	uint32_t cmd = cfg_read(bus, dev, fn, PCI_REG_COMMAND) & 0xffffu;
	cfg_write(bus, dev, fn, PCI_REG_COMMAND, cmd & ~PCI_CMD_MEMORY);
	cfg_write(bus, dev, fn, PCI_REG_BAR0, 0xffffffffu);
	uint32_t mask = cfg_read(bus, dev, fn, PCI_REG_BAR0) & (uint32_t)PCI_BAR_MEM_MASK;
	cfg_write(bus, dev, fn, PCI_REG_BAR0, lo);
	cfg_write(bus, dev, fn, PCI_REG_COMMAND, cmd);
	*out =
	    (struct xhci_pci){(uint8_t)bus, (uint8_t)dev, (uint8_t)fn, bar, (uint32_t)(~mask + 1)};
	return true;
}

bool xhci_pci_find(unsigned n, struct xhci_pci *out)
{
	for (unsigned bus = 0; bus < 256; bus++)
		for (unsigned dev = 0; dev < 32; dev++)
			for (unsigned fn = 0; fn < 8; fn++) {
				uint32_t id = cfg_read(bus, dev, fn, PCI_REG_ID);
				if ((id & 0xffffu) == 0xffffu) {
					if (fn == 0)
						break;
					continue;
				}
				if (pci_is_xhci(bus, dev, fn, out) && n-- == 0)
					return true;
				if (fn == 0 &&
				    !(cfg_read(bus, dev, 0, PCI_REG_HEADER) & PCI_MULTI_FN))
					break;
			}
	return false;
}

/* ---- rings ------------------------------------------------------------------------------------
 */

static bool ring_init(struct ring *r)
{
	r->trb = xhci_dma(RING_TRBS * sizeof(struct xhci_trb));
	if (!r->trb)
		return false;
	r->at = 0;
	r->cycle = 1;
	struct xhci_trb *link = &r->trb[RING_TRBS - 1];
	link->param = xhci_phys(r->trb);
	link->control = TRB_TYPE(TRB_LINK) | TRB_TOGGLE;
	return true;
}

/* One TRB onto a producer ring, the cycle bit written last; past the end, through the Link TRB
 * (its cycle bit handed over, the ring's toggled: 4.9.2.1). Returns its physical address. */
static uint64_t ring_put(struct ring *r, uint64_t param, uint32_t status, uint32_t control)
{
	struct xhci_trb *t = &r->trb[r->at];
	t->param = param;
	t->status = status;
	__atomic_store_n(&t->control, (control & ~TRB_CYCLE) | r->cycle, __ATOMIC_RELEASE);
	uint64_t pa = xhci_phys(t);
	if (++r->at == RING_TRBS - 1) {
		struct xhci_trb *link = &r->trb[RING_TRBS - 1];
		uint32_t c =
		    (link->control & ~(TRB_CYCLE | TRB_CHAIN)) | r->cycle | (control & TRB_CHAIN);
		__atomic_store_n(&link->control, c, __ATOMIC_RELEASE);
		r->at = 0;
		r->cycle ^= 1;
	}
	return pa;
}

static void ring_doorbell(struct xhci *x, unsigned slot, unsigned target)
{
	wr32(x->db, 4 * slot, target);
}

/* The next event of the given type (matching the TRB at trb_pa when it is not 0), others
 * skipped; false on the time-out. */
static bool event_wait(struct xhci *x, unsigned type, uint64_t trb_pa, struct xhci_trb *ev,
		       uint64_t us)
{
	uint64_t end = tsc_deadline(us);
	for (;;) {
		struct xhci_trb *t = &x->events[x->ev_at];
		uint32_t c = __atomic_load_n(&t->control, __ATOMIC_ACQUIRE);
		if ((c & TRB_CYCLE) != x->ev_cycle) {
			if (tsc_passed(end))
				return false;
			cpu_pause();
			continue;
		}
		*ev = *t;
		if (++x->ev_at == RING_TRBS) {
			x->ev_at = 0;
			x->ev_cycle ^= 1;
		}
		wr64(x->rt, XHCI_IR0_ERDP, xhci_phys(&x->events[x->ev_at]) | XHCI_ERDP_EHB);
		if (TRB_TYPE_OF(c) == type && (!trb_pa || ev->param == trb_pa))
			return true;
	}
}

static int command(struct xhci *x, uint64_t param, uint32_t control, struct xhci_trb *ev)
{
	uint64_t pa = ring_put(&x->cmd, param, 0, control);
	ring_doorbell(x, 0, 0);
	if (!event_wait(x, TRB_EV_COMMAND, pa, ev, CMD_TIMEOUT_US)) {
		fmt_snprintf(x->error, sizeof(x->error),
			     "command (TRB type %u) not completed within %u ms",
			     TRB_TYPE_OF(control), CMD_TIMEOUT_US / 1000);
		return STATUS_TIMEOUT;
	}
	unsigned code = TRB_CODE_OF(ev->status);
	if (code != XHCI_CC_SUCCESS) {
		fmt_snprintf(x->error, sizeof(x->error),
			     "command (TRB type %u): completion code %u", TRB_TYPE_OF(control),
			     code);
		return STATUS_IO;
	}
	return STATUS_OK;
}

/* ---- bring-up (4.2) -----------------------------------------------------------------------------
 */

/* USB Legacy Support (7.1.1): ask for the controller, wait for the firmware to let go, and
 * turn its SMIs off. */
static void take_from_firmware(struct xhci *x)
{
	uint32_t hcc = rd32(x->cap, XHCI_HCCPARAMS1);
	unsigned off = XHCI_HCC1_XECP(hcc) * 4;
	while (off) {
		uint32_t v = rd32(x->cap, off);
		if (XHCI_XCAP_ID(v) == XHCI_XCAP_LEGACY) {
			wr32(x->cap, off, v | XHCI_LEGACY_OS_OWNED);
			wait_bits(x->cap, off, XHCI_LEGACY_BIOS_OWNED, 0, RESET_TIMEOUT_US);
			wr32(x->cap, off + XHCI_LEGACY_CTLSTS,
			     rd32(x->cap, off + XHCI_LEGACY_CTLSTS) & ~XHCI_LEGACY_SMI_MASK);
			return;
		}
		off = XHCI_XCAP_NEXT(v) ? off + XHCI_XCAP_NEXT(v) * 4 : 0;
	}
}

static bool reset(struct xhci *x, char *why, size_t size)
{
	wr32(x->op, XHCI_USBCMD, rd32(x->op, XHCI_USBCMD) & ~XHCI_CMD_RUN);
	if (!wait_bits(x->op, XHCI_USBSTS, XHCI_STS_HCH, XHCI_STS_HCH, RESET_TIMEOUT_US)) {
		fmt_snprintf(why, size, "the controller did not halt (USBSTS %#x)",
			     rd32(x->op, XHCI_USBSTS));
		return false;
	}
	wr32(x->op, XHCI_USBCMD, XHCI_CMD_HCRST);
	if (!wait_bits(x->op, XHCI_USBCMD, XHCI_CMD_HCRST, 0, RESET_TIMEOUT_US) ||
	    !wait_bits(x->op, XHCI_USBSTS, XHCI_STS_CNR, 0, RESET_TIMEOUT_US)) {
		fmt_snprintf(why, size, "the controller's reset did not finish (USBSTS %#x)",
			     rd32(x->op, XHCI_USBSTS));
		return false;
	}
	return true;
}

/* DCBAA, scratchpad buffers (4.20), the command ring, one event ring segment (4.9.4.1). */
static bool structures(struct xhci *x)
{
	x->dcbaa = xhci_dma(PAGE_SIZE);
	if (!x->dcbaa || !ring_init(&x->cmd))
		return false;
	unsigned scratch = XHCI_HCS2_SCRATCH(rd32(x->cap, XHCI_HCSPARAMS2));
	if (scratch) {
		uint64_t *array = xhci_dma(scratch * sizeof(uint64_t));
		if (!array)
			return false;
		for (unsigned i = 0; i < scratch; i++) {
			void *page = xhci_dma(PAGE_SIZE);
			if (!page)
				return false;
			array[i] = xhci_phys(page);
		}
		x->dcbaa[0] = xhci_phys(array);
	}
	x->events = xhci_dma(RING_TRBS * sizeof(struct xhci_trb));
	struct xhci_erst *erst = xhci_dma(sizeof(*erst));
	if (!x->events || !erst)
		return false;
	erst->base = xhci_phys(x->events);
	erst->size = RING_TRBS;
	x->ev_at = 0;
	x->ev_cycle = 1;
	wr32(x->op, XHCI_CONFIG, x->max_slots);
	wr64(x->op, XHCI_DCBAAP, xhci_phys(x->dcbaa));
	wr64(x->op, XHCI_CRCR, xhci_phys(x->cmd.trb) | XHCI_CRCR_RCS);
	wr32(x->rt, XHCI_IR0_ERSTSZ, 1);
	wr64(x->rt, XHCI_IR0_ERDP, xhci_phys(x->events));
	wr64(x->rt, XHCI_IR0_ERSTBA, xhci_phys(erst));
	return true;
}

struct xhci *xhci_start(const struct xhci_pci *pci, char *why, size_t size)
{
	struct xhci *x = &controller;
	memset(x, 0, sizeof(*x));
	uint32_t cmd = cfg_read(pci->bus, pci->dev, pci->fn, PCI_REG_COMMAND);
	cfg_write(pci->bus, pci->dev, pci->fn, PCI_REG_COMMAND,
		  (cmd & 0xffffu) | PCI_CMD_MEMORY | PCI_CMD_MASTER);
	uint64_t regs = pci->bar_size && pci->bar_size < BAR_MAP_MAX ? pci->bar_size : BAR_MAP_MAX;
	x->cap = pci->bar ? paging_map_mmio(pci->bar, regs) : NULL;
	if (!x->cap) {
		fmt_snprintf(why, size, "its registers (BAR0 %#lx, %lu bytes) cannot be mapped",
			     pci->bar, regs);
		return NULL;
	}
	x->op = x->cap + (rd32(x->cap, XHCI_CAPLENGTH) & 0xffu);
	x->rt = x->cap + (rd32(x->cap, XHCI_RTSOFF) & ~0x1fu);
	x->db = x->cap + (rd32(x->cap, XHCI_DBOFF) & ~0x3u);
	uint32_t hcs1 = rd32(x->cap, XHCI_HCSPARAMS1);
	x->ports = XHCI_HCS1_MAX_PORTS(hcs1);
	x->max_slots =
	    XHCI_HCS1_MAX_SLOTS(hcs1) < MAX_SLOTS ? XHCI_HCS1_MAX_SLOTS(hcs1) : MAX_SLOTS;
	x->ctx_size = rd32(x->cap, XHCI_HCCPARAMS1) & XHCI_HCC1_CSZ ? 64 : 32;
	take_from_firmware(x);
	if (!reset(x, why, size))
		return NULL;
	if (!structures(x)) {
		fmt_snprintf(why, size, "out of memory for the controller's rings and contexts");
		return NULL;
	}
	wr32(x->op, XHCI_USBCMD, XHCI_CMD_RUN);
	if (!wait_bits(x->op, XHCI_USBSTS, XHCI_STS_HCH, 0, RESET_TIMEOUT_US)) {
		fmt_snprintf(why, size, "the controller did not start (USBSTS %#x)",
			     rd32(x->op, XHCI_USBSTS));
		return NULL;
	}
	struct xhci_trb ev;
	if (command(x, 0, TRB_TYPE(TRB_NOOP_CMD), &ev) != STATUS_OK) {
		fmt_snprintf(why, size, "the command ring does not answer: %s", x->error);
		return NULL;
	}
	return x;
}

unsigned xhci_ports(const struct xhci *x)
{
	return x->ports;
}

const char *xhci_last_error(const struct xhci *x)
{
	return x->error;
}

bool xhci_port_connected(struct xhci *x, unsigned port)
{
	return rd32(x->op, XHCI_PORTSC(port)) & XHCI_PORT_CCS;
}

bool xhci_port_alive(struct xhci *x, unsigned port)
{
	uint32_t v = rd32(x->op, XHCI_PORTSC(port));
	return (v & (XHCI_PORT_CCS | XHCI_PORT_PED)) == (XHCI_PORT_CCS | XHCI_PORT_PED);
}

/* ---- ports and slots (4.3)
 * ------------------------------------------------------------------------ */

/* PORTSC to write back: the write-1-to-clear bits and PED left alone. */
static uint32_t port_keep(uint32_t v)
{
	return v & ~(XHCI_PORT_PED | XHCI_PORT_CHANGES);
}

static bool port_reset(struct xhci *x, unsigned port)
{
	uint32_t v = rd32(x->op, XHCI_PORTSC(port));
	if (v & XHCI_PORT_PED)
		return true; /* a USB3 port enables itself once the link trains (4.3.1) */
	wr32(x->op, XHCI_PORTSC(port), port_keep(v) | XHCI_PORT_PR);
	if (!wait_bits(x->op, XHCI_PORTSC(port), XHCI_PORT_PRC, XHCI_PORT_PRC, RESET_TIMEOUT_US))
		return false;
	v = rd32(x->op, XHCI_PORTSC(port));
	wr32(x->op, XHCI_PORTSC(port), port_keep(v) | XHCI_PORT_PRC);
	return (v & XHCI_PORT_PED) != 0;
}

static uint32_t *ctx(struct xhci *x, void *base, unsigned index)
{
	return (uint32_t *)((uint8_t *)base + index * x->ctx_size);
}

static uint16_t ep0_max_packet(unsigned speed)
{
	switch (speed) {
	case XHCI_SPEED_LOW:
		return 8;
	case XHCI_SPEED_SUPER:
		return 512;
	default:
		return 64; /* high speed; full speed's 8..64 is read from the device later */
	}
}

unsigned xhci_attach(struct xhci *x, unsigned port, char *why, size_t size)
{
	uint32_t v = rd32(x->op, XHCI_PORTSC(port));
	if (!(v & XHCI_PORT_CCS)) {
		fmt_snprintf(why, size, "port %u: nothing connected", port);
		return 0;
	}
	if (!port_reset(x, port)) {
		fmt_snprintf(why, size, "port %u: the port reset did not enable it (PORTSC %#x)",
			     port, rd32(x->op, XHCI_PORTSC(port)));
		return 0;
	}
	unsigned speed = XHCI_PORT_SPEED(rd32(x->op, XHCI_PORTSC(port)));
	struct xhci_trb ev;
	if (command(x, 0, TRB_TYPE(TRB_ENABLE_SLOT), &ev) != STATUS_OK) {
		fmt_snprintf(why, size, "port %u: Enable Slot: %s", port, x->error);
		return 0;
	}
	unsigned slot = TRB_SLOT_OF(ev.control);
	if (!slot || slot > MAX_SLOTS) {
		fmt_snprintf(why, size, "port %u: the controller gave slot %u (accepted: 1-%u)",
			     port, slot, MAX_SLOTS);
		return 0;
	}
	struct slot_state *s = &x->slot[slot];
	memset(s, 0, sizeof(*s));
	s->port = (uint8_t)port;
	s->out_ctx = xhci_dma(PAGE_SIZE);
	s->in_ctx = xhci_dma(PAGE_SIZE);
	if (!s->out_ctx || !s->in_ctx || !ring_init(&s->ep[1])) {
		fmt_snprintf(why, size, "out of memory for a device slot");
		return 0;
	}
	x->dcbaa[slot] = xhci_phys(s->out_ctx);
	/* Input context (4.3.3): add the slot and EP0; the slot on this root port at this speed. */
	ctx(x, s->in_ctx, 0)[1] = INPUT_ADD(0) | INPUT_ADD(1);
	uint32_t *sc = ctx(x, s->in_ctx, 1), *ep0 = ctx(x, s->in_ctx, 2);
	sc[0] = SLOT_CTX_ENTRIES(1) | SLOT_CTX_SPEED(speed);
	sc[1] = SLOT_CTX_ROOT_PORT(port);
	ep0[1] = EP_CTX_CERR(3) | EP_CTX_TYPE(EP_TYPE_CONTROL) |
		 EP_CTX_MAX_PACKET(ep0_max_packet(speed));
	uint64_t deq = xhci_phys(s->ep[1].trb) | EP_CTX_DCS;
	ep0[2] = (uint32_t)deq;
	ep0[3] = (uint32_t)(deq >> 32);
	ep0[4] = EP_CTX_AVG_TRB(8);
	if (command(x, xhci_phys(s->in_ctx), TRB_TYPE(TRB_ADDRESS_DEVICE) | TRB_SLOT(slot), &ev) !=
	    STATUS_OK) {
		fmt_snprintf(why, size, "port %u: Address Device: %s", port, x->error);
		return 0;
	}
	return slot;
}

/* ---- transfers
 * ------------------------------------------------------------------------------------ */

/* Wait for the transfer event of the TRB at pa on the slot; the bytes not moved (residue), or a
 * negative status. */
static long transfer_wait(struct xhci *x, unsigned slot, uint64_t pa, bool *stalled)
{
	struct xhci_trb ev;
	if (stalled)
		*stalled = false;
	if (!event_wait(x, TRB_EV_TRANSFER, pa, &ev, XFER_TIMEOUT_US)) {
		fmt_snprintf(
		    x->error, sizeof(x->error), "no transfer event within %u ms (port %u %s)",
		    XFER_TIMEOUT_US / 1000, x->slot[slot].port,
		    xhci_port_alive(x, x->slot[slot].port) ? "still connected" : "disconnected");
		return STATUS_TIMEOUT;
	}
	unsigned code = TRB_CODE_OF(ev.status);
	if (code == XHCI_CC_SUCCESS || code == XHCI_CC_SHORT)
		return (long)TRB_LEN_OF(ev.status);
	if (code == XHCI_CC_STALL && stalled)
		*stalled = true;
	fmt_snprintf(x->error, sizeof(x->error), "transfer completion code %u%s", code,
		     code == XHCI_CC_STALL ? " (stall)" : "");
	return STATUS_IO;
}

long xhci_control(struct xhci *x, unsigned slot, const struct usb_setup *setup, void *buf,
		  size_t len)
{
	struct ring *r = &x->slot[slot].ep[1];
	bool in = setup->type & USB_DIR_IN;
	uint64_t param;
	memcpy(&param, setup, sizeof(param));
	uint32_t trt = len ? TRB_TRT(in ? TRB_TRT_IN : TRB_TRT_OUT) : 0;
	ring_put(r, param, 8, TRB_TYPE(TRB_SETUP) | TRB_IDT | trt);
	if (len)
		ring_put(r, xhci_phys(buf), (uint32_t)len,
			 TRB_TYPE(TRB_DATA) | (in ? TRB_DIR_IN : 0));
	/* the status stage goes the other way (4.11.2.2) */
	uint64_t pa =
	    ring_put(r, 0, 0, TRB_TYPE(TRB_STATUS) | TRB_IOC | (len && in ? 0 : TRB_DIR_IN));
	ring_doorbell(x, slot, 1);
	long residue = transfer_wait(x, slot, pa, NULL);
	return residue < 0 ? residue : (long)len;
}

/* Device Context Index of an endpoint address (4.5.1): 2 x number, + 1 for IN. */
static uint8_t dci_of(uint8_t address)
{
	return (uint8_t)((address & 0xf) * 2 + (address & USB_EP_DIR_IN ? 1 : 0));
}

static void ep_ctx_fill(struct xhci *x, struct slot_state *s, uint8_t dci, unsigned type,
			uint16_t max)
{
	uint32_t *e = ctx(x, s->in_ctx, dci + 1);
	memset(e, 0, x->ctx_size);
	e[1] = EP_CTX_CERR(3) | EP_CTX_TYPE(type) | EP_CTX_MAX_PACKET(max);
	uint64_t deq = xhci_phys(s->ep[dci].trb) | EP_CTX_DCS;
	e[2] = (uint32_t)deq;
	e[3] = (uint32_t)(deq >> 32);
	e[4] = EP_CTX_AVG_TRB(PAGE_SIZE);
}

enum status xhci_bulk_config(struct xhci *x, unsigned slot, uint8_t in_ep, uint16_t in_max,
			     uint8_t out_ep, uint16_t out_max)
{
	struct slot_state *s = &x->slot[slot];
	s->in_dci = dci_of(in_ep);
	s->out_dci = dci_of(out_ep);
	if (!ring_init(&s->ep[s->in_dci]) || !ring_init(&s->ep[s->out_dci]))
		return STATUS_NO_MEMORY;
	memset(s->in_ctx, 0, PAGE_SIZE);
	uint8_t top = s->in_dci > s->out_dci ? s->in_dci : s->out_dci;
	ctx(x, s->in_ctx, 0)[1] = INPUT_ADD(0) | INPUT_ADD(s->in_dci) | INPUT_ADD(s->out_dci);
	/* the slot context as the controller has it, with the new last entry (6.2.2.2) */
	memcpy(ctx(x, s->in_ctx, 1), ctx(x, s->out_ctx, 0), x->ctx_size);
	uint32_t *sc = ctx(x, s->in_ctx, 1);
	sc[0] = (sc[0] & ~SLOT_CTX_ENTRIES(0x1f)) | SLOT_CTX_ENTRIES(top);
	sc[3] = 0;
	ep_ctx_fill(x, s, s->in_dci, EP_TYPE_BULK_IN, in_max);
	ep_ctx_fill(x, s, s->out_dci, EP_TYPE_BULK_OUT, out_max);
	struct xhci_trb ev;
	return (enum status)command(x, xhci_phys(s->in_ctx),
				    TRB_TYPE(TRB_CONFIGURE_EP) | TRB_SLOT(slot), &ev);
}

/* Normal TRBs, one per page (none crosses a 64 KiB boundary: 4.11.7.1), chained; the last
 * interrupts on completion. Without ISP a short packet is reported once, at the TD's last TRB
 * (4.10.1.1), with the TD's residue. */
long xhci_bulk(struct xhci *x, unsigned slot, bool in, void *buf, size_t len, bool *stalled)
{
	struct slot_state *s = &x->slot[slot];
	uint8_t dci = in ? s->in_dci : s->out_dci;
	struct ring *r = &s->ep[dci];
	uint64_t pa = xhci_phys(buf), last = 0;
	size_t left = len;
	do {
		size_t piece = PAGE_SIZE - (pa % PAGE_SIZE);
		if (piece > left)
			piece = left;
		left -= piece;
		last = ring_put(r, pa, (uint32_t)piece,
				TRB_TYPE(TRB_NORMAL) | (left ? TRB_CHAIN : TRB_IOC));
		pa += piece;
	} while (left);
	ring_doorbell(x, slot, dci);
	/* a short packet ends the TD early: its event names the TRB it stopped at (ISP) */
	struct xhci_trb ev;
	uint64_t end = tsc_deadline(XFER_TIMEOUT_US);
	*stalled = false;
	for (;;) {
		if (!event_wait(x, TRB_EV_TRANSFER, 0, &ev, 1000)) {
			if (tsc_passed(end)) {
				fmt_snprintf(x->error, sizeof(x->error),
					     "no bulk %s event within %u ms (port %u %s)",
					     in ? "IN" : "OUT", XFER_TIMEOUT_US / 1000, s->port,
					     xhci_port_alive(x, s->port) ? "still connected"
									 : "disconnected");
				return STATUS_TIMEOUT;
			}
			continue;
		}
		if (TRB_SLOT_OF(ev.control) != slot || TRB_EP_OF(ev.control) != dci)
			continue;
		unsigned code = TRB_CODE_OF(ev.status);
		if (code == XHCI_CC_SUCCESS && ev.param == last)
			return (long)(len - TRB_LEN_OF(ev.status));
		if (code == XHCI_CC_SHORT) /* the device sent less (IN): the residue is the TD's */
			return (long)(len - TRB_LEN_OF(ev.status));
		if (code == XHCI_CC_STALL)
			*stalled = true;
		fmt_snprintf(x->error, sizeof(x->error), "bulk %s: completion code %u%s",
			     in ? "IN" : "OUT", code, code == XHCI_CC_STALL ? " (stall)" : "");
		return STATUS_IO;
	}
}

/* A halted endpoint (4.6.8 "Reset Endpoint", 4.6.10 "Set TR Dequeue Pointer"): reset it, point
 * it at a fresh ring, and clear the device's halt (USB 2.0 9.4.1 CLEAR_FEATURE). */
enum status xhci_bulk_unstall(struct xhci *x, unsigned slot, bool in)
{
	struct slot_state *s = &x->slot[slot];
	uint8_t dci = in ? s->in_dci : s->out_dci;
	struct xhci_trb ev;
	int st = command(x, 0, TRB_TYPE(TRB_RESET_EP) | TRB_SLOT(slot) | TRB_EP(dci), &ev);
	if (st)
		return (enum status)st;
	struct ring *r = &s->ep[dci];
	memset(r->trb, 0, (RING_TRBS - 1) * sizeof(struct xhci_trb));
	r->trb[RING_TRBS - 1].control = TRB_TYPE(TRB_LINK) | TRB_TOGGLE;
	r->at = 0;
	r->cycle = 1;
	st = command(x, xhci_phys(r->trb) | EP_CTX_DCS,
		     TRB_TYPE(TRB_SET_TR_DEQ) | TRB_SLOT(slot) | TRB_EP(dci), &ev);
	if (st)
		return (enum status)st;
	uint8_t address = (uint8_t)((dci / 2) | (in ? USB_EP_DIR_IN : 0));
	struct usb_setup clear = {USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE, USB_FEATURE_HALT,
				  address, 0};
	return xhci_control(x, slot, &clear, NULL, 0) < 0 ? STATUS_IO : STATUS_OK;
}
