/* SPDX-License-Identifier: MIT */
/* btdecode's input from a USB stick's trace partition (tools/bt_stick.c, lib/trace_part.h). */
#ifndef TOOLS_BT_STICK_H
#define TOOLS_BT_STICK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A FILE of the partition's data when path is a trace partition or a disk (image) holding
 * one; NULL when it is neither (read it as a capture), or on a problem (said: *status is the
 * exit status then, else 0). */
FILE *bt_stick_open(const char *path, int *status);
/* After decoding: how complete the capture on the stick is, said on stderr; the decoder's
 * status, or 1 when the stick's capture is incomplete or damaged. */
int bt_stick_finish(const char *path, int status);

/* ---- the frames found without a commit block (tools/bt_stick_scan.c) ---------------------- */

#define BT_STICK_BUILD_ID 65 /* hex digits and NUL, as lib/trace_part.h's */

enum bt_scan_stop {
	BT_SCAN_END_FRAME, /* after the boot's END frame: what the kernel writes last */
	BT_SCAN_ZEROS,	   /* zeros to a sector's end follow the last frame */
	BT_SCAN_NO_FRAME,  /* no good frame within a frame's length and a sector */
	BT_SCAN_DATA_END,  /* the data (the partition, or what the image holds of it) ends */
};

struct bt_stick_scan {
	uint64_t frames, damaged; /* good frames; damaged spots walked past */
	uint64_t frame_bytes;	  /* to the last good frame's end */
	uint64_t bytes;		  /* the data to decode: to the end of that frame's sector */
	enum bt_scan_stop stop;
	bool first_is_header;		  /* the first frame is CPU 0's frame 0, a HEADER */
	char build_id[BT_STICK_BUILD_ID]; /* its "build-id=" */
};

/* The frames back to back from the data's first byte (`start` in the file), in its first
 * `avail` bytes, walked by their own magic, length and CRC. */
void bt_stick_scan(int fd, uint64_t start, uint64_t avail, struct bt_stick_scan *out);
/* Where the walk stopped, as a phrase ("at the boot's END frame", ...). */
const char *bt_stick_scan_stop(const struct bt_stick_scan *s);

#endif
