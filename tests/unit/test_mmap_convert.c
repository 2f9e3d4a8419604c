// UNIT-SOURCES: boot/mmap_convert.c
/*
 * UEFI memory map -> boot_mem_range (boot/mmap_convert.c): every EFI type's class, the
 * descriptor stride taken from DescriptorSize (OVMF uses 48, not sizeof = 40), attributes and
 * EFI types kept, capacity limits, sorting by address, and the highest range end used for the
 * identity map.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "boot/mmap_convert.h"

#define EFI_MEMORY_WB	   0x8ull
#define EFI_MEMORY_RUNTIME 0x8000000000000000ull
#define MAX_BYTES	   4096

static void type_classes(void **state)
{
	(void)state;
	static const uint32_t want[] = {
	    [EFI_MT_RESERVED] = BOOT_MEM_RESERVED,
	    [EFI_MT_LOADER_CODE] = BOOT_MEM_LOADER,
	    [EFI_MT_LOADER_DATA] = BOOT_MEM_LOADER,
	    [EFI_MT_BOOT_SERVICES_CODE] = BOOT_MEM_USABLE,
	    [EFI_MT_BOOT_SERVICES_DATA] = BOOT_MEM_USABLE,
	    [EFI_MT_RUNTIME_SERVICES_CODE] = BOOT_MEM_RESERVED,
	    [EFI_MT_RUNTIME_SERVICES_DATA] = BOOT_MEM_RESERVED,
	    [EFI_MT_CONVENTIONAL] = BOOT_MEM_USABLE,
	    [EFI_MT_UNUSABLE] = BOOT_MEM_BAD,
	    [EFI_MT_ACPI_RECLAIM] = BOOT_MEM_ACPI_RECLAIM,
	    [EFI_MT_ACPI_NVS] = BOOT_MEM_ACPI_NVS,
	    [EFI_MT_MMIO] = BOOT_MEM_MMIO,
	    [EFI_MT_MMIO_PORT_SPACE] = BOOT_MEM_MMIO,
	    [EFI_MT_PAL_CODE] = BOOT_MEM_RESERVED,
	    [EFI_MT_PERSISTENT] = BOOT_MEM_PERSISTENT,
	};
	for (uint32_t t = 0; t < sizeof(want) / sizeof(want[0]); t++)
		assert_int_equal(mmap_boot_type(t), want[t]);
	/* unaccepted memory (15), OEM and OS-loader ranges, garbage: reserved */
	assert_int_equal(mmap_boot_type(15), BOOT_MEM_RESERVED);
	assert_int_equal(mmap_boot_type(0x70000000), BOOT_MEM_RESERVED);
	assert_int_equal(mmap_boot_type(0x80000001), BOOT_MEM_RESERVED);
	assert_int_equal(mmap_boot_type(UINT32_MAX), BOOT_MEM_RESERVED);
}

/* Writes descriptors into buf with the given stride, filling the stride's tail with junk. */
static size_t put_descs(uint8_t *buf, size_t stride, const struct efi_mem_desc *d, size_t n)
{
	memset(buf, 0x5a, MAX_BYTES);
	for (size_t i = 0; i < n; i++)
		memcpy(buf + i * stride, &d[i], sizeof(d[i]));
	return n * stride;
}

static const struct efi_mem_desc sample[] = {
    {EFI_MT_CONVENTIONAL, 0, 0x0, 0, 0x9e, EFI_MEMORY_WB},
    {EFI_MT_LOADER_DATA, 0, 0x9e000, 0, 1, EFI_MEMORY_WB},
    {EFI_MT_ACPI_NVS, 0, 0x806000, 0, 2, EFI_MEMORY_WB},
    {EFI_MT_RUNTIME_SERVICES_DATA, 0, 0x1f000000, 0x1f000000, 0x10,
     EFI_MEMORY_WB | EFI_MEMORY_RUNTIME},
    {EFI_MT_MMIO, 0, 0xffc00000, 0, 0x400, EFI_MEMORY_RUNTIME | 1},
    {EFI_MT_PERSISTENT, 0, 0x100000000ull, 0, 0x40000, EFI_MEMORY_WB},
};
#define NSAMPLE (sizeof(sample) / sizeof(sample[0]))

