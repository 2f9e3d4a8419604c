/* SPDX-License-Identifier: MIT */
/*
 * The record stream onto the USB stick: the trace partition (lib/trace_part.h) of
 * a USB mass-storage device on an xHCI controller, found by its GPT type GUID, written
 * sequentially: the head, the frames as the record stream makes them, checkpoints, and the
 * final commit block. Every write is checked against the partition's bounds first.
 */
#ifndef ARCH_X86_USB_STICK_H
#define ARCH_X86_USB_STICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Look for the stick: every xHCI controller's connected ports, the first mass-storage device
 * whose GPT has a trace partition. Writes the head (build id, options) and a first checkpoint.
 * Says what it found (or why not) on the console (quiet: not that there is no xHCI controller
 * at all); true when the stream will go there. */
bool stick_open(const char *build_id, const char *options, bool quiet);
bool stick_active(void);
/* One frame of the record stream (any CPU; serialised inside). */
void stick_put(const uint8_t *frame, size_t len);
/* The end of the stream: the rest written, the final commit block (COMPLETE, or FULL when the
 * partition filled up), the cache synchronised; said with the bytes and the write rate. */
void stick_close(void);
/* Whether the stick lost any of the stream (failed, vanished, full): the run is then
 * INCOMPLETE for the stick's copy. */
bool stick_lost(void);

#endif
