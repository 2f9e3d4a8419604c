/* SPDX-License-Identifier: MIT */
/*
 * The HTML view's timeline: an SVG with a row for each of a session's busiest functions (by
 * records on the timeline) and one for the rest, a column for each slice of the session (time
 * where its records carry a time stamp, else the record index: bt_html.c chooses), each cell as
 * dark as the records of that function in that slice, a tooltip with the count and the slice.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tools/bt_html.h"

#define LANES	 8 /* functions on the timeline (the rest: "other") */
#define TL_LABEL HTML_TL_LABEL
#define TL_PLOT	 HTML_TL_PLOT
#define TL_LANE	 HTML_TL_LANE
#define NAME_LEN 512

static int by_timeline(const void *a, const void *b)
{
	const struct html_func *x = a, *y = b;
	if (x->timeline != y->timeline)
		return x->timeline < y->timeline ? 1 : -1;
	return x->start < y->start ? -1 : x->start > y->start;
}

double html_axis_value(bool timed, double x, const char **unit)
{
	if (!timed) {
		*unit = "record";
		return x;
	}
	if (!bt_tsc_khz()) {
		*unit = "TSC ticks";
		return x;
	}
	*unit = "&#xb5;s";
	return x * 1000.0 / (double)bt_tsc_khz();
}

/* What the session's axis is, in words, and one of its values at x (its unit). */
static double axis_value(const struct html_session *h, uint64_t x, const char **unit)
{
	return html_axis_value(h->timed, (double)x, unit);
}

static void axis_note(const struct html_session *h)
{
	fputs("<p class=\"note\">Each row a function, each column a slice of the session; the "
	      "darker, the more records there. ",
	      out_records);
	if (!h->timed && !strcmp(h->facility, "pebs"))
		fputs("Across: <b>the record index</b> (a PEBS record carries no time of its own: "
		      "its frame's is when the buffer was drained).</p>\n",
		      out_records);
	else if (!h->timed)
		fputs("Across: <b>the record index</b> (this session's records carry no time "
		      "stamps).</p>\n",
		      out_records);
	else if (bt_tsc_khz())
		fprintf(out_records,
			"Across: <b>time</b>, in &#xb5;s from the session's first time stamp (the "
			"TSC, at the capture's tsc-khz=%" PRIu64 ").</p>\n",
			bt_tsc_khz());
	else
		fputs("Across: <b>time</b>, in TSC ticks from the session's first time stamp (the "
		      "capture names no TSC rate).</p>\n",
		      out_records);
}

static void lane_cells(const struct html_session *h, const uint64_t *row, unsigned lane,
		       unsigned cols, uint64_t max)
{
	double cw = (double)TL_PLOT / cols;
	for (unsigned b = 0; b < cols; b++) {
		if (!row[b])
			continue;
		const char *unit;
		double from = axis_value(h, b * h->width, &unit),
		       to = axis_value(h, (b + 1) * h->width, &unit);
		fprintf(out_records,
			"<rect x=\"%.1f\" y=\"%u\" width=\"%.2f\" height=\"%u\" fill=\"#e8743b\" "
			"fill-opacity=\"%.2f\"><title>%" PRIu64 " records, %.6g to %.6g %s"
			"</title></rect>",
			TL_LABEL + b * cw, 20 + lane * TL_LANE, cw, TL_LANE - 2,
			0.15 + 0.85 * (double)row[b] / (double)max, row[b], from, to, unit);
	}
	fputc('\n', out_records);
}

void html_axis_svg(unsigned rows, bool timed, uint64_t end)
{
	unsigned y = 20 + rows * TL_LANE;
	fprintf(out_records, "<line x1=\"%d\" y1=\"%u\" x2=\"%d\" y2=\"%u\" stroke=\"#5b6670\"/>",
		TL_LABEL, y, TL_LABEL + TL_PLOT, y);
	double last = -1;
	for (unsigned t = 0; t <= 4; t++) {
		const char *unit;
		double v = html_axis_value(timed, (double)(end * t / 4), &unit);
		if (v == last)
			continue; /* a short session: fewer ticks */
		last = v;
		fprintf(out_records, "<text x=\"%.0f\" y=\"%u\" text-anchor=\"%s\">%.*f%s%s</text>",
			TL_LABEL + TL_PLOT * t / 4.0, y + 14,
			t == 4 ? "end"
			: t    ? "middle"
			       : "start",
			timed && v < 100 ? 2 : 0, v, t == 4 ? " " : "", t == 4 ? unit : "");
	}
	fputs("</svg>\n", out_records);
}

void html_timeline_svg(const struct html_session *h, const struct html_func *f, size_t n)
{
	if (!h->cells.used)
		return;
	struct html_func *lanes = malloc(n * sizeof(*lanes));
	uint64_t(*cnt)[HTML_BUCKETS] = calloc(LANES + 1, sizeof(*cnt));
	if (!lanes || !cnt) {
		fprintf(stderr, "btdecode: out of memory for the timeline\n");
		exit(2);
	}
	memcpy(lanes, f, n * sizeof(*lanes));
	qsort(lanes, n, sizeof(*lanes), by_timeline);
	unsigned nl = 0;
	while (nl < n && nl < LANES && lanes[nl].timeline)
		nl++;
	bool other = nl < n && lanes[nl].timeline;
	size_t nc;
	uint64_t max = 1;
	struct html_cell **c = (struct html_cell **)html_map_values(&h->cells, &nc);
	for (size_t i = 0; i < nc; i++) {
		unsigned lane = 0;
		while (lane < nl && lanes[lane].start != c[i]->fn)
			lane++;
		cnt[lane][c[i]->bucket] += c[i]->count;
		max = cnt[lane][c[i]->bucket] > max ? cnt[lane][c[i]->bucket] : max;
	}
	free(c);
	unsigned rows = nl + other, cols = (unsigned)(h->x_max / h->width) + 1;
	fputs("<h3>Timeline</h3>\n", out_records);
	axis_note(h);
	fprintf(
	    out_records,
	    "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %u\" "
	    "width=\"%d\" height=\"%u\" role=\"img\" aria-label=\"timeline\">\n",
	    TL_LABEL + TL_PLOT + 10, rows * TL_LANE + 44, TL_LABEL + TL_PLOT + 10,
	    rows * TL_LANE + 44);
	for (unsigned l = 0; l < rows; l++) {
		char name[NAME_LEN];
		if (l < nl)
			bt_sym_name(lanes[l].start, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "(other functions)");
		fprintf(out_records, "<text x=\"4\" y=\"%u\">", 20 + l * TL_LANE + 12);
		html_textf("%.28s", name);
		fputs("</text>", out_records);
		lane_cells(h, cnt[l], l, cols, max);
	}
	html_axis_svg(rows, h->timed, (uint64_t)cols * h->width);
	free(cnt);
	free(lanes);
}
