/* SPDX-License-Identifier: MIT */
/*
 * btdecode: reads a capture (a serial log, a file, a pipe or a serial device read as a file)
 * and rebuilds the records of the record stream (lib/stream.h) from its "@BT1 " lines, skipping
 * the human log around them. A capture is complete only when the decoder can prove it: every
 * frame's CRC holds; each CPU's frames are numbered from 0 in every boot without a gap, a
 * duplicate or a step back; every session has its BEGIN and END, its record count and digest
 * match; every boot starts with its HEADER and ends with the kernel's last line ("run
 * finished: ...") or its END frame, which counts each CPU's frames. Anything else is reported
 * with its line, CPU, frame number and session. It never gives a view a record it did not
 * decode from an intact frame of its own session, and a duplicated frame's records only once.
 *
 *   btdecode [--view VIEW] [--elf KERNEL.elf] [--program FILE[@0xBIAS]] [FILE]
 *
 * FILE may also be a USB stick's trace partition, or a whole stick or image holding one
 * (tools/bt_stick.c): its data is decoded, and how complete the capture is said.
 *
 * The views (tools/bt_views.c, tools/bt_calls.c; docs/record-stream.md "Records off the machine"):
 * text (the records as the kernel prints them, the default), verify, stats, json, perf, raw,
 * folded, trace, perf.data (tools/bt_perfdata.c), html (tools/bt_html*.c: one self-contained page).
 * Exit status (tools/bt_verdict.h): 0 the capture is complete, 1 something was damaged,
 * missing, doubled or did not match, 2 bad usage, an unreadable input or an output refused
 * (-o naming a file it reads), 3 no record stream in the input at all, 4 incomplete: the
 * capture came whole, and the kernel counted records it did not deliver.
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/crc32.h"
#include "lib/stream.h"
#include "tools/bt_outfile.h"
#include "tools/bt_stick.h"
#include "tools/bt_verdict.h"
#include "tools/btdecode.h"

#define MAX_CPUS      256
#define LINE_MAX_LEN  (BT_TEXT_PREFIX_LEN + BT_TEXT_MAX + 64)
#define WHY_MAX	      256
#define MAX_PAIRS     64
#define RECENT	      64 /* frames a CPU's duplicates are looked for among */
#define MAX_ELF_FILES 16 /* --elf, --program, the default kernel.elf */
#define CPU_TIDS      8	 /* a CPU's threads the stats view names */

/* A frame seen: its number and CRC tell a duplicate. */
struct seen_frame {
	uint32_t seq, crc;
	uint64_t line;
};

struct cpu_state {
	/* this boot */
	bool seen;
	uint32_t next_seq; /* one past the highest frame number seen */
	bool in_session;
	bool shown; /* the open session passes --cpu, --session, --facility and --tid */
	char facility[BT_NAME_MAX], name[BT_NAME_MAX];
	struct bt_session s; /* the open session, as the views see it */
	uint32_t digest;
	uint64_t out_next[2]; /* the session's program output: the next offset of stdout, stderr */
	uint64_t batch_tsc;   /* the session's last record frame's TSC (BEGIN's at first) */
	struct seen_frame recent[RECENT];
	unsigned n_recent;
	/* totals */
	uint64_t frames, sessions, all_records, wire_bytes, missing_frames;
	uint32_t tids[CPU_TIDS]; /* the threads its sessions traced, as they came */
	unsigned n_tids;
	bool more_tids; /* and more than CPU_TIDS */
};

/* The boot being read: from its first frame to the kernel's last line or its END frame. */
static struct {
	uint64_t number; /* 1, 2, ...: boots in the capture */
	uint64_t frames;
	bool header;	     /* a HEADER frame that is not the END */
	uint64_t first_line; /* its first frame's */
	uint64_t last_line;  /* its last frame's */
	unsigned last_cpu;   /* and that frame's CPU and number */
	uint32_t last_seq;
	bool end_promised; /* its HEADER says the boot ends with its END frame (BT_END_PROMISE) */
} boot;

static struct cpu_state cpus[MAX_CPUS];

/* --cpu, --session, --facility, --tid: the sessions the view is given (every one is still
 * checked) */
static struct {
	long cpu;	  /* -1: any */
	uint64_t session; /* the N-th session to begin in the capture, 0: any */
	const char *facility;
	uint32_t tid;	       /* the thread (struct bt_session's tid), 0: any */
	uint64_t begun, shown; /* sessions so far, and those given to the view */
} filter = {.cpu = -1};

static bool filter_passes(const struct bt_session *s)
{
	filter.begun++;
	bool pass = (filter.cpu < 0 || filter.cpu == (long)s->cpu) &&
		    (!filter.session || filter.session == filter.begun) &&
		    (!filter.facility || !strcmp(filter.facility, s->facility)) &&
		    (!filter.tid || filter.tid == s->tid);
	filter.shown += pass;
	return pass;
}
static const struct bt_view *view = &bt_view_text;
static uint64_t bad_lines, line_no, all_frames, nul_bytes;
static uint64_t tsc_khz; /* the capture's HEADER "tsc-khz=" (0: none) */
FILE *out_records, *out_problems;
uint64_t bt_record_wire_bytes;

/* Something lost or mangled on the way (exit status 1), at the current line. */
static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bt_verdict_say(BT_DAMAGED, line_no, fmt, ap);
	va_end(ap);
}

