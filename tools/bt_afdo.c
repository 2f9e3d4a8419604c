/* SPDX-License-Identifier: MIT */
/*
 * --view afdo: gcc's AutoFDO profile (-o FILE, for `gcc -fauto-profile=FILE`), written as gcc
 * 12 reads it (gcc/auto-profile.cc read_profile, AUTO_PROFILE_VERSION 2; gcc/gcov-io.cc):
 *
 *   u32 GCOV_DATA_MAGIC ("gcda"), u32 version 2, u32 0
 *   u32 GCOV_TAG_AFDO_FILE_NAMES, u32 length, u32 n, n strings (u32 bytes with the NUL, bytes)
 *   u32 GCOV_TAG_AFDO_FUNCTION, u32 length, u32 n, n times: u64 head count, an instance
 *   u32 GCOV_TAG_AFDO_MODULE_GROUPING, u32 length, u32 0 (gcc reads no modules)
 *
 * An instance: u32 name (its index in the names), u32 positions, u32 callsites; each position
 * u32 offset, u32 targets, u64 count, and per target u32 kind, u64 name, u64 count; each
 * callsite u32 offset and the callee's instance. An offset is gcc's get_combined_location:
 * the line less the function's DW_AT_decl_line, shifted 16, or the discriminator. A u64 is
 * two u32, low first; all little-endian as gcc writes them on x86-64.
 *
 * Debian 12's create_gcov (AutoFDO 0.19) writes an older layout (version and strings in words)
 * that gcc 12 refuses or crashes on; this view is the profile from the capture itself.
 *
 * The counts, as AutoFDO makes them from LBR (google/autofdo's sample reader and
 * SymbolMap::AddSourceCount with MAX): consecutive branches of a stack (or of a BTS trace) give
 * the straight-line range run between them, each instruction in a range is counted once per
 * time the range ran, and a source position takes the largest count of its instructions (the
 * times its line ran). A function's head count is the branches into its first instruction;
 * an indirect call's targets are counted at its position. A BTS capture gives every branch,
 * so when a capture has both it is the one used; the kernel's own code is left out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/x86_decode.h"
#include "tools/bt_html.h"
#include "tools/btdecode.h"

#define GCOV_DATA_MAGIC		      0x67636461u /* "gcda" (gcc/gcov-io.h) */
#define AUTO_PROFILE_VERSION	      2u	  /* gcc/auto-profile.cc */
#define GCOV_TAG_AFDO_FILE_NAMES      0xaa000000u /* gcc/gcov-io.h */
#define GCOV_TAG_AFDO_FUNCTION	      0xac000000u
#define GCOV_TAG_AFDO_MODULE_GROUPING 0xae000000u
#define HIST_TYPE_INDIR_CALL	      4u   /* gcc/value-prof.h (gcc reads and ignores it) */
#define RANGE_MAX		      4096 /* a longer straight line is no range (AutoFDO's too) */
#define STACK_MAX		      32
#define SNAP_MAX		      64
#define MAX_CPUS		      256

/* ---- (a, b) -> count, in the HTML view's map (bt_html_map.c) ------------------------------ */

struct kv {
	uint64_t a, b, count;
};

static void hm_add(struct html_map *m, uint64_t a, uint64_t b, uint64_t count)
{
	struct kv *v = html_map_get(m, a, b);
	v->a = a;
	v->b = b;
	v->count += count;
}

/* every (a, b) -> count, in an array of *n (the caller frees it) */
static struct kv **hm_all(const struct html_map *m, size_t *n)
{
	return (struct kv **)html_map_values(m, n);
}

/* ---- the profile: names and function instances ------------------------------------------- */

struct target {
	unsigned name;
	uint64_t count;
};
struct pos {
	uint32_t offset;
	uint64_t count;
	struct target *t;
	unsigned nt;
};
struct inst;
struct call {
	uint32_t offset;
	struct inst *callee;
};
struct inst {
	unsigned name;
	uint64_t head;
	struct pos *pos;
	unsigned npos;
	struct call *calls;
	unsigned ncalls;
};

static struct {
	/* what the capture gave: ranges (start, end) and branches (from, to), BTS's and LBR's */
	struct html_map ranges[2], branches[2];
	/* each CPU's LBR stack being gathered, newest first (a program's threads are traced at
	 * once, each on its CPU: their frames interleave) */
	struct snap {
		struct bt_lbr e[SNAP_MAX];
		unsigned n;
		uint32_t last_index;
	} * snap[MAX_CPUS];
	struct {
		uint64_t to;
		bool have;
	} bts_last[MAX_CPUS];
	/* the profile */
	char **names;
	unsigned n_names;
	struct inst **top;
	unsigned n_top;
	uint64_t dropped; /* range instances whose instructions did not decode to their end */
	bool llvm;	  /* --view llvm-prof: LLVM's text sample profile instead of gcc's */
} af;

