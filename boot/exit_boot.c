/* SPDX-License-Identifier: MIT */
/*
 * The memory map and ExitBootServices.
 *
 * Buffers first: the EFI map buffer and the boot_mem_range array are allocated (EfiLoaderData)
 * before the final GetMemoryMap, sized from the firmware's answer with generous slack: twice
 * the reported size plus MAP_SLACK_DESCRIPTORS descriptors, because every allocation and
 * print may add descriptors. The range array has one entry per descriptor the map buffer can
 * hold, so whatever map GetMemoryMap accepts converts without truncation. If a GetMemoryMap
 * still says EFI_BUFFER_TOO_SMALL before ExitBootServices was ever attempted, the buffers are
 * reallocated larger.
 *
 * Then the standard loop: GetMemoryMap -> ExitBootServices(MapKey); EFI_INVALID_PARAMETER
 * means the map changed (an event allocated), so fetch it again and retry, up to
 * EBS_MAX_TRIES. After the first attempt nothing may allocate or print (boot services may be
 * half gone): errors go through loader_fail_late.
 */
#include "boot/loader.h"
#include "boot/mmap_convert.h"

#define MAP_SLACK_DESCRIPTORS 64
#define MAP_GROWTH_FACTOR     2
#define MAP_REALLOC_TRIES     4
#define EBS_MAX_TRIES	      8

_Static_assert(sizeof(struct efi_mem_desc) == sizeof(EFI_MEMORY_DESCRIPTOR),
	       "mmap_convert's descriptor matches gnu-efi's");
_Static_assert(__builtin_offsetof(struct efi_mem_desc, attr) ==
		   __builtin_offsetof(EFI_MEMORY_DESCRIPTOR, Attribute),
	       "descriptor attribute offset");

EFI_STATUS loader_alloc_pages(UINTN pages, EFI_PHYSICAL_ADDRESS *addr)
{
	*addr = 0;
	return BS->AllocatePages(AllocateAnyPages, EfiLoaderData, pages, addr);
}

static void free_buffers(struct loader *ld)
{
	if (ld->map)
		BS->FreePages((EFI_PHYSICAL_ADDRESS)(UINTN)ld->map, PAGES(ld->map_capacity));
	if (ld->ranges)
		BS->FreePages((EFI_PHYSICAL_ADDRESS)(UINTN)ld->ranges,
			      PAGES(ld->ranges_capacity * sizeof(struct boot_mem_range)));
	ld->map = NULL;
	ld->ranges = NULL;
	ld->map_capacity = 0;
	ld->ranges_capacity = 0;
}

/* (Re)allocates both buffers for a map the firmware says needs `need` bytes. */
static EFI_STATUS alloc_buffers(struct loader *ld, UINTN need, UINTN desc_size)
{
	EFI_PHYSICAL_ADDRESS map, ranges;
	if (desc_size < sizeof(EFI_MEMORY_DESCRIPTOR)) {
		Print(L"" LOADER_TAG "error: memory descriptor size %ld is below %ld\n",
		      (UINT64)desc_size, (UINT64)sizeof(EFI_MEMORY_DESCRIPTOR));
		return EFI_UNSUPPORTED;
	}
	free_buffers(ld);
	UINTN capacity = need * MAP_GROWTH_FACTOR + MAP_SLACK_DESCRIPTORS * desc_size;
	capacity = PAGES(capacity) * PAGE_SIZE;
	size_t entries = capacity / desc_size;
	EFI_STATUS st = loader_alloc_pages(PAGES(capacity), &map);
	if (EFI_ERROR(st))
		return st;
	st = loader_alloc_pages(PAGES(entries * sizeof(struct boot_mem_range)), &ranges);
	if (EFI_ERROR(st)) {
		BS->FreePages(map, PAGES(capacity));
		return st;
	}
	ld->map = (EFI_MEMORY_DESCRIPTOR *)(UINTN)map;
	ld->map_capacity = capacity;
	ld->ranges = (struct boot_mem_range *)(UINTN)ranges;
	ld->ranges_capacity = entries;
	return EFI_SUCCESS;
}

/* GetMemoryMap into ld->map; grows the buffers on EFI_BUFFER_TOO_SMALL while that is allowed. */
static EFI_STATUS get_map(struct loader *ld)
{
	for (int grow = 0;; grow++) {
		UINTN size = ld->map_capacity;
		EFI_STATUS st = BS->GetMemoryMap(&size, ld->map, &ld->map_key, &ld->desc_size,
						 &ld->desc_version);
		if (st == EFI_SUCCESS) {
			ld->map_size = size;
			return st;
		}
		if (st != EFI_BUFFER_TOO_SMALL || ld->boot_services_gone ||
		    grow >= MAP_REALLOC_TRIES)
			return st;
		st = alloc_buffers(ld, size, ld->desc_size);
		if (EFI_ERROR(st))
			return st;
	}
}

EFI_STATUS loader_prepare_memory_map(struct loader *ld)
{
	EFI_STATUS st = get_map(ld);
	if (EFI_ERROR(st))
		Print(L"" LOADER_TAG "error: GetMemoryMap (buffer %ld bytes): %r\n",
		      (UINT64)ld->map_capacity, st);
	return st;
}

EFI_STATUS loader_exit_boot_services(struct loader *ld)
{
	struct boot_info *bi = ld->bi;
	uint32_t tries = 0;
	for (;;) {
		EFI_STATUS st = get_map(ld);
		if (EFI_ERROR(st)) {
			if (ld->boot_services_gone)
				loader_fail_late(ld, st,
						 "GetMemoryMap after ExitBootServices failed");
			Print(L"" LOADER_TAG "error: final GetMemoryMap (buffer %ld bytes): %r\n",
			      (UINT64)ld->map_capacity, st);
			return st;
		}
		tries++;
		ld->boot_services_gone = 1;
		st = BS->ExitBootServices(ld->image, ld->map_key);
		if (st == EFI_SUCCESS)
			break;
		if (st != EFI_INVALID_PARAMETER || tries >= EBS_MAX_TRIES)
			loader_fail_late(ld, st, "ExitBootServices");
	}
	bi->exit_boot_services_tries = tries;

	size_t total;
	size_t n = mmap_convert(ld->map, ld->map_size, ld->desc_size, ld->ranges,
				ld->ranges_capacity, &total);
	if (n < total) /* cannot happen: the array holds as many entries as the map buffer */
		loader_fail_late(ld, EFI_BUFFER_TOO_SMALL,
				 "memory map larger than its range array");
	mmap_sort(ld->ranges, n); /* firmware order is not address order (e.g. RAM above 4 GiB) */
	bi->mmap = (uint64_t)(UINTN)ld->ranges;
	bi->mmap_count = (uint32_t)n;
	return EFI_SUCCESS;
}