/* Records the kernel says it did not deliver (exit status 4), at the current line. */
static void withheld(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void withheld(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bt_verdict_say(BT_WITHHELD, line_no, fmt, ap);
	va_end(ap);
}

/* The open session of a CPU, as problems name it. */
static const char *session_name(const struct cpu_state *c)
{
	static char buf[2 * BT_NAME_MAX + 64];
	snprintf(buf, sizeof(buf), "session %s %s (BEGIN at frame %" PRIu32 ")", c->facility,
		 c->name, c->s.number);
	return buf;
}

/* One frame's records, held until its session number says whose they are. */
struct frame_records {
	struct bt_bts r[BT_FRAME_RECORDS_MAX];
	struct bt_lbr l[BT_PAYLOAD_MAX];
	struct bt_pebs p[BT_PAYLOAD_MAX];
	struct bt_sample x[BT_PAYLOAD_MAX];
	unsigned n;
};

static void collect_sample(void *ctx, const struct bt_sample *x)
{
	struct frame_records *fr = ctx;
	if (fr->n < BT_PAYLOAD_MAX)
		fr->x[fr->n++] = *x;
}

static void collect_pebs(void *ctx, const struct bt_pebs *p)
{
	struct frame_records *fr = ctx;
	if (fr->n < BT_PAYLOAD_MAX)
		fr->p[fr->n++] = *p;
}

static void collect_lbr(void *ctx, const struct bt_lbr *e)
{
	struct frame_records *fr = ctx;
	if (fr->n < BT_PAYLOAD_MAX)
		fr->l[fr->n++] = *e;
}

static void collect(void *ctx, const struct bt_bts *r)
{
	struct frame_records *fr = ctx;
	if (fr->n < BT_FRAME_RECORDS_MAX)
		fr->r[fr->n++] = *r;
}

static void end_session(struct cpu_state *c, unsigned cpu, const struct bt_frame *f)
{
	uint64_t records, lost;
	uint32_t digest, session;
	char why[WHY_MAX];
	if (bt_read_end(f, &session, &records, &lost, &digest, why, sizeof(why))) {
		problem("cpu %u: frame %" PRIu32 ": malformed END frame", cpu, f->seq);
		return;
	}
	if (!c->in_session || session != c->s.number) {
		problem("cpu %u: frame %" PRIu32
			": END of the session whose BEGIN was frame %" PRIu32
			", which is missing (%" PRIu64 " records)",
			cpu, f->seq, session, records);
		return;
	}
	const char *verdict = "ok";
	c->s.timed = f->has_tsc;
	c->s.tsc = f->tsc;
	if (c->s.records != records) {
		verdict = "incomplete";
		problem("cpu %u: frame %" PRIu32 ": %s: %" PRIu64 " of its %" PRIu64
			" records decoded",
			cpu, f->seq, session_name(c), c->s.records, records);
	} else if (c->digest != digest) {
		verdict = "mismatch";
		problem("cpu %u: frame %" PRIu32 ": %s: the records' digest %08x is not the "
			"kernel's %08x",
			cpu, f->seq, session_name(c), c->digest, digest);
	}
	if (lost) {
		/* the kernel's own count: its "incomplete:" line and run INCOMPLETE
		 * (docs/record-stream.md "Nothing lost") */
		withheld("cpu %u: frame %" PRIu32 ": %s: incomplete: the kernel did not deliver "
			 "%" PRIu64 " records (%s)",
			 cpu, f->seq, session_name(c), lost, *why ? why : "no reason given");
		bt_verdict_run_lost(lost);
	}
	if (c->shown && view->end)
		view->end(&c->s,
			  &(struct bt_session_end){
			      .records = records, .lost = lost, .verdict = verdict, .why = why});
	c->in_session = false;
}

uint64_t bt_tsc_khz(void)
{
	return tsc_khz;
}

bool bt_tsc_ns(uint64_t tsc, uint64_t *ns)
{
	if (!tsc_khz)
		return false;
	*ns = (uint64_t)((unsigned __int128)tsc * 1000000 / tsc_khz);
	return true;
}

/* The TSC of record i of a batch of n (struct bt_session: timed, tsc). */
static void record_time(struct cpu_state *c, const struct bt_frame *f, unsigned i, unsigned n)
{
	c->s.timed = f->has_tsc;
	if (!f->has_tsc)
		return;
	uint64_t from = c->batch_tsc <= f->tsc ? c->batch_tsc : f->tsc;
	c->s.tsc = from + (uint64_t)((unsigned __int128)(f->tsc - from) * (i + 1) / n);
}

/* A piece of the program's output, given to the view if it is its session's and comes in
 * order (a gap: bytes the kernel could not deliver, or a lost frame, said). */
static void output_frame(struct cpu_state *c, const struct bt_frame *f)
{
	uint32_t session;
	struct bt_output o;
	if (bt_read_output(f, &session, &o)) {
		problem("cpu %u: frame %" PRIu32 ": malformed OUTPUT frame", f->cpu, f->seq);
		return;
	}
	const char *fd = o.fd == BT_OUTPUT_STDERR ? "stderr" : "stdout";
	if (!c->in_session || session != c->s.number) {
		problem("cpu %u: frame %" PRIu32 ": %zu bytes of %s of the session whose BEGIN was "
			"frame %" PRIu32 ", which is missing: not shown",
			f->cpu, f->seq, o.len, fd, session);
		return;
	}
	uint64_t *next = &c->out_next[o.fd == BT_OUTPUT_STDERR];
	if (o.offset != *next)
		problem("cpu %u: frame %" PRIu32 ": %s: the program's %s %s at byte %" PRIu64
			" (%" PRIu64 " bytes %s)",
			f->cpu, f->seq, session_name(c), fd,
			o.offset > *next ? "goes on" : "goes back", o.offset,
			o.offset > *next ? o.offset - *next : *next - o.offset,
			o.offset > *next ? "missing" : "again: not shown twice");
	if (o.offset < *next) {
		uint64_t again = *next - o.offset < o.len ? *next - o.offset : o.len;
		o.bytes += again;
		o.offset += again;
		o.len -= again;
	}
	*next = o.offset + o.len;
	c->s.timed = f->has_tsc;
	c->s.tsc = o.tsc; /* when the program wrote it */
	if (c->shown && view->output && o.len)
		view->output(&c->s, &o);
}

/* A BTS frame's records go to the open session only if the frame says they are its own: after a
 * lost END and BEGIN they would otherwise land in the wrong one. */
static void bts_frame(struct cpu_state *c, const struct bt_frame *f)
{
	static struct frame_records fr;
	uint32_t session = 0;
	fr.n = 0;
	bool lbr = f->type == BT_F_LBR, pebs = f->type == BT_F_PEBS,
	     sample = f->type == BT_F_SAMPLE;
	uint64_t missing = 0;
	long n;
	if (lbr)
		n = bt_read_lbr(f, &session, collect_lbr, &fr);
	else if (pebs)
		n = bt_read_pebs(f, &session, collect_pebs, &fr);
	else if (sample)
		n = bt_read_sample(f, &session, collect_sample, &fr);
	else if (f->type == BT_F_PATH)
		n = bt_read_path(f, &session, bt_sym_code, NULL, collect, &fr, &missing);
	else
		n = bt_read_bts(f, &session, collect, &fr);
	if (n == BT_PATH_NO_CODE)
		problem("cpu %u: frame %" PRIu32 ": its records follow the code, and no ELF in use "
			"has the code at %#" PRIx64 " (the kernel's: --elf build/kernel.elf of "
			"this build; a program's: --program FILE)",
			f->cpu, f->seq, missing);
	else if (n == BT_PATH_LOST)
		problem("cpu %u: frame %" PRIu32 ": a record's path runs past the walk's limit: "
			"the code is not the one the kernel walked",
			f->cpu, f->seq);
	else if (n < 0)
		problem("cpu %u: frame %" PRIu32 ": malformed records%s", f->cpu, f->seq,
			fr.n ? ": the session will be incomplete" : "");
	if (!c->in_session || session != c->s.number) {
		problem("cpu %u: frame %" PRIu32
			": %u records of the session whose BEGIN was frame "
			"%" PRIu32 ", which is missing: not shown",
			f->cpu, f->seq, fr.n, session);
		return;
	}
	if (n < 0)
		return; /* a frame whose CRC held but whose records do not parse: none shown */
	for (unsigned i = 0; i < fr.n; i++) {
		record_time(c, f, i, fr.n);
		if (lbr) {
			c->digest = bt_digest_lbr(c->digest, &fr.l[i]);
			if (c->shown && view->lbr)
				view->lbr(&c->s, &fr.l[i]);
		} else if (pebs) {
			c->digest = bt_digest_pebs(c->digest, &fr.p[i]);
			if (c->shown && view->pebs)
				view->pebs(&c->s, &fr.p[i]);
		} else if (sample) {
			c->digest = bt_digest_sample(c->digest, &fr.x[i]);
			if (c->shown && view->sample)
				view->sample(&c->s, &fr.x[i]);
		} else {
			c->digest = bt_digest(c->digest, &fr.r[i]);
			if (c->shown && view->bts)
				view->bts(&c->s, &fr.r[i]);
		}
		c->s.records++;
	}
	if (f->has_tsc)
		c->batch_tsc = f->tsc;
	c->all_records += fr.n;
}

struct pair_list {
	const char *p[MAX_PAIRS];
	char text[BT_PAYLOAD_MAX + 1];
	unsigned n, used;
};

static void keep_pair(void *ctx, const char *pair)
{
	struct pair_list *l = ctx;
	size_t len = strlen(pair);
	if (l->n == MAX_PAIRS || l->used + len + 1 > sizeof(l->text))
		return;
	memcpy(l->text + l->used, pair, len + 1);
	l->p[l->n++] = l->text + l->used;
	l->used += (unsigned)len + 1;
	bt_sym_header_pair(pair);
	if (!strncmp(pair, "tsc-khz=", 8))
		tsc_khz = strtoull(pair + 8, NULL, 10);
	if (!strcmp(pair, BT_END_PROMISE))
		boot.end_promised = true;
}

static struct bt_insn_cache *insn_cache;
static unsigned insn_cache_generation;

/* The code the walks read changes when a HEADER names other ELFs (another boot). */
static void forget_code(void)
{
	if (insn_cache && insn_cache_generation == bt_sym_generation())
		return;
	insn_cache_generation = bt_sym_generation();
	if (!insn_cache)
		insn_cache = malloc(sizeof(*insn_cache));
	if (insn_cache)
		memset(insn_cache, 0, sizeof(*insn_cache));
	bt_read_path_cache(insn_cache);
}

/* The boot is over: the kernel's last line, its END frame, another boot's first frame or the
 * end of the capture (missing: what is said when the boot did not end as it should, NULL when
 * it did). Every CPU starts afresh. */
static void boot_close(const char *missing)
{
	if (boot.frames) {
		for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
			struct cpu_state *c = &cpus[cpu];
			if (c->in_session)
				problem("cpu %u: %s: no END before the boot's end%s", cpu,
					session_name(c),
					missing ? " (the capture ends or another boot starts)"
						: "");
		}
		if (!boot.header)
			problem(
			    "boot %" PRIu64 " (frames from line %" PRIu64
			    "): no HEADER frame (the boot CPU's frame 0: which kernel, build and "
			    "processor made the capture)",
			    boot.number, boot.first_line);
		if (missing)
			problem("boot %" PRIu64 ": %s, and the boot has no end: no 'run finished:' "
				"line (the kernel's last) nor END frame after its last frame (line "
				"%" PRIu64 ", cpu %u frame %" PRIu32
				"): what the run sent after it "
				"is missing",
				boot.number, missing, boot.last_line, boot.last_cpu, boot.last_seq);
		boot.number++;
	}
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct cpu_state *c = &cpus[cpu];
		c->seen = c->in_session = false;
		c->next_seq = 0;
		c->n_recent = 0;
	}
	boot.frames = 0;
	boot.header = boot.end_promised = false;
}