enum { FROM_BTS, FROM_LBR };
#define VIEW_NAME (af.llvm ? "llvm-prof" : "afdo")

static unsigned name_index(const char *name)
{
	size_t len = strcspn(name, "."); /* gcc's get_original_name: up to the first '.' */
	for (unsigned i = 0; i < af.n_names; i++)
		if (strlen(af.names[i]) == len && !strncmp(af.names[i], name, len))
			return i;
	char **g = realloc(af.names, (af.n_names + 1) * sizeof(*g));
	if (!g)
		abort();
	af.names = g;
	af.names[af.n_names] = strndup(name, len);
	return af.n_names++;
}

static struct inst *new_inst(unsigned name)
{
	struct inst *i = calloc(1, sizeof(*i));
	if (!i)
		abort();
	i->name = name;
	return i;
}

static struct inst *top_of(const char *name)
{
	unsigned k = name_index(name);
	for (unsigned i = 0; i < af.n_top; i++)
		if (af.top[i]->name == k)
			return af.top[i];
	struct inst **g = realloc(af.top, (af.n_top + 1) * sizeof(*g));
	if (!g)
		abort();
	af.top = g;
	return af.top[af.n_top++] = new_inst(k);
}

static struct inst *callee_of(struct inst *in, uint32_t offset, const char *name)
{
	unsigned k = name_index(name);
	for (unsigned i = 0; i < in->ncalls; i++)
		if (in->calls[i].offset == offset && in->calls[i].callee->name == k)
			return in->calls[i].callee;
	struct call *g = realloc(in->calls, (in->ncalls + 1) * sizeof(*g));
	if (!g)
		abort();
	in->calls = g;
	in->calls[in->ncalls] = (struct call){offset, new_inst(k)};
	return in->calls[in->ncalls++].callee;
}

static struct pos *pos_of(struct inst *in, uint32_t offset)
{
	for (unsigned i = 0; i < in->npos; i++)
		if (in->pos[i].offset == offset)
			return &in->pos[i];
	struct pos *g = realloc(in->pos, (in->npos + 1) * sizeof(*g));
	if (!g)
		abort();
	in->pos = g;
	in->pos[in->npos] = (struct pos){.offset = offset};
	return &in->pos[in->npos++];
}

/* gcc's get_combined_location (LLVM's LineLocation is the same pair: the line's offset from
 * the function's, and the discriminator, its base one for LLVM); false when the line lies
 * before its function's declaration */
static bool location(const struct bt_src_frame *f, uint32_t *offset)
{
	if (f->line < f->decl_line || f->line - f->decl_line >= 1 << 16)
		return false;
	/* gcc 12 reads a position's offset masked to its line (auto-profile.cc: "offset &
	 * 0xffff0000") and keeps the last count written for it, and finds a callsite by its line
	 * alone: for gcc a line's positions are one (the most of them), discriminator 0 */
	unsigned d = af.llvm ? f->base_discr : 0;
	*offset = (uint32_t)(f->line - f->decl_line) << 16 | (d & 0xffff);
	return true;
}

/* The position at addr, through its inline stack from the outermost function: NULL when the
 * address has none (no line, or the kernel's, or a line gcc cannot place). */
static struct pos *position_at(uint64_t addr, struct bt_src_frame *f, unsigned *depth)
{
	unsigned n = bt_sym_source_stack(addr, f, STACK_MAX);
	*depth = n;
	if (!n)
		return NULL;
	uint32_t off;
	struct inst *in = top_of(f[n - 1].name);
	for (unsigned i = n - 1; i > 0; i--) {
		if (!location(&f[i], &off))
			return NULL;
		in = callee_of(in, off, f[i - 1].name);
	}
	return location(&f[0], &off) ? pos_of(in, off) : NULL;
}

/* ---- the kernel's code is not the program's ------------------------------------------------ */

static struct {
	uint64_t lo[8], hi[8];
	unsigned n;
} kernel;

static void kernel_segment(void *ctx, const struct bt_exec *x)
{
	(void)ctx;
	if (x->is_kernel && kernel.n < 8) {
		kernel.lo[kernel.n] = x->start;
		kernel.hi[kernel.n++] = x->start + x->len;
	}
}

