/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU trace output: a ring of whole units (a line of tprintf, a stream frame) between the CPU
 * (or the live drainer writing frames for it) and the one CPU that owns the serial console. A
 * unit goes in whole or waits for room: the owner takes what is complete and writes it out; a
 * producer that owns the console itself makes its own room. Nothing is dropped, and a reader
 * never sees half a line or half a frame.
 */
#include "arch/x86/session/output.h"
#include <stdarg.h>
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/spinlock.h"
#include "arch/x86/usb/stick.h"
#include "arch/x86/user/run.h"
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
#define UNIT_MAX  2048 /* one tprintf at most; longer ones are cut and counted (no record is) */

/* A CPU's output. Producers (the CPU, or the drainer writing its frames) hold `producer`; the
 * console's owner consumes without it: head and committed are the producer's, tail the
 * consumer's, each read by the other side with acquire. */
struct out_ring {
	char *buf;
	uint64_t head;	    /* bytes written so far */
	uint64_t committed; /* of them, those in whole units */
	uint64_t tail;	    /* bytes the owner has written out */
	uint64_t cut;	    /* tprintf bytes past UNIT_MAX, cut */
	uint64_t waits;	    /* times a unit waited for room */
	struct spinlock producer;
	char unit[UNIT_MAX];
};

static struct out_ring rings[MAX_CPUS];
/* The CPU that writes trace output to the serial console now (the boot CPU, or the drainer it
 * names while it traces itself). */
static volatile unsigned console_owner;

static void program_output(workload_print_fn print);

bool trace_out_prepare(unsigned cpu)
{
	if (cpu >= MAX_CPUS)
		return false;
	if (!rings[cpu].buf)
		rings[cpu].buf = page_alloc_virt(OUT_BYTES);
	user_output_taker = program_output; /* a program's output from now on */
	return rings[cpu].buf != NULL;
}

void trace_out_owner(unsigned cpu)
{
	__atomic_store_n(&console_owner, cpu, __ATOMIC_RELEASE);
}

/* The owner: what CPU cpu's ring holds in whole units, to the console; how many bytes. */
static uint64_t ring_drain(struct out_ring *r)
{
	uint64_t tail = r->tail, end = __atomic_load_n(&r->committed, __ATOMIC_ACQUIRE);
	uint64_t n = end - tail;
	while (tail != end) {
		uint64_t at = tail % OUT_BYTES, piece = end - tail;
		if (piece > OUT_BYTES - at)
			piece = OUT_BYTES - at;
		console_serial_write(r->buf + at, piece);
		tail += piece;
	}
	__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	return n;
}

uint64_t trace_out_produced(unsigned cpu)
{
	return cpu < MAX_CPUS ? __atomic_load_n(&rings[cpu].committed, __ATOMIC_ACQUIRE) : 0;
}

bool trace_out_half_full(unsigned cpu)
{
	if (cpu >= MAX_CPUS || !rings[cpu].buf)
		return false;
	const struct out_ring *r = &rings[cpu];
	return __atomic_load_n(&r->committed, __ATOMIC_ACQUIRE) - r->tail >= OUT_BYTES / 2;
}

uint64_t trace_out_drain(unsigned cpu)
{
	return cpu < MAX_CPUS && rings[cpu].buf ? ring_drain(&rings[cpu]) : 0;
}

/* Producer: room for n more bytes. The console's owner makes it by writing out; any other CPU
 * waits for the owner to (the boot CPU drains every CPU it waits for). */
static void make_room(struct out_ring *r, uint64_t n)
{
	bool waited = false;
	while (r->head + n - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) > OUT_BYTES) {
		if (__atomic_load_n(&console_owner, __ATOMIC_ACQUIRE) == this_cpu()->index)
			ring_drain(r);
		else
			cpu_pause();
		waited = true;
	}
	r->waits += waited;
}

/* Producer (lock held): one unit, whole, then visible to the owner. */
static void ring_put(struct out_ring *r, const char *s, uint64_t n)
{
	make_room(r, n);
	while (n) {
		uint64_t at = r->head % OUT_BYTES, piece = n < OUT_BYTES - at ? n : OUT_BYTES - at;
		memcpy(r->buf + at, s, piece);
		r->head += piece;
		s += piece;
		n -= piece;
	}
	__atomic_store_n(&r->committed, r->head, __ATOMIC_RELEASE);
}