/* The kernel's last line, "run finished: WORD": the boot is over. A boot whose HEADER promised
 * its END frame and sent none lost that frame, and with it the proof that no CPU's last frames
 * (a CPU's last session, whole) are missing. */
static void boot_last_line(const char *word)
{
	if (boot.frames && boot.end_promised)
		problem("boot %" PRIu64 ": its HEADER promises an END frame ('%s'), and the "
			"kernel's last line comes without it: the END frame is missing, and "
			"whether any CPU's last frames (its last session) are missing cannot be "
			"proven",
			boot.number, BT_END_PROMISE);
	boot_close(NULL);
	bt_verdict_run_end(word, line_no);
}

/* The boot's END frame (lib/stream.h: "end=CPU:FRAMES,..."), sent as frame `seq` of `cpu`:
 * each CPU named must have sent that many frames, and no other CPU any. */
static void boot_end_frame(unsigned cpu, uint32_t seq, const char *counts)
{
	bool named[MAX_CPUS] = {false};
	for (const char *p = counts; *p;) {
		char *end;
		errno = 0;
		unsigned long c = strtoul(p, &end, 10), n = 0;
		bool good = end != p && *end == ':' && c < MAX_CPUS;
		if (good) {
			p = end + 1;
			n = strtoul(p, &end, 10);
			good = end != p && (*end == ',' || !*end) && !errno && n <= UINT32_MAX;
		}
		if (!good) {
			problem("cpu %u: frame %" PRIu32 ": the boot's END 'end=%s' is malformed "
				"(accepted: CPU:FRAMES, separated by commas)",
				cpu, seq, counts);
			break;
		}
		p = *end ? end + 1 : end;
		struct cpu_state *s = &cpus[c];
		named[c] = true;
		uint64_t want = n + (c == cpu), have = s->seen ? s->next_seq : 0;
		if (have + 1 == want)
			problem("cpu %lu: frame %" PRIu64 " missing: the boot's END says the CPU "
				"sent %lu frames",
				c, have, n);
		else if (have < want)
			problem("cpu %lu: frames %" PRIu64 "..%" PRIu64 " missing (%" PRIu64
				"): the boot's END says the CPU sent %lu frames",
				c, have, want - 1, want - have, n);
		else if (have > want)
			problem("cpu %lu: frames 0..%" PRIu64 " came, and the boot's END says the "
				"CPU sent %lu",
				c, have - 1, n);
		if (have < want)
			s->missing_frames += want - have;
	}
	for (unsigned c = 0; c < MAX_CPUS; c++)
		if (cpus[c].seen && !named[c])
			problem("cpu %u: frames 0..%" PRIu32 " came, and the boot's END does not "
				"name the CPU",
				c, cpus[c].next_seq - 1);
}

