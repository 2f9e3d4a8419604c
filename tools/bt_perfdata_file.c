/* SPDX-License-Identifier: MIT */
/*
 * --view perf.data's file around the records (tools/perf/Documentation/perf.data-file-format.txt;
 * perf's tools/perf/util/header.h): the header, one attribute per facility with its one id, the
 * data section bt_perfdata.c wrote, then the features (HEADER_BUILD_ID naming each ELF by its
 * build id, HEADER_ARCH, HEADER_NRCPUS, HEADER_EVENT_DESC with the facilities' names).
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include "tools/bt_perfdata.h"
#include "tools/btdecode.h"

/* perf.data-file-format.txt: "struct perf_file_header" and its features (the bit numbers of
 * adds_features, "HEADER_BUILD_ID = 2, ..."). */
#define PERF_MAGIC2	  0x32454c4946524550ULL /* "PERFILE2", little-endian */
#define HEADER_BUILD_ID	  2
#define HEADER_ARCH	  6
#define HEADER_NRCPUS	  7
#define HEADER_EVENT_DESC 12
#define HEADER_FEAT_BITS  256
#define NAME_ALIGN	  64 /* perf_header_string lengths (header.c do_write_string) */
#define BUILD_ID_SIZE	  20
#define BUILD_ID_FIELD	  24 /* BUILD_ID_SIZE rounded to 8 */

struct perf_file_section {
	uint64_t offset, size;
};

struct perf_file_header {
	uint64_t magic, size, attr_size;
	struct perf_file_section attrs, data, event_types;
	uint64_t adds_features[HEADER_FEAT_BITS / 64];
};
_Static_assert(sizeof(struct perf_file_header) == 104, "perf.data-file-format.txt's header");

struct perf_file_attr {
	struct perf_event_attr attr;
	struct perf_file_section ids;
};

/* The file being written: its attributes, and whether a write failed. */
static struct {
	const struct bt_pd_attr *attrs;
	unsigned n_attrs, max_cpu;
} file;
static bool failed;

static uint64_t out_pos;

static void out(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out_records) != n)
		failed = true;
	out_pos += n;
}

static void out_zero(size_t n)
{
	static const uint8_t z[NAME_ALIGN];
	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);
		out(z, k);
		n -= k;
	}
}

/* A perf_header_string: u32 length (NUL included, rounded to NAME_ALIGN), the bytes. */
static size_t header_string(const char *s, bool write)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1));
	if (write) {
		out(&len, sizeof(len));
		out(s, strlen(s));
		out_zero(len - strlen(s));
	}
	return sizeof(len) + len;
}

static struct perf_event_attr make_attr(unsigned i)
{
	const char *f = file.attrs[i].name;
	bool branches = !strcmp(f, "lbr") || !strcmp(f, "bts");
	struct perf_event_attr a = {
	    .type = branches ? PERF_TYPE_HARDWARE : PERF_TYPE_RAW,
	    .size = sizeof(a),
	    .config = branches ? PERF_COUNT_HW_BRANCH_INSTRUCTIONS : 0,
	    /* perf takes branch instructions with a period of 1 for intel_bts and prints no
	     * branch stack for them (tools/perf/util/evsel.h evsel__is_bts) */
	    .sample_period = file.attrs[i].period,
	    .sample_type = SAMPLE_TYPE | (bt_perf_callchains ? PERF_SAMPLE_CALLCHAIN : 0),
	    .sample_id_all = 1,
	    .precise_ip = !strcmp(f, "pebs") ? 2 : 0,
	    .branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
	};
	return a;
}

static void hex_bytes(const char *hex, uint8_t *id, size_t max)
{
	for (size_t k = 0; k < max && hex[2 * k] && hex[2 * k + 1]; k++) {
		unsigned v;
		if (sscanf(hex + 2 * k, "%2x", &v) == 1)
			id[k] = (uint8_t)v;
	}
}

static size_t build_id_event(const struct bt_exec *x, bool write)
{
	size_t name = (strlen(x->path) + 1 + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1);
	struct {
		struct perf_event_header h;
		int32_t pid;
		uint8_t id[BUILD_ID_FIELD];
	} b = {.h = {.type = 0, .misc = PERF_RECORD_MISC_USER, .size = 0}, .pid = -1};
	b.h.size = (uint16_t)(sizeof(b) + name);
	if (write) {
		hex_bytes(x->build_id, b.id, BUILD_ID_SIZE);
		out(&b, sizeof(b));
		out(x->path, strlen(x->path));
		out_zero(name - strlen(x->path));
	}
	return sizeof(b) + name;
}

/* Build ids: one per ELF (its first executable segment). */
static struct {
	bool write;
	size_t size;
	const char *last;
} bid;

static void build_id_one(void *ctx, const struct bt_exec *x)
{
	(void)ctx;
	if (!x->build_id[0] || (bid.last && !strcmp(bid.last, x->path)))
		return;
	bid.last = x->path;
	bid.size += build_id_event(x, bid.write);
}

static size_t feat_build_id(bool write)
{
	bid = (typeof(bid)){.write = write};
	bt_sym_for_each_segment(build_id_one, NULL);
	return bid.size;
}

