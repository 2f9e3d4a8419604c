/* SPDX-License-Identifier: MIT */
/*
 * How far a trace partition's frames go when no commit block says it (tools/bt_stick.h): the
 * kernel writes the record stream's binary frames back to back from the data's start
 * (lib/trace_part.h), each with its own magic, length and CRC (lib/stream.h), so they are found
 * by walking them as btdecode's binary reader resyncs: a good frame is skipped whole; past a
 * damaged spot the walk goes on at the next good frame within a frame's length and a sector;
 * it stops after the boot's END frame (what the kernel wrote last), at zeros to a sector's end
 * (the kernel pads its last sector with zeros, and an image is zeros where nothing was
 * written), or where no frame follows.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/stream.h"
#include "lib/trace_part.h"
#include "tools/bt_stick.h"

#define SCAN_CHUNK  (1u << 20)
#define RESYNC_SPAN (BT_FRAME_MAX + TRACE_PART_SECTOR)

/* The data read through a window of SCAN_CHUNK bytes. */
struct window {
	int fd;
	uint64_t start, avail; /* the data's first byte in the file, and its bytes */
	uint8_t *buf;
	uint64_t at; /* the data offset of buf[0] */
	size_t n;
};

/* Up to `want` bytes of the data at pos (*got of them: fewer only at its end). */
static const uint8_t *bytes_at(struct window *w, uint64_t pos, size_t want, size_t *got)
{
	if (pos < w->at || (pos + want > w->at + w->n && w->at + w->n < w->avail)) {
		size_t len = w->avail - pos < SCAN_CHUNK ? (size_t)(w->avail - pos) : SCAN_CHUNK;
		ssize_t r = pread(w->fd, w->buf, len, (off_t)(w->start + pos));
		w->at = pos;
		w->n = r > 0 ? (size_t)r : 0;
	}
	size_t have = pos < w->at + w->n ? (size_t)(w->at + w->n - pos) : 0;
	*got = have < want ? have : want;
	return w->buf + (pos - w->at);
}

/* The whole good frame at pos: its length, 0 if there is none. */
static size_t frame_at(struct window *w, uint64_t pos, struct bt_frame *f)
{
	size_t got;
	const uint8_t *p = bytes_at(w, pos, BT_FRAME_MAX, &got);
	if (got < BT_HEADER_LEN + BT_CRC_LEN || p[BT_H_MAGIC] != BT_MAGIC0 ||
	    p[BT_H_MAGIC + 1] != BT_MAGIC1)
		return 0;
	size_t len = BT_HEADER_LEN + (size_t)(p[BT_H_LEN] | p[BT_H_LEN + 1] << 8) + BT_CRC_LEN;
	const char *why;
	return len <= got && !bt_frame_parse(p, len, f, &why) ? len : 0;
}

/* Whether the bytes from pos to the end of its sector (a whole sector at a boundary) are
 * zeros, or there are none. */
static bool zeros_to_sector_end(struct window *w, uint64_t pos)
{
	size_t want = TRACE_PART_SECTOR - (size_t)(pos % TRACE_PART_SECTOR), got;
	const uint8_t *p = bytes_at(w, pos, want, &got);
	for (size_t i = 0; i < got; i++)
		if (p[i])
			return false;
	return true;
}

struct header_look {
	bool end;	/* the boot's END frame: "end=..." */
	char *build_id; /* "build-id=" copied here (BT_STICK_BUILD_ID bytes) */
};

static void look_at_pair(void *ctx, const char *pair)
{
	struct header_look *h = ctx;
	if (!strncmp(pair, BT_END_PAIR, strlen(BT_END_PAIR)))
		h->end = true;
	else if (h->build_id && !strncmp(pair, "build-id=", 9) && !h->build_id[0])
		snprintf(h->build_id, BT_STICK_BUILD_ID, "%s", pair + 9);
}

void bt_stick_scan(int fd, uint64_t start, uint64_t avail, struct bt_stick_scan *out)
{
	memset(out, 0, sizeof(*out));
	struct window w = {.fd = fd, .start = start, .avail = avail, .buf = malloc(SCAN_CHUNK)};
	if (!w.buf) {
		out->stop = BT_SCAN_NO_FRAME;
		return;
	}
	uint64_t pos = 0;
	out->stop = BT_SCAN_DATA_END;
	while (pos < avail) {
		struct bt_frame f;
		size_t len = frame_at(&w, pos, &f);
		if (len) {
			bool first = !out->frames && f.type == BT_F_HEADER && !f.cpu && !f.seq;
			struct header_look h = {.build_id = first ? out->build_id : NULL};
			out->first_is_header |= first;
			if (f.type == BT_F_HEADER)
				bt_read_header(&f, look_at_pair, &h);
			pos += len;
			out->frames++;
			out->frame_bytes = pos;
			if (h.end) {
				out->stop = BT_SCAN_END_FRAME;
				break;
			}
			continue;
		}
		if (zeros_to_sector_end(&w, pos)) {
			out->stop = BT_SCAN_ZEROS;
			break;
		}
		uint64_t next = pos + 1,
			 last = avail - pos > RESYNC_SPAN ? pos + RESYNC_SPAN : avail;
		while (next < last && !frame_at(&w, next, &f))
			next++;
		if (next >= last) {
			out->stop = next >= avail ? BT_SCAN_DATA_END : BT_SCAN_NO_FRAME;
			break;
		}
		out->damaged++;
		pos = next;
	}
	free(w.buf);
	/* the data to decode: to the end of the last good frame's sector (what the kernel wrote
	 * with it, its zero padding or the log's last line) */
	uint64_t sectors = (out->frame_bytes + TRACE_PART_SECTOR - 1) / TRACE_PART_SECTOR;
	out->bytes = sectors * TRACE_PART_SECTOR < avail ? sectors * TRACE_PART_SECTOR : avail;
}

const char *bt_stick_scan_stop(const struct bt_stick_scan *s)
{
	switch (s->stop) {
	case BT_SCAN_END_FRAME:
		return "at the boot's END frame";
	case BT_SCAN_ZEROS:
		return "where zeros follow";
	case BT_SCAN_NO_FRAME:
		return "where no frame follows";
	case BT_SCAN_DATA_END:
		break;
	}
	return "at the end of what the image holds";
}
