/* SPDX-License-Identifier: MIT */
#include "arch/x86/session/output.h"
#include <stdarg.h>
#include "arch/x86/cpu/percpu.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/memmap.h"
#include "kernel/memory.h"
#include "kernel/program.h"
#include "lib/fmt.h"
#include "lib/stream.h"
#include "lib/string.h"
#include "lib/x86_decode.h"

struct out_buffer {
	char *text;
	uint64_t used, dropped;
};

static struct out_buffer buffers[MAX_CPUS];

bool trace_out_prepare(unsigned cpu)
{
	if (cpu >= MAX_CPUS)
		return false;
	if (buffers[cpu].text)
		return true;
	uint64_t pa = page_alloc(TRACE_OUT_PAGES);
	if (!pa)
		return false;
	buffers[cpu] = (struct out_buffer){arch_phys_to_virt(pa), 0, 0};
	return true;
}

static void sink(void *ctx, const char *s, size_t n)
{
	struct out_buffer *b = ctx;
	uint64_t room = TRACE_OUT_PAGES * PAGE_SIZE - b->used;
	uint64_t take = n < room ? n : room;
	memcpy(b->text + b->used, s, take);
	b->used += take;
	b->dropped += n - take;
}

void tprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct out_buffer *b = &buffers[this_cpu()->index];
	if (b->text)
		fmt_vformat(sink, b, fmt, ap);
	else
		kvprintf(fmt, ap);
	va_end(ap);
}

uint64_t trace_out_flush(unsigned cpu)
{
	struct out_buffer *b = cpu < MAX_CPUS ? &buffers[cpu] : 0;
	if (!b || !b->text)
		return 0;
	arch_console_write(b->text, b->used);
	uint64_t dropped = b->dropped;
	if (dropped)
		kprintf("error: CPU %u: trace output truncated: %lu bytes dropped (buffer of %lu "
			"KiB)\n",
			cpu, dropped, TRACE_OUT_PAGES * PAGE_SIZE / 1024);
	b->used = b->dropped = 0;
	return dropped;
}

/* ---- the record stream ---------------------------------------------------------------------- */

/* One writer per CPU for the whole boot: its frame numbers run on across sessions. */
static struct bt_writer writers[MAX_CPUS];

static void emit_text(void *ctx, const uint8_t *frame, size_t len)
{
	(void)ctx;
	char line[BT_TEXT_PREFIX_LEN + BT_TEXT_MAX + 2];
	bt_text_line(frame, len, line);
	tprintf("%s", line);
}

/* stream=binary: the frame's bytes as they are, into the CPU's output (or straight to the
 * serial console), between the human log's lines. The UART sends each LF as CR LF (uart16550.c);
 * a reader undoes that (README "Records off the machine"). */
static void emit_binary(void *ctx, const uint8_t *frame, size_t len)
{
	(void)ctx;
	struct out_buffer *b = &buffers[this_cpu()->index];
	if (b->text)
		sink(b, (const char *)frame, len);
	else
		arch_console_write((const char *)frame, len);
}

static bool wire_binary;

void trace_stream_wire(bool binary)
{
	wire_binary = binary;
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
		writers[cpu].emit = NULL; /* each takes the wire at its next frame */
}

static struct bt_writer *writer_here(void)
{
	unsigned cpu = this_cpu()->index;
	struct bt_writer *w = &writers[cpu];
	if (!w->emit) {
		uint32_t seq = w->seq; /* its frame numbers run on */
		bt_writer_init(w, (uint16_t)cpu, seq, wire_binary ? emit_binary : emit_text, NULL);
	}
	return w;
}

/* The code a BTS record's path may be walked through: the kernel's text (mapped read and
 * execute only: it is the ELF's) and the user program's, as its ELF file has it. */
extern const char __text_start[], __text_end[];

static size_t stream_code(void *ctx, uint64_t addr, uint8_t *buf)
{
	(void)ctx;
	uint64_t lo = (uint64_t)__text_start;
	size_t n =
	    bt_code_copy(addr, lo, (const uint8_t *)__text_start, (uint64_t)__text_end - lo, buf);
	return n ? n : program_code_at(addr, buf);
}

void trace_stream_path(struct bt_writer *w, bool on)
{
	bt_writer_set_code(w, on ? stream_code : NULL, NULL);
}

struct bt_writer *trace_stream_begin(const char *facility, const char *session)
{
	struct bt_writer *w = writer_here();
	bt_write_begin(w, facility, session);
	return w;
}

void trace_stream_header(const char *const *pairs, unsigned n)
{
	bt_write_header(writer_here(), pairs, n);
}
