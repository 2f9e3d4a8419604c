/* SPDX-License-Identifier: MIT */
/*
 * The HTML view's threads. A program's threads each run on a CPU of their own, traced by that
 * CPU's sessions, whose names say which thread (struct bt_session's tid: " tid=N", none for the
 * main thread, tid 1). The page names each session's thread (bt_html_page.c) and draws one
 * timeline of the whole capture with a row per thread, "tid N (cpu C)": grey where its sessions
 * ran (BEGIN to END), orange where their records are, the darker the more (all the thread's
 * sessions together). A capture whose sessions all traced tid 1 (one thread, or a capture from
 * before threads) has none of this: its page is the one it had.
 *
 * The axis: time, when every session's frames carry the TSC (format version 2): from the first
 * BEGIN to the last END, in us with the HEADER's tsc-khz (the TSC is the machine's one clock: an
 * invariant TSC counts alike on every CPU, SDM Vol. 3B 18.17.1). Each session's records are
 * counted in its own timeline's columns already (bt_html.c: time, or the record index for PEBS
 * records and others without a time stamp); each such column is spread here over the capture's
 * columns it overlaps, one along the record index laid evenly over the session's span. A capture
 * without TSCs (format version 1) has each row along its thread's record index instead, its
 * sessions one after the other.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tools/bt_html.h"

#define TH_LABEL HTML_TL_LABEL
#define TH_PLOT	 HTML_TL_PLOT
#define TH_LANE	 HTML_TL_LANE
#define ROW_CPUS 4 /* CPUs named in a row's label (a thread moved between CPUs: more) */

struct row {
	uint32_t tid;
	unsigned cpus[ROW_CPUS], n_cpus;
	bool more_cpus;
	uint64_t length;	      /* untimed: the records of its sessions so far */
	double cell[HTML_BUCKETS];    /* records in each column (spread: not whole) */
	double ran[2 * HTML_BUCKETS]; /* its sessions' spans, [from, to) pairs, axis units */
	unsigned n_ran;
};

bool html_threaded(void)
{
	for (unsigned i = 0; i < html_n_sessions; i++)
		if (html_sessions[i]->tid != 1)
			return true;
	return false;
}

static int by_tid(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The rows: one per thread, by tid; each with the CPUs its sessions ran on. */
static struct row *rows_of(unsigned *n)
{
	struct row *r = calloc(html_n_sessions ? html_n_sessions : 1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "btdecode: out of memory for the threads' timeline\n");
		exit(2);
	}
	*n = 0;
	for (unsigned i = 0; i < html_n_sessions; i++) {
		const struct html_session *h = html_sessions[i];
		unsigned k = 0;
		while (k < *n && r[k].tid != h->tid)
			k++;
		if (k == *n)
			r[(*n)++].tid = h->tid;
		unsigned c = 0;
		while (c < r[k].n_cpus && r[k].cpus[c] != h->cpu)
			c++;
		if (c == r[k].n_cpus && c < ROW_CPUS)
			r[k].cpus[r[k].n_cpus++] = h->cpu;
		else if (c == r[k].n_cpus)
			r[k].more_cpus = true;
	}
	qsort(r, *n, sizeof(*r), by_tid);
	return r;
}

static struct row *row_of(struct row *r, unsigned n, uint32_t tid)
{
	for (unsigned k = 0; k < n; k++)
		if (r[k].tid == tid)
			return &r[k];
	return &r[0];
}

/* count records over [lo, hi) of the axis (range units long) into the columns it overlaps,
 * each its share; all into one column when the interval is a point. */
static void spread(double *cell, double lo, double hi, double count, double range)
{
	double cw = range / HTML_BUCKETS;
	lo = lo < 0 ? 0 : lo > range ? range : lo;
	hi = hi < lo ? lo : hi > range ? range : hi;
	unsigned first = (unsigned)(lo / cw);
	if (first >= HTML_BUCKETS)
		first = HTML_BUCKETS - 1;
	if (hi - lo <= 0) {
		cell[first] += count;
		return;
	}
	for (unsigned c = first; c < HTML_BUCKETS && c * cw < hi; c++) {
		double a = lo > c * cw ? lo : c * cw, b = hi < (c + 1) * cw ? hi : (c + 1) * cw;
		if (b > a)
			cell[c] += count * (b - a) / (hi - lo);
	}
}

/* The capture's axis: time (TSC from the first BEGIN) when every session has its span timed. */
static bool capture_timed(uint64_t *t0, uint64_t *range)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (unsigned i = 0; i < html_n_sessions; i++) {
		const struct html_session *h = html_sessions[i];
		if (!h->span_timed)
			return false;
		lo = h->span_from < lo ? h->span_from : lo;
		hi = h->span_to > hi ? h->span_to : hi;
	}
	*t0 = lo;
	*range = hi - lo + 1;
	return html_n_sessions > 0;
}

/* Session h's records into its row: each of its own timeline's columns over its place on the
 * capture's axis (from + its units scaled by `scale`; a column along the record index over
 * the session's span when the capture is timed and the session's timeline is not). */
