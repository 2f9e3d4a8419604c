/* SPDX-License-Identifier: MIT */
/*
 * Write a GPT with one EFI System Partition into an existing disk image (lib/gpt.c):
 *   build/mkgpt IMAGE     (IMAGE's size: a whole number of 512-byte sectors, at least 1 MiB
 *                          plus 97 sectors)
 * GUIDs are random (version 4, RFC 9562): two sticks made from one build still differ. Prints
 * "esp FIRST_LBA LAST_LBA" for scripts/mkimage, which puts the FAT32 file system there.
 * Exit status: 0 written, 2 bad usage or image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "lib/gpt.h"

#define GUID_VERSION_BYTE 7 /* as stored: the high byte of the third field */
#define GUID_VARIANT_BYTE 8

static int random_guid(uint8_t g[16])
{
	FILE *f = fopen("/dev/urandom", "rb");
	if (!f || fread(g, 1, 16, f) != 16) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	g[GUID_VERSION_BYTE] = (uint8_t)((g[GUID_VERSION_BYTE] & 0x0f) | 0x40);
	g[GUID_VARIANT_BYTE] = (uint8_t)((g[GUID_VARIANT_BYTE] & 0x3f) | 0x80);
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t head[GPT_HEAD_SECTORS * GPT_SECTOR], tail[GPT_TAIL_SECTORS * GPT_SECTOR];
	struct stat st;
	if (argc != 2) {
		fprintf(stderr, "usage: mkgpt IMAGE\n");
		return 2;
	}
	if (stat(argv[1], &st) != 0 || st.st_size % GPT_SECTOR) {
		fprintf(stderr,
			"mkgpt: %s: no such image, or its size is not a whole number of %d-byte "
			"sectors\n",
			argv[1], GPT_SECTOR);
		return 2;
	}
	uint8_t disk_guid[16], part_guid[16];
	uint64_t esp_last;
	if (random_guid(disk_guid) || random_guid(part_guid)) {
		fprintf(stderr, "mkgpt: cannot read /dev/urandom\n");
		return 2;
	}
	uint64_t sectors = (uint64_t)st.st_size / GPT_SECTOR;
	if (gpt_make(sectors, disk_guid, part_guid, "baretrace", head, tail, &esp_last) != 0) {
		fprintf(stderr, "mkgpt: %s: %lu sectors; accepted: at least %d\n", argv[1],
			(unsigned long)sectors, GPT_MIN_DISK_SECTORS);
		return 2;
	}
	FILE *f = fopen(argv[1], "r+b");
	if (!f || fwrite(head, 1, sizeof(head), f) != sizeof(head) ||
	    fseek(f, (long)((sectors - GPT_TAIL_SECTORS) * GPT_SECTOR), SEEK_SET) != 0 ||
	    fwrite(tail, 1, sizeof(tail), f) != sizeof(tail) || fclose(f) != 0) {
		fprintf(stderr, "mkgpt: %s: cannot write\n", argv[1]);
		return 2;
	}
	printf("esp %d %lu\n", GPT_ESP_FIRST_LBA, (unsigned long)esp_last);
	return 0;
}
