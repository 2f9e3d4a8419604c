/* SPDX-License-Identifier: MIT */
/*
 * btdecode: reads a capture (a serial log, a file, a pipe or a serial device read as a file)
 * and rebuilds the records of the record stream (lib/stream.h) from its "@BT1 " lines, skipping
 * the human log around them. Every frame's CRC is checked; a damaged line, a missing frame (a
 * gap in a CPU's sequence numbers), a session without its end and a digest that does not match
 * are reported with the line they were found on. It never prints a record it did not decode.
 *
 *   btdecode [--view text|verify|stats] [FILE]      (stdin without FILE)
 *
 * text (default): the boot's "stream-header cpu=N key=value..." (kernel version and build id,
 * processor, microcode, TSC rate, CPUs), each session as "stream-begin FACILITY SESSION", its
 * records as the kernel
 * prints them ("bts FROM TO FLAGS[ leak]"), "stream-end ... records=N lost=L digest=ok"; the
 * problems on stderr. verify: only the problems and a summary. stats: per-CPU frames, sessions,
 * records and wire bytes per record. Exit status: 0 every frame intact and every session whole,
 * 1 something was damaged, missing or did not match, 2 bad usage or an unreadable input.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/crc32.h"
#include "lib/stream.h"

#define MAX_CPUS     256
#define LINE_MAX_LEN (BT_TEXT_PREFIX_LEN + BT_TEXT_MAX + 64)
#define WHY_MAX	     256
#define EXIT_DAMAGED 1
#define EXIT_USAGE   2

enum view { VIEW_TEXT, VIEW_VERIFY, VIEW_STATS };

struct cpu_state {
	bool seen;
	uint32_t next_seq;
	bool in_session;
	char facility[BT_NAME_MAX], name[BT_NAME_MAX];
	uint64_t records; /* of the open session */
	uint32_t digest;
	uint32_t session; /* the open session's number (its BEGIN's frame number) */
	/* totals */
	uint64_t frames, sessions, all_records, wire_bytes, missing_frames;
};

static struct cpu_state cpus[MAX_CPUS];
static enum view view = VIEW_TEXT;
static uint64_t problems, bad_lines, line_no;
static FILE *out_records, *out_problems; /* stdout, stderr (the fuzzer: /dev/null) */

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(out_problems, "btdecode: line %" PRIu64 ": ", line_no);
	vfprintf(out_problems, fmt, ap);
	fputc('\n', out_problems);
	va_end(ap);
	problems++;
}

/* One frame's records, held until its session number says whose they are. */
struct frame_records {
	struct bt_bts r[BT_PAYLOAD_MAX];
	struct bt_lbr l[BT_PAYLOAD_MAX];
	unsigned n;
};

static void collect_lbr(void *ctx, const struct bt_lbr *e)
{
	struct frame_records *fr = ctx;
	if (fr->n < BT_PAYLOAD_MAX)
		fr->l[fr->n++] = *e;
}

static void print_lbr(struct cpu_state *c, const struct bt_lbr *e)
{
	c->records++;
	c->all_records++;
	c->digest = bt_digest_lbr(c->digest, e);
	if (view == VIEW_TEXT)
		fprintf(out_records,
			"lbr %" PRIu32 " %#" PRIx64 " %#" PRIx64 " cycles=%" PRIu32
			"%s mispred=%d br_type=%d%s%s\n",
			e->index, e->from, e->to, e->cycles, e->cycles_valid ? "" : "(n/a)",
			e->mispred_valid ? e->mispred : -1, e->br_type, e->in_tx ? " in_tx" : "",
			e->abort ? " abort" : "");
}

static void collect(void *ctx, const struct bt_bts *r)
{
	struct frame_records *fr = ctx;
	if (fr->n < BT_PAYLOAD_MAX)
		fr->r[fr->n++] = *r;
}

static void print_record(struct cpu_state *c, const struct bt_bts *r)
{
	c->records++;
	c->all_records++;
	c->digest = bt_digest(c->digest, r);
	if (view == VIEW_TEXT)
		fprintf(out_records, "bts %#" PRIx64 " %#" PRIx64 " %#" PRIx64 "%s\n", r->from,
			r->to, r->flags, r->leak ? " leak" : "");
}

static void print_pair(void *ctx, const char *pair)
{
	(void)ctx;
	if (view == VIEW_TEXT)
		fprintf(out_records, " %s", pair);
}

