/* SPDX-License-Identifier: MIT */
/*
 * btdecode's input from a USB stick: a trace partition (lib/trace_part.h), read from its device
 * (/dev/sdX2) or a copy of it, or a whole disk or image (/dev/sdX, make usb's
 * build/baretrace.img, a dd copy), where the partition is found by its type GUID in the GPT
 * (lib/gpt.h). The head and the commit block are checked; the data, as far as the commit block
 * says it was written, goes to the decoder as a stream of binary frames; at the end the
 * capture's completeness is said: COMPLETE (the kernel's final commit block, and the data's
 * CRC-32 is the one it wrote), FULL (the partition filled up: the stream was cut there), or
 * INCOMPLETE (only a checkpoint: the kernel stopped, or the stick was pulled, after at least
 * that many bytes).
 *
 * Damage hides no intact frame: a head or commit block whose CRC fails (or zeros where one
 * should be) is said, and without a commit block the partition is scanned for the frames
 * themselves (tools/bt_stick_scan.c), each of which carries its own CRC; an image cut short is
 * said with its size and the size the partition needs, and what it holds is decoded. A commit
 * block of another boot (the kernel writes its own before any data) means the data is that
 * boot's: nothing is decoded then. Whatever was damaged, the status is 1.
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "lib/crc32.h"
#include "lib/gpt.h"
#include "lib/stream.h"
#include "lib/trace_part.h"
#include "tools/bt_stick.h"
#include "tools/bt_verdict.h"

#define SECTOR	    TRACE_PART_SECTOR
#define NOT_A_STICK (-1)
#define WHAT_MAX    160
/* The zero bytes in a head and a commit block at least (their padding: lib/trace_part.h) */
#define BLOCK_ZEROS_MIN 256

static struct stick {
	int fd;
	uint64_t file_bytes;	      /* what the file (image, device) holds */
	uint64_t part;		      /* the partition's first byte in the file */
	uint64_t part_bytes;	      /* its size (the GPT's or the head's; 0 when neither says) */
	uint64_t first_lba, last_lba; /* the GPT's, for the messages (last 0: no GPT) */
	struct trace_part_head head;
	struct trace_part_commit commit;
	bool head_ok, commit_ok;
	char head_damage[WHAT_MAX], commit_damage[WHAT_MAX]; /* "" when whole */
	bool scanned;
	struct bt_stick_scan scan;
	char truncated[2 * WHAT_MAX]; /* "" unless the image ends inside the partition */
	bool cut_data;		      /* ... and inside its data */
	/* the data given to the decoder */
	uint64_t base, size, pos;
	uint32_t crc;
} stick = {.fd = -1};

static bool read_at(int fd, uint64_t off, void *buf, size_t n)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
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

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What is wrong with a block that should be there: "" when it is whole. */
static void block_damage(char *what, const char *name, const char *magic, const void *block,
			 bool ok, bool read)
{
	if (ok)
		what[0] = 0;
	else if (!read)
		snprintf(what, WHAT_MAX, "no %s block: the image ends before it", name);
	else if (all_zero(block, SECTOR))
		snprintf(what, WHAT_MAX, "no %s block (its sector is zeros)", name);
	else if (memcmp(block, magic, 8))
		snprintf(what, WHAT_MAX, "%s block damaged (no \"%.8s\" magic)", name, magic);
	else if (crc32(block, SECTOR - 4) != get_le32((const uint8_t *)block + SECTOR - 4))
		snprintf(what, WHAT_MAX, "%s block CRC mismatch", name);
	else /* whole, but not the layout this reader knows (lib/trace_part.h) */
		snprintf(what, WHAT_MAX,
			 "%s block of another layout (version %u; accepted: %u, %u-byte sectors)",
			 name, get_le32((const uint8_t *)block + 8), TRACE_PART_VERSION, SECTOR);
}

static void read_head(void)
{
	bool read = read_at(stick.fd, stick.part, &stick.head, sizeof(stick.head));
	stick.head_ok = read && trace_part_head_ok(&stick.head);
	block_damage(stick.head_damage, "head", "BTTRACE1", &stick.head, stick.head_ok, read);
}