static bool in_kernel(uint64_t addr)
{
	for (unsigned i = 0; i < kernel.n; i++)
		if (addr >= kernel.lo[i] && addr < kernel.hi[i])
			return true;
	return false;
}

/* ---- gathering -------------------------------------------------------------------------- */

static void flush_snap(struct snap *sn)
{
	/* newest first: e[i + 1].to runs straight to e[i].from */
	for (unsigned i = 0; sn && i < sn->n; i++) {
		hm_add(&af.branches[FROM_LBR], sn->e[i].from, sn->e[i].to, 1);
		if (i + 1 < sn->n)
			hm_add(&af.ranges[FROM_LBR], sn->e[i + 1].to, sn->e[i].from, 1);
	}
	if (sn)
		sn->n = 0;
}

/* The CPU's stack being gathered (NULL for a CPU past MAX_CPUS, or without one yet and make
 * false). */
static struct snap *snap_of(unsigned cpu, bool make)
{
	if (cpu >= MAX_CPUS)
		return NULL;
	if (!af.snap[cpu] && make && !(af.snap[cpu] = calloc(1, sizeof(*af.snap[cpu]))))
		abort();
	return af.snap[cpu];
}

static void afdo_reset(void)
{
	for (int k = 0; k < 2; k++) {
		html_map_free(&af.ranges[k]);
		html_map_free(&af.branches[k]);
	}
	for (unsigned i = 0; i < af.n_names; i++)
		free(af.names[i]);
	free(af.names);
	for (unsigned c = 0; c < MAX_CPUS; c++)
		free(af.snap[c]);
	free(af.top); /* the instances of a last capture are left: one per process */
	memset(&af, 0, sizeof(af));
	for (int k = 0; k < 2; k++) {
		html_map_init(&af.ranges[k], sizeof(struct kv));
		html_map_init(&af.branches[k], sizeof(struct kv));
	}
}

/* gcc 12's string_table::get_name asserts an index above 0 (its indirect-call promotion asks
 * for the hottest target's name): name 0 is a placeholder no function has. */
static void names_begin(void)
{
	name_index("");
}

static void afdo_start(void)
{
	afdo_reset();
	names_begin();
}

static void llvm_start(void)
{
	afdo_reset();
	af.llvm = true;
}

static void afdo_begin(const struct bt_session *s)
{
	flush_snap(snap_of(s->cpu, false));
	if (s->cpu < MAX_CPUS)
		af.bts_last[s->cpu].have = false;
}

static void afdo_bts(const struct bt_session *s, const struct bt_bts *r)
{
	if (s->cpu >= MAX_CPUS)
		return;
	hm_add(&af.branches[FROM_BTS], r->from, r->to, 1);
	if (af.bts_last[s->cpu].have)
		hm_add(&af.ranges[FROM_BTS], af.bts_last[s->cpu].to, r->from, 1);
	af.bts_last[s->cpu].to = r->to;
	af.bts_last[s->cpu].have = true;
}

static void afdo_lbr(const struct bt_session *s, const struct bt_lbr *l)
{
	struct snap *sn = snap_of(s->cpu, true);
	if (!sn)
		return;
	if (sn->n && (l->sample || l->index <= sn->last_index || sn->n == SNAP_MAX))
		flush_snap(sn);
	sn->last_index = l->index;
	sn->e[sn->n++] = *l;
}

static void afdo_end(const struct bt_session *s, const struct bt_session_end *e)
{
	(void)e;
	flush_snap(snap_of(s->cpu, false));
}

/* ---- counting ----------------------------------------------------------------------------- */

/* Each instruction of [start, end] counted `count` times: true when it is not the program's
 * (the kernel's, or in no function), false when the code does not run straight from start to
 * exactly end inside one function (not a range that ran). */
static bool count_range(struct html_map *insns, uint64_t start, uint64_t end, uint64_t count)
{
	struct bt_sym a, b;
	if (in_kernel(start) || in_kernel(end) || !bt_sym_lookup(start, &a) || !a.func)
		return true;
	if (end < start || end - start >= RANGE_MAX || !bt_sym_lookup(end, &b) || a.func != b.func)
		return false;
	static uint64_t at[RANGE_MAX];
	static bool cond[RANGE_MAX];
	int n = bt_sym_straight(start, end, at, cond, RANGE_MAX - 1);
	if (n < 0)
		return false;
	at[n++] = end; /* the branch taken at its end ran too */
	for (int i = 0; i < n; i++)
		hm_add(insns, at[i], 0, count);
	return true;
}

