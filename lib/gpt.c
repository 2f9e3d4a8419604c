/* SPDX-License-Identifier: MIT */
/* A GPT with one EFI System Partition (gpt.h; UEFI 2.10 5.2.3, 5.3). */
#include "lib/gpt.h"
#include "lib/crc32.h"
#include "lib/string.h"

#define MBR_PART_OFFSET	 446
#define MBR_TYPE_GPT	 0xee /* protective MBR partition type */
#define MBR_SIGNATURE	 0xaa55
#define GPT_REVISION_1_0 0x00010000u
#define GPT_HEADER_SIZE	 92
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

int gpt_make(uint64_t disk_sectors, const uint8_t disk_guid[16], const uint8_t part_guid[16],
	     const char *name, uint8_t head[GPT_HEAD_SECTORS * GPT_SECTOR],
	     uint8_t tail[GPT_TAIL_SECTORS * GPT_SECTOR], uint64_t *esp_last)
{
	if (disk_sectors < GPT_MIN_DISK_SECTORS)
		return -1;
	memset(head, 0, GPT_HEAD_SECTORS * GPT_SECTOR);
	memset(tail, 0, GPT_TAIL_SECTORS * GPT_SECTOR);
	uint64_t last_lba = disk_sectors - 1;
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
	/* The entries: one ESP, the rest zero (unused). */
	*esp_last = last_lba - GPT_TAIL_SECTORS;
	struct gpt_entry e = {.first_lba = GPT_ESP_FIRST_LBA, .last_lba = *esp_last};
	memcpy(e.type_guid, esp_type, 16);
	memcpy(e.part_guid, part_guid, 16);
	for (unsigned i = 0; i < GPT_NAME_CHARS && name[i]; i++)
		e.name[i] = (uint16_t)(uint8_t)name[i];
	uint8_t *entries = head + 2 * GPT_SECTOR;
	memcpy(entries, &e, sizeof(e));
	memcpy(tail, entries, GPT_ENTRY_SECTORS * GPT_SECTOR);
	uint32_t entries_crc = crc32(entries, GPT_ENTRIES * GPT_ENTRY_SIZE);
	struct gpt_header h = {.revision = GPT_REVISION_1_0,
			       .header_size = GPT_HEADER_SIZE,
			       .my_lba = 1,
			       .alternate_lba = last_lba,
			       .first_usable_lba = GPT_HEAD_SECTORS,
			       .last_usable_lba = last_lba - GPT_TAIL_SECTORS,
			       .entries_lba = 2,
			       .entries = GPT_ENTRIES,
			       .entry_size = GPT_ENTRY_SIZE,
			       .entries_crc32 = entries_crc};
	memcpy(h.signature, gpt_signature, sizeof(h.signature));
	memcpy(h.disk_guid, disk_guid, 16);
	put_header(head + GPT_SECTOR, &h);
	/* The backup: its header in the last LBA, its entries just before it. */
	h.my_lba = last_lba;
	h.alternate_lba = 1;
	h.entries_lba = last_lba - GPT_ENTRY_SECTORS;
	put_header(tail + GPT_ENTRY_SECTORS * GPT_SECTOR, &h);
	return 0;
}