static void read_commit(void)
{
	bool read = read_at(stick.fd, stick.part + TRACE_PART_COMMIT_LBA * SECTOR, &stick.commit,
			    sizeof(stick.commit));
	stick.commit_ok = read && trace_part_commit_ok(&stick.commit);
	block_damage(stick.commit_damage, "commit", "BTCOMMIT", &stick.commit, stick.commit_ok,
		     read);
}

/* Where the trace partition is in a GPT disk or image: 0 found, else the exit status (said). */
static int locate_in_gpt(const char *path, const uint8_t *sector)
{
	struct gpt_found f;
	uint64_t bytes;
	enum gpt_result r = gpt_read_header(sector, &f, &bytes);
	uint64_t entries_end = f.entries_lba * GPT_SECTOR + bytes;
	if (r == GPT_OK && entries_end > stick.file_bytes) {
		fprintf(stderr,
			"btdecode: %s: image truncated at %" PRIu64 " bytes: its GPT's partition "
			"entries need %" PRIu64 "; accepted: the whole image (or the stick)\n",
			path, stick.file_bytes, entries_end);
		return BT_EXIT_USAGE;
	}
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
		return BT_EXIT_USAGE;
	}
	stick.first_lba = f.first_lba;
	stick.last_lba = f.last_lba;
	stick.part = f.first_lba * GPT_SECTOR;
	stick.part_bytes = (f.last_lba - f.first_lba + 1) * GPT_SECTOR;
	if (stick.part + TRACE_PART_DATA_LBA * SECTOR > stick.file_bytes) {
		fprintf(stderr,
			"btdecode: %s: image truncated at %" PRIu64 " bytes: its trace partition "
			"(LBAs %" PRIu64 "-%" PRIu64 ") needs %" PRIu64
			", and its head and commit blocks are not in it: nothing to decode\n",
			path, stick.file_bytes, f.first_lba, f.last_lba,
			stick.part + stick.part_bytes);
		return BT_EXIT_DAMAGED;
	}
	read_head();
	read_commit();
	return 0;
}

/* Where the trace partition starts: at 0 (a partition's own device or copy: its head, a head
 * whose CRC fails, or a good commit block), or where a GPT says. 0 found, NOT_A_STICK, else
 * the exit status (said). */
static int locate(const char *path)
{
	uint8_t sector[GPT_SECTOR];
	stick.part = stick.part_bytes = stick.last_lba = 0;
	read_head();
	read_commit();
	if (stick.head_ok || stick.commit_ok || !memcmp(stick.head.magic, "BTTRACE1", 8)) {
		if (stick.head_ok)
			stick.part_bytes = stick.head.sectors * SECTOR;
		return 0;
	}
	if (read_at(stick.fd, GPT_SECTOR, sector, sizeof(sector)) && !memcmp(sector, "EFI PART", 8))
		return locate_in_gpt(path, sector);
	/* both blocks damaged: blocks still mostly zeros (their padding), and the data's first
	 * frame where the kernel writes it, the stream's first (CPU 0's frame 0, a HEADER), tell
	 * a partition from another file (a capture of stream=binary is text before its frames) */
	uint8_t blocks[TRACE_PART_DATA_LBA * SECTOR];
	unsigned zeros = 0;
	if (!read_at(stick.fd, 0, blocks, sizeof(blocks)))
		return NOT_A_STICK;
	for (size_t i = 0; i < sizeof(blocks); i++)
		zeros += !blocks[i];
	struct bt_stick_scan first;
	bt_stick_scan(stick.fd, sizeof(blocks), BT_FRAME_MAX, &first);
	return zeros >= BLOCK_ZEROS_MIN && first.first_is_header ? 0 : NOT_A_STICK;
}

/* The image's end against the partition's, said in stick.truncated; `cut`: it ends inside the
 * capture's data. */