static void header_frame(const struct bt_frame *f)
{
	static struct pair_list l;
	l.n = l.used = 0;
	if (bt_read_header(f, keep_pair, &l) < 0)
		problem("cpu %u: frame %" PRIu32 ": malformed HEADER frame", f->cpu, f->seq);
	forget_code();
	if (view->header)
		view->header(f->cpu, l.p, l.n);
	for (unsigned i = 0; i < l.n; i++) {
		if (!strncmp(l.p[i], BT_END_PAIR, strlen(BT_END_PAIR))) {
			boot_end_frame(f->cpu, f->seq, l.p[i] + strlen(BT_END_PAIR));
			boot_close(NULL);
			return;
		}
	}
	boot.header = true;
}

/* The frame's CRC, as it came (a duplicate has the same number and CRC). */
static uint32_t frame_crc(const struct bt_frame *f)
{
	const uint8_t *p = f->payload + f->len;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether the CPU already had this frame in this boot (among its last RECENT): *line gets
 * where; else it is remembered. A number not seen yet is never a duplicate. */
static bool duplicate(struct cpu_state *c, uint32_t seq, uint32_t crc, uint64_t *line)
{
	unsigned n = c->n_recent < RECENT ? c->n_recent : RECENT;
	for (unsigned i = 0; c->seen && seq < c->next_seq && i < n; i++) {
		if (c->recent[i].seq == seq && c->recent[i].crc == crc) {
			*line = c->recent[i].line;
			return true;
		}
	}
	c->recent[c->n_recent++ % RECENT] = (struct seen_frame){seq, crc, line_no};
	return false;
}

/* Frame numbers: each CPU's run from 0 in every boot, one by one. */
static void frame_number(struct cpu_state *c, const struct bt_frame *f)
{
	if (!c->seen && f->seq == 1)
		problem("cpu %u: frame 0 missing (the CPU's first in this boot)", f->cpu);
	else if (!c->seen && f->seq > 1)
		problem("cpu %u: frames 0..%" PRIu32 " missing (%" PRIu32
			"): the CPU's first in this boot",
			f->cpu, f->seq - 1, f->seq);
	else if (c->seen && f->seq == c->next_seq + 1)
		problem("cpu %u: frame %" PRIu32 " missing%s%s", f->cpu, c->next_seq,
			c->in_session ? ", in " : "", c->in_session ? session_name(c) : "");
	else if (c->seen && f->seq > c->next_seq)
		problem("cpu %u: frames %" PRIu32 "..%" PRIu32 " missing (%" PRIu32 ")%s%s", f->cpu,
			c->next_seq, f->seq - 1, f->seq - c->next_seq, c->in_session ? ", in " : "",
			c->in_session ? session_name(c) : "");
	else if (c->seen && f->seq < c->next_seq)
		problem("cpu %u: frame %" PRIu32 " after frame %" PRIu32
			": the numbers go back (frames out of order, or a boot whose first frames "
			"are lost); skipped, so that no record comes twice or out of order",
			f->cpu, f->seq, c->next_seq - 1);
	if (f->seq >= c->next_seq || !c->seen) {
		c->missing_frames += f->seq - (c->seen ? c->next_seq : 0);
		c->next_seq = f->seq + 1;
	}
	c->seen = true;
}

/* A thread a session of the CPU traced, kept for the stats view's line of the CPU. */
static void note_tid(struct cpu_state *c, uint32_t tid)
{
	for (unsigned i = 0; i < c->n_tids; i++)
		if (c->tids[i] == tid)
			return;
	if (c->n_tids < CPU_TIDS)
		c->tids[c->n_tids++] = tid;
	else
		c->more_tids = true;
}

/* The stats view's line of a CPU: " tid=N[,M...]" when one of its sessions traced a thread other
 * than the main one (tid 1), nothing when they all traced tid 1 (a capture without threads). */
static void print_tids(const struct cpu_state *c)
{
	bool other = c->more_tids;
	for (unsigned i = 0; i < c->n_tids; i++)
		other |= c->tids[i] != 1;
	for (unsigned i = 0; other && i < c->n_tids; i++)
		fprintf(out_records, "%s%" PRIu32, i ? "," : " tid=", c->tids[i]);
	if (c->more_tids)
		fputs(",...", out_records);
}

static void frame(const struct bt_frame *f)
{
	if (f->cpu >= MAX_CPUS) {
		problem("frame of cpu %u: beyond %u CPUs; ignored", f->cpu, MAX_CPUS);
		return;
	}
	struct cpu_state *c = &cpus[f->cpu];
	uint64_t first;
	/* Frame 0 again: another boot, even one that sent the same bytes as the last, unless it
	 * comes right after a frame 0 like it (a duplicate). */
	bool next_boot = c->seen && f->seq == 0;
	if ((!next_boot || c->next_seq == 1) && duplicate(c, f->seq, frame_crc(f), &first)) {
		problem("cpu %u: frame %" PRIu32 ": a duplicate of the frame on line %" PRIu64
			": skipped, its records counted once",
			f->cpu, f->seq, first);
		return;
	}
	if (next_boot) {
		boot_close("another boot's frames follow");
		c->recent[c->n_recent++] = (struct seen_frame){0, frame_crc(f), line_no};
	}
	if (!boot.frames) {
		boot.first_line = line_no;
		bt_verdict_run_start();
	}
	boot.frames++;
	boot.last_line = line_no;
	boot.last_cpu = f->cpu;
	boot.last_seq = f->seq;
	all_frames++;
	bool back = c->seen && f->seq < c->next_seq;
	frame_number(c, f);
	c->frames++;
	if (back)
		return;
	if (view->frame)
		view->frame(f, line_no);
	switch (f->type) {
	case BT_F_BEGIN:
		if (c->in_session)
			problem("cpu %u: frame %" PRIu32 ": %s: no END before this BEGIN", f->cpu,
				f->seq, session_name(c));
		c->in_session = false;
		if (bt_read_begin(f, c->facility, c->name)) {
			problem("cpu %u: frame %" PRIu32 ": malformed BEGIN frame", f->cpu, f->seq);
			return;
		}
		c->in_session = true;
		c->s = (struct bt_session){.cpu = f->cpu,
					   .number = f->seq,
					   .facility = c->facility,
					   .name = c->name,
					   .tid = bt_session_tid(c->name),
					   .timed = f->has_tsc,
					   .tsc = f->tsc};
		note_tid(c, c->s.tid);
		c->batch_tsc = f->tsc;
		c->digest = 0;
		c->out_next[0] = c->out_next[1] = 0;
		c->sessions++;
		c->shown = filter_passes(&c->s);
		if (c->shown && view->begin)
			view->begin(&c->s);
		return;
	case BT_F_BTS:
	case BT_F_PATH:
	case BT_F_LBR:
	case BT_F_PEBS:
	case BT_F_SAMPLE:
		bts_frame(c, f);
		return;
	case BT_F_OUTPUT:
		output_frame(c, f);
		return;
	case BT_F_END:
		end_session(c, f->cpu, f);
		return;
	case BT_F_HEADER:
		header_frame(f);
		return;
	default:
		problem("cpu %u: frame %" PRIu32 ": type %u unknown to format version %u; skipped",
			f->cpu, f->seq, f->type, BT_STREAM_VERSION);
	}
}

/* An intact frame off either wire, `bytes` of it on the wire: counted, then read. */
static void wire_frame(const struct bt_frame *f, uint64_t bytes)
{
	cpus[f->cpu % MAX_CPUS].wire_bytes += bytes;
	if (f->type == BT_F_BTS || f->type == BT_F_PATH || f->type == BT_F_LBR ||
	    f->type == BT_F_PEBS || f->type == BT_F_SAMPLE)
		bt_record_wire_bytes += bytes; /* the frames that carry records */
	frame(f);
}

static void line(char *s, size_t n)
{
	/* the line's end: LF, CR, and blanks a terminal or an editor may have left */
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	char *at = strstr(s, BT_TEXT_PREFIX);
	if (!at) {
		if (!strncmp(s, BT_RUN_END, strlen(BT_RUN_END)))
			boot_last_line(s + strlen(BT_RUN_END));
		return; /* the human log */
	}
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
	wire_frame(&f, n + 1);
}

/* ---- the wire: "@BT1 " lines and raw frames, between the human log's lines ---------------- */

static char text[LINE_MAX_LEN]; /* the line being read */
static size_t text_n;
static bool text_long;

/* Bytes of the current line: a line longer than a frame can be is cut and counted, never
 * overruns the buffer; NULs become spaces (and are counted: UTF-16 has one every other byte). */
static void text_bytes(const char *p, size_t take)
{
	if (take > sizeof(text) - 1 - text_n) {
		take = sizeof(text) - 1 - text_n;
		text_long = true;
	}
	memcpy(text + text_n, p, take);
	for (char *z = text + text_n; (z = memchr(z, 0, (size_t)(text + text_n + take - z)));) {
		*z = ' ';
		nul_bytes++;
	}
	text_n += take;
}

static void text_end(void)
{
	line_no++;
	text[text_n] = 0;
	if (text_long && strstr(text, BT_TEXT_PREFIX)) {
		problem("a line too long for a frame: damaged");
		bad_lines++;
	} else if (!text_long) {
		line(text, text_n);
	}
	text_n = 0;
	text_long = false;
}

/* stream=binary: a frame's bytes from p (avail of them), with the serial console's LF -> CR LF
 * undone (crlf) or not. The bytes consumed, 0 if they are not a whole good frame, -1 if more
 * bytes are needed to tell; *looked: the header looked like a frame's. */
static long binary_frame(const uint8_t *p, size_t avail, bool crlf, bool eof, struct bt_frame *f,
			 uint8_t *buf, bool *looked)
{
	size_t i = 0, o = 0, need = BT_HEADER_LEN;
	while (o < need) {
		if (i >= avail)
			return eof ? 0 : -1;
		if (crlf && p[i] == '\r') {
			if (i + 1 >= avail)
				return eof ? 0 : -1;
			if (p[i + 1] == '\n')
				i++;
		}
		buf[o++] = p[i++];
		if (o == BT_HEADER_LEN) {
			unsigned len = (unsigned)(buf[BT_H_LEN] | buf[BT_H_LEN + 1] << 8);
			if (buf[BT_H_TYPE] < BT_F_BEGIN || buf[BT_H_TYPE] > BT_F_OUTPUT ||
			    len > BT_PAYLOAD_MAX)
				return 0;
			*looked = true;
			need = BT_HEADER_LEN + len + BT_CRC_LEN;
		}
	}
	const char *why;
	return bt_frame_parse(buf, o, f, &why) ? 0 : (long)i;
}

static const char BINARY_MAGIC[] = {BT_MAGIC0, BT_MAGIC1, BT_STREAM_VERSION};

/* The first binary frame's magic in data[0..n): "BT" and a version this reader knows. */
static const char *find_magic(const char *data, size_t n)
{
	for (const char *m = data; (m = memmem(m, n - (size_t)(m - data), BINARY_MAGIC, 2)); m++)
		if (m + 2 < data + n && (m[2] == BT_STREAM_VERSION || m[2] == BT_STREAM_VERSION1))
			return m;
	return NULL;
}

/* Takes what data[0..n) holds: the bytes consumed (the rest waits for more, unless eof). A line
 * ends at a LF, or at a CR: a run of CRs with or without a LF after them ends one line (CR LF
 * from the UART, CR CR LF from a terminal's log of it, CR alone from some serial programs). */
static size_t scan(const char *data, size_t n, bool eof)
{
	size_t p = 0;
	const char *magic = find_magic(data, n);
	const char *cr = memchr(data, '\r', n);
	while (p < n) {
		if (magic && magic < data + p)
			magic = find_magic(data + p, n - p);
		if (cr && cr < data + p)
			cr = memchr(data + p, '\r', n - p);
		const char *nl = memchr(data + p, '\n', n - p);
		const char *eol = nl && (!cr || nl < cr) ? nl : cr;
		if (magic && (!eol || magic < eol)) {
			text_bytes(data + p, (size_t)(magic - data) - p);
			p = (size_t)(magic - data);
			static uint8_t buf[BT_FRAME_MAX];
			struct bt_frame f;
			bool looked = false;
			long used = binary_frame((const uint8_t *)magic, n - p, true, eof, &f, buf,
						 &looked);
			if (used == 0)
				used = binary_frame((const uint8_t *)magic, n - p, false, eof, &f,
						    buf, &looked);
			if (used < 0)
				return p; /* the frame's end is not here yet */
			if (used > 0) {
				wire_frame(&f, (uint64_t)used);
				p += (size_t)used;
			} else {
				if (looked) {
					problem("damaged binary frame: CRC mismatch");
					bad_lines++;
				}
				text_bytes(magic, 1);
				p++;
			}
			continue;
		}
		if (!eol) {
			/* the last bytes may be a binary frame's magic cut by the chunk's end */
			size_t keep = eof			     ? 0
				      : n - p < sizeof(BINARY_MAGIC) ? n - p
								     : sizeof(BINARY_MAGIC) - 1;
			text_bytes(data + p, n - p - keep);
			return n - keep;
		}
		text_bytes(data + p, (size_t)(eol - data) - p);
		size_t next = (size_t)(eol - data) + 1;
		if (*eol == '\r') {
			while (next < n && data[next] == '\r')
				next++;
			if (next == n && !eof)
				return (size_t)(eol - data); /* a LF may follow the CRs */
			if (next < n && data[next] == '\n')
				next++;
		}
		text_end();
		p = next;
	}
	return p;
}

/* Decode one capture (the state starts afresh): the exit status. */
static int btdecode_stream(FILE *in, const char *name)
{
	memset(cpus, 0, sizeof(cpus));
	memset(&boot, 0, sizeof(boot));
	boot.number = 1;
	bt_sym_reset();
	forget_code();
	bad_lines = line_no = bt_record_wire_bytes = all_frames = nul_bytes = 0;
	bt_verdict_start();
	text_n = 0;
	text_long = false;
	if (!out_records)
		out_records = stdout;
	if (!out_problems)
		out_problems = stderr;
	if (view->start)
		view->start();
	/* Read in chunks; what a chunk leaves (a line or a binary frame not yet whole) is kept. */
	static char data[(1 << 16) + 2 * BT_FRAME_MAX + 16];
	size_t have = 0;
	uint64_t bytes = 0;
	bool utf16 = false;
	bt_progress_start(in, view != &bt_view_output);
	for (bool eof = false; !eof;) {
		size_t room = sizeof(data) - have, got = room ? fread(data + have, 1, room, in) : 0;
		eof = room && got == 0;
		/* a UTF-16 byte-order mark (FF FE or FE FF) at the start */
		if (!bytes && have + got >= 2)
			utf16 = (uint8_t)data[0] + (uint8_t)data[1] == 0xff + 0xfe &&
				((uint8_t)data[0] == 0xff || (uint8_t)data[0] == 0xfe);
		bytes += got;
		have += got;
		size_t used = scan(data, have, eof);
		if (!used && have == sizeof(data)) /* cannot be: a frame is far smaller */
			used = have;
		memmove(data, data + used, have - used);
		have -= used;
		uint64_t records = 0;
		for (unsigned c = 0; c < MAX_CPUS; c++)
			records += cpus[c].all_records;
		bt_progress_update(bytes, records);
	}
	bt_progress_clear();
	if (text_n)
		text_end();
	if (ferror(in)) {
		fprintf(stderr, "btdecode: reading %s: %s\n", name, strerror(errno));
		return BT_EXIT_USAGE;
	}
	if (boot.frames)
		boot_close("the capture ends");
	if (!all_frames && !bad_lines) {
		problem("no record stream in %s: %s%s", name,
			!bytes ? "it is empty"
			       : "no line is a frame ('@BT1 ...') and no frame is there as bytes",
			utf16 || nul_bytes > bytes / 4
			    ? " (it looks like UTF-16: iconv -f UTF-16 -t UTF-8 makes it readable)"
			    : "; the kernel sends one with stream=text or stream=binary");
	}
	uint64_t records = 0;
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		struct cpu_state *s = &cpus[c];
		records += s->all_records;
		if (view != &bt_view_stats || !s->frames)
			continue;
		fprintf(out_records,
			"cpu %u: frames=%" PRIu64 " missing=%" PRIu64 " sessions=%" PRIu64
			" records=%" PRIu64 " wire-bytes=%" PRIu64 " bytes-per-record=%.2f",
			c, s->frames, s->missing_frames, s->sessions, s->all_records, s->wire_bytes,
			s->all_records ? (double)s->wire_bytes / (double)s->all_records : 0.0);
		print_tids(s);
		fputc('\n', out_records);
	}
	if (view->finish)
		view->finish();
	/* verify and stats say it always, on stdout; the record views only when something is
	 * wrong, on stderr (their stdout is for their consumers) */
	bool summary_view = view == &bt_view_verify || view == &bt_view_stats;
	int status = bt_verdict_finish(summary_view ? out_records : out_problems, summary_view,
				       all_frames, records, bad_lines);
	fflush(out_records);
	return status;
}

