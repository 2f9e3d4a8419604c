/* SPDX-License-Identifier: MIT */
/*
 * btdecode --view stats: besides the reader's per-CPU lines (frames, records, wire bytes), the
 * records' branch kinds (decoded from the ELF's code, or Arch LBR's BR_TYPE; "unknown" where
 * neither says), the hottest branches with their symbols, and the mispredict rates where the
 * records carry them (LBR's MISPRED bit where valid; BTS's predicted flag).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tools/btdecode.h"

#define HOT_SHOWN   10
#define HOT_INITIAL 4096 /* slots of the (FROM, TO) table; it doubles at half full */

struct hot {
	uint64_t from, to, count;
	int kind;
};

static struct {
	uint64_t kinds[X86_BR_KIND_COUNT], unknown;
	uint64_t lbr_mispred_known, lbr_mispred, bts, bts_predicted, pebs;
	uint64_t lbr_mispred_model; /* of lbr_mispred_known: from the software PMU */
	struct hot *slot;
	size_t slots, used;
} st;

static struct bt_path_counts path;

static void stats_start(void)
{
	free(st.slot);
	memset(&st, 0, sizeof(st));
	memset(&path, 0, sizeof(path));
	bt_read_path_counts(&path);
}

/* The information floor of the records (the record stream's measure): a bit for each conditional
 * branch the paths walked (taken or not), and for each other branch with a target to say (indirect
 * JMP and CALL, far transfers, INT, SYSCALL, IRET, ...; not near returns, which the calls
 * before them decide) log2 of the targets seen from its FROM. Records of an unknown kind and
 * interrupts count nothing. From the (FROM, TO) table: the table must be whole. */
static double floor_bits(const struct hot *h, size_t n)
{
	double bits = (double)path.conditionals;
	for (size_t i = 0; i < n;) {
		size_t j = i, targets = 0;
		uint64_t records = 0;
		for (; j < n && h[j].from == h[i].from; j++) {
			targets++;
			records += h[j].count;
		}
		int k = h[i].kind;
		bool indirect = k > X86_BR_NONE &&
				!x86_branch_conditional((enum x86_branch_kind)k) &&
				k != X86_BR_JMP_REL && k != X86_BR_CALL_REL && k != X86_BR_RET &&
				k != X86_BR_XBEGIN;
		if (indirect && targets > 1)
			bits += (double)records * log2((double)targets);
		i = j;
	}
	return bits;
}

static int by_from(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;
	return x->from < y->from ? -1 : x->from > y->from;
}

static size_t hash(uint64_t from, uint64_t to, size_t slots)
{
	uint64_t h = (from * 0x9e3779b97f4a7c15ull) ^ (to + 0x632be59bd9b4e019ull);
	h ^= h >> 29;
	return (size_t)(h & (slots - 1));
}

static void insert(uint64_t from, uint64_t to, uint64_t count, int kind);

static void grow(void)
{
	struct hot *old = st.slot;
	size_t n = st.slots;
	st.slots = n ? 2 * n : HOT_INITIAL;
	st.slot = calloc(st.slots, sizeof(*st.slot));
	if (!st.slot) {
		fprintf(stderr, "btdecode: out of memory for the branch table\n");
		exit(2);
	}
	st.used = 0;
	for (size_t i = 0; i < n; i++)
		if (old[i].count)
			insert(old[i].from, old[i].to, old[i].count, old[i].kind);
	free(old);
}

static void insert(uint64_t from, uint64_t to, uint64_t count, int kind)
{
	if (2 * (st.used + 1) > st.slots)
		grow();
	for (size_t i = hash(from, to, st.slots);; i = (i + 1) & (st.slots - 1)) {
		struct hot *h = &st.slot[i];
		if (!h->count) {
			*h = (struct hot){from, to, count, kind};
			st.used++;
			return;
		}
		if (h->from == from && h->to == to) {
			h->count += count;
			return;
		}
	}
}

static void count(uint64_t from, uint64_t to, int br_type)
{
	int k = bt_record_kind(from, br_type);
	if (k < 0)
		st.unknown++;
	else
		st.kinds[k]++;
	insert(from, to, 1, k);
}

static void stats_bts(const struct bt_session *s, const struct bt_bts *r)
{
	(void)s;
	st.bts++;
	st.bts_predicted += (r->flags & 0x10) != 0; /* SDM Table 17-6: bit 4, predicted */
	count(r->from, r->to, -1);
}

static void stats_pebs(const struct bt_session *s, const struct bt_pebs *p)
{
	(void)s, (void)p;
	st.pebs++;
}

static void stats_sample(const struct bt_session *s, const struct bt_sample *x)
{
	(void)s, (void)x;
	st.pebs++; /* with the PEBS samples: samples, not branches */
}