/* Producer (lock held): one formatted line, whole, cut at UNIT_MAX (counted). */
static void unit_vput(struct out_ring *r, const char *fmt, va_list ap)
{
	int len = fmt_vsnprintf(r->unit, UNIT_MAX, fmt, ap);
	uint64_t n = len < 0 ? 0 : (uint64_t)len;
	if (n >= UNIT_MAX) {
		r->cut += n - (UNIT_MAX - 1);
		n = UNIT_MAX - 1;
	}
	console_note_lines(r->unit, n); /* an error line fails the run, whoever prints it */
	ring_put(r, r->unit, n);
}

static void out_vprintf(struct out_ring *r, const char *fmt, va_list ap)
{
	if (!r->buf) {
		kvprintf(fmt, ap);
		return;
	}
	uint64_t flags = spin_lock_irqsave(&r->producer);
	unit_vput(r, fmt, ap);
	spin_unlock_irqrestore(&r->producer, flags);
}

void tprintf_interrupt(const char *fmt, ...)
{
	struct out_ring *r = &rings[this_cpu()->index];
	uint64_t flags;
	if (!r->buf || !spin_trylock_irqsave(&r->producer, &flags))
		return; /* the drainer writes this CPU's frames now: not this time */
	va_list ap;
	va_start(ap, fmt);
	unit_vput(r, fmt, ap);
	va_end(ap);
	spin_unlock_irqrestore(&r->producer, flags);
	if (__atomic_load_n(&console_owner, __ATOMIC_ACQUIRE) == this_cpu()->index)
		ring_drain(r);
}

void tprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out_vprintf(&rings[this_cpu()->index], fmt, ap);
	va_end(ap);
}

uint64_t trace_out_flush(unsigned cpu)
{
	struct out_ring *r = cpu < MAX_CPUS ? &rings[cpu] : 0;
	if (!r || !r->buf)
		return 0;
	ring_drain(r);
	uint64_t cut = r->cut;
	if (cut)
		kprintf("error: CPU %u: trace output: %lu bytes of lines longer than %d bytes were "
			"cut (no record is that long)\n",
			cpu, cut, UNIT_MAX);
	r->cut = 0;
	return cut;
}

/* Where a program's output lines go: a CPU's ring (the drainer's), else print. */
struct out_to {
	struct out_ring *ring;
	workload_print_fn print;
};
static void program_output_take(unsigned cpu, const struct out_to *to);

/* ---- records streamed while the run goes on ------------------------------------------------ */

/* The session on a CPU that hands out records during its run (trace_live_open): its pump, which
 * the drainer calls with the source's lock held so that it never runs after trace_live_close. */
static struct live_source {
	trace_live_fn pump;
	void *ctx;
	struct spinlock lock;
	bool served; /* a drainer takes this CPU's records while it runs */
} live[MAX_CPUS];
static uint64_t live_bytes[MAX_CPUS]; /* written by the drainer during the CPU's run */

void trace_live_serve(unsigned cpu, bool served)
{
	if (cpu < MAX_CPUS)
		__atomic_store_n(&live[cpu].served, served, __ATOMIC_RELEASE);
}

bool trace_live_served(void)
{
	return __atomic_load_n(&live[this_cpu()->index].served, __ATOMIC_ACQUIRE);
}

bool trace_live_open(trace_live_fn pump, void *ctx)
{
	struct live_source *l = &live[this_cpu()->index];
	uint64_t flags = spin_lock_irqsave(&l->lock);
	l->pump = pump;
	l->ctx = ctx;
	spin_unlock_irqrestore(&l->lock, flags);
	bool served = pump && __atomic_load_n(&l->served, __ATOMIC_ACQUIRE);
	/* a program's write waits for room in its output ring while a drainer takes it */
	__atomic_store_n(&user_runs[this_cpu()->index].out_wait, served, __ATOMIC_RELEASE);
	return served;
}

void trace_live_close(void)
{
	trace_live_open(NULL, NULL);
}

/* The drainer, owner of the console: what the CPU wrote out first (so that a producer waiting
 * for room goes on), then a round of its records if nobody is writing to its output now. */
