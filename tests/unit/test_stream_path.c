/* SPDX-License-Identifier: MIT */
// UNIT-SOURCES: lib/stream.c lib/stream_path.c lib/crc32.c lib/string.c
// UNIT-SOURCES: lib/x86_decode.c lib/x86_decode_tables.c
/*
 * BTS records along the code (lib/stream_path.h, PATH frames): hand-assembled code (bytes from
 * the SDM's opcode tables, Vol. 2 appendix A) whose records come back bit for bit: a loop whose
 * JNZ costs two bits a record as the format defines, a not-taken Jcc, a Jcc to the very next
 * instruction, direct and indirect calls, returns predicted by the return stack, an interrupt,
 * a leak note and a flags change (escapes), code the writer does not know (escapes); a reader
 * without the code says where it needed it; and 300 seeded random programs run by a small
 * simulator (conditional branches taken at random, calls, returns, indirect branches to random
 * places, interrupts anywhere), every record of every run rebuilt with the END digest matching.
 */
#include "tests/unit/unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/stream.h"
#include "lib/x86_decode.h"

#define BASE	 0x401000ull
#define CODE_MAX 4096
#define MAX_REC	 20000

static uint8_t code[CODE_MAX];
static size_t code_len;

static size_t code_fn(void *ctx, uint64_t addr, uint8_t *buf)
{
	(void)ctx;
	return bt_code_copy(addr, BASE, code, code_len, buf);
}

static size_t no_code(void *ctx, uint64_t addr, uint8_t *buf)
{
	(void)ctx, (void)addr, (void)buf;
	return 0;
}

/* The frames a writer makes, kept whole. */
static uint8_t frames[1024][BT_FRAME_MAX];
static size_t frame_len[1024];
static unsigned nframes;

static void keep(void *ctx, const uint8_t *f, size_t len)
{
	(void)ctx;
	assert_true(nframes < 1024);
	memcpy(frames[nframes], f, len);
	frame_len[nframes++] = len;
}

struct got {
	struct bt_bts r[MAX_REC];
	unsigned n;
};
static struct got got;

static void take(void *ctx, const struct bt_bts *r)
{
	struct got *g = ctx;
	assert_true(g->n < MAX_REC);
	g->r[g->n++] = *r;
}

/* Writes recs as one session with the code known, reads every frame back with the code:
 * the records must come back in order, bit for bit. Returns the PATH frames' payload bytes. */
static size_t round_trip(const struct bt_bts *recs, unsigned n)
{
	static struct bt_writer w;
	nframes = 0;
	bt_writer_init(&w, 0, 0, keep, NULL);
	bt_writer_set_code(&w, code_fn, NULL);
	bt_write_begin(&w, "bts", "t");
	for (unsigned i = 0; i < n; i++)
		bt_write_bts(&w, &recs[i]);
	bt_write_end(&w, 0, "");
	got.n = 0;
	size_t bytes = 0;
	uint32_t digest = 0, want_digest = 0;
	for (unsigned i = 0; i < nframes; i++) {
		struct bt_frame f;
		const char *why;
		assert_int_equal(bt_frame_parse(frames[i], frame_len[i], &f, &why), 0);
		uint32_t session;
		if (f.type == BT_F_PATH) {
			uint64_t missing = 0;
			unsigned before = got.n;
			long k = bt_read_path(&f, &session, code_fn, NULL, take, &got, &missing);
			assert_int_equal(k, (long)(got.n - before));
			bytes += f.len;
		} else if (f.type == BT_F_END) {
			uint64_t records, lost;
			char why_text[8];
			assert_int_equal(bt_read_end(&f, &session, &records, &lost, &want_digest,
						     why_text, sizeof(why_text)),
					 0);
			assert_int_equal(records, n);
		} else {
			assert_int_equal(f.type, BT_F_BEGIN);
		}
	}
	assert_int_equal(got.n, n);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(got.r[i].from, recs[i].from);
		assert_int_equal(got.r[i].to, recs[i].to);
		assert_int_equal(got.r[i].flags, recs[i].flags);
		assert_int_equal(got.r[i].leak, recs[i].leak);
		digest = bt_digest(digest, &got.r[i]);
	}
	assert_int_equal(digest, want_digest);
	return bytes;
}

static void put_code(const uint8_t *bytes, size_t n)
{
	memset(code, 0x90, sizeof(code)); /* NOP (90) */
	memcpy(code, bytes, n);
	code_len = n;
}

/* DEC ECX (FF /1: FF C9); JNZ rel8 (75) back to it: 100 taken JNZs. The format: the first
 * record of a frame is an escape (at most 3 + 3 x 80 bits), each of the others 2 bits (0 for a
 * path record, 1 for "taken here"). */
