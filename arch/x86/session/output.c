/* SPDX-License-Identifier: MIT */
#include "arch/x86/session/output.h"
#include <stdarg.h>
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/spinlock.h"
#include "kernel/arch_console.h"
#include "kernel/arch_cpu.h"
#include "kernel/console.h"
#include "kernel/memmap.h"
#include "kernel/memory.h"
#include "kernel/program.h"
#include "lib/fmt.h"
#include "lib/stream.h"
#include "lib/string.h"
#include "lib/x86_decode.h"

#define OUT_BYTES (TRACE_OUT_PAGES * PAGE_SIZE)

/* A CPU's output. The lock is taken by the CPU writing it and, while its records stream live,
 * by the drainer taking what it has written so far. */
struct out_buffer {
	char *text;
	uint64_t used, dropped;
	struct spinlock lock;
};

static struct out_buffer buffers[MAX_CPUS];

static char *out_pages(void)
{
	uint64_t pa = page_alloc(TRACE_OUT_PAGES);
	return pa ? arch_phys_to_virt(pa) : NULL;
}

bool trace_out_prepare(unsigned cpu)
{
	if (cpu >= MAX_CPUS)
		return false;
	if (!buffers[cpu].text)
		buffers[cpu].text = out_pages();
	return buffers[cpu].text != NULL;
}

static void sink(void *ctx, const char *s, size_t n)
{
	struct out_buffer *b = ctx;
	uint64_t room = OUT_BYTES - b->used;
	uint64_t take = n < room ? n : room;
	memcpy(b->text + b->used, s, take);
	b->used += take;
	b->dropped += n - take;
}

static void out_vprintf(struct out_buffer *b, const char *fmt, va_list ap)
{
	if (!b->text) {
		kvprintf(fmt, ap);
		return;
	}
	uint64_t flags = spin_lock_irqsave(&b->lock);
	fmt_vformat(sink, b, fmt, ap);
	spin_unlock_irqrestore(&b->lock, flags);
}

void tprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out_vprintf(&buffers[this_cpu()->index], fmt, ap);
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
			cpu, dropped, OUT_BYTES / 1024);
	b->used = b->dropped = 0;
	return dropped;
}

/* ---- records streamed while the run goes on ------------------------------------------------ */

/* The session on a CPU that hands out records during its run (trace_live_open), and the
 * drainer's spare buffer: it takes a CPU's output by exchanging buffers, then writes it out
 * without holding the CPU's lock. */
static struct live_source {
	trace_live_fn pump;
	void *ctx;
	struct spinlock lock;
	bool served; /* a drainer takes this CPU's records while it runs */
} live[MAX_CPUS];
static char *spare;
static uint64_t live_bytes[MAX_CPUS]; /* written by the drainer during the CPU's run */

bool trace_live_prepare(void)
{
	if (!spare)
		spare = out_pages();
	return spare != NULL;
}

void trace_live_serve(unsigned cpu, bool served)
{
	if (cpu < MAX_CPUS)
		__atomic_store_n(&live[cpu].served, served, __ATOMIC_RELEASE);
}

bool trace_live_open(trace_live_fn pump, void *ctx)
{
	struct live_source *l = &live[this_cpu()->index];
	uint64_t flags = spin_lock_irqsave(&l->lock);
	l->pump = pump;
	l->ctx = ctx;
	spin_unlock_irqrestore(&l->lock, flags);
	return pump && __atomic_load_n(&l->served, __ATOMIC_ACQUIRE);
}

void trace_live_close(void)
{
	trace_live_open(NULL, NULL);
}

uint64_t trace_live_drain(unsigned cpu)
{
	if (cpu >= MAX_CPUS || !spare || !buffers[cpu].text)
		return 0;
	struct live_source *l = &live[cpu];
	uint64_t flags = spin_lock_irqsave(&l->lock);
	if (l->pump)
		l->pump(l->ctx);
	spin_unlock_irqrestore(&l->lock, flags);
	struct out_buffer *b = &buffers[cpu];
	flags = spin_lock_irqsave(&b->lock);
	char *full = b->text;
	uint64_t used = b->used;
	if (used) {
		b->text = spare;
		b->used = 0;
		spare = full;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	if (used)
		arch_console_write(full, used);
	live_bytes[cpu] += used;
	return used;
}

uint64_t trace_live_written(unsigned cpu)
{
	uint64_t n = cpu < MAX_CPUS ? live_bytes[cpu] : 0;
	if (cpu < MAX_CPUS)
		live_bytes[cpu] = 0;
	return n;
}

/* ---- the record stream ---------------------------------------------------------------------- */

/* One writer per CPU for the whole boot: its frame numbers run on across sessions. */
static struct bt_writer writers[MAX_CPUS];

static void out_printf(struct out_buffer *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void out_printf(struct out_buffer *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out_vprintf(b, fmt, ap);
	va_end(ap);
}

/* Into the output of the writer's CPU (ctx), from that CPU or from the drainer. */
static void emit_text(void *ctx, const uint8_t *frame, size_t len)
{
	char line[BT_TEXT_PREFIX_LEN + BT_TEXT_MAX + 2];
	bt_text_line(frame, len, line);
	out_printf(ctx, "%s", line);
}

/* stream=binary: the frame's bytes as they are, into the CPU's output (or straight to the
 * serial console), between the human log's lines. The UART sends each LF as CR LF (uart16550.c);
 * a reader undoes that (README "Records off the machine"). */
static void emit_binary(void *ctx, const uint8_t *frame, size_t len)
{
	struct out_buffer *b = ctx;
	if (!b->text) {
		arch_console_write((const char *)frame, len);
		return;
	}
	uint64_t flags = spin_lock_irqsave(&b->lock);
	sink(b, (const char *)frame, len);
	spin_unlock_irqrestore(&b->lock, flags);
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
		bt_writer_init(w, (uint16_t)cpu, seq, wire_binary ? emit_binary : emit_text,
			       &buffers[cpu]);
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
