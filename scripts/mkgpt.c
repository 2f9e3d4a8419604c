/* SPDX-License-Identifier: MIT */
/*
 * Write a GPT with an EFI System Partition, and a trace partition when asked, into an existing
 * disk image (lib/gpt.c, lib/trace_part.h):
 *   build/mkgpt [--trace-sectors N] IMAGE
 *     IMAGE's size: a whole number of 512-byte sectors, at least 1 MiB plus 97 sectors, and
 *     room for an ESP of 64 sectors besides the trace partition of N sectors (from a 1 MiB
 *     boundary to the last usable LBA: it may be up to 1 MiB larger than asked).
 * GUIDs are random (version 4, RFC 9562): two sticks made from one build still differ. Prints
 * "esp FIRST_LBA LAST_LBA" for scripts/mkimage, which puts the FAT32 file system there, then
 * "trace FIRST_LBA LAST_LBA" with a trace partition.
 * Exit status: 0 written, 2 bad usage or image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	struct gpt_layout l = {0};
	int a = 1;
	if (argc == 4 && strcmp(argv[1], "--trace-sectors") == 0) {
		char *end;
		l.trace_sectors = strtoull(argv[2], &end, 10);
		if (*end || !*argv[2] || argv[2][0] == '-') {
			fprintf(stderr,
				"mkgpt: --trace-sectors '%s': accepted: a number of sectors\n",
				argv[2]);
			return 2;
		}
		a = 3;
	}
	if (argc != a + 1) {
		fprintf(stderr, "usage: mkgpt [--trace-sectors N] IMAGE\n");
		return 2;
	}
	const char *img = argv[a];
	if (stat(img, &st) != 0 || st.st_size % GPT_SECTOR) {
		fprintf(stderr,
			"mkgpt: %s: no such image, or its size is not a whole number of %d-byte "
			"sectors\n",
			img, GPT_SECTOR);
		return 2;
	}
	if (random_guid(l.disk_guid) || random_guid(l.esp_guid) || random_guid(l.trace_guid)) {
		fprintf(stderr, "mkgpt: cannot read /dev/urandom\n");
		return 2;
	}
	uint64_t sectors = (uint64_t)st.st_size / GPT_SECTOR;
	if (gpt_make(sectors, &l, head, tail) != 0) {
		fprintf(stderr,
			"mkgpt: %s: %lu sectors; accepted: at least %d, and with a trace partition "
			"of %lu sectors, room for it and an ESP of 64 sectors from LBA %d\n",
			img, (unsigned long)sectors, GPT_MIN_DISK_SECTORS,
			(unsigned long)l.trace_sectors, GPT_ESP_FIRST_LBA);
		return 2;
	}
	FILE *f = fopen(img, "r+b");
	if (!f || fwrite(head, 1, sizeof(head), f) != sizeof(head) ||
	    fseek(f, (long)((sectors - GPT_TAIL_SECTORS) * GPT_SECTOR), SEEK_SET) != 0 ||
	    fwrite(tail, 1, sizeof(tail), f) != sizeof(tail) || fclose(f) != 0) {
		fprintf(stderr, "mkgpt: %s: cannot write\n", img);
		return 2;
	}
	printf("esp %lu %lu\n", (unsigned long)l.esp_first, (unsigned long)l.esp_last);
	if (l.trace_sectors)
		printf("trace %lu %lu\n", (unsigned long)l.trace_first,
		       (unsigned long)l.trace_last);
	return 0;
}