static void stats_lbr(const struct bt_session *s, const struct bt_lbr *e)
{
	if (e->mispred_valid) {
		st.lbr_mispred_known++;
		st.lbr_mispred += e->mispred;
		st.lbr_mispred_model += bt_session_modelled(s);
	}
	count(e->from, e->to, e->br_type);
}

static int by_count(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->from < y->from ? -1 : x->from > y->from;
}

static void stats_finish(void)
{
	uint64_t all = st.unknown;
	for (unsigned k = 0; k < X86_BR_KIND_COUNT; k++)
		all += st.kinds[k];
	if (st.pebs)
		fprintf(out_records, "samples (PEBS, counter, BTF): %" PRIu64 "\n", st.pebs);
	if (!all) {
		if (st.pebs)
			fprintf(
			    out_records, "record frames: %" PRIu64 " wire bytes, %.3f per record\n",
			    bt_record_wire_bytes, (double)bt_record_wire_bytes / (double)st.pebs);
		return;
	}
	fputs("kinds:", out_records);
	for (unsigned k = 0; k < X86_BR_KIND_COUNT; k++)
		if (st.kinds[k])
			fprintf(out_records, " %s=%" PRIu64, bt_kind_name((int)k), st.kinds[k]);
	if (st.unknown)
		fprintf(out_records, " unknown=%" PRIu64 " (no ELF covers their FROM: --elf)",
			st.unknown);
	fputc('\n', out_records);
	if (st.lbr_mispred_known)
		fprintf(out_records, "lbr mispredicted: %" PRIu64 " of %" PRIu64 " (%.1f%%)%s\n",
			st.lbr_mispred, st.lbr_mispred_known,
			100.0 * (double)st.lbr_mispred / (double)st.lbr_mispred_known,
			!st.lbr_mispred && st.lbr_mispred_model == st.lbr_mispred_known
			    ? " (the software PMU predicts nothing: its entries "
			      "say 'not mispredicted' by construction)"
			    : "");
	if (st.bts)
		fprintf(
		    out_records, "bts predicted flag set: %" PRIu64 " of %" PRIu64 " (%.1f%%)\n",
		    st.bts_predicted, st.bts, 100.0 * (double)st.bts_predicted / (double)st.bts);
	/* compact the table; by FROM for the floor, then by count for the hottest */
	size_t n = 0;
	for (size_t i = 0; i < st.slots; i++)
		if (st.slot[i].count)
			st.slot[n++] = st.slot[i];
	if (n)
		qsort(st.slot, n, sizeof(*st.slot), by_from);
	fprintf(out_records, "record frames: %" PRIu64 " wire bytes, %.3f per record\n",
		bt_record_wire_bytes, (double)bt_record_wire_bytes / (double)all);
	if (path.records) {
		double fl = floor_bits(st.slot, n);
		fprintf(out_records,
			"path: %" PRIu64 " records (%" PRIu64 " escapes), %" PRIu64
			" conditional branches walked (%" PRIu64 " taken), %" PRIu64
			" returns (%" PRIu64 " predicted), %" PRIu64 " other indirect (%" PRIu64
			" predicted)\n",
			path.records, path.escapes, path.conditionals, path.taken, path.returns,
			path.returns_hit, path.indirect, path.indirect_hit);
		fprintf(out_records,
			"information floor: %.0f bits (%.3f bytes per record); the record frames "
			"are %.2f times the floor\n",
			fl, fl / 8 / (double)all,
			fl > 0 ? (double)bt_record_wire_bytes * 8 / fl : 0.0);
	}
	if (n)
		qsort(st.slot, n, sizeof(*st.slot), by_count);
	for (size_t i = 0; i < n && i < HOT_SHOWN; i++) {
		char f[512], t[512];
		const struct hot *h = &st.slot[i];
		fprintf(out_records,
			"hot %zu: %" PRIu64 " x %#" PRIx64 " %s -> %#" PRIx64 " %s (%s)\n", i + 1,
			h->count, h->from, bt_sym_name(h->from, f, sizeof(f)), h->to,
			bt_sym_name(h->to, t, sizeof(t)), bt_kind_name(h->kind));
	}
	st.used = 0;
	memset(st.slot, 0, st.slots * sizeof(*st.slot));
}

const struct bt_view bt_view_stats = {
    .name = "stats",
    .about = "per CPU: frames, records, wire bytes; branch kinds, hottest branches, mispredicts",
    .symbols = true,
    .start = stats_start,
    .bts = stats_bts,
    .lbr = stats_lbr,
    .pebs = stats_pebs,
    .sample = stats_sample,
    .finish = stats_finish,
};
