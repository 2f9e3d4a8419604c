/* SPDX-License-Identifier: MIT */
/*
 * The USB stick's hardware contract: the xHCI host controller's registers, rings and contexts
 * (eXtensible Host Controller Interface for Universal Serial Bus, revision 1.2, Intel, 2019:
 * "xHCI 1.2" below), USB 2.0's standard requests and descriptors (USB 2.0 chapter 9), the
 * Bulk-Only Transport of USB mass storage (USB Mass Storage Class Bulk-Only Transport 1.0:
 * "BOT"), and the SCSI commands a stick answers (SCSI Block Commands, SBC-3, and SPC-4).
 */
#ifndef ARCH_X86_HW_XHCI_REGS_H
#define ARCH_X86_HW_XHCI_REGS_H

#include <stdint.h>
#include "lib/bits.h"

/* ---- PCI (PCI Local Bus 3.0 6.1, 6.2.2; xHCI 1.2 5.2.1 "Class Code") ------------------------- */
#define PCI_CLASS_XHCI	 0x0c0330u /* serial bus, USB, xHCI: class code register bits 31:8 */
#define PCI_REG_ID	 0x00
#define PCI_REG_COMMAND	 0x04
#define PCI_REG_CLASS	 0x08
#define PCI_REG_HEADER	 0x0c /* header type: bits 23:16, multi-function bit 23 */
#define PCI_REG_BAR0	 0x10
#define PCI_CMD_MEMORY	 BIT(1)
#define PCI_CMD_MASTER	 BIT(2)
#define PCI_BAR_64	 0x4u /* memory BAR type bits 2:1 = 10b */
#define PCI_BAR_TYPE	 0x6u
#define PCI_BAR_MEM_MASK (~UINT64_C(0xf))
#define PCI_MULTI_FN	 BIT(23)

/* ---- capability registers (xHCI 1.2 5.3, Table 5-9) ------------------------------------------ */
#define XHCI_CAPLENGTH	       0x00 /* 8 bits */
#define XHCI_HCSPARAMS1	       0x04
#define XHCI_HCSPARAMS2	       0x08
#define XHCI_HCCPARAMS1	       0x10
#define XHCI_DBOFF	       0x14
#define XHCI_RTSOFF	       0x18
#define XHCI_HCS1_MAX_SLOTS(v) ((v)&0xffu)
#define XHCI_HCS1_MAX_PORTS(v) (((v) >> 24) & 0xffu)
/* Max Scratchpad Buffers: Hi bits 25:21, Lo bits 31:27 (5.3.4) */
#define XHCI_HCS2_SCRATCH(v) ((((v) >> 21) & 0x1fu) << 5 | (((v) >> 27) & 0x1fu))
#define XHCI_HCC1_CSZ	     BIT(2)		     /* 64-byte contexts (5.3.6) */
#define XHCI_HCC1_XECP(v)    (((v) >> 16) & 0xffffu) /* in 32-bit words */

/* ---- extended capabilities (xHCI 1.2 7.1 "USB Legacy Support Capability") -------------------- */
#define XHCI_XCAP_ID(v)	       ((v)&0xffu)
#define XHCI_XCAP_NEXT(v)      (((v) >> 8) & 0xffu) /* in 32-bit words; 0: last */
#define XHCI_XCAP_LEGACY       1
#define XHCI_LEGACY_BIOS_OWNED BIT(16)
#define XHCI_LEGACY_OS_OWNED   BIT(24)
#define XHCI_LEGACY_CTLSTS     4 /* USBLEGCTLSTS: SMI enables in bits 0, 4, 13-15 */
#define XHCI_LEGACY_SMI_MASK   (BIT(0) | BIT(4) | GENMASK(15, 13))

/* ---- operational registers (xHCI 1.2 5.4, Table 5-18) --------------------------------------- */
#define XHCI_USBCMD    0x00
#define XHCI_USBSTS    0x04
#define XHCI_PAGESIZE  0x08
#define XHCI_CRCR      0x18 /* 64 bits */
#define XHCI_DCBAAP    0x30 /* 64 bits */
#define XHCI_CONFIG    0x38
#define XHCI_PORTSC(n) (0x400 + 0x10 * ((n)-1)) /* ports count from 1 */
#define XHCI_CMD_RUN   BIT(0)
#define XHCI_CMD_HCRST BIT(1)
#define XHCI_STS_HCH   BIT(0)  /* halted */
#define XHCI_STS_HSE   BIT(2)  /* host system error */
#define XHCI_STS_CNR   BIT(11) /* controller not ready */
#define XHCI_STS_HCE   BIT(12) /* host controller error */
#define XHCI_CRCR_RCS  BIT(0)

/* PORTSC (5.4.8, Table 5-27). PED and the change bits 17-23 are write-1-to-clear: a write keeps
 * them 0 unless it means to clear one. */
