/* SPDX-License-Identifier: MIT */
// UNIT-SOURCES: lib/stream.c lib/stream_path.c lib/crc32.c lib/string.c
// UNIT-SOURCES: lib/x86_decode.c lib/x86_decode_tables.c
/*
 * The record stream (lib/stream.h): base64 against RFC 4648's test vectors (section 10); BTS
 * records of every shape (deltas both ways, the extremes of 64 bits, flags changing, the leak
 * note) come back bit for bit through frames and text lines, and END's digest is the CRC-32
 * (test_crc32 checks it against zlib's) of the raw 24-byte records, packed by the test itself;
 * LBR entries, PEBS samples and IP samples of every shape likewise, their digests packed by
 * the test too; a program's output, every byte value, in frames that say where each piece belongs;
 * frames stand alone (a lost one takes only its records); a capture whose bytes are flipped,
 * dropped and duplicated at random (seeded) never yields a record that was not written: every line
 * left intact decodes, every damaged one is refused.
 */
#include "tests/unit/unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/crc32.h"
#include "lib/stream.h"

#define LINES_MAX 4096
#define LINE_LEN  (BT_TEXT_PREFIX_LEN + BT_TEXT_MAX + 2)

static char lines[LINES_MAX][LINE_LEN];
static unsigned nlines;

static void emit(void *ctx, const uint8_t *frame, size_t len)
{
	(void)ctx;
	assert_true(nlines < LINES_MAX);
	assert_true(len <= BT_FRAME_MAX);
	size_t n = bt_text_line(frame, len, lines[nlines]);
	assert_int_equal(n, strlen(lines[nlines]));
	nlines++;
}