static void check_size(bool cut)
{
	stick.truncated[0] = 0;
	uint64_t part_end = stick.part + stick.part_bytes;
	if (stick.part_bytes && stick.file_bytes < part_end) {
		char lbas[64] = "";
		if (stick.last_lba)
			snprintf(lbas, sizeof(lbas), " (LBAs %" PRIu64 "-%" PRIu64 ")",
				 stick.first_lba, stick.last_lba);
		snprintf(stick.truncated, sizeof(stick.truncated),
			 "image truncated at %" PRIu64
			 " bytes: the trace partition%s needs %" PRIu64,
			 stick.file_bytes, lbas, part_end);
	}
	stick.cut_data = cut;
}

/* The data's bytes the image holds (to the partition's end when its size is known). */
static uint64_t data_held(uint64_t data)
{
	uint64_t held = stick.file_bytes > data ? stick.file_bytes - data : 0;
	uint64_t cap = trace_part_capacity(stick.part_bytes / SECTOR);
	return stick.part_bytes && cap < held ? cap : held;
}

static void close_stick(void)
{
	close(stick.fd);
	stick.fd = -1;
}

/* What the head says (or what is wrong with it). */
static void say_head(const char *path)
{
	if (stick.head_ok)
		fprintf(stderr,
			"btdecode: %s: trace partition: boot %#" PRIx64
			", build %s, options '%s'\n",
			path, stick.head.boot_id, stick.head.build_id, stick.head.options);
	else
		fprintf(stderr,
			"btdecode: %s: trace partition: %s: its boot, build and options are not "
			"known\n",
			path, stick.head_damage);
}