#ifndef BTDECODE_NO_MAIN
static void usage(FILE *to)
{
	fprintf(to, "usage: btdecode [--view VIEW] [-o FILE] [--elf KERNEL.elf] "
		    "[--program FILE[@0xBIAS]] [--debug-dir DIR] [FILE]\n  reads FILE (or stdin, "
		    "or -) and checks "
		    "every frame; views:\n");
	for (unsigned i = 0; bt_views[i]; i++)
		fprintf(to, "    %-9s %s\n", bt_views[i]->name, bt_views[i]->about);
	fprintf(
	    to,
	    "  --view VIEW, --view=VIEW: the view (default text)\n"
	    "  -o FILE, --output=FILE: the view's output goes to FILE (default stdout; a binary "
	    "view\n    such as perf.data is never written to a terminal)\n"
	    "  --elf: the kernel's ELF (default: kernel.elf beside btdecode, when its build "
	    "id is the capture's)\n  --program: a user program's ELF; @0xBIAS where a "
	    "static PIE was placed (default: the capture's program-bias); without it, the ELF\n"
	    "    with the build id the capture names, beside the capture or under --debug-dir\n"
	    "  --debug-dir DIR: a folder of ELFs, or of a .build-id/ab/cdef...[.debug] tree\n"
	    "  --stream stdout|stderr|both: --view output's streams (default both: the "
	    "program's\n    stdout to stdout, its stderr to stderr)\n"
	    "  --cpu N, --session N, --facility NAME, --tid N: give the view only the sessions of "
	    "CPU N,\n    the N-th session to begin (1, 2, ...: the HTML page's numbers), of that "
	    "facility, or\n    of the program's thread N (the session name's \" tid=N\"; none: tid "
	    "1, the main\n    thread) (every session is still checked, and the exit status is the "
	    "whole capture's)\n"
	    "  --diff OLD: OLD and FILE compared by function and by branch (counts, and shares of "
	    "each\n    capture's own records), as perf diff compares two perf.data files\n"
	    "  --callchains yes|no: --view perf.data gives each sample its call chain (default "
	    "yes);\n    no for perf2bolt, which cannot parse the lines perf script prints for "
	    "them\n"
	    "  -h, --help: this text\n"
	    "  on a terminal (stderr), a decode longer than BTDECODE_PROGRESS_MS (1000) ms shows a "
	    "progress line\n"
	    "  exit status: 0 complete (every frame, session and boot whole, nothing lost),\n"
	    "  1 damaged, missing, doubled or out of order, 2 bad usage or an unreadable input or\n"
	    "  output (-o naming a file it reads is refused), 3 no record stream in the input,\n"
	    "  4 incomplete: every frame came, and the kernel counted records it did not "
	    "deliver\n");
}

