/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU session output. The UART has one owner at a time (the boot CPU, or the drainer it
 * names while it traces itself, trace_out_owner): a CPU running a capture writes its report into
 * its own ring, in whole units (a line, a stream frame), and the owner writes them out, so CPUs
 * tracing at the same time never interleave within a line or a frame. A full ring makes the
 * writer wait for the owner (or, when it owns the console, write out first): nothing is dropped.
 */
#ifndef ARCH_X86_SESSION_OUTPUT_H
#define ARCH_X86_SESSION_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#define TRACE_OUT_PAGES 256 /* 1 MiB per CPU */

/* Boot CPU, before dispatching: make sure CPU `cpu` has a ring (allocated once). */
bool trace_out_prepare(unsigned cpu);
/* The CPU that writes trace output to the console from now on (the runner says so). */
void trace_out_owner(unsigned cpu);
/* Bytes CPU cpu has written to its ring since boot: another CPU's sign of its progress. */
uint64_t trace_out_produced(unsigned cpu);
/* Whether CPU cpu's ring holds at least half its size not written out yet. */
bool trace_out_half_full(unsigned cpu);
/* The owner: CPU `cpu`'s whole units so far, written out; how many bytes. */
uint64_t trace_out_drain(unsigned cpu);
/* On the running CPU: one whole unit into its ring, or straight to the console when it has
 * none. */
void tprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line from an interrupt that came in ring 3 (a run's progress): as tprintf, out at once when
 * this CPU owns the console; not said when the drainer holds this CPU's output just then. */
void tprintf_interrupt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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
/* Runner: whether a drainer takes CPU `cpu`'s records while it runs (not when every CPU
 * traces at once, nor with one CPU). */
void trace_live_serve(unsigned cpu, bool served);
/* True when a drainer serves this CPU: its session's store may then wait for room. */
bool trace_live_open(trace_live_fn pump, void *ctx);
/* Whether a drainer serves the running CPU now. */
bool trace_live_served(void);
void trace_live_close(void);
/* Drainer (the console's owner): one round for CPU `cpu`; returns the bytes written out. */
uint64_t trace_live_drain(unsigned cpu);
/* Boot CPU, once the drainer is done: the bytes it wrote for CPU `cpu` since the last call. */
uint64_t trace_live_written(unsigned cpu);

/* The owner, after CPU `cpu`'s session: the rest of its output written out; returns the bytes of
 * over-long lines it had to cut (said). */
uint64_t trace_out_flush(unsigned cpu);
/* The output bytes the last run of a user program on CPU cpu could not deliver (its ring was
 * full with no drainer; arch_program_output said so), then 0. */
uint64_t trace_program_output_lost(unsigned cpu);
/* The frames CPU cpu's record stream has written since boot (its next frame's number). */
unsigned trace_stream_frames(unsigned cpu);
/* The boot CPU, at the boot's end: the END frame (a HEADER frame, "end=CPU:FRAMES,...": the
 * frames each of the first `cpus` CPUs sent, the END frame not counted; lib/stream.h), written
 * out. */
void trace_stream_end(unsigned cpus);
/* The record stream onto the USB stick's trace partition too (or alone: stick_only), with the
 * build id and the run's options in its head; false when no stick was found (said, unless
 * quiet and there is no xHCI controller at all). */
bool trace_stream_out(bool stick_only, bool quiet, const char *build_id, const char *about);

#endif
