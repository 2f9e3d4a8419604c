/* SPDX-License-Identifier: MIT */
/*
 * btdecode --view html: one self-contained page (inline CSS and SVG, a few lines of inline
 * script, nothing fetched). Its parts:
 *   bt_html.c        the view's hooks: each session's records counted (branches, the paths
 *                    between them, samples, data addresses, the timeline's buckets)
 *   bt_html_map.c    the hash map those counts live in
 *   bt_html_page.c   the page: escaping, the style, each session's summary and tables, the
 *                    sample histogram
 *   bt_html_timeline.c  the timeline, an SVG
 *   bt_html_threads.c   the threads' timeline (a program's threads, each traced on its own CPU)
 *   bt_html_flame.c  the flame graph, an SVG of the folded view's own stacks (bt_calls.c)
 *   bt_html_asm.c    each hot function's disassembly (Zydis) with its counts beside each line
 */
#ifndef TOOLS_BT_HTML_H
#define TOOLS_BT_HTML_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "tools/btdecode.h"

/* ---- a map from a pair of keys to a zeroed value of a fixed size (bt_html_map.c) ---- */

struct html_map {
	uint8_t *mem; /* slots: the two keys, a used flag, the value */
	size_t slots, used, vsize, stride;
};

void html_map_init(struct html_map *m, size_t vsize);
/* The value of (k1, k2), a new zeroed one if there was none; valid until the next get. */
void *html_map_get(struct html_map *m, uint64_t k1, uint64_t k2);
/* The value of (k1, k2), or NULL. */
void *html_map_find(const struct html_map *m, uint64_t k1, uint64_t k2);
/* Every value, in an array of *n pointers (malloc'd: the caller frees it; the map unchanged). */
void **html_map_values(const struct html_map *m, size_t *n);
void html_map_free(struct html_map *m);

/* ---- what a session's records say (bt_html.c) ---- */

#define HTML_BUCKETS 160 /* the timeline's columns */

/* An instruction the records name: a branch's FROM, one on the path between two branches, or
 * a sample's IP. */
struct html_insn {
	uint64_t addr;
	uint64_t taken;	    /* branch records from here */
	uint64_t not_taken; /* a conditional branch the path between two records fell through */
	uint64_t exec;	    /* times on a path between two records (or a branch's FROM) */
	uint64_t samples;   /* PEBS, counter or BTF samples with this IP */
};

struct html_branch {
	uint64_t from, to, count;
	int kind;
};

/* A PEBS sample's data address (load latency, extended PEBS). */
struct html_data {
	uint64_t dla, count, lat_sum, lat_max, dse, ip;
};

/* A function (its start address: the symbol's; without a symbol, the address itself). */
struct html_func {
	uint64_t start;
	uint64_t taken, exec, samples; /* over its instructions */
	uint64_t timeline;	       /* records in the timeline */
};

/* The timeline: records of each function in each column. */
struct html_cell {
	uint64_t bucket, fn, count;
};

struct html_session {
	unsigned cpu;
	uint32_t number;
	uint32_t tid; /* the thread it traced (struct bt_session's) */
	/* when it ran: BEGIN's TSC to END's (or its last record's), where the stream has them */
	bool span_timed;
	uint64_t span_from, span_to;
	char facility[BT_NAME_MAX], name[BT_NAME_MAX];
	uint64_t branches, pebs, samples; /* records of each kind */
	uint64_t lbr_samples;		  /* LBR stacks a PMI took (lbr.period), each with its IP */
	uint64_t overlapped;		  /* their entries an earlier stack already held */
	uint64_t pmi_returns;		  /* their entries that are the PMI's own IRET */
	bool ended;
	uint64_t end_records, end_lost;
	char verdict[32], why[256];
	struct html_map insns, branch_map, data, cells;
	/* the timeline's axis: TSC from the first record on when it carries one, else the record
	 * index; each column `width` units wide (doubled as the session grows) */
	bool axis_chosen, timed;
	uint64_t t0, t_now, width, x_max;
	/* the path between branch records: the last record's TO */
	bool have_prev;
	uint64_t prev_to;
	uint64_t walked, unwalked; /* paths followed, and not (no code, or it cannot be) */
	struct bt_lbr *snap;	   /* an LBR snapshot, replayed oldest first when it ends */
	uint64_t *snap_tsc;	   /* each entry's time stamp (snap_timed: it has one) */
	bool *snap_timed;
	unsigned snap_n;
	uint64_t snap_first; /* the record index of its first entry */
	struct bt_lbr *last; /* the last sampled stack, newest first (overlap with the next) */
	unsigned last_n;
};

/* The capture's sessions, in the order they began; the HEADER pairs, each once. */
extern struct html_session **html_sessions;
extern unsigned html_n_sessions;
extern const char **html_pairs;
extern unsigned html_n_pairs;

/* The function an address is in: its symbol's start, or the address itself. */
uint64_t html_function_of(uint64_t addr);
/* A session's functions, busiest first (by branches taken, then samples, then path), in an
 * array of *n (malloc'd; the caller frees it). */
struct html_func *html_functions(const struct html_session *s, size_t *n);

/* ---- writing (bt_html_page.c) ---- */

/* s as HTML text (also fit for an attribute's value in double quotes): & < > " ' escaped, a
 * byte that starts no well-formed UTF-8 sequence as U+FFFD, control characters as U+FFFD. */
void html_text(const char *s);
void html_textf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A function's name, escaped, and the anchor of its disassembly within session s ("" none). */
void html_func_name(uint64_t fn);
void html_page(void);

/* The timeline of session h (its functions f[0..n), bt_html_timeline.c). */
void html_timeline_svg(const struct html_session *h, const struct html_func *f, size_t n);
/* A timeline's geometry (the session's and the threads'): the labels' width, the plot's, a
 * row's height. */
#define HTML_TL_LABEL 220
#define HTML_TL_PLOT  960
#define HTML_TL_LANE  18
/* A value on a timeline's axis at x of its units (TSC ticks when timed, else records), and its
 * unit: us with the capture's tsc-khz, TSC ticks without one, or a record index. */
double html_axis_value(bool timed, double x, const char **unit);
/* The axis under `rows` rows, over [0, end] of its units, and the SVG's end. */
void html_axis_svg(unsigned rows, bool timed, uint64_t end);

/* ---- the threads (bt_html_threads.c) ---- */

/* Whether the page names threads: a session traced a thread other than the main one (tid 1).
 * A capture of one thread (every session tid 1, as before threads) has the page it had. */
bool html_threaded(void);
/* The threads' timeline: a row per thread ("tid N (cpu C)"), its records over the capture's
 * time (nothing when !html_threaded()). */
void html_threads_svg(void);

/* ---- the flame graph (bt_html_flame.c): the folded view fed the same records ---- */

void html_flame_start(void);
void html_flame_begin(const struct bt_session *s);
void html_flame_bts(const struct bt_session *s, const struct bt_bts *r);
void html_flame_lbr(const struct bt_session *s, const struct bt_lbr *e);
void html_flame_end(const struct bt_session *s, const struct bt_session_end *e);
/* The folded stacks are taken from the folded view once every record is in. */
void html_flame_collect(void);
/* The SVG of the stacks of session s (those whose root is its facility and name). */
void html_flame_svg(const struct html_session *s);

/* ---- the annotated disassembly (bt_html_asm.c) ---- */

/* The function starting at fn, one row per instruction with s's counts; false (nothing
 * written) when no ELF in use has its code or no symbol names it. */
bool html_asm_function(const struct html_session *s, uint64_t fn, unsigned index);

#endif