/* FILE[@0xBIAS] */
static int program_arg(const char *arg)
{
	char path[4096];
	const char *at = strrchr(arg, '@');
	if (!at)
		return bt_sym_program(arg, false, 0);
	char *end;
	errno = 0;
	unsigned long long bias = strtoull(at + 1, &end, 16);
	if (strncmp(at + 1, "0x", 2) || *end || errno || (size_t)(at - arg) >= sizeof(path)) {
		fprintf(stderr, "btdecode: --program '%s': accepted: FILE or FILE@0xBIAS\n", arg);
		return -1;
	}
	memcpy(path, arg, (size_t)(at - arg));
	path[at - arg] = 0;
	return bt_sym_program(path, true, bias);
}

/* kernel.elf beside the btdecode binary (build/), if there is one */
static void default_kernel(void)
{
	char self[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return;
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = 0;
	snprintf(path, sizeof(path), "%s/kernel.elf", self);
	if (access(path, R_OK) == 0)
		bt_sym_kernel(path, false);
}

static int set_view(const char *v)
{
	view = bt_view_find(v);
	if (view)
		return 0;
	fprintf(stderr, "btdecode: --view '%s': accepted:", v);
	for (unsigned k = 0; bt_views[k]; k++)
		fprintf(stderr, " %s", bt_views[k]->name);
	fputc('\n', stderr);
	return -1;
}

static const struct option longs[] = {
    {"view", required_argument, NULL, 'v'},
    {"elf", required_argument, NULL, 'e'},
    {"program", required_argument, NULL, 'p'},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {"debug-dir", required_argument, NULL, 'd'},
    {"stream", required_argument, NULL, 's'},
    {"callchains", required_argument, NULL, 'c'},
    {"cpu", required_argument, NULL, 'C'},
    {"session", required_argument, NULL, 'S'},
    {"facility", required_argument, NULL, 'F'},
    {"tid", required_argument, NULL, 'T'}, /* a thread: the session name's " tid=N" */
    {"diff", required_argument, NULL, 'D'},
    {NULL, 0, NULL, 0},
};

/* The options that take a value checked here: 0, or BT_EXIT_USAGE with what is accepted said. */
static int value_option(int c, const char *arg)
{
	if (c == 'c') {
		if (strcmp(arg, "yes") && strcmp(arg, "no")) {
			fprintf(stderr, "btdecode: --callchains '%s': accepted: yes, no\n", arg);
			return BT_EXIT_USAGE;
		}
		bt_perf_callchains = !strcmp(arg, "yes");
		return 0;
	}
	static const struct {
		int c;
		const char *name, *accepted;
		unsigned long long lo, hi;
	} numbers[] = {
	    {'C', "cpu", "a CPU number, 0-255", 0, MAX_CPUS - 1},
	    {'S', "session", "a session number, 1 or more", 1, ULLONG_MAX},
	    {'T', "tid", "a Linux thread id, 1-2147483647 (1: the main thread)", 1, INT32_MAX},
	};
	unsigned k = 0;
	while (numbers[k].c != c)
		k++;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < numbers[k].lo ||
	    v > numbers[k].hi) {
		fprintf(stderr, "btdecode: --%s '%s': accepted: %s\n", numbers[k].name, arg,
			numbers[k].accepted);
		return BT_EXIT_USAGE;
	}
	if (c == 'C')
		filter.cpu = (long)v;
	else if (c == 'S')
		filter.session = v;
	else
		filter.tid = (uint32_t)v;
	return 0;
}