static void end_session(struct cpu_state *c, unsigned cpu, const struct bt_frame *f)
{
	uint64_t records, lost;
	uint32_t digest, session;
	char why[WHY_MAX];
	if (bt_read_end(f, &session, &records, &lost, &digest, why, sizeof(why))) {
		problem("cpu %u: malformed END frame", cpu);
		return;
	}
	if (!c->in_session || session != c->session) {
		problem("cpu %u: END of session %" PRIu32 " whose BEGIN is missing (%" PRIu64
			" records)",
			cpu, session, records);
		return;
	}
	const char *verdict = "ok";
	if (c->records != records) {
		verdict = "incomplete";
		problem("cpu %u: %s %s: %" PRIu64 " of %" PRIu64 " records decoded", cpu,
			c->facility, c->name, c->records, records);
	} else if (c->digest != digest) {
		verdict = "mismatch";
		problem("cpu %u: %s %s: the records' digest %08x is not the kernel's %08x", cpu,
			c->facility, c->name, c->digest, digest);
	}
	if (view == VIEW_TEXT)
		fprintf(out_records,
			"stream-end %s %s records=%" PRIu64 " lost=%" PRIu64 " digest=%s%s%s\n",
			c->facility, c->name, records, lost, verdict, *why ? " why=" : "", why);
	c->in_session = false;
}

/* A BTS frame's records go to the open session only if the frame says they are its own: after a
 * lost END and BEGIN they would otherwise land in the wrong one. */
static void bts_frame(struct cpu_state *c, const struct bt_frame *f)
{
	static struct frame_records fr;
	uint32_t session = 0;
	fr.n = 0;
	bool lbr = f->type == BT_F_LBR;
	long n = lbr ? bt_read_lbr(f, &session, collect_lbr, &fr)
		     : bt_read_bts(f, &session, collect, &fr);
	if (n < 0)
		problem("cpu %u: malformed records in frame %" PRIu32 "%s", f->cpu, f->seq,
			fr.n ? ": the session will be incomplete" : "");
	if (!c->in_session || session != c->session) {
		problem("cpu %u: %u records of session %" PRIu32
			" whose BEGIN is missing: not shown",
			f->cpu, fr.n, session);
		return;
	}
	if (n < 0)
		return; /* a frame whose CRC held but whose records do not parse: none shown */
	for (unsigned i = 0; i < fr.n; i++) {
		if (lbr)
			print_lbr(c, &fr.l[i]);
		else
			print_record(c, &fr.r[i]);
	}
}

static void frame(const struct bt_frame *f)
{
	struct cpu_state *c = &cpus[f->cpu % MAX_CPUS];
	if (f->cpu >= MAX_CPUS) {
		problem("frame of cpu %u: beyond %u CPUs; ignored", f->cpu, MAX_CPUS);
		return;
	}
	if (c->seen && f->seq == 0 && c->next_seq != 0) {
		/* Frame 0 again: the capture holds another boot (each starts its numbers at 0). */
		if (c->in_session)
			problem("cpu %u: %s %s: the stream starts again before its END", f->cpu,
				c->facility, c->name);
		c->in_session = false;
		c->next_seq = 0;
	}
	if (c->seen && f->seq != c->next_seq) {
		uint32_t gap = f->seq - c->next_seq;
		problem("cpu %u: frames %" PRIu32 "..%" PRIu32 " missing (%" PRIu32 ")", f->cpu,
			c->next_seq, f->seq - 1, gap);
		c->missing_frames += gap;
	}
	c->seen = true;
	c->next_seq = f->seq + 1;
	c->frames++;
	switch (f->type) {
	case BT_F_BEGIN:
		if (c->in_session)
			problem("cpu %u: %s %s: no END before the next BEGIN", f->cpu, c->facility,
				c->name);
		c->in_session = false;
		if (bt_read_begin(f, c->facility, c->name)) {
			problem("cpu %u: malformed BEGIN frame", f->cpu);
			return;
		}
		c->in_session = true;
		c->session = f->seq;
		c->records = 0;
		c->digest = 0;
		c->sessions++;
		if (view == VIEW_TEXT)
			fprintf(out_records, "stream-begin %s %s\n", c->facility, c->name);
		return;
	case BT_F_BTS:
	case BT_F_LBR:
		bts_frame(c, f);
		return;
	case BT_F_END:
		end_session(c, f->cpu, f);
		return;
	case BT_F_HEADER:
		if (view == VIEW_TEXT)
			fprintf(out_records, "stream-header cpu=%u", f->cpu);
		if (bt_read_header(f, print_pair, NULL) < 0)
			problem("cpu %u: malformed HEADER frame", f->cpu);
		if (view == VIEW_TEXT)
			fputc('\n', out_records);
		return;
	default:
		problem("cpu %u: frame type %u unknown to format version %u; skipped", f->cpu,
			f->type, BT_STREAM_VERSION);
	}
}