static void check_converted(const struct boot_mem_range *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(r[i].phys, sample[i].phys_start);
		assert_int_equal(r[i].pages, sample[i].pages);
		assert_int_equal(r[i].attr, sample[i].attr);
		assert_int_equal(r[i].efi_type, sample[i].type);
		assert_int_equal(r[i].type, mmap_boot_type(sample[i].type));
	}
}

static void converts_with_any_stride(void **state)
{
	(void)state;
	static uint8_t buf[MAX_BYTES];
	/* 40 = sizeof, 48 = OVMF, 52 = a stride that breaks 8-byte alignment, 64 = roomy */
	static const size_t strides[] = {40, 48, 52, 64};
	for (size_t s = 0; s < sizeof(strides) / sizeof(strides[0]); s++) {
		struct boot_mem_range out[NSAMPLE + 2];
		size_t total = 0, size = put_descs(buf, strides[s], sample, NSAMPLE);
		memset(out, 0xee, sizeof(out));
		assert_int_equal(mmap_convert(buf, size, strides[s], out, NSAMPLE + 2, &total),
				 NSAMPLE);
		assert_int_equal(total, NSAMPLE);
		check_converted(out, NSAMPLE);
		assert_int_equal(out[NSAMPLE].phys, 0xeeeeeeeeeeeeeeeeull); /* nothing beyond */
		/* a trailing partial descriptor is not one */
		assert_int_equal(
		    mmap_convert(buf, size + strides[s] - 1, strides[s], out, NSAMPLE + 2, &total),
		    NSAMPLE);
	}
	assert_int_equal(mmap_boot_type(sample[0].type), BOOT_MEM_USABLE);
}

static void capacity_and_bad_stride(void **state)
{
	(void)state;
	static uint8_t buf[MAX_BYTES];
	struct boot_mem_range out[NSAMPLE];
	size_t total = 0, size = put_descs(buf, 48, sample, NSAMPLE);
	assert_int_equal(mmap_convert(buf, size, 48, out, 3, &total), 3);
	assert_int_equal(total, NSAMPLE); /* the caller can tell it was cut */
	check_converted(out, 3);
	assert_int_equal(mmap_convert(buf, size, 48, out, 0, NULL), 0);
	assert_int_equal(mmap_convert(buf, size, 32, out, NSAMPLE, &total), 0);
	assert_int_equal(total, 0);
	assert_int_equal(mmap_convert(buf, 0, 48, out, NSAMPLE, &total), 0);
	assert_int_equal(mmap_convert(buf, size, 0, out, NSAMPLE, &total), 0);
}

static void highest_end(void **state)
{
	(void)state;
	static uint8_t buf[MAX_BYTES];
	size_t size = put_descs(buf, 48, sample, NSAMPLE);
	assert_int_equal(mmap_highest_end(buf, size, 48), 0x100000000ull + 0x40000ull * 4096);
	size = put_descs(buf, 48, sample, 4); /* without MMIO and persistent memory */
	assert_int_equal(mmap_highest_end(buf, size, 48), 0x1f010000);
	assert_int_equal(mmap_highest_end(buf, 0, 48), 0);
	const struct efi_mem_desc huge[] = {
	    {EFI_MT_RESERVED, 0, 0xfffffffffffff000ull, 0, 2, 0}, /* wraps: saturates */
	};
	size = put_descs(buf, 40, huge, 1);
	assert_int_equal(mmap_highest_end(buf, size, 40), UINT64_MAX);
}

static void sorts_by_address(void **state)
{
	(void)state;
	struct boot_mem_range r[] = {
	    {0x100000000ull, 0x40000, 1, BOOT_MEM_USABLE, EFI_MT_CONVENTIONAL},
	    {0x0, 0x9e, 2, BOOT_MEM_USABLE, EFI_MT_CONVENTIONAL},
	    {0xffc00000, 0x400, 3, BOOT_MEM_MMIO, EFI_MT_MMIO},
	    {0x9e000, 1, 4, BOOT_MEM_LOADER, EFI_MT_LOADER_DATA},
	    {0x9e000, 0, 5, BOOT_MEM_RESERVED, EFI_MT_RESERVED}, /* equal start: order kept */
	};
	static const uint64_t want_attr[] = {2, 4, 5, 3, 1};
	mmap_sort(r, 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(r[i].attr, want_attr[i]);
		if (i)
			assert_true(r[i - 1].phys <= r[i].phys);
	}
	mmap_sort(r, 0);
	mmap_sort(r, 1);
	assert_int_equal(r[0].phys, 0);
}