static void rfc4648_vectors(void **state)
{
	(void)state;
	static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	static const char *const coded[] = {"",		"Zg==",	    "Zm8=",    "Zm9v",
					    "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
	for (unsigned i = 0; i < 7; i++) {
		char line[64];
		bt_text_line((const uint8_t *)plain[i], strlen(plain[i]), line);
		char want[64];
		snprintf(want, sizeof(want), "%s%s\n", BT_TEXT_PREFIX, coded[i]);
		assert_string_equal(line, want);
		uint8_t out[16];
		long n = bt_base64_decode(coded[i], strlen(coded[i]), out, sizeof(out));
		assert_int_equal(n, (long)strlen(plain[i]));
		assert_memory_equal(out, plain[i], (size_t)n);
	}
	uint8_t out[16];
	assert_int_equal(bt_base64_decode("Zg=", 3, out, sizeof(out)), -1);  /* length */
	assert_int_equal(bt_base64_decode("Z=g=", 4, out, sizeof(out)), -1); /* '=' inside */
	assert_int_equal(bt_base64_decode("Zm9*", 4, out, sizeof(out)), -1); /* not base64 */
	assert_int_equal(bt_base64_decode("Zm9vYmFy", 8, out, 5), -1);	     /* no room */
}

/* The records, in a decoder's hands. */
struct got {
	struct bt_bts r[8192];
	unsigned n;
};

static void take(void *ctx, const struct bt_bts *r)
{
	struct got *g = ctx;
	assert_true(g->n < 8192);
	g->r[g->n++] = *r;
}

static long read_bts(const struct bt_frame *f, uint32_t *session, void *ctx)
{
	return bt_read_bts(f, session, take, ctx);
}

static struct bt_frame parse_line(unsigned i, uint8_t *buf)
{
	const char *b64 = lines[i] + BT_TEXT_PREFIX_LEN;
	size_t n = strcspn(b64, "\n");
	long len = bt_base64_decode(b64, n, buf, BT_FRAME_MAX);
	assert_true(len > 0);
	struct bt_frame f;
	const char *why = NULL;
	assert_int_equal(bt_frame_parse(buf, (size_t)len, &f, &why), 0);
	return f;
}

/* The last line is the session's END: it must count `records` and carry `digest`. */
static void end_says(uint64_t want_records, uint32_t want_digest)
{
	uint8_t buf[BT_FRAME_MAX];
	struct bt_frame f = parse_line(nlines - 1, buf);
	uint64_t records, lost;
	uint32_t digest, session;
	char why[8];
	assert_int_equal(bt_read_end(&f, &session, &records, &lost, &digest, why, sizeof(why)), 0);
	assert_int_equal(records, want_records);
	assert_int_equal(digest, want_digest);
}

/* A frame reader of lib/stream.h (bt_read_bts, bt_read_lbr, ...) with its record sink bound. */
typedef long (*frame_reader)(const struct bt_frame *f, uint32_t *session, void *ctx);

/* Every line between the session's BEGIN (line 0) and END (the last) is a frame of `type`,
 * numbered on from BEGIN's, of the session that BEGIN numbers `session`, with records. */
static void read_records(uint8_t type, uint32_t session, frame_reader read, void *ctx)
{
	uint8_t buf[BT_FRAME_MAX];
	for (unsigned i = 1; i + 1 < nlines; i++) {
		struct bt_frame f = parse_line(i, buf);
		uint32_t of;
		assert_int_equal(f.type, type);
		assert_int_equal(f.seq, session + i);
		assert_true(read(&f, &of, ctx) > 0);
		assert_int_equal(of, session); /* its BEGIN's frame number */
	}
}

/* v as `bytes` little-endian bytes, as the digests pack their fields. */
static void put_le(uint8_t *to, uint64_t v, unsigned bytes)
{
	for (unsigned k = 0; k < bytes; k++)
		to[k] = (uint8_t)(v >> (8 * k));
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void records_come_back_bit_for_bit(void **state)
{
	(void)state;
	static struct bt_bts sent[6000];
	static struct got got;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned n = 0;
	/* the extremes, then kernel-like branches, then anything at all */
	const struct bt_bts edge[] = {
	    {0, 0, 0, false},
	    {UINT64_MAX, 0, UINT64_MAX, true},
	    {0, UINT64_MAX, 0x10, false},
	    {0x8000000000000000ull, 0x7fffffffffffffffull, 0x10, false},
	    {0xffffffff80001000ull, 0xffffffff80000ff0ull, 0x10, true},
	};
	for (unsigned i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		sent[n++] = edge[i];
	uint64_t pc = 0xffffffff80002000ull;
	while (n < 3000) {
		uint64_t from = pc + rnd(&seed) % 40, to = from + (rnd(&seed) % 512) - 256;
		sent[n++] =
		    (struct bt_bts){from, to, rnd(&seed) % 16 ? 0x10 : 0, rnd(&seed) % 50 == 0};
		pc = to;
	}
	while (n < 6000)
		sent[n++] = (struct bt_bts){rnd(&seed), rnd(&seed),
					    rnd(&seed) % 3 ? 0x10 : rnd(&seed), rnd(&seed) & 1};
	nlines = 0;
	struct bt_writer w;
	bt_writer_init(&w, 3, 77, emit, NULL);
	bt_write_begin(&w, "bts", "loop@skylake cpu=3");
	for (unsigned i = 0; i < n; i++)
		bt_write_bts(&w, &sent[i]);
	bt_write_end(&w, 2, "store full");
	assert_true(nlines >= 3);

	uint8_t buf[BT_FRAME_MAX];
	char fac[BT_NAME_MAX], ses[BT_NAME_MAX];
	struct bt_frame f = parse_line(0, buf);
	assert_int_equal(f.type, BT_F_BEGIN);
	assert_int_equal(f.cpu, 3);
	assert_int_equal(f.seq, 77);
	assert_int_equal(bt_read_begin(&f, fac, ses), 0);
	assert_string_equal(fac, "bts");
	assert_string_equal(ses, "loop@skylake cpu=3");
	got.n = 0;
	read_records(BT_F_BTS, 77, read_bts, &got);
	assert_int_equal(got.n, n);
	uint32_t z = 0;
	for (unsigned i = 0; i < n; i++) {
		assert_true(got.r[i].from == sent[i].from && got.r[i].to == sent[i].to &&
			    got.r[i].flags == sent[i].flags && got.r[i].leak == sent[i].leak);
		uint8_t raw[24];
		put_le(raw, sent[i].from, 8);
		put_le(raw + 8, sent[i].to, 8);
		put_le(raw + 16, sent[i].flags, 8);
		z = crc32_update(z, raw, sizeof(raw)); /* lib/crc32.c: zlib's, test_crc32 */
	}
	f = parse_line(nlines - 1, buf);
	uint64_t records, lost;
	uint32_t digest;
	char why[64];
	uint32_t end_session;
	assert_int_equal(bt_read_end(&f, &end_session, &records, &lost, &digest, why, sizeof(why)),
			 0);
	assert_int_equal(end_session, 77);
	assert_int_equal(records, n);
	assert_int_equal(lost, 2);
	assert_string_equal(why, "store full");
	assert_int_equal(digest, z); /* the CRC-32 of the raw records, packed here */
}

struct got_lbr {
	struct bt_lbr e[4096];
	unsigned n;
};

static void take_lbr(void *ctx, const struct bt_lbr *e)
{
	struct got_lbr *g = ctx;
	assert_true(g->n < 4096);
	g->e[g->n++] = *e;
}

static long read_lbr(const struct bt_frame *f, uint32_t *session, void *ctx)
{
	return bt_read_lbr(f, session, take_lbr, ctx);
}

/* LBR entries of every shape (indexes with gaps, cycles valid or not and 0, mispredict valid
 * or not, TSX flags, Arch LBR branch types or none, 64-bit extremes, a sample's first entry
 * with its IP and TSC, TSCs rising, falling and at the extremes) come back field for field,
 * and END's digest is the CRC-32 of the fields as bt_digest_lbr's comment lays them out. */
static void lbr_entries_come_back(void **state)
{
	(void)state;
	static struct bt_lbr sent[3000];
	static struct got_lbr got;
	uint64_t seed = 99;
	for (unsigned i = 0; i < 3000; i++) {
		uint64_t r = rnd(&seed);
		sent[i] = (struct bt_lbr){
		    .index = (uint32_t)(i % 7 == 3 ? i + 1000 : i % 32),
		    .from = i % 97 == 0 ? UINT64_MAX : 0xffffffff80002000ull + rnd(&seed) % 4096,
		    .to = i % 89 == 0 ? 0 : 0xffffffff80002000ull + rnd(&seed) % 4096,
		    .cycles_valid = r & 1,
		    .cycles = (r >> 1) & 1 ? (uint32_t)(rnd(&seed) % 70000) : 0,
		    .mispred_valid = (r >> 2) & 1,
		    .mispred = (r >> 3) & 1,
		    .in_tx = (r >> 4) & 1,
		    .abort = (r >> 5) & 1,
		    .br_type = (r >> 6) & 1 ? (int)(rnd(&seed) % 16) : -1,
		    .sample = (r >> 7) & 1,
		};
		if (sent[i].sample) {
			sent[i].ip = i % 5 == 0 ? rnd(&seed) : sent[i].to + rnd(&seed) % 64;
			sent[i].tsc = i % 11 == 0 ? UINT64_MAX : i % 13 == 0 ? 0 : rnd(&seed);
		}
	}
	nlines = 0;
	struct bt_writer w;
	bt_writer_init(&w, 0, 5, emit, NULL);
	bt_write_begin(&w, "lbr", "calls@arrowlake cpu=0");
	for (unsigned i = 0; i < 3000; i++)
		bt_write_lbr(&w, &sent[i]);
	bt_write_end(&w, 0, "");
	got.n = 0;
	read_records(BT_F_LBR, 5, read_lbr, &got);
	assert_int_equal(got.n, 3000);
	uint32_t z = 0;
	for (unsigned i = 0; i < 3000; i++) {
		const struct bt_lbr *a = &sent[i], *b = &got.e[i];
		assert_true(a->index == b->index && a->from == b->from && a->to == b->to &&
			    a->cycles == b->cycles && a->cycles_valid == b->cycles_valid &&
			    a->mispred_valid == b->mispred_valid && a->mispred == b->mispred &&
			    a->in_tx == b->in_tx && a->abort == b->abort &&
			    a->br_type == b->br_type && a->sample == b->sample);
		if (a->sample)
			assert_true(a->ip == b->ip && a->tsc == b->tsc);
		uint8_t raw[29];
		put_le(raw, a->index, 4);
		put_le(raw + 4, a->from, 8);
		put_le(raw + 12, a->to, 8);
		put_le(raw + 20, a->cycles, 4);
		put_le(raw + 25, (uint32_t)a->br_type, 4);
		raw[24] = (uint8_t)((a->cycles ? 0x01 : 0) | (a->mispred_valid ? 0x02 : 0) |
				    (a->mispred ? 0x04 : 0) | (a->in_tx ? 0x08 : 0) |
				    (a->abort ? 0x10 : 0) | (a->br_type >= 0 ? 0x20 : 0) |
				    (a->cycles_valid ? 0x40 : 0) | (a->sample ? 0x80 : 0));
		z = crc32_update(z, raw, sizeof(raw));
		if (a->sample) {
			uint8_t at[16];
			put_le(at, a->ip, 8);
			put_le(at + 8, a->tsc, 8);
			z = crc32_update(z, at, sizeof(at));
		}
	}
	end_says(3000, z);
}

struct got_pebs {
	struct bt_pebs p[2048];
	unsigned n;
};

static void take_pebs(void *ctx, const struct bt_pebs *p)
{
	struct got_pebs *g = ctx;
	assert_true(g->n < 2048);
	g->p[g->n++] = *p;
}

static long read_pebs(const struct bt_frame *f, uint32_t *session, void *ctx)
{
	return bt_read_pebs(f, session, take_pebs, ctx);
}

/* PEBS samples of every shape (IPs both ways and at the 64-bit extremes, applicable counters
 * and sizes changing or not, the LBR and memory-info groups there or not, each IP semantics)
 * come back field for field, and END's digest is the CRC-32 of the fields as
 * bt_digest_pebs's comment lays them out, packed here. */
static void pebs_samples_come_back(void **state)
{
	(void)state;
	static struct bt_pebs sent[2000];
	static struct got_pebs got;
	uint64_t seed = 7;
	for (unsigned i = 0; i < 2000; i++) {
		uint64_t r = rnd(&seed);
		struct bt_pebs *p = &sent[i];
		*p = (struct bt_pebs){
		    .ev = i % 101 == 0 ? UINT64_MAX : 0xffffffff80002000ull + rnd(&seed) % 8192,
		    .next = i % 103 == 0 ? 0 : 0xffffffff80002000ull + rnd(&seed) % 8192,
		    .status = r & 1 ? 1 : rnd(&seed),
		    .size = (r >> 1) & 1 ? 176 : (uint32_t)(rnd(&seed) % 4096),
		    .ip = (uint8_t)((r >> 2) % 3),
		    .has_lbr = (r >> 4) & 1,
		    .has_mem = (r >> 5) & 1,
		};
		if (p->has_lbr) {
			p->lbr_from = rnd(&seed);
			p->lbr_to = i % 7 ? p->lbr_from + 12 : 0;
		}
		if (p->has_mem) {
			p->dla = i % 11 ? 0x7f0000001000ull + rnd(&seed) % 65536 : UINT64_MAX;
			p->dse = rnd(&seed) % 256;
			p->lat = rnd(&seed);
		}
	}
	nlines = 0;
	struct bt_writer w;
	bt_writer_init(&w, 0, 9, emit, NULL);
	bt_write_begin(&w, "pebs", "sort@icelake cpu=0");
	for (unsigned i = 0; i < 2000; i++)
		bt_write_pebs(&w, &sent[i]);
	bt_write_end(&w, 0, "");
	got.n = 0;
	read_records(BT_F_PEBS, 9, read_pebs, &got);
	assert_int_equal(got.n, 2000);
	uint32_t z = 0;
	for (unsigned i = 0; i < 2000; i++) {
		const struct bt_pebs *a = &sent[i], *b = &got.p[i];
		assert_true(a->ev == b->ev && a->next == b->next && a->status == b->status &&
			    a->size == b->size && a->ip == b->ip && a->has_lbr == b->has_lbr &&
			    a->has_mem == b->has_mem && a->lbr_from == b->lbr_from &&
			    a->lbr_to == b->lbr_to && a->dla == b->dla && a->dse == b->dse &&
			    a->lat == b->lat);
		uint8_t raw[69];
		put_le(raw, a->ev, 8);
		put_le(raw + 8, a->next, 8);
		put_le(raw + 16, a->status, 8);
		put_le(raw + 24, a->size, 4);
		raw[28] = (uint8_t)((a->has_lbr ? 0x04 : 0) | (a->has_mem ? 0x08 : 0) | a->ip << 4);
		put_le(raw + 29, a->lbr_from, 8);
		put_le(raw + 37, a->lbr_to, 8);
		put_le(raw + 45, a->dla, 8);
		put_le(raw + 53, a->dse, 8);
		put_le(raw + 61, a->lat, 8);
		z = crc32_update(z, raw, sizeof(raw));
	}
	end_says(2000, z);
	assert_string_equal(bt_pebs_ip_name(BT_PEBS_TRAP), "trap");
}

struct got_sample {
	struct bt_sample x[2048];
	unsigned n;
};

static void take_sample(void *ctx, const struct bt_sample *x)
{
	struct got_sample *g = ctx;
	assert_true(g->n < 2048);
	g->x[g->n++] = *x;
}

static long read_sample(const struct bt_frame *f, uint32_t *session, void *ctx)
{
	return bt_read_sample(f, session, take_sample, ctx);
}

/* IP samples (counter samples with or without their LBR entry and TSC, BTF trap targets) at
 * the 64-bit extremes, TSCs rising, falling and at the extremes, come back field for field,
 * END's digest packed here. */
static void ip_samples_come_back(void **state)
{
	(void)state;
	static struct bt_sample sent[1500];
	static struct got_sample got;
	uint64_t seed = 3;
	for (unsigned i = 0; i < 1500; i++) {
		uint64_t r = rnd(&seed);
		sent[i] = (struct bt_sample){
		    .ip = i % 61 == 0 ? UINT64_MAX : 0xffffffff80002000ull + r % 65536,
		    .has_lbr = (r >> 20) & 1,
		};
		if (sent[i].has_lbr) {
			sent[i].lbr_from = i % 5 ? rnd(&seed) : 0;
			sent[i].lbr_to = rnd(&seed);
		}
		sent[i].has_tsc = (r >> 21) & 1;
		if (sent[i].has_tsc)
			sent[i].tsc = i % 7 == 0 ? UINT64_MAX : i % 11 == 0 ? 0 : rnd(&seed);
	}
	nlines = 0;
	struct bt_writer w;
	bt_writer_init(&w, 1, 2, emit, NULL);
	bt_write_begin(&w, "pmc", "calls@skylake cpu=1");
	for (unsigned i = 0; i < 1500; i++)
		bt_write_sample(&w, &sent[i]);
	bt_write_end(&w, 0, "");
	got.n = 0;
	read_records(BT_F_SAMPLE, 2, read_sample, &got);
	assert_int_equal(got.n, 1500);
	uint32_t z = 0;
	for (unsigned i = 0; i < 1500; i++) {
		const struct bt_sample *a = &sent[i], *b = &got.x[i];
		assert_true(a->ip == b->ip && a->has_lbr == b->has_lbr &&
			    a->lbr_from == b->lbr_from && a->lbr_to == b->lbr_to &&
			    a->has_tsc == b->has_tsc && a->tsc == b->tsc);
		uint8_t raw[25];
		put_le(raw, a->ip, 8);
		raw[8] = (uint8_t)((a->has_lbr ? 0x01 : 0) | (a->has_tsc ? 0x02 : 0));
		put_le(raw + 9, a->lbr_from, 8);
		put_le(raw + 17, a->lbr_to, 8);
		z = crc32_update(z, raw, sizeof(raw));
		if (a->has_tsc) {
			uint8_t at[8];
			put_le(at, a->tsc, 8);
			z = crc32_update(z, at, sizeof(at));
		}
	}
	end_says(1500, z);
}

static void collect_pair(void *ctx, const char *pair)
{
	char *all = ctx;
	strcat(all, pair);
	strcat(all, ";");
}

/* HEADER: its strings come back in order; what does not fit in a frame is left out, counted. */
static void header_strings(void **state)
{
	(void)state;
	nlines = 0;
	struct bt_writer w;
	bt_writer_init(&w, 0, 0, emit, NULL);
	static char big[400];
	memset(big, 'x', sizeof(big) - 1);
	const char *const pairs[] = {"baretrace=0.1.0", "cpu=GenuineIntel 06_5EH", big, big,
				     "cpus=2"};
	assert_int_equal(bt_write_header(&w, pairs, 5), 4); /* the second big one did not fit */
	assert_int_equal(nlines, 1);
	uint8_t buf[BT_FRAME_MAX];
	struct bt_frame f = parse_line(0, buf);
	assert_int_equal(f.type, BT_F_HEADER);
	assert_int_equal(f.seq, 0);
	static char all[1024];
	all[0] = 0;
	assert_int_equal(bt_read_header(&f, collect_pair, all), 4);
	char want[1024];
	snprintf(want, sizeof(want), "baretrace=0.1.0;cpu=GenuineIntel 06_5EH;%s;cpus=2;", big);
	assert_string_equal(all, want);
}

/* Each frame decodes on its own: the records of frame k are the same whether or not the frames
 * before it arrived. */
static void frames_stand_alone(void **state)
{
	(void)state;
	static struct got all, one;
	nlines = 0;
	struct bt_writer w;
	bt_writer_init(&w, 0, 0, emit, NULL);
	bt_write_begin(&w, "bts", "s");
	uint64_t pc = 0x1000;
	for (unsigned i = 0; i < 500; i++, pc += 7)
		bt_write_bts(&w, &(struct bt_bts){pc, pc + 100, 0x10, false});
	bt_write_end(&w, 0, "");
	uint8_t buf[BT_FRAME_MAX];
	all.n = 0;
	for (unsigned i = 1; i + 1 < nlines; i++) {
		struct bt_frame f = parse_line(i, buf);
		uint32_t session;
		bt_read_bts(&f, &session, take, &all);
	}
	assert_true(nlines > 4);
	unsigned k = nlines / 2, before = 0;
	for (unsigned i = 1; i < k; i++) {
		struct bt_frame f = parse_line(i, buf);
		one.n = 0;
		uint32_t session;
		before += (unsigned)bt_read_bts(&f, &session, take, &one);
	}
	struct bt_frame f = parse_line(k, buf);
	one.n = 0;
	uint32_t session;
	long got = bt_read_bts(&f, &session, take, &one);
	assert_true(got > 0);
	assert_memory_equal(one.r, all.r + before, (size_t)got * sizeof(one.r[0]));
}

/* Seeded damage: bytes flipped, dropped and duplicated. A line that is still what was written
 * decodes to its records; any other line is refused by base64 or the frame's checks. */
static void damaged_captures_never_invent_records(void **state)
{
	(void)state;
	static char good[LINES_MAX][LINE_LEN];
	uint64_t seed = 12345;
	nlines = 0;
	struct bt_writer w;
	bt_writer_init(&w, 1, 0, emit, NULL);
	bt_write_begin(&w, "btsint", "calls@icelake cpu=1");
	for (unsigned i = 0; i < 2000; i++)
		bt_write_bts(&w, &(struct bt_bts){0xffffffff80001000ull + rnd(&seed) % 4096,
						  0xffffffff80001000ull + rnd(&seed) % 4096, 0x10,
						  false});
	bt_write_end(&w, 0, "");
	unsigned total = nlines;
	memcpy(good, lines, sizeof(good[0]) * total);
	unsigned refused = 0, intact = 0;
	for (unsigned round = 0; round < 200; round++) {
		for (unsigned i = 0; i < total; i++) {
			char *l = lines[i];
			strcpy(l, good[i]);
			size_t len = strlen(l);
			unsigned what = (unsigned)(rnd(&seed) % 8);
			size_t at = (size_t)(rnd(&seed) % len);
			if (what == 0)
				l[at] ^= (char)(1u << (rnd(&seed) % 7)); /* a flipped bit */
			else if (what == 1)
				memmove(l + at, l + at + 1, len - at); /* a dropped byte */
			else if (what == 2 && len + 1 < LINE_LEN) {
				memmove(l + at + 1, l + at, len - at + 1); /* a duplicated byte */
			}
			uint8_t buf[BT_FRAME_MAX];
			const char *b64 = l + BT_TEXT_PREFIX_LEN;
			bool prefix_ok = strncmp(l, BT_TEXT_PREFIX, BT_TEXT_PREFIX_LEN) == 0;
			long n = prefix_ok
				     ? bt_base64_decode(b64, strcspn(b64, "\n"), buf, sizeof(buf))
				     : -1;
			struct bt_frame f;
			const char *why;
			bool ok = n >= 0 && bt_frame_parse(buf, (size_t)n, &f, &why) == 0;
			/* Intact: the line up to its first newline is what was written (a newline
			 * duplicated at the end leaves the frame whole). */
			size_t keep = strcspn(good[i], "\n");
			if (strncmp(l, good[i], keep) == 0 && strcspn(l, "\n") == keep) {
				assert_true(ok);
				intact++;
			} else {
				assert_false(ok);
				refused++;
			}
		}
	}
	assert_true(refused > 0 && intact > 0);
}

/* A program's output (BT_F_OUTPUT): pieces of every length from 0 to several frames, every byte
 * value, both descriptors, come back whole, each frame saying where its bytes belong; END
 * neither counts nor digests them. */
static void output_comes_back(void **state)
{
	(void)state;
	static uint8_t bytes[3 * BT_PAYLOAD_MAX + 7], got[2][8 * 4096];
	uint64_t want_len[2] = {0, 0};
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 7 + i / 256);
	struct bt_writer w;
	nlines = 0;
	bt_writer_init(&w, 1, 0, emit, NULL);
	bt_write_begin(&w, "bts", "out");
	static const size_t lens[] = {0, 1, 255, BT_PAYLOAD_MAX - 3, BT_PAYLOAD_MAX, sizeof(bytes)};
	for (unsigned k = 0; k < 2 * 6; k++) {
		unsigned fd = k & 1 ? BT_OUTPUT_STDERR : BT_OUTPUT_STDOUT;
		size_t len = lens[k / 2];
		struct bt_output o = {(uint8_t)fd, want_len[k & 1], 1000 + k, bytes, len};
		bt_write_output(&w, &o);
		memcpy(got[k & 1] + want_len[k & 1], bytes, len); /* what each stream must hold */
		want_len[k & 1] += len;
	}
	bt_write_end(&w, 0, "");
	end_says(0, 0);
	static uint8_t back[2][8 * 4096];
	uint64_t back_len[2] = {0, 0};
	for (unsigned i = 1; i + 1 < nlines; i++) {
		uint8_t buf[BT_FRAME_MAX];
		struct bt_frame f = parse_line(i, buf);
		struct bt_output o;
		uint32_t session;
		assert_int_equal(bt_read_output(&f, &session, &o), 0);
		assert_int_equal(session, 0);
		unsigned s = o.fd == BT_OUTPUT_STDERR;
		assert_int_equal(o.offset, back_len[s]); /* in order, no gap */
		assert_true(o.tsc >= 1000 && o.tsc < 1012);
		memcpy(back[s] + back_len[s], o.bytes, o.len);
		back_len[s] += o.len;
	}
	for (unsigned s = 0; s < 2; s++) {
		assert_int_equal(back_len[s], want_len[s]);
		assert_memory_equal(back[s], got[s], want_len[s]);
	}
	/* a descriptor other than 1 and 2 is refused */
	uint8_t buf[BT_FRAME_MAX];
	struct bt_frame f = parse_line(2, buf);
	buf[(f.payload - buf) + 1] = 3; /* after the session number */
	struct bt_output o;
	uint32_t session;
	assert_int_equal(bt_read_output(&f, &session, &o), -1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(rfc4648_vectors),
    cmocka_unit_test(records_come_back_bit_for_bit),
    cmocka_unit_test(frames_stand_alone),
    cmocka_unit_test(header_strings),
    cmocka_unit_test(lbr_entries_come_back),
    cmocka_unit_test(pebs_samples_come_back),
    cmocka_unit_test(ip_samples_come_back),
    cmocka_unit_test(damaged_captures_never_invent_records),
    cmocka_unit_test(output_comes_back),
};

UNIT_MAIN(tests)