static void loop_costs_two_bits_a_record(void **state)
{
	(void)state;
	static const uint8_t loop[] = {0xff, 0xc9, 0x75, 0xfc, 0xc3};
	put_code(loop, sizeof(loop));
	static struct bt_bts r[3000];
	for (unsigned i = 0; i < 3000; i++)
		r[i] = (struct bt_bts){.from = BASE + 2, .to = BASE, .flags = 0x10};
	size_t bytes = round_trip(r, 100);
	size_t want_max = 1 + 2 + (3 + 3 * 80 + 99 * 2 + 7) / 8; /* session, count, bits */
	assert_true(bytes <= want_max);
	assert_true(bytes >= 1 + 2 + (99 * 2) / 8);
	/* 3000 of them: about 1900 in a frame (478 bytes of bits), far more than 480 records */
	round_trip(r, 3000);
	assert_int_equal(nframes, 4); /* BEGIN, two PATH frames, END */
	/* the payload: the TSC (format version 2; 0 here: one byte), the session, the count */
	uint16_t first =
	    (uint16_t)(frames[1][BT_HEADER_LEN + 2] | frames[1][BT_HEADER_LEN + 3] << 8);
	assert_true(first > 1800 && first < 1920);
}

/*
 *   401010: 74 02            JZ  +2     (not taken)
 *   401012: 75 00            JNZ +0     taken: to the next instruction, 401014
 *   401014: e8 07 00 00 00   CALL 401020
 *   401019: ff d0            CALL *%rax (to 401020)
 *   40101b: eb fe            JMP  .     (interrupted before it runs)
 *   401020: c3               RET
 */
static void each_kind_comes_back(void **state)
{
	(void)state;
	static uint8_t c[0x21];
	memset(c, 0x90, sizeof(c));
	static const uint8_t at10[] = {0x74, 0x02, 0x75, 0x00, 0xe8, 0x07, 0x00,
				       0x00, 0x00, 0xff, 0xd0, 0xeb, 0xfe};
	memcpy(c + 0x10, at10, sizeof(at10));
	c[0x20] = 0xc3;
	put_code(c, sizeof(c));
	const struct bt_bts r[] = {
	    {.from = 0x400ff0, .to = BASE + 0x10, .flags = 0x10},    /* from unknown code */
	    {.from = BASE + 0x12, .to = BASE + 0x14, .flags = 0x10}, /* JNZ to next */
	    {.from = BASE + 0x14, .to = BASE + 0x20, .flags = 0x10}, /* CALL */
	    {.from = BASE + 0x20, .to = BASE + 0x19, .flags = 0x10}, /* RET, predicted */
	    {.from = BASE + 0x19, .to = BASE + 0x20, .flags = 0x10}, /* CALL *%rax */
	    {.from = BASE + 0x20, .to = BASE + 0x1b, .flags = 0x10}, /* RET */
	    {.from = BASE + 0x1b, .to = 0xffffffff80001000ull, .flags = 0x10}, /* interrupt */
	    {.from = 0xffffffff80001234ull, .to = BASE + 0x1b, .flags = 0x10, .leak = true},
	    {.from = BASE + 0x10, .to = BASE + 0x14, .flags = 0}, /* flags change */
	    {.from = BASE + 0x20, .to = BASE + 0x10, .flags = 0}, /* RET, not predicted */
	    {.from = BASE + 0x19, .to = BASE + 0x20, .flags = 0}, /* not on the path */
	};
	round_trip(r, sizeof(r) / sizeof(r[0]));
	/* a reader without the code: the second record's walk needs 401010 */
	struct bt_frame f;
	const char *why;
	unsigned i = 0;
	while (frames[i][BT_H_TYPE] != BT_F_PATH)
		i++;
	assert_int_equal(bt_frame_parse(frames[i], frame_len[i], &f, &why), 0);
	uint32_t session;
	uint64_t missing = 0;
	got.n = 0;
	assert_int_equal(bt_read_path(&f, &session, no_code, NULL, take, &got, &missing),
			 BT_PATH_NO_CODE);
	assert_int_equal(missing, BASE + 0x10);
	assert_int_equal(got.n, 1);
}

/* ---- random programs, run by a simulator ---------------------------------------------------- */

static uint64_t rng = 0x2545f4914f6cdd1dull;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static size_t starts[CODE_MAX];
static unsigned nstarts;