/* Where the loader puts the kernel: the highest 2 MiB boundary in one free range (type 7,
 * EfiConventionalMemory: UEFI 2.10 Table 7-6) that holds the whole image; what is free. */
static void fits_aligned_in_one_free_range(void **state)
{
	(void)state;
	static uint8_t buf[MAX_BYTES];
	const uint64_t mib = 1ull << 20;
	const struct efi_mem_desc map[] = {
	    {EFI_MT_CONVENTIONAL, 0, 0x0, 0, 0x9f, EFI_MEMORY_WB},		/* 636 KiB at 0 */
	    {EFI_MT_CONVENTIONAL, 0, 0x100000, 0, 0x1f00, EFI_MEMORY_WB},	/* 1-32 MiB */
	    {EFI_MT_BOOT_SERVICES_DATA, 0, 0x2000000, 0, 0x800, EFI_MEMORY_WB}, /* not free */
	    /* 40 MiB + 4 KiB to 60 MiB: 20 MiB less a page, 18 MiB from a 2 MiB boundary */
	    {EFI_MT_CONVENTIONAL, 0, 0x2801000, 0, 0x13ff, EFI_MEMORY_WB},
	    {EFI_MT_LOADER_DATA, 0, 0x3c00000, 0, 0x100, EFI_MEMORY_WB},
	};
	size_t size = put_descs(buf, 48, map, 5);
	struct mmap_fit f;
	/* 14 MiB: fits in both big ranges; the highest place ends at 60 MiB, at 46 MiB */
	mmap_fit_aligned(buf, size, 48, 14 * mib, 2 * mib, &f);
	assert_int_equal(f.addr, 46 * mib);
	assert_int_equal(f.free_bytes, (0x9full + 0x1f00 + 0x13ff) * 4096);
	assert_int_equal(f.largest_bytes, 0x1f00ull * 4096);
	/* 18 MiB: only 42-60 MiB of the third range (40 MiB + 4 KiB is not a boundary) */
	mmap_fit_aligned(buf, size, 48, 18 * mib, 2 * mib, &f);
	assert_int_equal(f.addr, 42 * mib);
	/* 20 MiB: the third range is a page short; 1-32 MiB holds it, highest at 12 MiB */
	mmap_fit_aligned(buf, size, 48, 20 * mib, 2 * mib, &f);
	assert_int_equal(f.addr, 12 * mib);
	/* 30 MiB: 1-32 MiB holds 31 MiB, but from 2 MiB only 30 MiB: at 2 MiB */
	mmap_fit_aligned(buf, size, 48, 30 * mib, 2 * mib, &f);
	assert_int_equal(f.addr, 2 * mib);
	mmap_fit_aligned(buf, size, 48, 32 * mib, 2 * mib, &f);
	assert_int_equal(f.addr, 0);
	/* page 0 is never offered, even where a range from 0 holds the bytes */
	mmap_fit_aligned(buf, put_descs(buf, 48, map, 1), 48, 0x9f000, 4096, &f);
	assert_int_equal(f.addr, 0);
	assert_int_equal(f.free_bytes, 0x9f000);
	/* no map, or a stride below the descriptor: nothing free */
	mmap_fit_aligned(buf, 0, 48, 4096, 4096, &f);
	assert_int_equal(f.free_bytes, 0);
	mmap_fit_aligned(buf, size, 32, 4096, 4096, &f);
	assert_int_equal(f.largest_bytes, 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(type_classes),
    cmocka_unit_test(converts_with_any_stride),
    cmocka_unit_test(capacity_and_bad_stride),
    cmocka_unit_test(highest_end),
    cmocka_unit_test(sorts_by_address),
    cmocka_unit_test(fits_aligned_in_one_free_range),
};
UNIT_MAIN(tests)
