/* SPDX-License-Identifier: MIT */
/*
 * btdecode --view html: the hooks. Each session's records are counted as they come, the page
 * is written when the capture ends (bt_html_page.c). What is counted:
 *  - each branch record (BTS, an LBR entry, a sample's LBR entry) at its FROM ("taken") and as
 *    a (FROM, TO) pair; an LBR snapshot (entries newest first, indexes rising) is taken oldest
 *    first, as it ran;
 *  - the path between two consecutive branch records of a trace (a TO, then the next FROM:
 *    straight-line code, the way the kernel's PATH frames are walked, lib/stream_path.c): each
 *    instruction on it ran once more, and each conditional branch on it was not taken. A path
 *    is followed only where an ELF in use has the code and it reaches the next FROM with no
 *    other branch on the way (else it is counted as not followed, and counts nothing);
 *  - each PEBS, counter or BTF sample at its IP, and a PEBS sample's data address with its
 *    latency and data source;
 *  - the timeline: each record in a column of its function. The columns are time (the TSC)
 *    when a session's first record carries a time stamp, else the record index. A record's time
 *    stamp: a sample's own TSC (an LBR sample's, a counter sample's), else the reader's for
 *    the record (record_time).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tools/bt_html.h"

#define MAX_CPUS    256
#define WALK_MAX    4096 /* instructions followed between two branch records */
#define PAIRS_MAX   256
#define KERNEL_HALF 0xffff800000000000ull /* x86-64's upper canonical half: the kernel's */

struct html_session **html_sessions;
unsigned html_n_sessions;
const char **html_pairs;
unsigned html_n_pairs;
static struct html_session *open_session[MAX_CPUS];
static uint64_t lbr_period; /* the capture's option lbr.period (its HEADER's config), 0: none */

static void *grow_array(void *p, size_t n, size_t size)
{
	p = realloc(p, (n ? n : 1) * size);
	if (!p) {
		fprintf(stderr, "btdecode: out of memory for the HTML report\n");
		exit(2);
	}
	return p;
}

uint64_t html_function_of(uint64_t addr)
{
	struct bt_sym s;
	return bt_sym_lookup(addr, &s) ? addr - s.offset : addr;
}

/* The reader's time stamp of the record being given: a stream of format version 2 carries a
 * TSC per batch of records, which the reader spreads over them (struct bt_session's timed and
 * tsc); false for a version 1 stream, which carries none. */
static bool record_time(const struct bt_session *s, uint64_t *tsc)
{
	*tsc = s->tsc;
	return s->timed;
}

static void free_session(struct html_session *h)
{
	html_map_free(&h->insns);
	html_map_free(&h->branch_map);
	html_map_free(&h->data);
	html_map_free(&h->cells);
	free(h->snap);
	free(h->snap_tsc);
	free(h->snap_timed);
	free(h->last);
	free(h);
}

static void html_start(void)
{
	for (unsigned i = 0; i < html_n_sessions; i++)
		free_session(html_sessions[i]);
	free(html_sessions);
	html_sessions = NULL;
	html_n_sessions = 0;
	for (unsigned i = 0; i < html_n_pairs; i++)
		free((void *)html_pairs[i]);
	free(html_pairs);
	html_pairs = NULL;
	html_n_pairs = 0;
	lbr_period = 0;
	memset(open_session, 0, sizeof(open_session));
	html_flame_start();
}

static void html_header(unsigned cpu, const char *const *pairs, unsigned n)
{
	(void)cpu;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;
		while (k < html_n_pairs && strcmp(html_pairs[k], pairs[i]))
			k++;
		if (k < html_n_pairs || html_n_pairs == PAIRS_MAX)
			continue; /* each pair once (every boot repeats them) */
		html_pairs = grow_array(html_pairs, html_n_pairs + 1, sizeof(*html_pairs));
		html_pairs[html_n_pairs++] = strdup(pairs[i]);
		const char *lp =
		    strncmp(pairs[i], "config=", 7) ? NULL : strstr(pairs[i], "lbr.period=");
		if (lp)
			lbr_period = strtoull(lp + strlen("lbr.period="), NULL, 10);
	}
}

