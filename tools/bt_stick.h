/* SPDX-License-Identifier: MIT */
/* btdecode's input from a USB stick's trace partition (tools/bt_stick.c, lib/trace_part.h). */
#ifndef TOOLS_BT_STICK_H
#define TOOLS_BT_STICK_H

#include <stdio.h>

/* A FILE of the partition's data when path is a trace partition or a disk (image) holding
 * one; NULL when it is neither (read it as a capture), or on a problem (said: *status is the
 * exit status then, else 0). */
FILE *bt_stick_open(const char *path, int *status);
/* After decoding: how complete the capture on the stick is, said on stderr; the decoder's
 * status, or 1 when the stick's capture is incomplete or damaged. */
int bt_stick_finish(const char *path, int status);

#endif