static void build(int from)
{
	struct html_map insns;
	html_map_init(&insns, sizeof(struct kv));
	size_t n;
	struct kv **v = hm_all(&af.ranges[from], &n);
	for (size_t i = 0; i < n; i++)
		if (!count_range(&insns, v[i]->a, v[i]->b, v[i]->count))
			af.dropped += v[i]->count;
	free(v);
	struct bt_src_frame f[STACK_MAX];
	unsigned depth;
	v = hm_all(&insns, &n);
	for (size_t i = 0; i < n; i++) {
		struct pos *p = position_at(v[i]->a, f, &depth);
		if (p && v[i]->count > p->count)
			p->count = v[i]->count;
	}
	free(v);
	html_map_free(&insns);
	v = hm_all(&af.branches[from], &n);
	for (size_t i = 0; i < n; i++) {
		uint64_t src = v[i]->a, dst = v[i]->b, c = v[i]->count;
		struct bt_sym to;
		if (!c || in_kernel(dst) || !bt_sym_lookup(dst, &to) || !to.func)
			continue;
		struct bt_src_frame g[STACK_MAX];
		unsigned dd = bt_sym_source_stack(dst, g, STACK_MAX);
		if (!dd)
			continue;
		if (to.offset == 0 && dd == 1) /* a function entered */
			top_of(g[0].name)->head += c;
		if (!in_kernel(src) && bt_sym_branch_kind(src) == X86_BR_CALL_IND) {
			struct pos *p = position_at(src, f, &depth);
			if (!p)
				continue;
			unsigned name = name_index(g[dd - 1].name);
			unsigned k = 0;
			while (k < p->nt && p->t[k].name != name)
				k++;
			if (k == p->nt) {
				struct target *t = realloc(p->t, (p->nt + 1) * sizeof(*t));
				if (!t)
					abort();
				p->t = t;
				p->t[p->nt++] = (struct target){name, 0};
			}
			p->t[k].count += c;
		}
	}
	free(v);
}

/* ---- the file ------------------------------------------------------------------------------ */

static struct {
	uint8_t *b;
	size_t n, cap;
} buf;

static void put(const void *p, size_t n)
{
	if (buf.n + n > buf.cap) {
		size_t cap = buf.cap ? 2 * buf.cap : 65536;
		while (cap < buf.n + n)
			cap *= 2;
		uint8_t *g = realloc(buf.b, cap);
		if (!g)
			abort();
		buf.b = g;
		buf.cap = cap;
	}
	memcpy(buf.b + buf.n, p, n);
	buf.n += n;
}

static void put32(uint32_t v)
{
	put(&v, sizeof(v)); /* little-endian: x86-64 hosts only, as gcc writes it there */
}

static void put64(uint64_t v)
{
	put32((uint32_t)v);
	put32((uint32_t)(v >> 32));
}

static void put_inst(const struct inst *in)
{
	put32(in->name);
	put32(in->npos);
	put32(in->ncalls);
	for (unsigned i = 0; i < in->npos; i++) {
		put32(in->pos[i].offset);
		put32(in->pos[i].nt);
		put64(in->pos[i].count);
		for (unsigned k = 0; k < in->pos[i].nt; k++) {
			put32(HIST_TYPE_INDIR_CALL);
			put64(in->pos[i].t[k].name);
			put64(in->pos[i].t[k].count);
		}
	}
	for (unsigned i = 0; i < in->ncalls; i++) {
		put32(in->calls[i].offset);
		put_inst(in->calls[i].callee);
	}
}

/* A section: its tag, its length in bytes after the length (gcc skips it), its contents. */
static size_t open_section(uint32_t tag)
{
	put32(tag);
	put32(0);
	return buf.n;
}

static void close_section(size_t at)
{
	uint32_t len = (uint32_t)(buf.n - at);
	memcpy(buf.b + at - sizeof(len), &len, sizeof(len));
}

static uint64_t total(const struct inst *in)
{
	uint64_t t = 0;
	for (unsigned i = 0; i < in->npos; i++)
		t += in->pos[i].count;
	for (unsigned i = 0; i < in->ncalls; i++)
		t += total(in->calls[i].callee);
	return t;
}

/* LLVM's text sample profile (llvm/lib/ProfileData/SampleProfReader.cpp, "text format"):
 * NAME:TOTAL:HEAD, then one line a position, " OFFSET[.DISCRIMINATOR]: COUNT [TARGET:COUNT]...",
 * and a line a callsite, " OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL", its callee's lines one
 * space deeper */
static void llvm_loc(unsigned depth, uint32_t off)
{
	fprintf(out_records, "%*s%u", (int)depth, "", off >> 16);
	if (off & 0xffff)
		fprintf(out_records, ".%u", off & 0xffff);
	fputs(": ", out_records);
}