/* Nothing to decode (said): the exit status. */
static int nothing(const char *path, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int nothing(const char *path, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_head(path);
	fprintf(stderr, "btdecode: %s: ", path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	close_stick();
	return status;
}

/* The data to decode: the committed bytes, or, without a commit block of this boot, the
 * frames found by scanning. 0, or the exit status when there is nothing to decode (said). */
static int choose_data(const char *path)
{
	uint64_t data = stick.part + TRACE_PART_DATA_LBA * SECTOR, held = data_held(data);
	stick.base = data;
	stick.scanned = false;
	if (stick.commit_ok && stick.head_ok && stick.commit.boot_id != stick.head.boot_id)
		return nothing(path, BT_EXIT_DAMAGED,
			       "capture INCOMPLETE: the commit block is another boot's (%#" PRIx64
			       ", the head's %#" PRIx64
			       "): this boot wrote no data after its head (the "
			       "kernel writes its own commit block first), and what the data "
			       "holds is that other boot's; nothing decoded",
			       stick.commit.boot_id, stick.head.boot_id);
	if (stick.commit_ok) {
		uint64_t bytes = stick.commit.bytes;
		if (stick.part_bytes && bytes > trace_part_capacity(stick.part_bytes / SECTOR))
			bytes = trace_part_capacity(stick.part_bytes / SECTOR);
		check_size(bytes > held);
		stick.size = bytes < held ? bytes : held;
		return 0;
	}
	bt_stick_scan(stick.fd, data, held, &stick.scan);
	if (!stick.head_ok && !stick.scan.frames && stick.last_lba)
		return nothing(
		    path, BT_EXIT_NONE,
		    "its trace partition (LBAs %" PRIu64 "-%" PRIu64
		    ") holds no capture: %s, %s and no frame at the data's start; the "
		    "kernel writes a head when it finds the partition (trace.out=stick or "
		    "both)",
		    stick.first_lba, stick.last_lba, stick.head_damage, stick.commit_damage);
	if (!stick.scan.frames)
		return nothing(
		    path, BT_EXIT_DAMAGED,
		    "capture INCOMPLETE: %s, and no frame at the data's start: the kernel "
		    "stopped (or the stick was pulled) before its first checkpoint; "
		    "nothing decoded",
		    stick.commit_damage);
	if (stick.head_ok && stick.scan.build_id[0] &&
	    strcmp(stick.scan.build_id, stick.head.build_id))
		return nothing(path, BT_EXIT_DAMAGED,
			       "capture DAMAGED: %s, and the data's first frame names build %s, "
			       "the head build %s: the data is another kernel's capture, not this "
			       "boot's; nothing decoded",
			       stick.commit_damage, stick.scan.build_id, stick.head.build_id);
	stick.scanned = true;
	check_size(stick.scan.stop == BT_SCAN_DATA_END && data + held >= stick.file_bytes);
	stick.size = stick.scan.bytes;
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
	off_t end = lseek(stick.fd, 0, SEEK_END);
	stick.file_bytes = end > 0 ? (uint64_t)end : 0;
	int r = locate(path);
	if (r == NOT_A_STICK) {
		close_stick(); /* read as a capture */
		return NULL;
	}
	if (!r)
		r = choose_data(path);
	if (r) {
		*status = r;
		return NULL;
	}
	stick.pos = 0;
	stick.crc = 0;
	cookie_io_functions_t io = {.read = cookie_read};
	FILE *in = fopencookie(&stick, "rb", io);
	if (!in) {
		fprintf(stderr, "btdecode: %s: %s\n", path, strerror(errno));
		*status = BT_EXIT_USAGE;
	}
	return in;
}

/* The decoder's status, made 1 by a problem of the stick's (2 stays: it says more). */
static int damaged(int status)
{
	return status == BT_EXIT_USAGE ? status : BT_EXIT_DAMAGED;
}

/* What the commit block says of the data decoded. */
static int say_committed(const char *path, int status, bool whole)
{
	const struct trace_part_commit *c = &stick.commit;
	bool crc_ok = stick.pos == stick.size && stick.crc == c->data_crc;
	if (stick.cut_data) {
		fprintf(stderr,
			"btdecode: %s: capture INCOMPLETE: the %s commit block says %" PRIu64
			" bytes (%" PRIu64 " frames), and the image holds %" PRIu64
			" of them: the rest is missing\n",
			path, trace_part_state_name(c->state), c->bytes, c->frames, stick.size);
		return damaged(status);
	}
	if (!crc_ok) {
		fprintf(stderr,
			"btdecode: %s: capture DAMAGED: the %s commit block's CRC-32 of the "
			"data is %08x, the data read has %08x (%" PRIu64 " of %" PRIu64 " bytes)\n",
			path, trace_part_state_name(c->state), c->data_crc, stick.crc, stick.pos,
			stick.size);
		return damaged(status);
	}
	if (c->state == TRACE_PART_COMPLETE) {
		fprintf(stderr,
			"btdecode: %s: capture COMPLETE: %" PRIu64 " bytes, %" PRIu64
			" frames, data CRC-32 %08x as committed\n",
			path, c->bytes, c->frames, c->data_crc);
		return whole ? status : damaged(status);
	}
	if (c->state == TRACE_PART_FULL)
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
	return damaged(status);
}

int bt_stick_finish(const char *path, int status)
{
	say_head(path);
	if (stick.truncated[0])
		fprintf(stderr, "btdecode: %s: %s: %s\n", path, stick.truncated,
			stick.cut_data
			    ? "the capture goes on past the image's end: what it holds is "
			      "decoded"
			    : "the capture's data is all before it");
	close_stick();
	if (!stick.scanned)
		return say_committed(path, status, stick.head_ok);
	const struct bt_stick_scan *sc = &stick.scan;
	char skipped[64] = "";
	if (sc->damaged)
		snprintf(skipped, sizeof(skipped), ", %" PRIu64 " damaged spots walked past",
			 sc->damaged);
	fprintf(stderr,
		"btdecode: %s: capture DAMAGED: %s: scanned the partition for frames instead: "
		"%" PRIu64 " frames in %" PRIu64 " bytes from the data's start%s, ending %s; the "
		"frames' own checks above say what of it is whole (the stick cannot prove the "
		"frames this boot's)\n",
		path, stick.commit_damage, sc->frames, sc->frame_bytes, skipped,
		bt_stick_scan_stop(sc));
	return damaged(status);
}
