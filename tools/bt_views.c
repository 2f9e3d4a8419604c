/* SPDX-License-Identifier: MIT */
/*
 * btdecode's record views (docs/record-stream.md "Records off the machine"):
 *   text    the records as the kernel prints them (the oracle tests read this)
 *   verify  nothing but the problems and a summary
 *   stats   per CPU: frames, records, wire bytes; branch kinds, the hottest branches and the
 *           mispredict rates where the records carry them
 *   json    one JSON object per line: header, begin, bts, lbr, end; with symbols when an ELF
 *           covers the address
 *   perf    `perf script -F brstack`-style branch stacks that llvm-profgen reads (AutoFDO)
 *   raw     every intact frame, field by field
 * The call-stack views (folded, trace) are in bt_calls.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tools/btdecode.h"

/* BTS record flags (SDM Vol. 3B, "Branch Trace Store (BTS)", Table 17-6 and the 64-bit BTS
 * record format figure): bit 4 of the third quadword is "branch predicted". */
#define BTS_FLAG_PREDICTED 0x10

#define INLINES_MAX 16

static const char *base_name(const char *path)
{
	return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

/* Where code was inlined at addr, as `eu-addr2line -i -f -s` lists it (innermost first, each
 * function with its line: the address's, then each call site) and as `perf script` shows
 * inline frames: " inlined: f a.c:5, g a.c:9, main a.c:30". */
static void print_inlines(uint64_t addr)
{
	struct bt_inline_frame fr[INLINES_MAX];
	unsigned n = bt_sym_inline_frames(addr, fr, INLINES_MAX);
	for (unsigned i = 0; i < n; i++) {
		fprintf(out_records, "%s%s", i ? ", " : " inlined: ", fr[i].func);
		if (fr[i].file)
			fprintf(out_records, " %s:%d", base_name(fr[i].file), fr[i].line);
		else
			fputs(" ??:0", out_records);
	}
}

static void print_symbol(uint64_t addr)
{
	struct bt_sym s;
	if (!bt_sym_lookup(addr, &s))
		return;
	fprintf(out_records, " <%s", s.func);
	if (s.offset)
		fprintf(out_records, "+%#" PRIx64, s.offset);
	if (s.file)
		fprintf(out_records, " %s:%d", base_name(s.file), s.line);
	print_inlines(addr);
	fputc('>', out_records);
}

/* ---- text ------------------------------------------------------------------------------- */

static bool text_symbols; /* --elf or --program given: addresses get <function file:line> */

void bt_text_symbols(bool on)
{
	text_symbols = on;
}

static void text_addr(uint64_t a)
{
	fprintf(out_records, " %#" PRIx64, a);
	if (text_symbols)
		print_symbol(a);
}

static void text_header(unsigned cpu, const char *const *pairs, unsigned n)
{
	fprintf(out_records, "stream-header cpu=%u", cpu);
	for (unsigned i = 0; i < n; i++)
		fprintf(out_records, " %s", pairs[i]);
	fputc('\n', out_records);
}

static void text_begin(const struct bt_session *s)
{
	fprintf(out_records, "stream-begin %s %s\n", s->facility, s->name);
}

static void text_bts(const struct bt_session *s, const struct bt_bts *r)
{
	(void)s;
	if (!text_symbols) {
		fprintf(out_records, "bts %#" PRIx64 " %#" PRIx64 " %#" PRIx64 "%s\n", r->from,
			r->to, r->flags, r->leak ? " leak" : "");
		return;
	}
	fputs("bts", out_records);
	text_addr(r->from);
	text_addr(r->to);
	fprintf(out_records, " %#" PRIx64 "%s\n", r->flags, r->leak ? " leak" : "");
}

static void text_lbr(const struct bt_session *s, const struct bt_lbr *e)
{
	(void)s;
	fprintf(out_records, "lbr %" PRIu32, e->index);
	text_addr(e->from);
	text_addr(e->to);
	fprintf(out_records, " cycles=%" PRIu32 "%s mispred=%d br_type=%d%s%s\n", e->cycles,
		e->cycles_valid ? "" : "(n/a)", e->mispred_valid ? e->mispred : -1, e->br_type,
		e->in_tx ? " in_tx" : "", e->abort ? " abort" : "");
	if (e->sample) { /* the first entry of a PMI's snapshot (lbr.period): the sample */
		fputs("sample", out_records);
		text_addr(e->ip);
		fprintf(out_records, " tsc=%" PRIu64 "\n", e->tsc);
	}
}

static void text_pebs(const struct bt_session *s, const struct bt_pebs *p)
{
	(void)s;
	fprintf(out_records, "pebs");
	text_addr(p->ev);
	text_addr(p->next);
	fprintf(out_records, " applicable=%#" PRIx64 " size=%" PRIu32 " ip=%s", p->status, p->size,
		bt_pebs_ip_name(p->ip));
	if (p->has_lbr) {
		fputs(" lbr", out_records);
		text_addr(p->lbr_from);
		text_addr(p->lbr_to);
	}
	if (p->has_mem)
		fprintf(out_records, " dla=%#" PRIx64 " src=%#" PRIx64 " lat=%" PRIu64, p->dla,
			p->dse, p->lat);
	fputc('\n', out_records);
}

/* A BTF trap's target ("btf IP") or a counter sample ("sample IP[ lbr FROM TO]"), as the
 * kernel prints them. */
static void text_sample(const struct bt_session *s, const struct bt_sample *x)
{
	bool btf = !strcmp(s->facility, "btf");
	fputs(btf ? "btf" : "sample", out_records);
	text_addr(x->ip);
	if (x->has_lbr) {
		fputs(" lbr", out_records);
		text_addr(x->lbr_from);
		text_addr(x->lbr_to);
	}
	fputc('\n', out_records);
}

static void text_end(const struct bt_session *s, const struct bt_session_end *e)
{
	fprintf(
	    out_records, "stream-end %s %s records=%" PRIu64 " lost=%" PRIu64 " digest=%s%s%s\n",
	    s->facility, s->name, e->records, e->lost, e->verdict, *e->why ? " why=" : "", e->why);
}

const struct bt_view bt_view_text = {
    .name = "text",
    .about = "the records as the kernel prints them (the default; symbols with --elf)",
    .header = text_header,
    .begin = text_begin,
    .bts = text_bts,
    .lbr = text_lbr,
    .pebs = text_pebs,
    .sample = text_sample,
    .end = text_end,
};

const struct bt_view bt_view_verify = {
    .name = "verify",
    .about = "only the problems, and a summary",
};

/* ---- json ------------------------------------------------------------------------------- */

/* The length of the well-formed UTF-8 sequence at s (RFC 3629 section 4: no overlong form, no
 * surrogate, nothing above U+10FFFF), 0 if there is none. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	if (!n || c > 0xf4)
		return 0;
	unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* UTF-8 passes whole; a byte that starts no well-formed sequence becomes U+FFFD. */
void bt_json_str(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', out_records);
	while (*s) {
		unsigned char ch = *s;
		size_t n;
		if (ch == '"' || ch == '\\')
			fprintf(out_records, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(out_records, "\\u%04x", ch);
		else if (ch < 0x80)
			fputc(ch, out_records);
		else if ((n = utf8_len(s)) != 0) {
			fwrite(s, 1, n, out_records);
			s += n;
			continue;
		} else
			fputs("\\ufffd", out_records);
		s++;
	}
	fputc('"', out_records);
}

static void json_session(const char *type, const struct bt_session *s)
{
	fprintf(out_records, "{\"type\":\"%s\",\"cpu\":%u,\"session\":%" PRIu32, type, s->cpu,
		s->number);
	/* A format version 2 stream: the record's time, its TSC (a sample's own, else spread
	 * between its batch's and the previous one's) and, with the header's rate, in ns. */
	uint64_t ns;
	if (s->timed)
		fprintf(out_records, ",\"time_tsc\":%" PRIu64, s->tsc);
	if (s->timed && bt_tsc_ns(s->tsc, &ns))
		fprintf(out_records, ",\"time_ns\":%" PRIu64, ns);
}

/* "NAME":"0x...", and the symbol's "NAME_sym":"f+0x3", "NAME_line":"file.c:12" */
static void json_addr(const char *name, uint64_t a)
{
	fprintf(out_records, ",\"%s\":\"%#" PRIx64 "\"", name, a);
	struct bt_sym s;
	if (!bt_sym_lookup(a, &s))
		return;
	char buf[512];
	fprintf(out_records, ",\"%s_sym\":", name);
	bt_json_str(bt_sym_name(a, buf, sizeof(buf)));
	if (s.file) {
		snprintf(buf, sizeof(buf), "%s:%d", s.file, s.line);
		fprintf(out_records, ",\"%s_line\":", name);
		bt_json_str(buf);
	}
	const char *inl[INLINES_MAX];
	unsigned n = bt_sym_inlines(a, inl, INLINES_MAX);
	for (unsigned i = 0; i < n; i++) { /* "NAME_inline":["innermost",...] */
		fprintf(out_records, i ? "," : ",\"%s_inline\":[", name);
		bt_json_str(inl[i]);
	}
	if (n)
		fputc(']', out_records);
}

static void json_kind(uint64_t from, int br_type)
{
	int k = bt_record_kind(from, br_type);
	if (k >= 0)
		fprintf(out_records, ",\"kind\":\"%s\"", bt_kind_name(k));
}

static void json_header(unsigned cpu, const char *const *pairs, unsigned n)
{
	fprintf(out_records, "{\"type\":\"header\",\"cpu\":%u,\"pairs\":{", cpu);
	for (unsigned i = 0; i < n; i++) {
		const char *eq = strchr(pairs[i], '=');
		char key[128];
		size_t klen = eq ? (size_t)(eq - pairs[i]) : strlen(pairs[i]);
		if (klen >= sizeof(key))
			klen = sizeof(key) - 1;
		memcpy(key, pairs[i], klen);
		key[klen] = 0;
		fputs(i ? "," : "", out_records);
		bt_json_str(key);
		fputc(':', out_records);
		bt_json_str(eq ? eq + 1 : "");
	}
	fputs("}}\n", out_records);
}

static void json_begin(const struct bt_session *s)
{
	json_session("begin", s);
	fputs(",\"facility\":", out_records);
	bt_json_str(s->facility);
	fputs(",\"name\":", out_records);
	bt_json_str(s->name);
	fprintf(out_records, ",\"tid\":%" PRIu32 "}\n", s->tid);
}

static void json_bts(const struct bt_session *s, const struct bt_bts *r)
{
	json_session("bts", s);
	fprintf(out_records, ",\"i\":%" PRIu64, s->records);
	json_addr("from", r->from);
	json_addr("to", r->to);
	fprintf(out_records, ",\"flags\":\"%#" PRIx64 "\",\"predicted\":%s,\"leak\":%s", r->flags,
		r->flags & BTS_FLAG_PREDICTED ? "true" : "false", r->leak ? "true" : "false");
	json_kind(r->from, -1);
	fputs("}\n", out_records);
}

static void json_lbr(const struct bt_session *s, const struct bt_lbr *e)
{
	json_session("lbr", s);
	fprintf(out_records, ",\"i\":%" PRIu64 ",\"index\":%" PRIu32, s->records, e->index);
	json_addr("from", e->from);
	json_addr("to", e->to);
	if (e->cycles_valid)
		fprintf(out_records, ",\"cycles\":%" PRIu32, e->cycles);
	if (e->mispred_valid)
		fprintf(out_records, ",\"mispred\":%s", e->mispred ? "true" : "false");
	if (e->br_type >= 0)
		fprintf(out_records, ",\"br_type\":%d", e->br_type);
	fprintf(out_records, ",\"in_tx\":%s,\"abort\":%s", e->in_tx ? "true" : "false",
		e->abort ? "true" : "false");
	if (e->sample) {
		json_addr("sample_ip", e->ip);
		fprintf(out_records, ",\"tsc\":%" PRIu64, e->tsc);
	}
	json_kind(e->from, e->br_type);
	fputs("}\n", out_records);
}

static void json_pebs(const struct bt_session *s, const struct bt_pebs *p)
{
	json_session("pebs", s);
	fprintf(out_records, ",\"i\":%" PRIu64, s->records);
	json_addr("ev", p->ev);
	json_addr("next", p->next);
	fprintf(out_records, ",\"applicable\":\"%#" PRIx64 "\",\"size\":%" PRIu32 ",\"ip\":\"%s\"",
		p->status, p->size, bt_pebs_ip_name(p->ip));
	if (p->has_lbr) {
		json_addr("lbr_from", p->lbr_from);
		json_addr("lbr_to", p->lbr_to);
	}
	if (p->has_mem)
		fprintf(out_records,
			",\"dla\":\"%#" PRIx64 "\",\"src\":\"%#" PRIx64 "\",\"lat\":%" PRIu64,
			p->dla, p->dse, p->lat);
	fputs("}\n", out_records);
}

static void json_sample(const struct bt_session *s, const struct bt_sample *x)
{
	json_session("sample", s);
	fprintf(out_records, ",\"i\":%" PRIu64, s->records);
	json_addr("ip", x->ip);
	if (x->has_lbr) {
		json_addr("lbr_from", x->lbr_from);
		json_addr("lbr_to", x->lbr_to);
	}
	if (x->has_tsc)
		fprintf(out_records, ",\"tsc\":%" PRIu64, x->tsc);
	fputs("}\n", out_records);
}

static void json_end(const struct bt_session *s, const struct bt_session_end *e)
{
	json_session("end", s);
	fprintf(out_records,
		",\"records\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"verdict\":", e->records, e->lost);
	bt_json_str(e->verdict);
	if (*e->why) {
		fputs(",\"why\":", out_records);
		bt_json_str(e->why);
	}
	fputs("}\n", out_records);
}

const struct bt_view bt_view_json = {
    .name = "json",
    .about = "JSON lines: header, begin, bts, lbr, end (addresses as \"0x...\" strings)",
    .symbols = true,
    .header = json_header,
    .begin = json_begin,
    .bts = json_bts,
    .lbr = json_lbr,
    .pebs = json_pebs,
    .sample = json_sample,
    .end = json_end,
};

/* ---- perf: branch stacks for llvm-profgen --------------------------------------------- */
/*
 * perf script's brstack field (Linux tools/perf/builtin-script.c, perf_sample__fprintf_brstack):
 * "FROM/TO/M|P|-/X|-/A|-/CYCLES" per entry, newest first, separated by spaces. llvm-profgen
 * (llvm/tools/llvm-profgen/PerfReader.cpp) takes a line starting " 0x" as an LBR-only sample,
 * and "PERF_RECORD_MMAP2 PID/TID: [START(LEN) @ PGOFF ...]: r-xp PATH" as where a binary was
 * loaded. An LBR snapshot is one sample. BTS has no snapshots: its records, oldest first, are
 * cut into samples of PERF_WINDOW consecutive branches (as many as a large LBR holds), each
 * written newest first; the straight-line code between two records of a sample is what
 * llvm-profgen counts.
 */
#define PERF_WINDOW 32
#define PERF_CPUS   256 /* the reader's CPUs */

/* A CPU's sample being gathered: a program's threads are traced at once, each on its CPU, and
 * their frames interleave. */
struct perf_window {
	uint64_t from[PERF_WINDOW], to[PERF_WINDOW];
	char flag[PERF_WINDOW];
	uint32_t cycles[PERF_WINDOW];
	unsigned n;
	uint32_t last_index;
};

static struct {
	struct perf_window *cpu[PERF_CPUS]; /* allocated at the CPU's first session */
	bool mmaps_done;
} perf;

static struct perf_window *perf_window(const struct bt_session *s)
{
	struct perf_window **w = &perf.cpu[s->cpu % PERF_CPUS];
	if (!*w && !(*w = calloc(1, sizeof(**w)))) {
		fprintf(stderr, "btdecode: out of memory for the perf view\n");
		exit(2);
	}
	return *w;
}

static void perf_mmap(const char *path, uint64_t start, uint64_t len, uint64_t pgoff, uint64_t bias)
{
	/* A module at its link address gets no event: llvm-profgen 14 masks a high p_vaddr
	 * with a 32-bit page mask (ProfiledBinary's "preferred base" 0x1000 for 0x7e0000001000),
	 * so an event with the true address would not match its own disassembly; without one
	 * it takes the link address, which is where the code ran. */
	if (!bias)
		return;
	fprintf(out_records,
		"PERF_RECORD_MMAP2 1/1: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64
		" 08:04 0 0]: r-xp %s\n",
		start, len, pgoff, path);
}

static void perf_flush(struct perf_window *w)
{
	if (!w->n)
		return;
	for (unsigned i = 0; i < w->n; i++)
		fprintf(out_records, " %#" PRIx64 "/%#" PRIx64 "/%c/-/-/%" PRIu32, w->from[i],
			w->to[i], w->flag[i], w->cycles[i]);
	fputc('\n', out_records);
	w->n = 0;
}

static void perf_start(void)
{
	for (unsigned c = 0; c < PERF_CPUS; c++)
		free(perf.cpu[c]);
	memset(&perf, 0, sizeof(perf));
}

/* The mmap events come before the first session: by then every HEADER frame (the program's
 * bias is in the run's own) has been read. */
static void perf_begin(const struct bt_session *s)
{
	if (!perf.mmaps_done)
		bt_sym_for_each_exec(perf_mmap);
	perf.mmaps_done = true;
	perf_window(s)->n = 0;
}

static void perf_bts(const struct bt_session *s, const struct bt_bts *r)
{
	struct perf_window *w = perf_window(s);
	/* newest first: the window is filled from its end */
	unsigned i = PERF_WINDOW - 1 - w->n;
	w->from[i] = r->from;
	w->to[i] = r->to;
	w->flag[i] = r->flags & BTS_FLAG_PREDICTED ? 'P' : '-';
	w->cycles[i] = 0;
	if (++w->n == PERF_WINDOW)
		perf_flush(w);
}

static void perf_end_bts_window(struct perf_window *w)
{
	/* a partial window: move it to the front, then print it */
	if (w->n && w->n < PERF_WINDOW) {
		unsigned first = PERF_WINDOW - w->n;
		memmove(w->from, w->from + first, w->n * sizeof(w->from[0]));
		memmove(w->to, w->to + first, w->n * sizeof(w->to[0]));
		memmove(w->flag, w->flag + first, w->n);
		memmove(w->cycles, w->cycles + first, w->n * sizeof(w->cycles[0]));
	}
	perf_flush(w);
}

static void perf_lbr(const struct bt_session *s, const struct bt_lbr *e)
{
	struct perf_window *w = perf_window(s);
	/* a snapshot is delivered newest first with rising indexes: a new one starts where the
	 * index does not rise */
	if (w->n && (e->index <= w->last_index || w->n == PERF_WINDOW))
		perf_flush(w);
	w->last_index = e->index;
	w->from[w->n] = e->from;
	w->to[w->n] = e->to;
	w->flag[w->n] = e->mispred_valid ? (e->mispred ? 'M' : 'P') : '-';
	w->cycles[w->n] = e->cycles_valid ? e->cycles : 0;
	w->n++;
}

static void perf_end(const struct bt_session *s, const struct bt_session_end *e)
{
	(void)e;
	if (!strcmp(s->facility, "lbr"))
		perf_flush(perf_window(s));
	else
		perf_end_bts_window(perf_window(s));
}

const struct bt_view bt_view_perf = {
    .name = "perf",
    .about = "perf script branch stacks (FROM/TO/P/-/-/CYCLES) for llvm-profgen",
    .symbols = true,
    .start = perf_start,
    .begin = perf_begin,
    .bts = perf_bts,
    .lbr = perf_lbr,
    .end = perf_end,
};

/* ---- raw: every frame, field by field --------------------------------------------------- */

static const char *frame_type_name(unsigned t)
{
	switch (t) {
	case BT_F_BEGIN:
		return "BEGIN";
	case BT_F_BTS:
		return "BTS";
	case BT_F_END:
		return "END";
	case BT_F_HEADER:
		return "HEADER";
	case BT_F_LBR:
		return "LBR";
	case BT_F_PATH:
		return "PATH";
	case BT_F_PEBS:
		return "PEBS";
	case BT_F_SAMPLE:
		return "SAMPLE";
	}
	return "unknown";
}

static void raw_pair(void *ctx, const char *pair)
{
	(void)ctx;
	fprintf(out_records, "  pair %s\n", pair);
}

static void raw_bts(void *ctx, const struct bt_bts *r)
{
	unsigned *i = ctx;
	fprintf(out_records,
		"  bts[%u] from=%#" PRIx64 " to=%#" PRIx64 " flags=%#" PRIx64 " leak=%d\n", (*i)++,
		r->from, r->to, r->flags, r->leak);
}

static void raw_lbr(void *ctx, const struct bt_lbr *e)
{
	unsigned *i = ctx;
	fprintf(out_records,
		"  lbr[%u] index=%" PRIu32 " from=%#" PRIx64 " to=%#" PRIx64 " cycles=%" PRIu32
		" cycles_valid=%d mispred_valid=%d mispred=%d in_tx=%d "
		"abort=%d br_type=%d\n",
		(*i)++, e->index, e->from, e->to, e->cycles, e->cycles_valid, e->mispred_valid,
		e->mispred, e->in_tx, e->abort, e->br_type);
}

static void raw_pebs(void *ctx, const struct bt_pebs *p)
{
	unsigned *i = ctx;
	fprintf(out_records,
		"  pebs[%u] ev=%#" PRIx64 " next=%#" PRIx64 " status=%#" PRIx64 " size=%" PRIu32
		" ip=%u lbr=%d from=%#" PRIx64 " to=%#" PRIx64 " mem=%d dla=%#" PRIx64
		" dse=%#" PRIx64 " lat=%" PRIu64 "\n",
		(*i)++, p->ev, p->next, p->status, p->size, p->ip, p->has_lbr, p->lbr_from,
		p->lbr_to, p->has_mem, p->dla, p->dse, p->lat);
}

static void raw_sample(void *ctx, const struct bt_sample *x)
{
	unsigned *i = ctx;
	fprintf(out_records,
		"  sample[%u] ip=%#" PRIx64 " lbr=%d from=%#" PRIx64 " to=%#" PRIx64 "\n", (*i)++,
		x->ip, x->has_lbr, x->lbr_from, x->lbr_to);
}

static void raw_frame(const struct bt_frame *f, uint64_t line)
{
	fprintf(out_records, "frame line=%" PRIu64 " cpu=%u seq=%" PRIu32 " type=%u(%s) len=%u\n",
		line, f->cpu, f->seq, f->type, frame_type_name(f->type), f->len);
	uint32_t session = 0;
	unsigned i = 0;
	switch (f->type) {
	case BT_F_HEADER:
		bt_read_header(f, raw_pair, NULL);
		return;
	case BT_F_BEGIN: {
		char fac[BT_NAME_MAX], name[BT_NAME_MAX];
		if (!bt_read_begin(f, fac, name))
			fprintf(out_records, "  facility=%s session-name=%s\n", fac, name);
		return;
	}
	case BT_F_BTS:
		if (bt_read_bts(f, &session, raw_bts, &i) >= 0 || i)
			fprintf(out_records, "  session=%" PRIu32 " records=%u\n", session, i);
		return;
	case BT_F_PATH: {
		uint64_t missing = 0;
		long n = bt_read_path(f, &session, bt_sym_code, NULL, raw_bts, &i, &missing);
		fprintf(out_records, "  session=%" PRIu32 " records=%u%s\n", session, i,
			n == BT_PATH_NO_CODE ? " (then no code for the walk)"
			: n < 0		     ? " (then malformed)"
					     : "");
		return;
	}
	case BT_F_SAMPLE:
		if (bt_read_sample(f, &session, raw_sample, &i) >= 0 || i)
			fprintf(out_records, "  session=%" PRIu32 " samples=%u\n", session, i);
		return;
	case BT_F_PEBS:
		if (bt_read_pebs(f, &session, raw_pebs, &i) >= 0 || i)
			fprintf(out_records, "  session=%" PRIu32 " samples=%u\n", session, i);
		return;
	case BT_F_LBR:
		if (bt_read_lbr(f, &session, raw_lbr, &i) >= 0 || i)
			fprintf(out_records, "  session=%" PRIu32 " entries=%u\n", session, i);
		return;
	case BT_F_END: {
		uint64_t records, lost;
		uint32_t digest;
		char why[256];
		if (!bt_read_end(f, &session, &records, &lost, &digest, why, sizeof(why)))
			fprintf(out_records,
				"  session=%" PRIu32 " records=%" PRIu64 " lost=%" PRIu64
				" digest=%08x why=%s\n",
				session, records, lost, digest, why);
		return;
	}
	}
}

const struct bt_view bt_view_raw = {
    .name = "raw",
    .about = "every intact frame, field by field",
    .frame = raw_frame,
};

/* ---- the list ----------------------------------------------------------------------------- */

const struct bt_view *const bt_views[] = {
    &bt_view_text,	&bt_view_verify,
    &bt_view_stats,	&bt_view_json,
    &bt_view_perf,	&bt_view_raw,
    &bt_view_folded,	&bt_view_trace,
    &bt_view_perfdata,	&bt_view_afdo,
    &bt_view_llvm_prof, &bt_view_output,
    &bt_view_html,	NULL,
};

bool bt_session_modelled(const struct bt_session *s)
{
	const char *at = s->name ? strchr(s->name, '@') : NULL;
	return at && strncmp(at + 1, "hardware", strlen("hardware"));
}

uint32_t bt_session_tid(const char *name)
{
	const char *last = NULL;
	for (const char *p = name; p && (p = strstr(p, " tid=")); p++)
		last = p; /* appended: the last one */
	if (!last)
		return 1;
	uint64_t v = 0;
	const char *d = last + strlen(" tid=");
	for (; *d >= '0' && *d <= '9' && v <= INT32_MAX; d++)
		v = v * 10 + (uint64_t)(*d - '0');
	bool whole = d > last + strlen(" tid=") && (!*d || *d == ' ');
	return whole && v >= 1 && v <= INT32_MAX ? (uint32_t)v : 1;
}

const struct bt_view *bt_view_find(const char *name)
{
	for (unsigned i = 0; bt_views[i]; i++)
		if (!strcmp(bt_views[i]->name, name))
			return bt_views[i];
	return NULL;
}
