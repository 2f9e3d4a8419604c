/* SPDX-License-Identifier: MIT */
/*
 * The device the loader was read from (boot_info.boot_dev_*): the device path of the loaded
 * image's DeviceHandle (UEFI 2.10 10.2 "EFI Device Path Protocol"), walked node by node: PCI
 * nodes (10.3.2.1, type 1 subtype 1: Function, Device) and USB nodes (10.3.4.5, type 3 subtype
 * 5: Parent Port Number, Interface). The kernel's stick driver tries that controller and port
 * first (arch/x86/usb/stick.c).
 */
#include "boot/loader.h"

#define DP_HARDWARE  1
#define DP_HW_PCI    1
#define DP_MESSAGING 3
#define DP_MSG_USB   5
#define DP_END	     0x7f
#define DP_NODES_MAX 64

static EFI_GUID device_path_guid = DEVICE_PATH_PROTOCOL;

void loader_boot_device(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	EFI_DEVICE_PATH *dp = NULL;
	bi->boot_dev_kind = BOOT_DEV_UNKNOWN;
	if (EFI_ERROR(BS->HandleProtocol(ld->loaded_image->DeviceHandle, &device_path_guid,
					 (void **)&dp)) ||
	    !dp)
		return;
	bi->boot_dev_kind = BOOT_DEV_OTHER;
	const UINT8 *p = (const UINT8 *)dp;
	for (unsigned n = 0; n < DP_NODES_MAX && p[0] != DP_END; n++) {
		UINT16 len = (UINT16)(p[2] | p[3] << 8);
		if (len < 4)
			break;
		if (p[0] == DP_HARDWARE && p[1] == DP_HW_PCI && len >= 6 &&
		    bi->boot_dev_kind != BOOT_DEV_USB) {
			bi->boot_pci_fn = p[4];
			bi->boot_pci_dev = p[5];
		} else if (p[0] == DP_MESSAGING && p[1] == DP_MSG_USB && len >= 6 &&
			   bi->boot_usb_depth < BOOT_USB_DEPTH_MAX) {
			bi->boot_dev_kind = BOOT_DEV_USB;
			bi->boot_usb_ports[bi->boot_usb_depth++] = p[4];
		}
		p += len;
	}
	if (bi->boot_dev_kind == BOOT_DEV_USB)
		Print(L"" LOADER_TAG "booted from USB: PCI device %02x.%x, port %d%s\n",
		      bi->boot_pci_dev, bi->boot_pci_fn, bi->boot_usb_ports[0] + 1,
		      bi->boot_usb_depth > 1 ? L" (through a hub)" : L"");
}