static void html_begin(const struct bt_session *s)
{
	struct html_session *h = calloc(1, sizeof(*h));
	if (!h) {
		fprintf(stderr, "btdecode: out of memory for the HTML report\n");
		exit(2);
	}
	h->cpu = s->cpu;
	h->number = s->number;
	h->tid = s->tid;
	h->span_timed = s->timed;
	h->span_from = h->span_to = s->tsc;
	snprintf(h->facility, sizeof(h->facility), "%s", s->facility);
	snprintf(h->name, sizeof(h->name), "%s", s->name);
	html_map_init(&h->insns, sizeof(struct html_insn));
	html_map_init(&h->branch_map, sizeof(struct html_branch));
	html_map_init(&h->data, sizeof(struct html_data));
	html_map_init(&h->cells, sizeof(struct html_cell));
	h->width = 1;
	html_sessions = grow_array(html_sessions, html_n_sessions + 1, sizeof(*html_sessions));
	html_sessions[html_n_sessions++] = h;
	open_session[s->cpu % MAX_CPUS] = h;
	html_flame_begin(s);
}

static struct html_insn *insn(struct html_session *h, uint64_t addr)
{
	struct html_insn *i = html_map_get(&h->insns, addr, 0);
	i->addr = addr;
	return i;
}

/* ---- the timeline ---- */

/* Twice as wide columns: each pair of columns becomes one. */
static void widen(struct html_session *h)
{
	struct html_map old = h->cells;
	size_t n;
	struct html_cell **v = (struct html_cell **)html_map_values(&old, &n);
	html_map_init(&h->cells, sizeof(struct html_cell));
	for (size_t i = 0; i < n; i++) {
		struct html_cell *c = html_map_get(&h->cells, v[i]->bucket / 2, v[i]->fn);
		c->bucket = v[i]->bucket / 2;
		c->fn = v[i]->fn;
		c->count += v[i]->count;
	}
	free(v);
	html_map_free(&old);
	h->width *= 2;
}

/* The session ran until tsc at least (the threads' timeline: when it ran). */
static void span(struct html_session *h, bool has_time, uint64_t tsc)
{
	if (h->span_timed && has_time && tsc > h->span_to)
		h->span_to = tsc;
}

/* A record at addr, the index-th of its session, with its time stamp if has_time. */
static void timeline(struct html_session *h, uint64_t index, bool has_time, uint64_t tsc,
		     uint64_t addr)
{
	span(h, has_time, tsc);
	if (!h->axis_chosen) {
		h->axis_chosen = true;
		h->timed = has_time;
		h->t0 = h->t_now = tsc;
	}
	uint64_t x = index;
	if (h->timed) {
		if (has_time && tsc >= h->t0)
			h->t_now = tsc; /* a record without one: its batch's (the last) */
		x = h->t_now - h->t0;
	}
	while (x / h->width >= HTML_BUCKETS)
		widen(h);
	if (x > h->x_max)
		h->x_max = x;
	uint64_t fn = html_function_of(addr);
	struct html_cell *c = html_map_get(&h->cells, x / h->width, fn);
	c->bucket = x / h->width;
	c->fn = fn;
	c->count++;
}

/* ---- branches and the paths between them ---- */

/* From `to` (a branch's target) to `from` (the next record's FROM). */
static void walk(struct html_session *h, uint64_t to, uint64_t from)
{
	static uint64_t path[WALK_MAX];
	static bool cond[WALK_MAX];
	int n = bt_sym_straight(to, from, path, cond, WALK_MAX);
	if (n < 0) {
		h->unwalked++; /* no code, or another branch on the way: not this path */
		return;
	}
	h->walked++;
	for (int i = 0; i < n; i++) {
		struct html_insn *x = insn(h, path[i]);
		x->exec++;
		x->not_taken += cond[i];
	}
}