#define XHCI_PORT_CCS	   BIT(0)
#define XHCI_PORT_PED	   BIT(1)
#define XHCI_PORT_PR	   BIT(4)
#define XHCI_PORT_PLS(v)   (((v) >> 5) & 0xfu)
#define XHCI_PORT_PP	   BIT(9)
#define XHCI_PORT_SPEED(v) (((v) >> 10) & 0xfu)
#define XHCI_PORT_CHANGES  GENMASK(23, 17)
#define XHCI_PORT_PRC	   BIT(21)
#define XHCI_SPEED_FULL	   1 /* Protocol Speed ID defaults (7.2.2.1.1, Table 7-13) */
#define XHCI_SPEED_LOW	   2
#define XHCI_SPEED_HIGH	   3
#define XHCI_SPEED_SUPER   4

/* ---- runtime registers (5.5): interrupter 0's at 0x20 (5.5.2) ------------------------------- */
#define XHCI_IR0_IMAN	0x20
#define XHCI_IR0_ERSTSZ 0x28
#define XHCI_IR0_ERSTBA 0x30   /* 64 bits */
#define XHCI_IR0_ERDP	0x38   /* 64 bits */
#define XHCI_ERDP_EHB	BIT(3) /* event handler busy: write 1 to clear */

/* ---- TRBs (4.11, 6.4) ----------------------------------------------------------------------- */
struct xhci_trb {
	uint64_t param;
	uint32_t status;
	uint32_t control;
};
_Static_assert(sizeof(struct xhci_trb) == 16, "xHCI 1.2 4.11: a TRB is 16 bytes");

#define TRB_CYCLE      BIT(0)
#define TRB_TOGGLE     BIT(1) /* Link TRB: toggle cycle (6.4.4.1) */
#define TRB_ISP	       BIT(2)
#define TRB_CHAIN      BIT(4)
#define TRB_IOC	       BIT(5)
#define TRB_IDT	       BIT(6)
#define TRB_TYPE(t)    ((uint32_t)(t) << 10)
#define TRB_TYPE_OF(c) (((c) >> 10) & 0x3fu)
#define TRB_DIR_IN     BIT(16)		     /* Data Stage and Status Stage TRBs */
#define TRB_TRT(t)     ((uint32_t)(t) << 16) /* Setup Stage: 0 none, 2 OUT, 3 IN */
#define TRB_SLOT(s)    ((uint32_t)(s) << 24)
#define TRB_SLOT_OF(c) (((c) >> 24) & 0xffu)
#define TRB_EP(e)      ((uint32_t)(e) << 16) /* Reset Endpoint, Set TR Dequeue */
#define TRB_EP_OF(c)   (((c) >> 16) & 0x1fu)
#define TRB_CODE_OF(s) ((s) >> 24)
#define TRB_LEN_OF(s)  ((s)&0xffffffu) /* a Transfer Event's residue */
#define TRB_TRT_OUT    2
#define TRB_TRT_IN     3

/* TRB types (6.4.6, Table 6-91) */
enum xhci_trb_type {
	TRB_NORMAL = 1,
	TRB_SETUP = 2,
	TRB_DATA = 3,
	TRB_STATUS = 4,
	TRB_LINK = 6,
	TRB_ENABLE_SLOT = 9,
	TRB_ADDRESS_DEVICE = 11,
	TRB_CONFIGURE_EP = 12,
	TRB_RESET_EP = 14,
	TRB_SET_TR_DEQ = 16,
	TRB_NOOP_CMD = 23,
	TRB_EV_TRANSFER = 32,
	TRB_EV_COMMAND = 33,
	TRB_EV_PORT = 34,
};

/* Completion codes (6.4.5, Table 6-90) */
enum xhci_code {
	XHCI_CC_SUCCESS = 1,
	XHCI_CC_TRANSACTION = 4,
	XHCI_CC_TRB = 5,
	XHCI_CC_STALL = 6,
	XHCI_CC_SHORT = 13,
};

/* Event Ring Segment Table entry (6.5, Table 6-93) */
struct xhci_erst {
	uint64_t base;
	uint32_t size; /* TRBs */
	uint32_t reserved;
};
_Static_assert(sizeof(struct xhci_erst) == 16, "xHCI 1.2 6.5: an ERST entry is 16 bytes");

