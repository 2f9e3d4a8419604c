/* SPDX-License-Identifier: MIT */
/*
 * The HTML view's flame graph: the folded view (bt_calls.c) is fed the same records, and its
 * "root;caller;callee COUNT" lines, written into memory when the capture ends, are drawn as
 * an SVG flame graph in the way of Brendan Gregg's flamegraph.pl: one box per stack frame,
 * its width the branches counted in it and everything it called, its callers below it,
 * siblings in name order, a tooltip (<title>) with the whole name and the count. A session's
 * graph is the stacks whose root is its "facility:name" (the folded view's; sessions of the
 * same facility and name on other CPUs share it).
 */
#define _GNU_SOURCE /* open_memstream */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tools/bt_html.h"

#define SVG_WIDTH  1200
#define SVG_MARGIN 10
#define FRAME_H	   17
#define CHAR_W	   7.0 /* px of a 12px monospace character */
#define MIN_W	   0.3 /* px: narrower frames are not drawn */
#define MAX_DEPTH_ 160

struct node {
	char *name;
	uint64_t total;
	struct node **kids;
	size_t n_kids;
};

struct stack_line {
	char *stack;
	uint64_t count;
};

static struct stack_line *lines;
static size_t n_lines;

/* The folded view writes a name's ';' and ' ' as '_' (a C++ name's "(int, char)" too): each
 * such name of the sessions' functions, as folded and as it is, to show it as it is. */
struct shown_name {
	char *folded, *name;
};
static struct shown_name *shown;
static size_t n_shown;

void html_flame_start(void)
{
	for (size_t i = 0; i < n_lines; i++)
		free(lines[i].stack);
	free(lines);
	lines = NULL;
	n_lines = 0;
	for (size_t i = 0; i < n_shown; i++) {
		free(shown[i].folded);
		free(shown[i].name);
	}
	free(shown);
	shown = NULL;
	n_shown = 0;
	bt_view_folded.start();
}

void html_flame_begin(const struct bt_session *s)
{
	bt_view_folded.begin(s);
}

void html_flame_bts(const struct bt_session *s, const struct bt_bts *r)
{
	bt_view_folded.bts(s, r);
}

void html_flame_lbr(const struct bt_session *s, const struct bt_lbr *e)
{
	bt_view_folded.lbr(s, e);
}

void html_flame_end(const struct bt_session *s, const struct bt_session_end *e)
{
	bt_view_folded.end(s, e);
}

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "btdecode: out of memory for the flame graph\n");
		exit(2);
	}
	return p;
}

static int by_folded(const void *a, const void *b)
{
	return strcmp(((const struct shown_name *)a)->folded,
		      ((const struct shown_name *)b)->folded);
}

/* The names of the functions the sessions' records name that the folded view changes. */
static void collect_names(void)
{
	for (unsigned k = 0; k < html_n_sessions; k++) {
		size_t n;
		struct html_func *f = html_functions(html_sessions[k], &n);
		for (size_t i = 0; i < n; i++) {
			char name[512];
			bt_sym_name(f[i].start, name, sizeof(name));
			if (!strpbrk(name, "; "))
				continue;
			shown = must(realloc(shown, (n_shown + 1) * sizeof(*shown)));
			shown[n_shown].name = must(strdup(name));
			for (char *p = name; *p; p++)
				if (*p == ';' || *p == ' ')
					*p = '_';
			shown[n_shown++].folded = must(strdup(name));
		}
		free(f);
	}
	if (n_shown)
		qsort(shown, n_shown, sizeof(*shown), by_folded);
}

static const char *shown_as(const char *folded)
{
	struct shown_name key = {.folded = (char *)folded};
	const struct shown_name *s =
	    n_shown ? bsearch(&key, shown, n_shown, sizeof(*shown), by_folded) : NULL;
	return s ? s->name : folded;
}

void html_flame_collect(void)
{
	collect_names();
	char *text = NULL;
	size_t len = 0;
	FILE *mem = must(open_memstream(&text, &len));
	FILE *keep = out_records;
	out_records = mem;
	bt_view_folded.finish();
	out_records = keep;
	fclose(mem);
	for (char *l = text, *nl; l && *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			break;
		*nl = 0;
		char *sp = strrchr(l, ' ');
		if (!sp)
			continue;
		*sp = 0;
		lines = must(realloc(lines, (n_lines + 1) * sizeof(*lines)));
		lines[n_lines++] = (struct stack_line){must(strdup(l)), strtoull(sp + 1, NULL, 10)};
	}
	free(text);
}

/* ---- the tree of one root ---- */

static struct node *child(struct node *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->n_kids; i++)
		if (strlen(p->kids[i]->name) == len && !strncmp(p->kids[i]->name, name, len))
			return p->kids[i];
	struct node *k = must(calloc(1, sizeof(*k)));
	k->name = must(strndup(name, len));
	p->kids = must(realloc(p->kids, (p->n_kids + 1) * sizeof(*p->kids)));
	p->kids[p->n_kids++] = k;
	return k;
}