static void line(char *s, size_t n)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
	char *at = strstr(s, BT_TEXT_PREFIX);
	if (!at)
		return; /* the human log */
	if (at != s)
		problem("garbage before a frame (%zu bytes); the frame is tried", (size_t)(at - s));
	const char *b64 = at + BT_TEXT_PREFIX_LEN;
	uint8_t buf[BT_FRAME_MAX];
	long len = bt_base64_decode(b64, strlen(b64), buf, sizeof(buf));
	struct bt_frame f;
	const char *why = "not base64";
	if (len < 0 || bt_frame_parse(buf, (size_t)len, &f, &why)) {
		problem("damaged frame: %s", why);
		bad_lines++;
		return;
	}
	cpus[f.cpu % MAX_CPUS].wire_bytes += n + 1;
	frame(&f);
}

/* Decode one capture (the state starts afresh): the exit status. */
static int btdecode_stream(FILE *in, const char *name)
{
	memset(cpus, 0, sizeof(cpus));
	problems = bad_lines = line_no = 0;
	if (!out_records)
		out_records = stdout;
	if (!out_problems)
		out_problems = stderr;
	static char buf[LINE_MAX_LEN], chunk[1 << 16];
	size_t n = 0, got;
	bool too_long = false;
	/* Lines of any length and any bytes (NULs too): a line longer than a frame can be is
	 * cut and counted, never overruns the buffer. Read in chunks, lines found with memchr. */
	while ((got = fread(chunk, 1, sizeof(chunk), in)) > 0) {
		for (char *p = chunk, *end = chunk + got; p < end;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t take = (size_t)((nl ? nl : end) - p);
			if (take > sizeof(buf) - 1 - n) {
				take = sizeof(buf) - 1 - n;
				too_long = true;
			}
			memcpy(buf + n, p, take);
			for (char *z = buf + n; (z = memchr(z, 0, (size_t)(buf + n + take - z)));)
				*z = ' ';
			n += take;
			if (!nl)
				break;
			p = nl + 1;
			line_no++;
			buf[n] = 0;
			if (too_long && strstr(buf, BT_TEXT_PREFIX)) {
				problem("a line too long for a frame: damaged");
				bad_lines++;
			} else if (!too_long) {
				line(buf, n);
			}
			n = 0;
			too_long = false;
		}
	}
	if (n) {
		line_no++;
		buf[n] = 0;
		line(buf, n);
	}
	if (ferror(in)) {
		fprintf(stderr, "btdecode: reading %s: %s\n", name, strerror(errno));
		return EXIT_USAGE;
	}
	uint64_t frames = 0, records = 0;
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		struct cpu_state *s = &cpus[c];
		if (s->in_session) {
			problem("cpu %u: %s %s: the capture ends before its END", c, s->facility,
				s->name);
		}
		frames += s->frames;
		records += s->all_records;
		if (view == VIEW_STATS && s->seen)
			fprintf(
			    out_records,
			    "cpu %u: frames=%" PRIu64 " missing=%" PRIu64 " sessions=%" PRIu64
			    " records=%" PRIu64 " wire-bytes=%" PRIu64 " bytes-per-record=%.2f\n",
			    c, s->frames, s->missing_frames, s->sessions, s->all_records,
			    s->wire_bytes,
			    s->all_records ? (double)s->wire_bytes / (double)s->all_records : 0.0);
	}
	if (view != VIEW_TEXT || problems)
		fprintf(view == VIEW_TEXT ? out_problems : out_records,
			"btdecode: %" PRIu64 " frames, %" PRIu64 " records, %" PRIu64
			" problems (%" PRIu64 " damaged lines)\n",
			frames, records, problems, bad_lines);
	return problems ? EXIT_DAMAGED : 0;
}

#ifndef BTDECODE_NO_MAIN
static int usage(void)
{
	fprintf(stderr, "usage: btdecode [--view text|verify|stats] [FILE]\n"
			"  views: text (the records, as the kernel prints them), verify (only the "
			"problems), stats\n");
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--view") == 0 && i + 1 < argc) {
			const char *v = argv[++i];
			if (strcmp(v, "text") == 0)
				view = VIEW_TEXT;
			else if (strcmp(v, "verify") == 0)
				view = VIEW_VERIFY;
			else if (strcmp(v, "stats") == 0)
				view = VIEW_STATS;
			else {
				fprintf(stderr,
					"btdecode: --view '%s': accepted: text, verify, stats\n",
					v);
				return EXIT_USAGE;
			}
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage();
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "btdecode: unknown option '%s'\n", argv[i]);
			return usage();
		} else if (!path) {
			path = argv[i];
		} else {
			return usage();
		}
	}
	FILE *in = path && strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!in) {
		fprintf(stderr, "btdecode: %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	return btdecode_stream(in, path ? path : "stdin");
}
#endif
