/* SPDX-License-Identifier: MIT */
/* A GPT with an EFI System Partition and a trace partition (gpt.h; UEFI 2.10 5.2.3, 5.3). */
#include "lib/gpt.h"
#include <stdbool.h>
#include "lib/crc32.h"
#include "lib/string.h"
#include "lib/trace_part.h"

#define MBR_PART_OFFSET	 446
#define MBR_TYPE_GPT	 0xee /* protective MBR partition type */
#define MBR_SIGNATURE	 0xaa55
#define GPT_REVISION_1_0 0x00010000u
#define GPT_NAME_CHARS	 36 /* UTF-16LE */

/* EFI System Partition type C12A7328-F81F-11D2-BA4B-00A0C93EC93B, as stored on disk (the
 * first three fields little-endian: UEFI 2.10 Appendix A "GUID and Time Formats"). */
static const uint8_t esp_type[16] = {0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8, 0xd2, 0x11,
				     0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b};
static const char gpt_signature[8] = {'E', 'F', 'I', ' ', 'P', 'A', 'R', 'T'};

struct gpt_header {
	char signature[8];
	uint32_t revision, header_size, header_crc32, reserved;
	uint64_t my_lba, alternate_lba, first_usable_lba, last_usable_lba;
	uint8_t disk_guid[16];
	uint64_t entries_lba;
	uint32_t entries, entry_size, entries_crc32;
} __attribute__((packed));
_Static_assert(sizeof(struct gpt_header) == GPT_HEADER_SIZE, "GPT header: 92 bytes (Table 5-5)");

struct gpt_entry {
	uint8_t type_guid[16], part_guid[16];
	uint64_t first_lba, last_lba, attributes;
	uint16_t name[GPT_NAME_CHARS];
} __attribute__((packed));
_Static_assert(sizeof(struct gpt_entry) == GPT_ENTRY_SIZE, "GPT entry: 128 bytes (Table 5-6)");

struct mbr_part {
	uint8_t status, chs_first[3], type, chs_last[3];
	uint32_t first_lba, sectors;
} __attribute__((packed));
_Static_assert(sizeof(struct mbr_part) == 16, "MBR partition record: 16 bytes (Table 5-4)");

static void put_header(uint8_t *at, const struct gpt_header *h)
{
	struct gpt_header c = *h;
	c.header_crc32 = 0;
	c.header_crc32 = crc32(&c, GPT_HEADER_SIZE);
	memset(at, 0, GPT_SECTOR);
	memcpy(at, &c, GPT_HEADER_SIZE);
}

static void put_entry(uint8_t *at, const uint8_t type[16], const uint8_t guid[16], uint64_t first,
		      uint64_t last, const char *name)
{
	struct gpt_entry e = {.first_lba = first, .last_lba = last};
	memcpy(e.type_guid, type, 16);
	memcpy(e.part_guid, guid, 16);
	for (unsigned i = 0; i < GPT_NAME_CHARS && name[i]; i++)
		e.name[i] = (uint16_t)(uint8_t)name[i];
	memcpy(at, &e, sizeof(e));
}

int gpt_make(uint64_t disk_sectors, struct gpt_layout *l,
	     uint8_t head[GPT_HEAD_SECTORS * GPT_SECTOR],
	     uint8_t tail[GPT_TAIL_SECTORS * GPT_SECTOR])
{
	if (disk_sectors < GPT_MIN_DISK_SECTORS)
		return -1;
	uint64_t last_lba = disk_sectors - 1, last_usable = last_lba - GPT_TAIL_SECTORS;
	l->esp_first = GPT_ESP_FIRST_LBA;
	l->esp_last = last_usable;
	l->trace_first = l->trace_last = 0;
	if (l->trace_sectors) {
		if (l->trace_sectors > last_usable + 1)
			return -1;
		/* the trace partition's start: a 1 MiB boundary at or below last_usable + 1 - size
		 */
		uint64_t first =
		    (last_usable + 1 - l->trace_sectors) / GPT_ALIGN_SECTORS * GPT_ALIGN_SECTORS;
		if (first < GPT_ESP_FIRST_LBA + 64)
			return -1;
		l->trace_first = first;
		l->trace_last = last_usable;
		l->esp_last = first - 1;
	}
	memset(head, 0, GPT_HEAD_SECTORS * GPT_SECTOR);
	memset(tail, 0, GPT_TAIL_SECTORS * GPT_SECTOR);
	/* Protective MBR: one partition of type EEH from LBA 1 over the rest of the disk (its
	 * size saturates at 0xFFFFFFFF), CHS fields as the specification gives them. */
	struct mbr_part pm = {.status = 0,
			      .chs_first = {0x00, 0x02, 0x00},
			      .type = MBR_TYPE_GPT,
			      .chs_last = {0xff, 0xff, 0xff},
			      .first_lba = 1};
	pm.sectors = last_lba > 0xffffffffu ? 0xffffffffu : (uint32_t)last_lba;
	memcpy(head + MBR_PART_OFFSET, &pm, sizeof(pm));
	head[GPT_SECTOR - 2] = MBR_SIGNATURE & 0xff;
	head[GPT_SECTOR - 1] = MBR_SIGNATURE >> 8;
	/* The entries: the ESP, the trace partition, the rest zero (unused). */
	uint8_t *entries = head + 2 * GPT_SECTOR;
	put_entry(entries, esp_type, l->esp_guid, l->esp_first, l->esp_last, "baretrace");
	if (l->trace_sectors)
		put_entry(entries + GPT_ENTRY_SIZE, trace_part_type, l->trace_guid, l->trace_first,
			  l->trace_last, "baretrace trace");
	memcpy(tail, entries, GPT_ENTRY_SECTORS * GPT_SECTOR);
	uint32_t entries_crc = crc32(entries, GPT_ENTRIES * GPT_ENTRY_SIZE);
	struct gpt_header h = {.revision = GPT_REVISION_1_0,
			       .header_size = GPT_HEADER_SIZE,
			       .my_lba = 1,
			       .alternate_lba = last_lba,
			       .first_usable_lba = GPT_HEAD_SECTORS,
			       .last_usable_lba = last_usable,
			       .entries_lba = 2,
			       .entries = GPT_ENTRIES,
			       .entry_size = GPT_ENTRY_SIZE,
			       .entries_crc32 = entries_crc};
	memcpy(h.signature, gpt_signature, sizeof(h.signature));
	memcpy(h.disk_guid, l->disk_guid, 16);
	put_header(head + GPT_SECTOR, &h);
	/* The backup: its header in the last LBA, its entries just before it. */
	h.my_lba = last_lba;
	h.alternate_lba = 1;
	h.entries_lba = last_lba - GPT_ENTRY_SECTORS;
	put_header(tail + GPT_ENTRY_SECTORS * GPT_SECTOR, &h);
	return 0;
}