static void free_tree(struct node *n)
{
	for (size_t i = 0; i < n->n_kids; i++)
		free_tree(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

/* The folded view's root of a session: "facility:name", ';' and ' ' as '_' (bt_calls.c). */
static void root_of(const struct html_session *s, char *buf, size_t size)
{
	snprintf(buf, size, "%s:%s", s->facility, s->name);
	for (char *p = buf; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
}

static struct node *tree_of(const char *root, unsigned *depth)
{
	struct node *top = must(calloc(1, sizeof(*top)));
	size_t rlen = strlen(root);
	*depth = 0;
	for (size_t i = 0; i < n_lines; i++) {
		const char *p = lines[i].stack;
		if (strncmp(p, root, rlen) || (p[rlen] && p[rlen] != ';'))
			continue;
		struct node *n = top;
		unsigned d = 0;
		for (const char *f = p; f && *f && d < MAX_DEPTH_; d++) {
			const char *semi = strchr(f, ';');
			size_t len = semi ? (size_t)(semi - f) : strlen(f);
			n = child(n, f, len);
			n->total += lines[i].count;
			f = semi ? semi + 1 : NULL;
		}
		top->total += lines[i].count;
		*depth = d > *depth ? d : *depth;
	}
	return top;
}

/* ---- the SVG ---- */

static unsigned hue_of(const char *name)
{
	unsigned h = 2166136261u;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

static void frame(const struct node *n, double x, double w, unsigned level, unsigned height,
		  uint64_t all)
{
	double y = height - SVG_MARGIN - (level + 1) * FRAME_H;
	unsigned h = hue_of(n->name);
	const char *name = shown_as(n->name);
	fputs("<g class=\"fr\" data-fn=\"", out_records);
	html_text(name);
	fputs("\"><title>", out_records);
	html_textf("%s: %" PRIu64 " branches (%.1f%%)", name, n->total,
		   100.0 * (double)n->total / (double)all);
	fprintf(out_records,
		"</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" "
		"fill=\"hsl(%u,%u%%,%u%%)\"/>",
		x, y, w, FRAME_H - 1, level ? h % 55 : 210, 60 + (h >> 8) % 30,
		55 + (h >> 16) % 12);
	size_t fit = (size_t)((w - 6) / CHAR_W);
	if (fit >= 3) {
		char label[256];
		size_t len = strlen(name);
		if (len > fit)
			snprintf(label, sizeof(label), "%.*s..", (int)(fit - 2), name);
		else
			snprintf(label, sizeof(label), "%s", name);
		fprintf(out_records, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 5);
		html_text(label);
		fputs("</text>", out_records);
	}
	fputs("</g>\n", out_records);
}

static void draw(const struct node *n, double x, double scale, unsigned level, unsigned height,
		 uint64_t all)
{
	double w = (double)n->total * scale;
	if (w < MIN_W)
		return;
	frame(n, x, w, level, height, all);
	for (size_t i = 0; i < n->n_kids; i++) {
		draw(n->kids[i], x, scale, level + 1, height, all);
		x += (double)n->kids[i]->total * scale;
	}
}

/* The levels draw() draws: a frame narrower than MIN_W is not drawn, nor what it calls, so the
 * deepest stack may leave nothing at its depth (the SVG is as tall as what is drawn). */
static unsigned drawn_depth(const struct node *n, double scale, unsigned level)
{
	if ((double)n->total * scale < MIN_W)
		return level;
	unsigned d = level + 1;
	for (size_t i = 0; i < n->n_kids; i++) {
		unsigned k = drawn_depth(n->kids[i], scale, level + 1);
		d = k > d ? k : d;
	}
	return d;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

static void sort_tree(struct node *n)
{
	if (n->n_kids)
		qsort(n->kids, n->n_kids, sizeof(*n->kids), by_name);
	for (size_t i = 0; i < n->n_kids; i++)
		sort_tree(n->kids[i]);
}

void html_flame_svg(const struct html_session *s)
{
	char root[2 * BT_NAME_MAX + 2];
	unsigned depth;
	root_of(s, root, sizeof(root));
	struct node *top = tree_of(root, &depth);
	if (!top->total) {
		fputs("<p class=\"note\">No call stacks: the flame graph is drawn from branch "
		      "records (BTS, LBR), and this session has none.</p>\n",
		      out_records);
		free_tree(top);
		return;
	}
	sort_tree(top);
	double scale = (double)(SVG_WIDTH - 2 * SVG_MARGIN) / (double)top->total;
	unsigned drawn = 0;
	for (size_t i = 0; i < top->n_kids; i++) {
		unsigned d = drawn_depth(top->kids[i], scale, 0);
		drawn = d > drawn ? d : drawn;
	}
	depth = drawn < depth ? drawn : depth;
	unsigned height = depth * FRAME_H + 2 * SVG_MARGIN;
	fprintf(out_records,
		"<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %u\" "
		"width=\"%d\" height=\"%u\" role=\"img\" aria-label=\"flame graph\">\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	double x = SVG_MARGIN;
	for (size_t i = 0; i < top->n_kids; i++) {
		draw(top->kids[i], x, scale, 0, height, top->total);
		x += (double)top->kids[i]->total * scale;
	}
	fputs("</svg>\n", out_records);
	free_tree(top);
}