/* Where a capture's program is looked for by its build id: beside the capture (its folder), then
 * --debug-dir; each side of --diff beside its own capture. */
static void search_beside(const char *capture, const char *debug_dir, char *dir, size_t size)
{
	snprintf(dir, size, ".");
	if (capture && strcmp(capture, "-") && strrchr(capture, '/'))
		snprintf(dir, size, "%.*s", (int)(strrchr(capture, '/') - capture), capture);
	bt_sym_search(capture && strcmp(capture, "-") ? dir : NULL, debug_dir);
}

/* One capture through the view; the filters count its sessions afresh, and say when none of
 * them matched. */
static int decode_one(FILE *in, const char *name)
{
	filter.begun = filter.shown = 0;
	int rc = btdecode_stream(in, name);
	if ((filter.cpu >= 0 || filter.session || filter.facility || filter.tid) && !filter.shown)
		fprintf(stderr,
			"btdecode: %s: no session of its %" PRIu64
			" matches --cpu, --session, --facility or --tid: the view had none\n",
			name, filter.begun);
	return rc;
}

/* The capture decoded into the view, or with --diff OLD, OLD and then it into the tally (each
 * checked as always: the worse status). search: the programs are found by build id (no
 * --program), beside each capture. */
static int decode(FILE *in, const char *path, const char *diff_old, bool search,
		  const char *debug_dir)
{
	static char old_dir[4096], new_dir[4096];
	const char *name = path ? path : "stdin";
	if (!diff_old)
		return decode_one(in, name);
	FILE *old = fopen(diff_old, "rb");
	if (!old) {
		fprintf(stderr, "btdecode: --diff %s: %s\n", diff_old, strerror(errno));
		return BT_EXIT_USAGE;
	}
	view = &bt_view_diff_tally;
	if (search)
		search_beside(diff_old, debug_dir, old_dir, sizeof(old_dir));
	bt_diff_side(0);
	int rc_old = decode_one(old, diff_old);
	fclose(old);
	if (search)
		search_beside(path, debug_dir, new_dir, sizeof(new_dir));
	bt_diff_side(1);
	int rc = decode_one(in, name);
	bt_diff_print(diff_old, name);
	return rc == 1 || rc_old == 1 ? 1 : rc > rc_old ? rc : rc_old;
}