static void add_session(struct row *r, const struct html_session *h, bool timed, uint64_t t0,
			double range)
{
	double from, scale = 1;
	/* its timeline's length, in its units (TSC ticks or records): none without records */
	uint64_t len = h->axis_chosen ? h->x_max + 1 : 0;
	if (!timed) {
		from = (double)r->length;
		r->length += len;
	} else if (h->timed) {
		from = (double)(int64_t)(h->t0 - t0); /* a sample's own TSC may precede BEGIN's */
	} else {
		from = (double)(h->span_from - t0);
		scale = len ? (double)(h->span_to - h->span_from) / (double)len : 0;
	}
	if (r->n_ran < HTML_BUCKETS) {
		double a = timed ? (double)(h->span_from - t0) : from,
		       b = timed ? (double)(h->span_to - t0) + 1 : from + (double)len;
		r->ran[2 * r->n_ran] = a;
		r->ran[2 * r->n_ran++ + 1] = b;
	}
	size_t nc;
	struct html_cell **c = (struct html_cell **)html_map_values(&h->cells, &nc);
	for (size_t i = 0; i < nc; i++) {
		uint64_t lo = c[i]->bucket * h->width, hi = lo + h->width;
		hi = hi > len ? len : hi; /* the last column: up to its last record */
		spread(r->cell, from + (double)lo * scale, from + (double)hi * scale,
		       (double)c[i]->count, range);
	}
	free(c);
}

static void row_svg(const struct row *r, unsigned lane, bool timed, double range, double max)
{
	double cw = (double)TH_PLOT / HTML_BUCKETS, unit_px = TH_PLOT / range;
	unsigned y = 20 + lane * TH_LANE;
	fprintf(out_records, "<g class=\"thread\" data-tid=\"%" PRIu32 "\" data-cpu=\"", r->tid);
	for (unsigned c = 0; c < r->n_cpus; c++)
		fprintf(out_records, "%s%u", c ? "," : "", r->cpus[c]);
	fprintf(out_records, "\"><text x=\"4\" y=\"%u\">tid %" PRIu32 " (cpu ", y + 12, r->tid);
	for (unsigned c = 0; c < r->n_cpus; c++)
		fprintf(out_records, "%s%u", c ? "," : "", r->cpus[c]);
	fprintf(out_records, "%s)</text>", r->more_cpus ? ",..." : "");
	for (unsigned s = 0; s < r->n_ran; s++)
		fprintf(out_records,
			"<rect class=\"ran\" x=\"%.1f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
			"fill=\"#e9ecef\"/>",
			TH_LABEL + r->ran[2 * s] * unit_px, y,
			(r->ran[2 * s + 1] - r->ran[2 * s]) * unit_px, TH_LANE - 2);
	for (unsigned b = 0; b < HTML_BUCKETS; b++) {
		if (r->cell[b] <= 0)
			continue;
		const char *unit;
		double from = html_axis_value(timed, b * range / HTML_BUCKETS, &unit),
		       to = html_axis_value(timed, (b + 1) * range / HTML_BUCKETS, &unit);
		fprintf(out_records,
			"<rect x=\"%.1f\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"#e8743b\" "
			"fill-opacity=\"%.2f\"><title>%.4g records, %.6g to %.6g %s</title></rect>",
			TH_LABEL + b * cw, y, cw, TH_LANE - 2, 0.15 + 0.85 * r->cell[b] / max,
			r->cell[b], from, to, unit);
	}
	fputs("</g>\n", out_records);
}

void html_threads_svg(void)
{
	if (!html_threaded())
		return;
	unsigned n;
	struct row *r = rows_of(&n);
	uint64_t t0 = 0, trange = 0;
	bool timed = capture_timed(&t0, &trange);
	double range = (double)trange;
	if (!timed) { /* each row its records: the longest row is the axis */
		for (unsigned i = 0; i < html_n_sessions; i++) {
			const struct html_session *h = html_sessions[i];
			row_of(r, n, h->tid)->length += h->axis_chosen ? h->x_max + 1 : 0;
		}
		range = 1;
		for (unsigned k = 0; k < n; k++) {
			range = (double)r[k].length > range ? (double)r[k].length : range;
			r[k].length = 0;
		}
	}
	for (unsigned i = 0; i < html_n_sessions; i++)
		add_session(row_of(r, n, html_sessions[i]->tid), html_sessions[i], timed, t0,
			    range);
	double max = 1e-9;
	for (unsigned k = 0; k < n; k++)
		for (unsigned b = 0; b < HTML_BUCKETS; b++)
			max = r[k].cell[b] > max ? r[k].cell[b] : max;
	fputs("<h2 id=\"threads\">Threads</h2>\n<p class=\"note\">A row per thread of the program "
	      "(the session name's <code>tid=</code>; none: tid 1, the main thread), each traced "
	      "on its own CPU: grey where its sessions ran, orange where their records are, the "
	      "darker the more. ",
	      out_records);
	if (timed && bt_tsc_khz())
		fprintf(out_records,
			"Across: <b>time</b>, in &#xb5;s from the first session's start (the TSC, "
			"at the capture's tsc-khz=%" PRIu64
			"); a session whose records carry no time "
			"of their own has them spread evenly over its span.</p>\n",
			bt_tsc_khz());
	else if (timed)
		fputs("Across: <b>time</b>, in TSC ticks from the first session's start (the "
		      "capture names no TSC rate).</p>\n",
		      out_records);
	else
		fputs("Across: <b>the record index</b> of each thread, its sessions one after the "
		      "other (the capture's frames carry no time stamps).</p>\n",
		      out_records);
	fprintf(out_records,
		"<svg class=\"threads\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %u\" "
		"width=\"%d\" height=\"%u\" role=\"img\" aria-label=\"threads\">\n",
		TH_LABEL + TH_PLOT + 10, n * TH_LANE + 44, TH_LABEL + TH_PLOT + 10,
		n * TH_LANE + 44);
	for (unsigned k = 0; k < n; k++)
		row_svg(&r[k], k, timed, range, max);
	html_axis_svg(n, timed, (uint64_t)range);
	free(r);
}