/* A branch record, counted at its FROM and as a pair; `kind` its record's kind. */
static void count_branch(struct html_session *h, uint64_t from, uint64_t to, int kind)
{
	struct html_insn *x = insn(h, from);
	x->taken++;
	if (kind != X86_BR_NONE)
		x->exec++; /* an interrupt's or exception's FROM: delivered before it ran */
	struct html_branch *b = html_map_get(&h->branch_map, from, to);
	b->from = from;
	b->to = to;
	b->kind = kind;
	b->count++;
	h->branches++;
}

/* A branch of a trace: the path before it, the branch, and its place on the timeline. */
static void branch(struct html_session *h, uint64_t from, uint64_t to, int br_type, uint64_t index,
		   bool has_time, uint64_t tsc)
{
	if (h->have_prev)
		walk(h, h->prev_to, from);
	count_branch(h, from, to, bt_record_kind(from, br_type));
	h->have_prev = true;
	h->prev_to = to;
	timeline(h, index, has_time, tsc, from);
}

static void html_bts(const struct bt_session *s, const struct bt_bts *r)
{
	struct html_session *h = open_session[s->cpu % MAX_CPUS];
	uint64_t tsc;
	bool timed = record_time(s, &tsc);
	branch(h, r->from, r->to, -1, s->records, timed, tsc);
	html_flame_bts(s, r);
}

/* The branch instructions that retire on the straight line from `to` to the branch at `from`,
 * that one included (each conditional branch on the way was not taken): -1 when the code is
 * not there or another branch lies on the way. */
static long retired_on_path(uint64_t to, uint64_t from)
{
	static uint64_t path[WALK_MAX];
	static bool cond[WALK_MAX];
	int n = bt_sym_straight(to, from, path, cond, WALK_MAX);
	long retired = 1;
	for (int i = 0; i < n; i++)
		retired += cond[i];
	return n < 0 ? -1 : retired;
}

/* The PMI's own return: with the kernel's branches recorded, the IRET that ends the service
 * routine of the last sample (the stack unfreezes in it) lands in the next stack, from the
 * kernel's half of the address space to the last sample's IP. The tracer's, not the program's. */
static bool pmi_return(const struct html_session *h, const struct bt_lbr *e)
{
	return h->last_n && h->last[0].sample && e->to == h->last[0].ip && e->from >= KERNEL_HALF &&
	       bt_record_kind(e->from, e->br_type) == X86_BR_IRET;
}

/* The branch instructions retired from the last sample to this one along a stack's newest
 * `fresh` entries (e[fresh-1] the oldest): -1 where a path cannot be followed. */
static long retired_since_last(const struct html_session *h, const struct bt_lbr *e, unsigned fresh)
{
	long retired = 0;
	uint64_t at = h->last[0].to;
	for (unsigned i = fresh; i-- > 0;) {
		if (pmi_return(h, &e[i])) { /* the last sample's IP: its period ended there */
			retired = 0;
			at = e[i].to;
			continue;
		}
		long r = retired_on_path(at, e[i].from);
		if (r < 0)
			return -1;
		retired += r;
		at = e[i].to;
	}
	long tail = e[0].sample ? retired_on_path(at, e[0].ip) : 1;
	return tail < 0 ? -1 : retired + tail - 1; /* the IP's instruction has not run */
}

/* How many of a sampled stack's oldest entries the last sampled stack already held. LBR
 * sampling takes the stack every lbr.period branch instructions retired (the counter counts
 * taken and not-taken ones, SDM Vol. 3B Table 20-1 event C4H); with a period under the stack's
 * depth consecutive stacks overlap, and each branch would be counted once per stack holding it.
 * The overlap is the k for which the new stack's oldest k entries are the last one's newest k
 * and the branches retired on the new part come closest to the period (a loop repeats its
 * entries, so the entries alone do not tell k). */