static size_t feat_nrcpus(bool write)
{
	uint32_t n[2] = {file.max_cpu + 1, file.max_cpu + 1};
	if (write)
		out(n, sizeof(n));
	return sizeof(n);
}

static size_t feat_arch(bool write)
{
	return header_string("x86_64", write);
}

static size_t feat_event_desc(bool write)
{
	uint32_t hdr[2] = {file.n_attrs, sizeof(struct perf_event_attr)};
	size_t size = sizeof(hdr);
	if (write)
		out(hdr, sizeof(hdr));
	for (unsigned i = 0; i < file.n_attrs; i++) {
		struct perf_event_attr a = make_attr(i);
		uint32_t nr_ids = 1;
		uint64_t id = i + 1;
		if (write) {
			out(&a, sizeof(a));
			out(&nr_ids, sizeof(nr_ids));
		}
		size += sizeof(a) + sizeof(nr_ids) + header_string(file.attrs[i].name, write) +
			sizeof(id);
		if (write)
			out(&id, sizeof(id));
	}
	return size;
}

/* Not HEADER_BRANCH_STACK (15), which `perf record -b` writes: with it perf report opens every
 * view in branch mode and turns -g --children's cumulation off (tools/perf/builtin-report.c:
 * branch_mode -1 and has_br_stack: SORT_MODE__BRANCH, cumulate_callchain = false), so the
 * call-graph view this file's chains are for would need --no-branch-stack. Without it,
 * --branch-history works (the samples have call chains) and -b chooses branch mode. */
static const struct {
	unsigned bit;
	size_t (*fn)(bool write);
} features[] = {
    {HEADER_BUILD_ID, feat_build_id},
    {HEADER_ARCH, feat_arch},
    {HEADER_NRCPUS, feat_nrcpus},
    {HEADER_EVENT_DESC, feat_event_desc},
};
#define N_FEATURES (sizeof(features) / sizeof(features[0]))

/* What the profilers that read this file can make of each ELF: AutoFDO attributes samples to
 * source lines, so an ELF without a line table (assembly without -g) gets an empty profile
 * from create_gcov and create_llvm_prof, which say nothing; Debian 12's create_gcov (AutoFDO
 * 0.19) reads no DWARF 5. Said once per ELF, on stderr. */
static void dwarf_note(void *ctx, const struct bt_exec *x)
{
	(void)ctx;
	if (bid.last && !strcmp(bid.last, x->path))
		return;
	bid.last = x->path;
	int v = bt_sym_dwarf_version(x->path);
	if (v == 0)
		fprintf(
		    out_problems,
		    "btdecode: perf.data: %s has no DWARF line table: perf names its functions, "
		    "but AutoFDO (create_gcov, create_llvm_prof) attributes nothing to it "
		    "(build it with -g)\n",
		    x->path);
	else if (v >= 5 && !x->is_kernel)
		fprintf(out_problems,
			"btdecode: perf.data: %s has DWARF %d: Debian 12's create_gcov (AutoFDO "
			"0.19) reads DWARF 4 only and gives it an empty profile (build it with "
			"-gdwarf-4)\n",
			x->path, v);
}

void bt_perfdata_file(const struct bt_pd_attr *attrs, unsigned n_attrs, unsigned max_cpu,
		      FILE *data, uint64_t n)
{
	file.attrs = attrs;
	file.n_attrs = n_attrs;
	file.max_cpu = max_cpu;
	failed = false;
	out_pos = 0;
	struct perf_file_header h = {
	    .magic = PERF_MAGIC2, .size = sizeof(h), .attr_size = sizeof(struct perf_file_attr)};
	uint64_t ids_at = sizeof(h);
	h.attrs = (struct perf_file_section){ids_at + n_attrs * sizeof(uint64_t),
					     n_attrs * sizeof(struct perf_file_attr)};
	h.data = (struct perf_file_section){h.attrs.offset + h.attrs.size, n};
	for (unsigned i = 0; i < N_FEATURES; i++)
		h.adds_features[features[i].bit / 64] |= 1ULL << (features[i].bit % 64);
	out(&h, sizeof(h));
	for (unsigned i = 0; i < n_attrs; i++) {
		uint64_t id = i + 1;
		out(&id, sizeof(id));
	}
	for (unsigned i = 0; i < n_attrs; i++) {
		struct perf_file_attr fa = {
		    .attr = make_attr(i), .ids = {ids_at + i * sizeof(uint64_t), sizeof(uint64_t)}};
		out(&fa, sizeof(fa));
	}
	rewind(data);
	char buf[1 << 16];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), data)) > 0)
		out(buf, got);
	/* the features: their sections, then their contents, in the bits' order */
	uint64_t at = out_pos + N_FEATURES * sizeof(struct perf_file_section);
	for (unsigned i = 0; i < N_FEATURES; i++) {
		struct perf_file_section sec = {at, features[i].fn(false)};
		out(&sec, sizeof(sec));
		at += sec.size;
	}
	for (unsigned i = 0; i < N_FEATURES; i++)
		features[i].fn(true);
	fflush(out_records);
	bid.last = NULL;
	bt_sym_for_each_segment(dwarf_note, NULL);
	if (failed || ferror(out_records))
		fprintf(out_problems, "btdecode: perf.data: writing the file failed\n");
}
