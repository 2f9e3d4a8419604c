/* SPDX-License-Identifier: MIT */
/*
 * A GUID Partition Table with one EFI System Partition, as a USB stick needs it (UEFI 2.10,
 * 5.2.3 "Protective MBR", 5.3 "GUID Partition Table (GPT) Disk Layout"): LBA 0 a protective
 * MBR (one partition of type EEH over the disk), LBA 1 the primary header, LBAs 2-33 the 128
 * entries of 128 bytes, the same entries and the backup header in the last 33 LBAs. The ESP
 * runs from LBA 2048 (1 MiB, aligned for flash) to the last usable LBA, or, with a trace
 * partition (lib/trace_part.h), to just before it: the trace partition then takes the end of
 * the disk, from a 1 MiB boundary to the last usable LBA. Pure: the host tool scripts/mkgpt.c
 * writes what this fills in; gpt_find reads a table back (the kernel and tools/btdecode).
 */
#ifndef LIB_GPT_H
#define LIB_GPT_H

#include <stdint.h>

#define GPT_SECTOR	     512
#define GPT_ENTRIES	     128
#define GPT_ENTRY_SIZE	     128
#define GPT_ENTRY_SECTORS    (GPT_ENTRIES * GPT_ENTRY_SIZE / GPT_SECTOR) /* 32 */
#define GPT_ESP_FIRST_LBA    2048
#define GPT_HEAD_SECTORS     (2 + GPT_ENTRY_SECTORS) /* MBR, header, entries */
#define GPT_TAIL_SECTORS     (GPT_ENTRY_SECTORS + 1) /* entries, header */
#define GPT_MIN_DISK_SECTORS (GPT_ESP_FIRST_LBA + 64 + GPT_TAIL_SECTORS)
#define GPT_ALIGN_SECTORS    2048 /* 1 MiB: where the trace partition starts */
#define GPT_HEADER_SIZE	     92

/* What gpt_make lays out. In: the GUIDs (16 bytes each, as stored: the disk's, the ESP's, the
 * trace partition's) and trace_sectors (0: no trace partition). Out: each partition's first
 * and last LBA, inclusive. */
struct gpt_layout {
	uint8_t disk_guid[16], esp_guid[16], trace_guid[16];
	uint64_t trace_sectors;
	uint64_t esp_first, esp_last, trace_first, trace_last;
};

/* The first GPT_HEAD_SECTORS and the last GPT_TAIL_SECTORS sectors of a disk of
 * disk_sectors sectors, the ESP named "baretrace", the trace partition "baretrace trace".
 * Returns 0, or -1 if the disk is smaller than GPT_MIN_DISK_SECTORS or the trace partition
 * would leave the ESP fewer than 64 sectors. */
int gpt_make(uint64_t disk_sectors, struct gpt_layout *l,
	     uint8_t head[GPT_HEAD_SECTORS * GPT_SECTOR],
	     uint8_t tail[GPT_TAIL_SECTORS * GPT_SECTOR]);

/* Reads a disk's primary GPT: the header sector (LBA 1) and, once gpt_entries_where has said
 * where they are, the entry array. */
struct gpt_found {
	uint64_t entries_lba;	      /* where the entry array starts */
	uint32_t entries;	      /* how many */
	uint32_t entry_size;	      /* bytes each (a multiple of 128) */
	uint64_t first_lba, last_lba; /* the partition found: inclusive */
	uint8_t part_guid[16];
};

enum gpt_result {
	GPT_OK = 0,
	GPT_NO_TABLE,	 /* no "EFI PART" signature, a bad header size or CRC */
	GPT_BAD_ENTRIES, /* the entry array's CRC does not hold, or its size is not accepted */
	GPT_NOT_FOUND,	 /* no partition of that type */
	GPT_BAD_BOUNDS,	 /* the partition's LBAs are outside the usable ones, or reversed */
};

/* The header at LBA 1 (one GPT_SECTOR): where the entries are and how many bytes they take
 * (*bytes, at most GPT_ENTRIES_MAX_BYTES). */
#define GPT_ENTRIES_MAX_BYTES (GPT_ENTRIES * GPT_ENTRY_SIZE * 4)
enum gpt_result gpt_read_header(const uint8_t *sector, struct gpt_found *f, uint64_t *bytes);
/* The entries (f->entries * f->entry_size bytes) against the header's CRC, then the first
 * partition of type type_guid (16 bytes, as stored), checked against the usable LBAs. */
enum gpt_result gpt_find(const uint8_t *sector, const uint8_t *entries, const uint8_t type_guid[16],
			 struct gpt_found *f);
const char *gpt_result_name(enum gpt_result r);

#endif
