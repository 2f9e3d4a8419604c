// UNIT-SOURCES: lib/gpt.c lib/trace_part.c lib/crc32.c lib/string.c
/*
 * lib/gpt.c's reader and lib/trace_part.c's blocks. The table is the writer's (whose layout
 * tests/qemu/usb.t checks against util-linux's partx and zlib's CRC-32): here every single-bit
 * flip of the header or of the entry array is refused (UEFI 2.10 5.3.2: "If the CRC of the
 * GPT header or the partition entry array is not correct, the GPT is not valid"), a partition
 * outside the usable LBAs is refused, and a table without a trace partition says so. The trace
 * partition's blocks: magic and CRC checked, every single-bit flip refused.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "lib/crc32.h"
#include "lib/gpt.h"
#include "lib/trace_part.h"

static uint8_t head[GPT_HEAD_SECTORS * GPT_SECTOR], tail[GPT_TAIL_SECTORS * GPT_SECTOR];

static void make(uint64_t disk, uint64_t trace, struct gpt_layout *l)
{
	memset(l, 0, sizeof(*l));
	memset(l->trace_guid, 0x5a, 16);
	l->trace_sectors = trace;
	assert_int_equal(gpt_make(disk, l, head, tail), 0);
}

static void finds_trace_partition(void **state)
{
	(void)state;
	struct gpt_layout l;
	struct gpt_found f;
	uint64_t bytes;
	make(1u << 20, 448u * 2048, &l);
	assert_int_equal(gpt_read_header(head + GPT_SECTOR, &f, &bytes), GPT_OK);
	assert_int_equal(f.entries_lba, 2);
	assert_int_equal(bytes, GPT_ENTRIES * GPT_ENTRY_SIZE);
	assert_int_equal(gpt_find(head + GPT_SECTOR, head + 2 * GPT_SECTOR, trace_part_type, &f),
			 GPT_OK);
	assert_int_equal(f.first_lba, l.trace_first);
	assert_int_equal(f.last_lba, (1u << 20) - 34);
	assert_int_equal(f.first_lba % 2048, 0);
	assert_memory_equal(f.part_guid, l.trace_guid, 16);
	make(1u << 20, 0, &l);
	assert_int_equal(gpt_find(head + GPT_SECTOR, head + 2 * GPT_SECTOR, trace_part_type, &f),
			 GPT_NOT_FOUND);
	/* too large for the disk: refused */
	memset(&l, 0, sizeof(l));
	l.trace_sectors = 1u << 20;
	assert_int_equal(gpt_make(1u << 20, &l, head, tail), -1);
}

static void every_flip_refused(void **state)
{
	(void)state;
	struct gpt_layout l;
	struct gpt_found f;
	make(1u << 16, 2048, &l);
	for (unsigned bit = 0; bit < GPT_HEADER_SIZE * 8; bit++) {
		head[GPT_SECTOR + bit / 8] ^= (uint8_t)(1u << (bit % 8));
		enum gpt_result r =
		    gpt_find(head + GPT_SECTOR, head + 2 * GPT_SECTOR, trace_part_type, &f);
		assert_int_not_equal(r, GPT_OK);
		head[GPT_SECTOR + bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	/* the two used entries */
	for (unsigned bit = 0; bit < 2 * GPT_ENTRY_SIZE * 8; bit += 7) {
		head[2 * GPT_SECTOR + bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_equal(
		    gpt_find(head + GPT_SECTOR, head + 2 * GPT_SECTOR, trace_part_type, &f),
		    GPT_BAD_ENTRIES);
		head[2 * GPT_SECTOR + bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}

/* The partition's last LBA past the last usable one, with the entry array's CRC made good. */
static void bounds_refused(void **state)
{
	(void)state;
	struct gpt_layout l;
	struct gpt_found f;
	make(1u << 16, 2048, &l);
	uint8_t *e = head + 2 * GPT_SECTOR + GPT_ENTRY_SIZE;
	uint64_t last = (1u << 16) - 33; /* the first LBA of the backup entries */
	memcpy(e + 40, &last, 8);	 /* EndingLBA (Table 5-6: offset 40) */
	uint32_t ecrc = crc32(head + 2 * GPT_SECTOR, GPT_ENTRIES * GPT_ENTRY_SIZE);
	memcpy(head + GPT_SECTOR + 88, &ecrc, 4); /* PartitionEntryArrayCRC32 (Table 5-5: 88) */
	memset(head + GPT_SECTOR + 16, 0, 4);
	uint32_t hcrc = crc32(head + GPT_SECTOR, GPT_HEADER_SIZE);
	memcpy(head + GPT_SECTOR + 16, &hcrc, 4);
	assert_int_equal(gpt_find(head + GPT_SECTOR, head + 2 * GPT_SECTOR, trace_part_type, &f),
			 GPT_BAD_BOUNDS);
}

static void blocks(void **state)
{
	(void)state;
	struct trace_part_head h;
	struct trace_part_commit c;
	trace_part_head_make(&h, 7, 1000, "abcd", "trace=bts");
	assert_true(trace_part_head_ok(&h));
	assert_memory_equal(h.magic, "BTTRACE1", 8);
	assert_string_equal(h.options, "trace=bts");
	trace_part_commit_make(&c, 7, TRACE_PART_COMPLETE, 1234, 5, 0xdeadbeef);
	assert_true(trace_part_commit_ok(&c));
	assert_memory_equal(c.magic, "BTCOMMIT", 8);
	for (unsigned bit = 0; bit < TRACE_PART_SECTOR * 8; bit++) {
		((uint8_t *)&h)[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		((uint8_t *)&c)[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_false(trace_part_head_ok(&h));
		assert_false(trace_part_commit_ok(&c));
		((uint8_t *)&h)[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		((uint8_t *)&c)[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	assert_int_equal(trace_part_capacity(1000), 998 * 512);
	assert_int_equal(trace_part_capacity(1), 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(finds_trace_partition),
    cmocka_unit_test(every_flip_refused),
    cmocka_unit_test(bounds_refused),
    cmocka_unit_test(blocks),
};
UNIT_MAIN(tests)