/* ---- reading (UEFI 2.10 5.3.2 "GPT Header": the checks a reader makes) ---------------------- */

static bool header_ok(const uint8_t *sector, struct gpt_header *h)
{
	memcpy(h, sector, sizeof(*h));
	if (memcmp(h->signature, gpt_signature, sizeof(h->signature)) ||
	    h->header_size < GPT_HEADER_SIZE || h->header_size > GPT_SECTOR)
		return false;
	uint8_t copy[GPT_SECTOR];
	memcpy(copy, sector, h->header_size);
	memset(copy + 16, 0, 4); /* HeaderCRC32 counts as 0 (Table 5-5) */
	return crc32(copy, h->header_size) == h->header_crc32;
}

enum gpt_result gpt_read_header(const uint8_t *sector, struct gpt_found *f, uint64_t *bytes)
{
	struct gpt_header h;
	if (!header_ok(sector, &h))
		return GPT_NO_TABLE;
	uint64_t n = (uint64_t)h.entries * h.entry_size;
	if (h.entry_size < GPT_ENTRY_SIZE || h.entry_size % GPT_ENTRY_SIZE || !n ||
	    n > GPT_ENTRIES_MAX_BYTES)
		return GPT_BAD_ENTRIES;
	f->entries_lba = h.entries_lba;
	f->entries = h.entries;
	f->entry_size = h.entry_size;
	*bytes = n;
	return GPT_OK;
}

enum gpt_result gpt_find(const uint8_t *sector, const uint8_t *entries, const uint8_t type_guid[16],
			 struct gpt_found *f)
{
	struct gpt_header h;
	uint64_t bytes;
	enum gpt_result r = gpt_read_header(sector, f, &bytes);
	if (r != GPT_OK)
		return r;
	memcpy(&h, sector, sizeof(h));
	if (crc32(entries, bytes) != h.entries_crc32)
		return GPT_BAD_ENTRIES;
	for (uint32_t i = 0; i < h.entries; i++) {
		struct gpt_entry e;
		memcpy(&e, entries + (uint64_t)i * h.entry_size, sizeof(e));
		if (memcmp(e.type_guid, type_guid, 16))
			continue;
		if (e.first_lba > e.last_lba || e.first_lba < h.first_usable_lba ||
		    e.last_lba > h.last_usable_lba)
			return GPT_BAD_BOUNDS;
		f->first_lba = e.first_lba;
		f->last_lba = e.last_lba;
		memcpy(f->part_guid, e.part_guid, 16);
		return GPT_OK;
	}
	return GPT_NOT_FOUND;
}

const char *gpt_result_name(enum gpt_result r)
{
	switch (r) {
	case GPT_OK:
		return "found";
	case GPT_NO_TABLE:
		return "no GUID partition table (no 'EFI PART' header with a good CRC at LBA 1)";
	case GPT_BAD_ENTRIES:
		return "the partition entry array's size or CRC-32 is wrong";
	case GPT_NOT_FOUND:
		return "no trace partition (type " TRACE_PART_TYPE_TEXT ")";
	case GPT_BAD_BOUNDS:
		return "the partition's LBAs lie outside the disk's usable ones";
	}
	return "?";
}
