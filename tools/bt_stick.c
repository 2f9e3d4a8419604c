/* SPDX-License-Identifier: MIT */
/*
 * btdecode's input from a USB stick (issue #37): a trace partition (lib/trace_part.h), read
 * from its device (/dev/sdX2) or a copy of it, or a whole disk or image (/dev/sdX, make usb's
 * build/baretrace.img, a dd copy), where the partition is found by its type GUID in the GPT
 * (lib/gpt.h). The head and the commit block are checked; the data, as far as the commit block
 * says it was written, goes to the decoder as a stream of binary frames; at the end the
 * capture's completeness is said: COMPLETE (the kernel's final commit block, and the data's
 * CRC-32 is the one it wrote), FULL (the partition filled up: the stream was cut there), or
 * INCOMPLETE (only a checkpoint: the kernel stopped, or the stick was pulled, after at least
 * that many bytes).
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "lib/crc32.h"
#include "lib/gpt.h"
#include "lib/trace_part.h"
#include "tools/bt_stick.h"

static struct stick {
	int fd;
	uint64_t base; /* the partition's first byte in the file */
	uint64_t size, pos;
	uint32_t crc;
	struct trace_part_head head;
	struct trace_part_commit commit;
	bool committed; /* a commit block of this boot */
} stick = {.fd = -1};

static bool read_at(int fd, uint64_t off, void *buf, size_t n)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

static ssize_t cookie_read(void *ctx, char *buf, size_t n)
{
	struct stick *s = ctx;
	if (n > s->size - s->pos)
		n = (size_t)(s->size - s->pos);
	ssize_t got = n ? pread(s->fd, buf, n, (off_t)(s->base + s->pos)) : 0;
	if (got > 0) {
		s->crc = crc32_update(s->crc, buf, (size_t)got);
		s->pos += (uint64_t)got;
	}
	return got;
}

/* Where the trace partition starts: at 0 (a partition's own device or copy), or where a GPT
 * says. 0 found, -1 not a stick (no head, no GPT), else the exit status (said). */
static int locate(const char *path, uint64_t *base)
{
	uint8_t sector[GPT_SECTOR];
	*base = 0;
	if (!read_at(stick.fd, 0, &stick.head, sizeof(stick.head)))
		return -1;
	if (trace_part_head_ok(&stick.head))
		return 0;
	if (!read_at(stick.fd, GPT_SECTOR, sector, sizeof(sector)) || memcmp(sector, "EFI PART", 8))
		return -1;
	struct gpt_found f;
	uint64_t bytes;
	enum gpt_result r = gpt_read_header(sector, &f, &bytes);
	uint8_t *entries = r == GPT_OK ? malloc(bytes) : NULL;
	if (entries && read_at(stick.fd, f.entries_lba * GPT_SECTOR, entries, bytes))
		r = gpt_find(sector, entries, trace_part_type, &f);
	else if (r == GPT_OK)
		r = GPT_BAD_ENTRIES;
	free(entries);
	if (r != GPT_OK) {
		fprintf(stderr,
			"btdecode: %s: a GPT disk, but %s; accepted: make usb's image (or "
			"the stick) with its trace partition, or the partition itself\n",
			path, gpt_result_name(r));
		return 2;
	}
	*base = f.first_lba * GPT_SECTOR;
	if (!read_at(stick.fd, *base, &stick.head, sizeof(stick.head)) ||
	    !trace_part_head_ok(&stick.head)) {
		fprintf(stderr,
			"btdecode: %s: its trace partition (LBAs %" PRIu64 "-%" PRIu64
			") holds no capture: no head block (\"BTTRACE1\" with a good CRC) at its "
			"start; the kernel writes one when it finds the partition (trace.out=stick "
			"or both)\n",
			path, f.first_lba, f.last_lba);
		return 3;
	}
	return 0;
}

FILE *bt_stick_open(const char *path, int *status)
{
	*status = 0;
	if (!path || !strcmp(path, "-"))
		return NULL;
	stick.fd = open(path, O_RDONLY);
	if (stick.fd < 0)
		return NULL; /* the ordinary path says why */
	int r = locate(path, &stick.base);
	if (r) {
		close(stick.fd);
		stick.fd = -1;
		*status = r < 0 ? 0 : r;
		return NULL;
	}
	uint64_t data = stick.base + TRACE_PART_DATA_LBA * TRACE_PART_SECTOR;
	stick.committed = read_at(stick.fd, stick.base + TRACE_PART_COMMIT_LBA * TRACE_PART_SECTOR,
				  &stick.commit, sizeof(stick.commit)) &&
			  trace_part_commit_ok(&stick.commit) &&
			  stick.commit.boot_id == stick.head.boot_id;
	if (!stick.committed) {
		*status = bt_stick_finish(path, 0);
		close(stick.fd);
		stick.fd = -1;
		return NULL;
	}
	stick.size = stick.commit.bytes;
	if (stick.size > trace_part_capacity(stick.head.sectors))
		stick.size = trace_part_capacity(stick.head.sectors);
	stick.base = data;
	stick.pos = 0;
	stick.crc = 0;
	cookie_io_functions_t io = {.read = cookie_read};
	FILE *in = fopencookie(&stick, "rb", io);
	if (!in) {
		fprintf(stderr, "btdecode: %s: %s\n", path, strerror(errno));
		*status = 2;
	}
	return in;
}

int bt_stick_finish(const char *path, int status)
{
	const struct trace_part_commit *c = &stick.commit;
	fprintf(stderr,
		"btdecode: %s: trace partition: boot %#" PRIx64 ", build %s, options '%s'\n", path,
		stick.head.boot_id, stick.head.build_id, stick.head.options);
	if (!stick.committed) {
		fprintf(stderr,
			"btdecode: %s: capture INCOMPLETE: no commit block of this boot: "
			"the kernel stopped (or the stick was pulled) before its first "
			"checkpoint; nothing decoded\n",
			path);
		return 1;
	}
	bool crc_ok = stick.pos == stick.size && stick.crc == c->data_crc;
	if (c->state == TRACE_PART_COMPLETE && crc_ok) {
		fprintf(stderr,
			"btdecode: %s: capture COMPLETE: %" PRIu64 " bytes, %" PRIu64
			" frames, data CRC-32 %08x as committed\n",
			path, c->bytes, c->frames, c->data_crc);
		return status;
	}
	if (!crc_ok)
		fprintf(stderr,
			"btdecode: %s: capture DAMAGED: the %s commit block's CRC-32 of the "
			"data is %08x, the data read has %08x (%" PRIu64 " of %" PRIu64 " bytes)\n",
			path, trace_part_state_name(c->state), c->data_crc, stick.crc, stick.pos,
			stick.size);
	else if (c->state == TRACE_PART_FULL)
		fprintf(stderr,
			"btdecode: %s: capture INCOMPLETE: the partition filled up after %" PRIu64
			" bytes (%" PRIu64 " frames): the rest of the stream was not written; a "
			"larger one: make usb TRACE_MIB=N\n",
			path, c->bytes, c->frames);
	else
		fprintf(stderr,
			"btdecode: %s: capture INCOMPLETE: the last checkpoint says %" PRIu64
			" bytes (%" PRIu64 " frames) were written; the kernel stopped, or the "
			"stick was pulled, before its final commit block\n",
			path, c->bytes, c->frames);
	return status && status != 3 ? status : 1; /* 3: nothing checkpointed yet */
}