/* A program of instructions from a small menu (SDM Vol. 2 appendix A), their starts kept. */
static void random_program(void)
{
	size_t n = 0;
	nstarts = 0;
	memset(code, 0x90, sizeof(code));
	while (n + 16 < 1024) {
		starts[nstarts++] = n;
		switch (rnd(10)) {
		case 0: /* Jcc rel8, any condition, near */
			code[n++] = (uint8_t)(0x70 + rnd(16));
			code[n++] = (uint8_t)(rnd(64) - 32);
			break;
		case 1: /* JMP rel8 forward */
			code[n++] = 0xeb;
			code[n++] = (uint8_t)rnd(40);
			break;
		case 2: { /* CALL rel32 to somewhere in the first 1000 bytes */
			int32_t rel = (int32_t)rnd(1000) - (int32_t)(n + 5);
			code[n++] = 0xe8;
			memcpy(code + n, &rel, 4);
			n += 4;
			break;
		}
		case 3: /* RET */
			code[n++] = 0xc3;
			break;
		case 4: /* CALL *%rax, JMP *%rax */
			code[n++] = 0xff;
			code[n++] = rnd(2) ? 0xd0 : 0xe0;
			break;
		case 5: /* REP MOVSB */
			code[n++] = 0xf3;
			code[n++] = 0xa4;
			break;
		case 6: { /* Jcc rel32 */
			int32_t rel = (int32_t)rnd(128) - 64;
			code[n++] = 0x0f;
			code[n++] = (uint8_t)(0x80 + rnd(16));
			memcpy(code + n, &rel, 4);
			n += 4;
			break;
		}
		case 7: /* LOOP rel8 */
			code[n++] = 0xe2;
			code[n++] = (uint8_t)(rnd(32) - 16);
			break;
		default: /* ADD RAX, imm32 (REX.W 05 id), NOP */
			if (rnd(2)) {
				code[n++] = 0x48;
				code[n++] = 0x05;
				n += 4;
			} else {
				code[n++] = 0x90;
			}
		}
	}
	code_len = n;
}

/* Runs the program from a random start for up to max records: the records a BTS would write
 * (every taken branch; an interrupt now and then: FROM the instruction it arrived at). */
static unsigned simulate(struct bt_bts *out, unsigned max)
{
	uint64_t ip = BASE + starts[rnd(nstarts)], stack[64];
	unsigned sp = 0, n = 0;
	uint64_t flags = 0x10;
	for (unsigned steps = 0; n < max && steps < 100000; steps++) {
		struct x86_insn in;
		uint8_t buf[X86_MAX_INSN_LENGTH];
		size_t got_bytes = code_fn(NULL, ip, buf);
		bool ok = got_bytes && x86_decode(buf, got_bytes, &in) == 0;
		uint64_t to = 0;
		bool taken = false, event = !ok || rnd(50) == 0;
		if (rnd(200) == 0)
			flags ^= 0x10; /* a personality without the predicted flag, say */
		if (event) {
			to = BASE + starts[rnd(nstarts)];
			taken = true;
		} else if (x86_branch_conditional(in.branch)) {
			taken = rnd(2);
			to = x86_branch_target(&in, ip);
		} else if (in.branch == X86_BR_JMP_REL || in.branch == X86_BR_CALL_REL) {
			taken = true;
			to = x86_branch_target(&in, ip);
		} else if (in.branch == X86_BR_RET) {
			taken = true;
			to = sp ? stack[--sp] : BASE + starts[rnd(nstarts)];
		} else if (in.branch != X86_BR_NONE) {
			taken = true;
			to = BASE + starts[rnd(nstarts)];
		}
		if (!taken) {
			ip += in.length;
			continue;
		}
		if (!event && (in.branch == X86_BR_CALL_REL || in.branch == X86_BR_CALL_IND) &&
		    sp < 64)
			stack[sp++] = ip + in.length;
		out[n++] =
		    (struct bt_bts){.from = ip, .to = to, .flags = flags, .leak = rnd(500) == 0};
		ip = to;
	}
	return n;
}

static void random_programs_come_back(void **state)
{
	(void)state;
	static struct bt_bts r[5000];
	static struct bt_insn_cache cache;
	size_t bytes = 0, records = 0;
	for (unsigned round = 0; round < 300; round++) {
		/* a reader's cache of decoded instructions (btdecode's) in every other round:
		 * emptied with each new program */
		memset(&cache, 0, sizeof(cache));
		bt_read_path_cache(round & 1 ? &cache : NULL);
		random_program();
		unsigned n = simulate(r, 1 + rnd(5000));
		bytes += round_trip(r, n);
		records += n;
	}
	bt_read_path_cache(NULL);
	/* most records are path records: far below a raw record's 24 bytes */
	assert_true(bytes * 4 < records * 24);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(loop_costs_two_bits_a_record),
    cmocka_unit_test(each_kind_comes_back),
    cmocka_unit_test(random_programs_come_back),
};

UNIT_MAIN(tests)
