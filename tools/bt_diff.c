/* SPDX-License-Identifier: MIT */
/*
 * btdecode --diff OLD NEW: two captures compared as `perf diff` compares two perf.data files,
 * by function and by branch, each side's counts also as a share of its own total (the runs may
 * differ in length): the functions branch records were taken from, with the samples at their
 * IPs (PEBS, counter, LBR samples), and the branches (FROM and TO as function+offset). A
 * function is its name, so two builds of a program compare (perf diff: "matching binaries"),
 * each capture's ELFs found as for any view (--program, or by build id beside each capture).
 *
 * The tally is a view of its own (not listed): each capture is decoded and checked as always,
 * and the exit status is the worse of the two.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/bt_html.h"
#include "tools/btdecode.h"

#define DIFF_ROWS 25 /* rows of each table */
#define KEY_MAX	  600

struct row {
	char *key;
	uint64_t n[2];
};

static struct {
	struct row *rows;
	size_t n, cap;
	uint64_t total[2];
	struct html_map index; /* a key's 64-bit hash -> its row + 1 (bt_html_map.c) */
} tables[3]; /* functions (branches taken from them), branches, samples by function */

static int side; /* 0: OLD, 1: NEW */

static uint64_t key_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The key's row: found through the index (a hash shared with another key: looked for row by
 * row), else a new one. */
static struct row *row_of(int t, const char *key)
{
	if (!tables[t].index.vsize)
		html_map_init(&tables[t].index, sizeof(size_t));
	size_t *slot = html_map_get(&tables[t].index, key_hash(key), 0);
	if (*slot && !strcmp(tables[t].rows[*slot - 1].key, key))
		return &tables[t].rows[*slot - 1];
	for (size_t i = 0; *slot && i < tables[t].n; i++)
		if (!strcmp(tables[t].rows[i].key, key))
			return &tables[t].rows[i];
	if (tables[t].n == tables[t].cap) {
		size_t cap = tables[t].cap ? 2 * tables[t].cap : 256;
		struct row *g = realloc(tables[t].rows, cap * sizeof(*g));
		if (!g)
			abort();
		tables[t].rows = g;
		tables[t].cap = cap;
	}
	struct row *r = &tables[t].rows[tables[t].n++];
	*r = (struct row){.key = strdup(key)};
	if (!r->key)
		abort();
	if (!*slot)
		*slot = tables[t].n;
	return r;
}

static void add(int t, const char *key, uint64_t count)
{
	row_of(t, key)->n[side] += count;
	tables[t].total[side] += count;
}

static const char *function_name(uint64_t addr, char *buf, size_t size)
{
	struct bt_sym s;
	if (bt_sym_lookup(addr, &s) && s.func)
		return s.func;
	snprintf(buf, size, "0x%" PRIx64, addr);
	return buf;
}

static void branch(uint64_t from, uint64_t to)
{
	char a[KEY_MAX / 2], b[KEY_MAX / 2], key[KEY_MAX], f[64];
	add(0, function_name(from, f, sizeof(f)), 1);
	snprintf(key, sizeof(key), "%s -> %s", bt_sym_name(from, a, sizeof(a)),
		 bt_sym_name(to, b, sizeof(b)));
	add(1, key, 1);
}

static void sample_at(uint64_t ip)
{
	char f[64];
	add(2, function_name(ip, f, sizeof(f)), 1);
}

static void diff_bts(const struct bt_session *s, const struct bt_bts *r)
{
	(void)s;
	branch(r->from, r->to);
}

static void diff_lbr(const struct bt_session *s, const struct bt_lbr *e)
{
	(void)s;
	branch(e->from, e->to);
	if (e->sample)
		sample_at(e->ip);
}

static void diff_pebs(const struct bt_session *s, const struct bt_pebs *p)
{
	(void)s;
	sample_at(p->ev);
}

static void diff_sample(const struct bt_session *s, const struct bt_sample *x)
{
	(void)s;
	sample_at(x->ip);
}

const struct bt_view bt_view_diff_tally = {
    .name = "diff",
    .symbols = true,
    .bts = diff_bts,
    .lbr = diff_lbr,
    .pebs = diff_pebs,
    .sample = diff_sample,
};

void bt_diff_side(int which)
{
	side = which;
}

static double share(const struct row *r, int t, int k)
{
	return tables[t].total[k] ? 100.0 * (double)r->n[k] / (double)tables[t].total[k] : 0.0;
}

static int current_table;

static int by_change(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double dx = share(x, current_table, 1) - share(x, current_table, 0);
	double dy = share(y, current_table, 1) - share(y, current_table, 0);
	dx = dx < 0 ? -dx : dx;
	dy = dy < 0 ? -dy : dy;
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->key, y->key);
}

void bt_diff_print(const char *old_name, const char *new_name)
{
	static const char *const what[3] = {"functions", "branches", "samples"};
	static const char *const col[3] = {"function", "branch", "function"};
	fprintf(out_records, "# old: %s\n# new: %s\n", old_name, new_name);
	for (int t = 0; t < 3; t++) {
		if (t == 2 && !tables[t].total[0] && !tables[t].total[1])
			break; /* no samples on either side */
		current_table = t;
		qsort(tables[t].rows, tables[t].n, sizeof(struct row), by_change);
		fprintf(out_records,
			"\n# %s, the %d whose share changed most (of %" PRIu64 " old and %" PRIu64
			" new)\n# %8s %8s %7s %7s %8s  %s\n",
			what[t], DIFF_ROWS, tables[t].total[0], tables[t].total[1], "old", "new",
			"old%", "new%", "delta", col[t]);
		for (size_t i = 0; i < tables[t].n && i < DIFF_ROWS; i++) {
			const struct row *r = &tables[t].rows[i];
			fprintf(out_records,
				"  %8" PRIu64 " %8" PRIu64 " %6.2f%% %6.2f%% %+7.2f%%  %s\n",
				r->n[0], r->n[1], share(r, t, 0), share(r, t, 1),
				share(r, t, 1) - share(r, t, 0), r->key);
		}
	}
	for (int t = 0; t < 3; t++) {
		for (size_t i = 0; i < tables[t].n; i++)
			free(tables[t].rows[i].key);
		free(tables[t].rows);
		html_map_free(&tables[t].index);
		tables[t] = (typeof(tables[t])){0};
	}
}