static unsigned overlap(const struct html_session *h, const struct bt_lbr *e, unsigned n)
{
	if (!lbr_period || !h->last_n)
		return 0;
	unsigned best = 0;
	long best_gap = -1;
	for (unsigned k = n < h->last_n ? n : h->last_n; k > 0; k--) {
		bool same = true;
		for (unsigned j = 0; j < k && same; j++) /* e[n-k+j] is last[j]: newest first */
			same = e[n - k + j].from == h->last[j].from &&
			       e[n - k + j].to == h->last[j].to;
		long retired = same ? retired_since_last(h, e, n - k) : -1;
		if (retired < 0)
			continue;
		long gap = retired > (long)lbr_period ? retired - (long)lbr_period
						      : (long)lbr_period - retired;
		if (best_gap < 0 || gap < best_gap) {
			best_gap = gap;
			best = k;
		}
	}
	/* a PMI's skid on silicon moves the stack a few branches; a loop's entries matching by
	 * chance leave the count far from the period */
	return best_gap >= 0 && best_gap <= 2 + (long)(lbr_period / 16) ? best : 0;
}

/* An LBR snapshot, oldest entry first; its first record (the newest entry) was the index-th.
 * A sampled stack that overlaps the last one gives only its new entries, which follow the
 * last one's newest branch (the path between is then followed too). */
static void replay(struct html_session *h, uint64_t index)
{
	unsigned skip = h->snap[0].sample ? overlap(h, h->snap, h->snap_n) : 0;
	h->overlapped += skip;
	h->have_prev = skip > 0; /* else its oldest entry follows nothing we saw */
	if (skip)
		h->prev_to = h->last[0].to;
	for (unsigned i = h->snap_n - skip; i-- > 0;) {
		if (h->snap[0].sample && pmi_return(h, &h->snap[i])) {
			h->pmi_returns++; /* not counted: the path goes on from where it returned */
			h->have_prev = true;
			h->prev_to = h->snap[i].to;
			continue;
		}
		branch(h, h->snap[i].from, h->snap[i].to, h->snap[i].br_type,
		       index + (h->snap_n - 1 - i), h->snap_timed[i], h->snap_tsc[i]);
	}
	h->have_prev = false;
	if (h->snap[0].sample) {
		if (!h->last)
			h->last = grow_array(NULL, BT_PAYLOAD_MAX, sizeof(*h->last));
		memcpy(h->last, h->snap, h->snap_n * sizeof(*h->last));
		h->last_n = h->snap_n;
	}
	h->snap_n = 0;
}

static void html_lbr(const struct bt_session *s, const struct bt_lbr *e)
{
	struct html_session *h = open_session[s->cpu % MAX_CPUS];
	if (!h->snap) {
		h->snap = grow_array(NULL, BT_PAYLOAD_MAX, sizeof(*h->snap));
		h->snap_tsc = grow_array(NULL, BT_PAYLOAD_MAX, sizeof(*h->snap_tsc));
		h->snap_timed = grow_array(NULL, BT_PAYLOAD_MAX, sizeof(*h->snap_timed));
	}
	if (h->snap_n &&
	    (e->sample || e->index <= h->snap[h->snap_n - 1].index || h->snap_n == BT_PAYLOAD_MAX))
		replay(h, h->snap_first);
	/* a snapshot is one moment: its sample's (lbr.period), else the reader's for its first */
	unsigned k = h->snap_n++;
	h->snap[k] = *e;
	if (!k)
		h->snap_first = s->records;
	if (e->sample) { /* a PMI's stack (lbr.period): a sample at its IP */
		h->lbr_samples++;
		insn(h, e->ip)->samples++;
	}
	if (k) {
		h->snap_timed[k] = h->snap_timed[0];
		h->snap_tsc[k] = h->snap_tsc[0];
	} else if (e->sample) {
		h->snap_timed[0] = true;
		h->snap_tsc[0] = e->tsc;
	} else {
		h->snap_timed[0] = record_time(s, &h->snap_tsc[0]);
	}
	html_flame_lbr(s, e);
}

static void html_pebs(const struct bt_session *s, const struct bt_pebs *p)
{
	struct html_session *h = open_session[s->cpu % MAX_CPUS];
	h->pebs++;
	insn(h, p->ev)->samples++;
	if (p->has_lbr)
		count_branch(h, p->lbr_from, p->lbr_to, bt_record_kind(p->lbr_from, -1));
	if (p->has_mem) {
		struct html_data *d = html_map_get(&h->data, p->dla, 0);
		d->dla = p->dla;
		d->count++;
		d->lat_sum += p->lat;
		d->lat_max = p->lat > d->lat_max ? p->lat : d->lat_max;
		d->dse = p->dse;
		d->ip = p->ev;
	}
	/* along the record index: a PEBS record carries no time of its own, and its frame's is
	 * when the buffer was drained (at a threshold PMI or the run's end), not the event's */
	timeline(h, s->records, false, 0, p->ev);
}

