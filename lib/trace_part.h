/* SPDX-License-Identifier: MIT */
/*
 * The trace partition: where the kernel writes the record stream on the USB stick it booted
 * from, and where tools/btdecode reads it back. Built for the kernel and the host.
 *
 * Its GPT partition type GUID is our own, C3A5BFB3-93B4-4A05-8C3A-70DB0078F423 (a version 4
 * GUID, RFC 9562, drawn once for baretrace); scripts/mkgpt.c gives it the name
 * "baretrace trace". In partition-relative LBAs of TRACE_PART_SECTOR bytes:
 *   LBA 0  the head: magic "BTTRACE1", the boot's id, the kernel's build id and options;
 *   LBA 1  the commit block: magic "BTCOMMIT", the state (WRITING: a checkpoint on the way;
 *          COMPLETE: the capture ended and every byte is there; FULL: the partition filled up
 *          and the stream was cut there), the data bytes written and their CRC-32, the frames;
 *   LBA 2  the data: the record stream's binary frames (lib/stream.h) back to back, as
 *          stream=binary puts them on the serial line but without the human log between them,
 *          ending with the boot's END frame (lib/stream.h), which proves to a reader that no
 *          CPU's last frames are missing; the last sector padded with zeros. (A reader also
 *          takes the kernel's last line, "run finished: WORD", after the frames.)
 * Each block carries the CRC-32 (lib/crc32.h) of its bytes before the CRC field. The kernel
 * writes the head and a WRITING commit block with 0 bytes before any data (so that a stale
 * capture never passes for this boot's), a WRITING block every TRACE_PART_CHECKPOINT bytes,
 * and the final block at the end: a capture whose final block is missing says at least how
 * much of it was written.
 */
#ifndef LIB_TRACE_PART_H
#define LIB_TRACE_PART_H

#include <stdbool.h>
#include <stdint.h>

#define TRACE_PART_TYPE_TEXT  "C3A5BFB3-93B4-4A05-8C3A-70DB0078F423"
#define TRACE_PART_SECTOR     512
#define TRACE_PART_HEAD_LBA   0
#define TRACE_PART_COMMIT_LBA 1
#define TRACE_PART_DATA_LBA   2
#define TRACE_PART_VERSION    1
#define TRACE_PART_CHECKPOINT (256u << 10) /* data bytes between WRITING commit blocks */
#define TRACE_PART_BUILD_ID   65	   /* hex digits and NUL */
#define TRACE_PART_OPTIONS    384	   /* the options as given, NUL-terminated (cut) */

/* As stored on disk: the first three fields little-endian (UEFI 2.10 Appendix A). */
extern const uint8_t trace_part_type[16];

struct trace_part_head {
	char magic[8]; /* "BTTRACE1" */
	uint32_t version;
	uint32_t sector; /* TRACE_PART_SECTOR */
	uint64_t boot_id;
	uint64_t sectors; /* the partition's, as the kernel found it in the GPT */
	char build_id[TRACE_PART_BUILD_ID];
	char options[TRACE_PART_OPTIONS];
	uint8_t pad[TRACE_PART_SECTOR - 8 - 4 - 4 - 8 - 8 - TRACE_PART_BUILD_ID -
		    TRACE_PART_OPTIONS - 4];
	uint32_t crc; /* of everything before it */
} __attribute__((packed));
_Static_assert(sizeof(struct trace_part_head) == TRACE_PART_SECTOR, "trace head: one sector");

enum trace_part_state {
	TRACE_PART_WRITING = 1,
	TRACE_PART_COMPLETE = 2,
	TRACE_PART_FULL = 3,
};

struct trace_part_commit {
	char magic[8]; /* "BTCOMMIT" */
	uint32_t version;
	uint32_t state; /* enum trace_part_state */
	uint64_t boot_id;
	uint64_t bytes;	 /* data bytes from TRACE_PART_DATA_LBA */
	uint64_t frames; /* frames in them */
	uint32_t data_crc;
	uint8_t pad[TRACE_PART_SECTOR - 8 - 4 - 4 - 8 - 8 - 8 - 4 - 4];
	uint32_t crc;
} __attribute__((packed));
_Static_assert(sizeof(struct trace_part_commit) == TRACE_PART_SECTOR,
	       "trace commit block: one sector");

void trace_part_head_make(struct trace_part_head *h, uint64_t boot_id, uint64_t sectors,
			  const char *build_id, const char *options);
void trace_part_commit_make(struct trace_part_commit *c, uint64_t boot_id,
			    enum trace_part_state state, uint64_t bytes, uint64_t frames,
			    uint32_t data_crc);
/* Magic, version and CRC hold. */
bool trace_part_head_ok(const struct trace_part_head *h);
bool trace_part_commit_ok(const struct trace_part_commit *c);
const char *trace_part_state_name(uint32_t state); /* "writing", "complete", "full", "?" */
/* Data bytes a partition of `sectors` sectors holds. */
uint64_t trace_part_capacity(uint64_t sectors);

#endif
