// UNIT-SOURCES: arch/x86/model/bts.c
/*
 * The software PMU's BTS against SDM Vol. 3B Table 17-6 (CPL-qualified BTS encodings),
 * transcribed row by row, and against the buffer rules of 17.4.9 / 17.4.9.3.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "arch/x86/model/bts.h"

/* One row of Table 17-6: TR, BTS, BTS_OFF_OS, BTS_OFF_USR, BTINT (-1 = X, don't care), and
 * what happens at CPL 0 and at CPL > 0. */
struct row {
	int tr, bts, off_os, off_usr, btint;
	enum bts_disposition cpl0, cpl3;
	const char *sdm_text;
};

static const struct row table_17_6[] = {
    {0, -1, -1, -1, -1, BTS_NO_BTM, BTS_NO_BTM, "Branch trace messages (BTMs) off"},
    {1, 0, -1, -1, -1, BTS_BTM_NOT_STORED, BTS_BTM_NOT_STORED,
     "Generates BTMs but do not store BTMs"},
    {1, 1, 0, 0, 0, BTS_STORED, BTS_STORED, "Store all BTMs ... circular buffer"},
    {1, 1, 1, 0, 0, BTS_BTM_NOT_STORED, BTS_STORED, "Store BTMs with CPL > 0"},
    {1, 1, 0, 1, 0, BTS_STORED, BTS_BTM_NOT_STORED, "Store BTMs with CPL = 0"},
    {1, 1, 1, 1, -1, BTS_BTM_NOT_STORED, BTS_BTM_NOT_STORED, "Generate BTMs but do not store BTMs"},
    {1, 1, 0, 0, 1, BTS_STORED, BTS_STORED, "Store all BTMs; interrupt when nearly full"},
    {1, 1, 1, 0, 1, BTS_BTM_NOT_STORED, BTS_STORED, "Store BTMs with CPL > 0; interrupt"},
    {1, 1, 0, 1, 1, BTS_STORED, BTS_BTM_NOT_STORED, "Store BTMs with CPL = 0; interrupt"},
};

static bool matches(int want, uint64_t v, uint64_t bit)
{
	return want < 0 || (want == 1) == ((v & bit) != 0);
}

/* Every one of the 32 encodings is covered by exactly one row, with the row's outcome. */
static void every_encoding_follows_table_17_6(void **state)
{
	(void)state;
	for (unsigned e = 0; e < 32; e++) {
		uint64_t v = ((e & 1) ? DEBUGCTL_TR : 0) | ((e & 2) ? DEBUGCTL_BTS : 0) |
			     ((e & 4) ? DEBUGCTL_BTS_OFF_OS : 0) |
			     ((e & 8) ? DEBUGCTL_BTS_OFF_USR : 0) | ((e & 16) ? DEBUGCTL_BTINT : 0);
		/* Unrelated DEBUGCTL bits must not change the outcome. */
		uint64_t noise = DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI;
		const struct row *hit = NULL;
		unsigned hits = 0;
		for (size_t r = 0; r < sizeof(table_17_6) / sizeof(table_17_6[0]); r++) {
			const struct row *t = &table_17_6[r];
			if (matches(t->tr, v, DEBUGCTL_TR) && matches(t->bts, v, DEBUGCTL_BTS) &&
			    matches(t->off_os, v, DEBUGCTL_BTS_OFF_OS) &&
			    matches(t->off_usr, v, DEBUGCTL_BTS_OFF_USR) &&
			    matches(t->btint, v, DEBUGCTL_BTINT)) {
				hit = t;
				hits++;
			}
		}
		assert_int_equal(hits, 1);
		assert_int_equal(bts_disposition(v, 0), hit->cpl0);
		assert_int_equal(bts_disposition(v | noise, 0), hit->cpl0);
		assert_int_equal(bts_disposition(v, 3), hit->cpl3);
		assert_int_equal(bts_disposition(v, 1),
				 hit->cpl3); /* "CPL > 0" is any ring above 0 */
	}
}

#define NREC	4
#define BUF_LIN 0x100000ull
static uint8_t buf[(NREC + 2) * sizeof(struct bts_record)];

static void *at(uint64_t lin)
{
	if (lin < BUF_LIN || lin + sizeof(struct bts_record) > BUF_LIN + sizeof(buf))
		return NULL;
	return buf + (lin - BUF_LIN);
}

static struct ds_area64 area(uint64_t threshold)
{
	struct ds_area64 ds;
	memset(&ds, 0, sizeof(ds));
	ds.bts_base = BUF_LIN;
	ds.bts_index = BUF_LIN;
	/* The SDM's convention: a multiple of the record size plus 1. */
	ds.bts_abs_max = BUF_LIN + NREC * sizeof(struct bts_record) + 1;
	ds.bts_threshold = threshold;
	return ds;
}

