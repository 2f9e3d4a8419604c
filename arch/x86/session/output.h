/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU session output. The UART has one owner at a time (the boot CPU, or the drainer it
 * names while it traces itself): a CPU running a capture writes its report into its own
 * buffer, and the buffers reach the UART whole, in CPU order, so CPUs tracing at the same time
 * never interleave on the wire.
 * A full buffer drops text and counts it; the flush says how much was lost.
 */
#ifndef ARCH_X86_SESSION_OUTPUT_H
#define ARCH_X86_SESSION_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#define TRACE_OUT_PAGES 256 /* 1 MiB per CPU */

/* Boot CPU, before dispatching: make sure CPU `cpu` has a buffer (allocated once). */
bool trace_out_prepare(unsigned cpu);
/* On the running CPU: into its buffer, or straight to the console when it has none. */
void tprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct bt_writer;
/* The record stream (lib/stream.h) of the running CPU, as "@BT1 " lines into its buffer: a
 * session's frames from here to its bt_write_end(); the CPU's frame numbers run on across
 * sessions. */
struct bt_writer *trace_stream_begin(const char *facility, const char *session);
/* The HEADER frame, n "key=value" strings, from the running CPU. */
/* BTS records of the writer's sessions along the code (option stream.path) or not. */
void trace_stream_path(struct bt_writer *w, bool on);
/* The wire of the record stream from now on: raw frames (binary) or "@BT1 " lines. */
void trace_stream_wire(bool binary);
void trace_stream_header(const char *const *pairs, unsigned n);

/* Records streamed while the run goes on (option stream.live): a session registers a pump on
 * its CPU for the run; the drainer (the one CPU writing the UART meanwhile: the boot CPU
 * waiting for the others, or an idle CPU while the boot CPU traces) calls it with the
 * source's lock held, so that it never runs after trace_live_close, then writes out what the
 * CPU's buffer holds so far. The pump runs on the drainer: it writes only through the CPU's
 * own record stream (whose frames go to that CPU's buffer), never tprintf. */
typedef void (*trace_live_fn)(void *ctx);
bool trace_live_prepare(void); /* boot CPU: the drainer's spare buffer, allocated once */
/* Runner: whether a drainer takes CPU `cpu`'s records while it runs (not when every CPU
 * traces at once, nor with one CPU). */
void trace_live_serve(unsigned cpu, bool served);
/* True when a drainer serves this CPU: its session's store may then wait for room. */
bool trace_live_open(trace_live_fn pump, void *ctx);
void trace_live_close(void);
/* Drainer: one round for CPU `cpu`; returns the bytes written to the console. */
uint64_t trace_live_drain(unsigned cpu);
/* Boot CPU, once the drainer is done: the bytes it wrote for CPU `cpu` since the last call. */
uint64_t trace_live_written(unsigned cpu);

/* Boot CPU: print CPU `cpu`'s buffer and empty it; returns the bytes it had to drop. */
uint64_t trace_out_flush(unsigned cpu);

#endif