static void html_sample(const struct bt_session *s, const struct bt_sample *x)
{
	struct html_session *h = open_session[s->cpu % MAX_CPUS];
	h->samples++;
	insn(h, x->ip)->samples++;
	if (x->has_lbr)
		count_branch(h, x->lbr_from, x->lbr_to, bt_record_kind(x->lbr_from, -1));
	uint64_t tsc = x->tsc;
	bool timed = x->has_tsc || record_time(s, &tsc);
	timeline(h, s->records, timed, tsc, x->ip);
}

static void html_end(const struct bt_session *s, const struct bt_session_end *e)
{
	struct html_session *h = open_session[s->cpu % MAX_CPUS];
	if (h->snap_n)
		replay(h, h->snap_first);
	free(h->snap);
	free(h->snap_tsc);
	free(h->snap_timed);
	h->snap = NULL;
	h->snap_tsc = NULL;
	h->snap_timed = NULL;
	span(h, s->timed, s->tsc);
	h->ended = true;
	h->end_records = e->records;
	h->end_lost = e->lost;
	snprintf(h->verdict, sizeof(h->verdict), "%s", e->verdict);
	snprintf(h->why, sizeof(h->why), "%s", e->why);
	open_session[s->cpu % MAX_CPUS] = NULL;
	html_flame_end(s, e);
}

static void html_finish(void)
{
	/* a session the capture ends inside: its last LBR snapshot is counted all the same */
	for (unsigned i = 0; i < html_n_sessions; i++)
		if (html_sessions[i]->snap_n)
			replay(html_sessions[i], html_sessions[i]->snap_first);
	html_flame_collect();
	html_page();
}

/* ---- a session's functions ---- */

static int busiest(const void *a, const void *b)
{
	const struct html_func *x = a, *y = b;
	if (x->taken != y->taken)
		return x->taken < y->taken ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->exec != y->exec)
		return x->exec < y->exec ? 1 : -1;
	return x->start < y->start ? -1 : x->start > y->start;
}

struct html_func *html_functions(const struct html_session *s, size_t *n)
{
	struct html_map fm;
	html_map_init(&fm, sizeof(struct html_func));
	size_t ni, nc;
	struct html_insn **in = (struct html_insn **)html_map_values(&s->insns, &ni);
	for (size_t i = 0; i < ni; i++) {
		uint64_t fn = html_function_of(in[i]->addr);
		struct html_func *f = html_map_get(&fm, fn, 0);
		f->start = fn;
		f->taken += in[i]->taken;
		f->exec += in[i]->exec;
		f->samples += in[i]->samples;
	}
	free(in);
	struct html_cell **c = (struct html_cell **)html_map_values(&s->cells, &nc);
	for (size_t i = 0; i < nc; i++) {
		struct html_func *f = html_map_get(&fm, c[i]->fn, 0);
		f->start = c[i]->fn;
		f->timeline += c[i]->count;
	}
	free(c);
	struct html_func **v = (struct html_func **)html_map_values(&fm, n);
	struct html_func *out = grow_array(NULL, *n, sizeof(*out));
	for (size_t i = 0; i < *n; i++)
		out[i] = *v[i];
	free(v);
	html_map_free(&fm);
	if (*n)
		qsort(out, *n, sizeof(*out), busiest);
	return out;
}

const struct bt_view bt_view_html = {
    .name = "html",
    .about = "one self-contained page (-o FILE): hot code, flame graph, annotated code, timeline",
    .symbols = true,
    .start = html_start,
    .header = html_header,
    .begin = html_begin,
    .bts = html_bts,
    .lbr = html_lbr,
    .pebs = html_pebs,
    .sample = html_sample,
    .end = html_end,
    .finish = html_finish,
};