static struct bts_record rec(uint64_t n)
{
	struct bts_record r = {0xffffffff80001000ull + n, 0xffffffff80002000ull + n,
			       (n & 1) ? BTS_FLAG_PREDICTED : 0};
	return r;
}

static void records_land_byte_exact(void **state)
{
	(void)state;
	memset(buf, 0xee, sizeof(buf));
	struct ds_area64 ds = area(UINT64_MAX);
	uint64_t ctl = DEBUGCTL_TR | DEBUGCTL_BTS;
	struct bts_record r = rec(1);
	struct bts_store_result res = bts_store(&ds, ctl, &r, at);
	assert_true(res.stored);
	assert_int_equal(ds.bts_index, BUF_LIN + 24);
	const uint8_t want[24] = {0x01, 0x10, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff, 0x01,
				  0x20, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff, 0x10, 0,
				  0,	0,    0,    0,	  0,	0}; /* flags: bit 4 = predicted */
	assert_memory_equal(buf, want, 24);
	assert_int_equal(buf[24], 0xee); /* nothing written past the record */
}

static void circular_mode_wraps_and_threshold_rule(void **state)
{
	(void)state;
	uint64_t ctl = DEBUGCTL_TR | DEBUGCTL_BTS; /* BTINT = 0: circular */
	/* Threshold above the absolute maximum: never an interrupt, wrap after NREC records. */
	struct ds_area64 ds = area(BUF_LIN + NREC * 24 + 1 + 24);
	for (uint64_t n = 0; n < 3 * NREC; n++) {
		struct bts_record r = rec(n);
		struct bts_store_result res = bts_store(&ds, ctl, &r, at);
		assert_true(res.stored);
		assert_false(res.threshold_hit);
		assert_int_equal(res.wrapped, n > 0 && n % NREC == 0);
	}
	struct bts_record first;
	memcpy(&first, buf, sizeof(first));
	assert_int_equal(first.from, rec(2 * NREC).from); /* the oldest slot was overwritten */
	/* Threshold inside the buffer with BTINT = 0: the SDM says it still interrupts, and the
	 * source of the interrupt is "the buffer index matches/exceeds the interrupt threshold"
	 * (SDM Vol. 3B 17.4.9.5): every store that leaves it there, not only the crossing one. */
	ds = area(BUF_LIN + 2 * 24);
	struct bts_record r = rec(0);
	assert_false(bts_store(&ds, ctl, &r, at).threshold_hit);
	assert_true(bts_store(&ds, ctl, &r, at).threshold_hit);
	assert_true(bts_store(&ds, ctl, &r, at).threshold_hit); /* past it, still */
}

static void interrupt_mode_keeps_writing_past_threshold_then_stops(void **state)
{
	(void)state;
	uint64_t ctl = DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT;
	struct ds_area64 ds = area(BUF_LIN + 2 * 24);
	unsigned hits = 0, stored = 0, dropped = 0;
	for (uint64_t n = 0; n < NREC + 3; n++) {
		struct bts_record r = rec(n);
		struct bts_store_result res = bts_store(&ds, ctl, &r, at);
		hits += res.threshold_hit;
		stored += res.stored;
		dropped += res.dropped_full;
		assert_false(res.wrapped);
	}
	assert_int_equal(hits, NREC - 1); /* each store from the threshold's on (17.4.9.5) */
	assert_int_equal(stored, NREC); /* records after the threshold still land, up to the max */
	assert_int_equal(dropped, 3);
	assert_int_equal(ds.bts_index, BUF_LIN + NREC * 24);
	/* Linux's convention (abs max = base + N * 24 exactly) holds N records too. */
	ds = area(UINT64_MAX);
	ds.bts_abs_max = BUF_LIN + NREC * 24;
	for (uint64_t n = 0; n < NREC; n++) {
		struct bts_record r = rec(n);
		assert_true(bts_store(&ds, ctl, &r, at).stored);
	}
	struct bts_record r = rec(9);
	assert_true(bts_store(&ds, ctl, &r, at).dropped_full);
	/* An unmapped buffer drops the record instead of faulting. */
	ds = area(UINT64_MAX);
	ds.bts_base = ds.bts_index = 0x5000;
	ds.bts_abs_max = 0x5000 + 10 * 24;
	assert_true(bts_store(&ds, ctl, &r, at).dropped_full);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_encoding_follows_table_17_6),
    cmocka_unit_test(records_land_byte_exact),
    cmocka_unit_test(circular_mode_wraps_and_threshold_rule),
    cmocka_unit_test(interrupt_mode_keeps_writing_past_threshold_then_stops),
};
UNIT_MAIN(tests)