uint64_t trace_live_drain(unsigned cpu)
{
	if (cpu >= MAX_CPUS || !rings[cpu].buf)
		return 0;
	uint64_t n = ring_drain(&rings[cpu]);
	struct live_source *l = &live[cpu];
	uint64_t flags;
	if (spin_trylock_irqsave(&l->lock, &flags)) {
		if (l->pump) {
			l->pump(l->ctx);
			program_output_take(cpu, &(struct out_to){&rings[cpu], NULL});
		}
		spin_unlock_irqrestore(&l->lock, flags);
	}
	n += ring_drain(&rings[cpu]);
	live_bytes[cpu] += n;
	return n;
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

/* A frame, whole, into the output of the writer's CPU (ctx), from that CPU or from the drainer;
 * before the CPU has an output (the boot's HEADER), straight to the console. */
static void emit_unit(struct out_ring *r, const char *s, size_t n)
{
	if (!r->buf) {
		console_serial_write(s, n);
		return;
	}
	uint64_t flags = spin_lock_irqsave(&r->producer);
	ring_put(r, s, n);
	spin_unlock_irqrestore(&r->producer, flags);
}

/* trace.out=stick: the frames go to the stick alone (the serial line keeps the log). */
static bool serial_frames = true;

/* stream=text: "@BT1 " base64 lines. Every frame also goes to the USB stick's trace
 * partition when it is open (arch/x86/usb/stick.h), as binary frames. */
static void emit_text(void *ctx, const uint8_t *frame, size_t len)
{
	stick_put(frame, len);
	if (!serial_frames)
		return;
	char line[BT_TEXT_PREFIX_LEN + BT_TEXT_MAX + 2];
	size_t n = bt_text_line(frame, len, line);
	emit_unit(ctx, line, n);
}

/* stream=binary: the frame's bytes as they are, between the human log's lines. The UART sends
 * each LF as CR LF (uart16550.c); a reader undoes that (docs/record-stream.md "Records off the
 * machine"). */
static void emit_binary(void *ctx, const uint8_t *frame, size_t len)
{
	stick_put(frame, len);
	if (serial_frames)
		emit_unit(ctx, (const char *)frame, len);
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
			       &rings[cpu]);
		w->clock = arch_timestamp; /* each frame's TSC (lib/stream.h, version 2) */
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

unsigned trace_stream_frames(unsigned cpu)
{
	return cpu < MAX_CPUS ? writers[cpu].seq : 0;
}

void trace_stream_end(unsigned cpus)
{
	static char pair[BT_PAYLOAD_MAX];
	size_t n = (size_t)fmt_snprintf(pair, sizeof(pair), "%s", BT_END_PAIR);
	for (unsigned c = 0; c < cpus && c < MAX_CPUS && n < sizeof(pair); c++)
		if (c == 0 || writers[c].seq)
			n += (size_t)fmt_snprintf(pair + n, sizeof(pair) - n, "%s%u:%u",
						  c ? "," : "", c, writers[c].seq);
	const char *const pairs[] = {pair};
	trace_stream_header(pairs, 1);
	trace_out_flush(this_cpu()->index);
	stick_close();
}

bool trace_stream_out(bool stick_only, bool quiet, const char *build_id, const char *about)
{
	if (!stick_open(build_id, about, quiet))
		return false;
	serial_frames = !stick_only;
	kprintf("stick: the record stream goes to the trace partition%s\n",
		stick_only ? " alone (trace.out=stick): the serial line keeps the log"
			   : " and the serial line");
	return true;
}

/* ---- a user program's output (arch/x86/user/run.h: its ring) -------------------------------- */

#define OUTPUT_LINE_MAX 160 /* printed bytes per log line; a longer line goes on in the next */

/* The log line being built, per CPU, for stdout and stderr: bytes outside printable ASCII as
 * \xNN, so that the log stays text. */
static struct out_line {
	char text[4 * OUTPUT_LINE_MAX + 1];
	size_t n, shown;
} out_lines[MAX_CPUS][2];
static uint64_t out_lost[MAX_CPUS]; /* bytes the last run dropped */

static void to_printf(const struct out_to *to, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void to_printf(const struct out_to *to, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (to->ring) {
		out_vprintf(to->ring, fmt, ap);
	} else {
		char line[sizeof(out_lines[0][0].text) + 64];
		fmt_vsnprintf(line, sizeof(line), fmt, ap);
		to->print("%s", line);
	}
	va_end(ap);
}

static void line_out(const struct out_to *to, unsigned cpu, unsigned s)
{
	struct out_line *l = &out_lines[cpu][s];
	l->text[l->n] = 0;
	to_printf(to, "%s cpu=%u: %s\n", s ? "program-stderr" : "program-output", cpu, l->text);
	l->n = l->shown = 0;
}

/* A piece of output as log lines: "program-output cpu=N: TEXT" (stdout) and "program-stderr
 * cpu=N: TEXT", one a line the program wrote (or OUTPUT_LINE_MAX bytes of it). */
static void lines(const struct out_to *to, unsigned cpu, unsigned s, const char *b, size_t n)
{
	struct out_line *l = &out_lines[cpu][s];
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)b[i];
		if (c == '\n') {
			line_out(to, cpu, s);
			continue;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\')
			l->text[l->n++] = (char)c;
		else
			l->n += fmt_snprintf(l->text + l->n, sizeof(l->text) - l->n, "\\x%02x", c);
		if (++l->shown == OUTPUT_LINE_MAX)
			line_out(to, cpu, s);
	}
}

/* n bytes of the ring at byte `at` (wrapping) into dst. */
static void ring_get(const struct user_run *u, uint64_t at, void *dst, uint64_t n)
{
	at %= u->out_room;
	uint64_t first = n < u->out_room - at ? n : u->out_room - at;
	memcpy(dst, u->out + at, first);
	memcpy((char *)dst + first, u->out, n - first);
}

/* One contiguous part of a piece: an OUTPUT frame (w: the CPU's session streams) and lines. */
static void part_out(struct bt_writer *w, const struct out_to *to, unsigned cpu,
		     const struct user_out_piece *h, uint64_t skip, const char *b, size_t n)
{
	if (w)
		bt_write_output(w, &(struct bt_output){(uint8_t)h->fd, h->offset + skip, h->tsc,
						       (const uint8_t *)b, n});
	if (to)
		lines(to, cpu, h->fd == BT_OUTPUT_STDERR, b, n);
}

/* What CPU cpu's program wrote and the ring holds, taken: frames when its session streams,
 * lines (to NULL: dropped, the native reference run's). The caller holds live[cpu].lock. */
static void program_output_take(unsigned cpu, const struct out_to *to)
{
	struct user_run *u = &user_runs[cpu];
	struct bt_writer *w = to && writers[cpu].in_session ? &writers[cpu] : NULL;
	if (!u->out || !u->out_room)
		return;
	uint64_t head = __atomic_load_n(&u->out_head, __ATOMIC_ACQUIRE), tail = u->out_tail;
	while (tail != head) {
		struct user_out_piece h;
		ring_get(u, tail, &h, sizeof(h));
		uint64_t at = (tail + sizeof(h)) % u->out_room;
		uint64_t first = h.len < u->out_room - at ? h.len : u->out_room - at;
		part_out(w, to, cpu, &h, 0, u->out + at, first);
		if (first < h.len)
			part_out(w, to, cpu, &h, first, u->out, h.len - first);
		tail += (sizeof(h) + h.len + USER_OUT_ALIGN - 1) & ~(uint64_t)(USER_OUT_ALIGN - 1);
		__atomic_store_n(&u->out_tail, tail, __ATOMIC_RELEASE);
	}
}

static void program_output(workload_print_fn print)
{
	unsigned cpu = this_cpu()->index;
	struct user_run *u = &user_runs[cpu];
	struct live_source *l = &live[cpu];
	struct out_to to = {NULL, print};
	uint64_t flags = spin_lock_irqsave(&l->lock); /* not beside the drainer */
	program_output_take(cpu, print ? &to : NULL);
	spin_unlock_irqrestore(&l->lock, flags);
	out_lost[cpu] = print ? u->out_dropped[0] + u->out_dropped[1] : 0;
	for (unsigned s = 0; s < 2; s++) {
		if (print && out_lines[cpu][s].n)
			line_out(&to, cpu, s); /* the last line, without its newline */
		out_lines[cpu][s].n = out_lines[cpu][s].shown = 0;
		if (print && u->out_dropped[s])
			print(
			    "incomplete: program: cpu=%u: %lu of %lu bytes of %s not delivered "
			    "(its output ring of %lu bytes was full and no other CPU drained it "
			    "during the run: a second CPU that does not trace, trace.cpus=boot or "
			    "each, takes it all)\n",
			    cpu, u->out_dropped[s], u->out_pos[s], s ? "stderr" : "stdout",
			    u->out_room);
	}
}

uint64_t trace_program_output_lost(unsigned cpu)
{
	uint64_t n = cpu < MAX_CPUS ? out_lost[cpu] : 0;
	if (cpu < MAX_CPUS)
		out_lost[cpu] = 0;
	return n;
}