/* ---- contexts (6.2): 32 bytes each, or 64 with HCCPARAMS1.CSZ -------------------------------- */
/* Slot Context (6.2.2, Figure 6-2) */
#define SLOT_CTX_SPEED(s)     ((uint32_t)(s) << 20)
#define SLOT_CTX_ENTRIES(n)   ((uint32_t)(n) << 27)
#define SLOT_CTX_ROOT_PORT(p) ((uint32_t)(p) << 16) /* dword 1 */
/* Endpoint Context (6.2.3, Figure 6-3) */
#define EP_CTX_CERR(n)	     ((uint32_t)(n) << 1) /* dword 1 */
#define EP_CTX_TYPE(t)	     ((uint32_t)(t) << 3)
#define EP_CTX_MAX_PACKET(n) ((uint32_t)(n) << 16)
#define EP_CTX_DCS	     BIT(0)	     /* dword 2: dequeue cycle state */
#define EP_CTX_AVG_TRB(n)    ((uint32_t)(n)) /* dword 4 */
enum xhci_ep_type { EP_TYPE_BULK_OUT = 2, EP_TYPE_CONTROL = 4, EP_TYPE_BULK_IN = 6 };
/* Input Control Context (6.2.5.1): drop flags dword 0, add flags dword 1 */
#define INPUT_ADD(dci) BIT(dci)

/* ---- USB 2.0 chapter 9: requests and descriptors -------------------------------------------- */
struct usb_setup {
	uint8_t type, request;
	uint16_t value, index, length;
} __attribute__((packed));
_Static_assert(sizeof(struct usb_setup) == 8, "USB 2.0 9.3: a setup packet is 8 bytes");

#define USB_DIR_IN	       0x80
#define USB_TYPE_CLASS	       0x20
#define USB_RECIP_INTERFACE    0x01
#define USB_RECIP_ENDPOINT     0x02
#define USB_REQ_CLEAR_FEATURE  1
#define USB_REQ_GET_DESCRIPTOR 6
#define USB_REQ_SET_CONFIG     9
#define USB_FEATURE_HALT       0
#define USB_DESC_DEVICE	       1
#define USB_DESC_CONFIG	       2
#define USB_DESC_INTERFACE     4
#define USB_DESC_ENDPOINT      5
#define USB_EP_DIR_IN	       0x80
#define USB_EP_XFER_BULK       2
#define USB_CLASS_MASS_STORAGE 8
#define USB_MSC_SCSI	       6    /* subclass: SCSI transparent command set */
#define USB_MSC_BOT	       0x50 /* protocol: Bulk-Only Transport */
#define USB_MSC_RESET	       0xff /* BOT 3.1 Bulk-Only Mass Storage Reset */

struct usb_device_desc {
	uint8_t length, type;
	uint16_t usb;
	uint8_t cls, subclass, protocol, max_packet0;
	uint16_t vendor, product, device;
	uint8_t manufacturer, product_str, serial, configs;
} __attribute__((packed));
_Static_assert(sizeof(struct usb_device_desc) == 18, "USB 2.0 Table 9-8");

struct usb_config_desc {
	uint8_t length, type;
	uint16_t total;
	uint8_t interfaces, value, name, attributes, max_power;
} __attribute__((packed));
_Static_assert(sizeof(struct usb_config_desc) == 9, "USB 2.0 Table 9-10");

struct usb_interface_desc {
	uint8_t length, type, number, alternate, endpoints, cls, subclass, protocol, name;
} __attribute__((packed));
_Static_assert(sizeof(struct usb_interface_desc) == 9, "USB 2.0 Table 9-12");

struct usb_endpoint_desc {
	uint8_t length, type, address, attributes;
	uint16_t max_packet;
	uint8_t interval;
} __attribute__((packed));
_Static_assert(sizeof(struct usb_endpoint_desc) == 7, "USB 2.0 Table 9-13");

/* ---- Bulk-Only Transport 1.0 (5.1 CBW, 5.2 CSW) --------------------------------------------- */
#define BOT_CBW_SIGNATURE 0x43425355u /* "USBC" */
#define BOT_CSW_SIGNATURE 0x53425355u /* "USBS" */
#define BOT_CBW_IN	  0x80
#define BOT_CSW_PASSED	  0
#define BOT_CSW_FAILED	  1
#define BOT_CSW_PHASE	  2

struct bot_cbw {
	uint32_t signature, tag, length;
	uint8_t flags, lun, cb_length;
	uint8_t cb[16];
} __attribute__((packed));
_Static_assert(sizeof(struct bot_cbw) == 31, "BOT 5.1: a CBW is 31 bytes");

struct bot_csw {
	uint32_t signature, tag, residue;
	uint8_t status;
} __attribute__((packed));
_Static_assert(sizeof(struct bot_csw) == 13, "BOT 5.2: a CSW is 13 bytes");

/* ---- SCSI (SPC-4 6.33 TEST UNIT READY, 6.27 REQUEST SENSE; SBC-3 5.16 READ CAPACITY (10),
 *      5.11 READ (10), 5.35 WRITE (10), 5.22 SYNCHRONIZE CACHE (10)) ----------------------------
 */
#define SCSI_TEST_UNIT_READY 0x00
#define SCSI_REQUEST_SENSE   0x03
#define SCSI_READ_CAPACITY10 0x25
#define SCSI_READ10	     0x28
#define SCSI_WRITE10	     0x2a
#define SCSI_SYNC_CACHE10    0x35
#define SCSI_SENSE_LEN	     18

#endif