int main(int argc, char **argv)
{
	const char *output = NULL, *debug_dir = NULL, *diff_old = NULL;
	bool have_elf = false, have_program = false;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (set_view(optarg))
				return BT_EXIT_USAGE;
			break;
		case 'e':
			if (bt_sym_kernel(optarg, true))
				return BT_EXIT_USAGE;
			have_elf = true;
			break;
		case 'p':
			if (program_arg(optarg))
				return BT_EXIT_USAGE;
			have_program = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 'd':
			debug_dir = optarg;
			break;
		case 's':
			if (bt_output_streams(optarg))
				return BT_EXIT_USAGE;
			break;
		case 'c':
		case 'C':
		case 'S':
		case 'T':
			if (value_option(c, optarg))
				return BT_EXIT_USAGE;
			break;
		case 'F':
			filter.facility = optarg;
			break;
		case 'D':
			diff_old = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "btdecode: unknown option '%s' (or its value is missing)\n",
				argv[optind - 1]);
			usage(stderr);
			return BT_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return BT_EXIT_USAGE;
	}
	const char *path = optind < argc ? argv[optind] : NULL;
	static char log_dir[4096];
	if (!have_program)
		search_beside(path, debug_dir, log_dir, sizeof(log_dir));
	bt_text_symbols(have_elf || have_program || debug_dir);
	if (!have_elf)
		default_kernel(); /* the code PATH frames walk, and the symbols */
	/* what is read, which -o must not name: the capture, then the ELFs */
	const char *reads[2 + MAX_ELF_FILES] = {path, diff_old};
	unsigned n_reads = diff_old ? 2 : 1;
	n_reads += bt_sym_files(reads + n_reads, MAX_ELF_FILES);
	int stick_status;
	FILE *in = bt_stick_open(path, &stick_status); /* a USB stick's trace partition */
	bool stick = in != NULL;
	if (!in && stick_status)
		return stick_status;
	if (!in)
		in = path && strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!in) {
		fprintf(stderr, "btdecode: %s: %s\n", path, strerror(errno));
		return BT_EXIT_USAGE;
	}
	out_records = bt_outfile_open(output, reads, n_reads, view->name, view->binary);
	if (!out_records)
		return BT_EXIT_USAGE;
	int rc = decode(in, path, diff_old, !have_program, debug_dir);
	if (stick)
		rc = bt_stick_finish(path, rc);
	if (fflush(out_records) || ferror(out_records)) {
		fprintf(stderr, "btdecode: writing %s: %s\n", output ? output : "stdout",
			strerror(errno));
		return BT_EXIT_USAGE;
	}
	return rc;
}
#endif