static void llvm_inst(const struct inst *in, unsigned depth)
{
	for (unsigned i = 0; i < in->npos; i++) {
		llvm_loc(depth, in->pos[i].offset);
		fprintf(out_records, "%" PRIu64, in->pos[i].count);
		for (unsigned k = 0; k < in->pos[i].nt; k++)
			fprintf(out_records, " %s:%" PRIu64, af.names[in->pos[i].t[k].name],
				in->pos[i].t[k].count);
		fputc('\n', out_records);
	}
	for (unsigned i = 0; i < in->ncalls; i++) {
		const struct inst *c = in->calls[i].callee;
		if (!total(c))
			continue;
		llvm_loc(depth, in->calls[i].offset);
		fprintf(out_records, "%s:%" PRIu64 "\n", af.names[c->name], total(c));
		llvm_inst(c, depth + 1);
	}
}

static unsigned write_llvm(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < af.n_top; i++) {
		uint64_t t = total(af.top[i]);
		if (!t)
			continue;
		fprintf(out_records, "%s:%" PRIu64 ":%" PRIu64 "\n", af.names[af.top[i]->name], t,
			af.top[i]->head);
		llvm_inst(af.top[i], 1);
		n++;
	}
	return n;
}

static unsigned write_gcc(void)
{
	buf.n = 0;
	put32(GCOV_DATA_MAGIC);
	put32(AUTO_PROFILE_VERSION);
	put32(0);
	size_t at = open_section(GCOV_TAG_AFDO_FILE_NAMES);
	put32(af.n_names);
	for (unsigned i = 0; i < af.n_names; i++) {
		put32((uint32_t)strlen(af.names[i]) + 1);
		put(af.names[i], strlen(af.names[i]) + 1);
	}
	close_section(at);
	unsigned n = 0;
	for (unsigned i = 0; i < af.n_top; i++)
		n += total(af.top[i]) > 0;
	at = open_section(GCOV_TAG_AFDO_FUNCTION);
	put32(n);
	for (unsigned i = 0; i < af.n_top; i++)
		if (total(af.top[i]) > 0) {
			put64(af.top[i]->head);
			put_inst(af.top[i]);
		}
	close_section(at);
	at = open_section(GCOV_TAG_AFDO_MODULE_GROUPING);
	put32(0);
	close_section(at);
	if (fwrite(buf.b, 1, buf.n, out_records) != buf.n)
		fprintf(out_problems, "btdecode: %s: writing the profile failed\n", VIEW_NAME);
	free(buf.b);
	buf = (typeof(buf)){0};
	return n;
}

static void afdo_finish(void)
{
	for (unsigned c = 0; c < MAX_CPUS; c++) /* sessions the capture ends inside */
		flush_snap(af.snap[c]);
	kernel.n = 0;
	bt_sym_for_each_segment(kernel_segment, NULL);
	int from = af.ranges[FROM_BTS].used ? FROM_BTS : FROM_LBR;
	build(from);
	unsigned n = af.llvm ? write_llvm() : write_gcc();
	if (fflush(out_records))
		fprintf(out_problems, "btdecode: %s: writing the profile failed\n", VIEW_NAME);
	if (!n)
		fprintf(out_problems,
			"btdecode: %s: no branch of the capture ran in a program function with "
			"a line table: the profile is empty (build the program with -g; capture "
			"with lbr, lbr.period=N or bts)\n",
			VIEW_NAME);
	if (af.dropped)
		fprintf(out_problems,
			"btdecode: %s: %" PRIu64 " straight-line ranges between %s branches "
			"did not decode to their end in one function and are not counted\n",
			VIEW_NAME, af.dropped, from == FROM_BTS ? "BTS" : "LBR");
}

const struct bt_view bt_view_afdo = {
    .name = "afdo",
    .about = "gcc's AutoFDO profile (-o FILE) for gcc -fauto-profile=FILE (gcc 12's format)",
    .symbols = true,
    .binary = true,
    .start = afdo_start,
    .begin = afdo_begin,
    .bts = afdo_bts,
    .lbr = afdo_lbr,
    .end = afdo_end,
    .finish = afdo_finish,
};

const struct bt_view bt_view_llvm_prof = {
    .name = "llvm-prof",
    .about = "LLVM's text sample profile (-o FILE) for clang -fprofile-sample-use=FILE",
    .symbols = true,
    .start = llvm_start,
    .begin = afdo_begin,
    .bts = afdo_bts,
    .lbr = afdo_lbr,
    .end = afdo_end,
    .finish = afdo_finish,
};
