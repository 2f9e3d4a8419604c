/* SPDX-License-Identifier: MIT */
/*
 * A GUID Partition Table with one EFI System Partition, as a USB stick needs it (UEFI 2.10,
 * 5.2.3 "Protective MBR", 5.3 "GUID Partition Table (GPT) Disk Layout"): LBA 0 a protective
 * MBR (one partition of type EEH over the disk), LBA 1 the primary header, LBAs 2-33 the 128
 * entries of 128 bytes, the same entries and the backup header in the last 33 LBAs. The ESP
 * runs from LBA 2048 (1 MiB, aligned for flash) to the last usable LBA. Pure: the host tool
 * scripts/mkgpt.c writes what this fills in.
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

/* The first GPT_HEAD_SECTORS and the last GPT_TAIL_SECTORS sectors of a disk of
 * disk_sectors sectors, with the disk's and the partition's GUIDs (16 bytes each, as stored)
 * and the partition's name (ASCII, at most 36 characters). Returns 0, or -1 if the disk is
 * smaller than GPT_MIN_DISK_SECTORS. The ESP spans [GPT_ESP_FIRST_LBA, *esp_last] inclusive. */
int gpt_make(uint64_t disk_sectors, const uint8_t disk_guid[16], const uint8_t part_guid[16],
	     const char *name, uint8_t head[GPT_HEAD_SECTORS * GPT_SECTOR],
	     uint8_t tail[GPT_TAIL_SECTORS * GPT_SECTOR], uint64_t *esp_last);

#endif
