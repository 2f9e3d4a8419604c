// UNIT-SOURCES: lib/record_store.c
/*
 * lib/record_store.c against its contract (lib/record_store.h): records come out oldest first,
 * across the ring's wrap; a full ring loses the record and counts it, unless the `full` callback
 * makes room; every record appended is either taken or counted lost. Then one producer and one
 * consumer on two threads (as the PMI/DS service routine and the live drainer run on two CPUs):
 * a million numbered records, each seen once and in order, none lost while the producer waits.
 */
#include "tests/unit/unit.h"
#include <pthread.h>
#include <string.h>
#include "lib/record_store.h"

struct rec {
	uint64_t seq, a, b;
};

static uint64_t mem[3 * 8];

static void init_refusals(void **state)
{
	(void)state;
	struct record_store s;
	assert_false(record_store_init(&s, mem, sizeof(mem), 0));
	assert_false(record_store_init(&s, mem, sizeof(mem), 12)); /* not whole quadwords */
	assert_false(record_store_init(&s, mem, 16, 24));	   /* not one record */
	assert_true(record_store_init(&s, mem, sizeof(mem), 24));
	assert_int_equal(s.cap, 8);
	assert_int_equal(record_store_pending(&s), 0);
	assert_null(record_store_oldest(&s));
	/* bytes that are no whole number of records: the rest is left unused */
	assert_true(record_store_init(&s, mem, sizeof(mem) - 8, 24));
	assert_int_equal(s.cap, 7);
}

static void fifo_and_full(void **state)
{
	(void)state;
	struct record_store s;
	assert_true(record_store_init(&s, mem, sizeof(mem), sizeof(struct rec)));
	for (uint64_t i = 0; i < 10; i++)
		record_store_put(&s, &(struct rec){i, i * 2, i * 3});
	/* 8 kept, the last 2 lost: the store keeps the oldest, as a full hardware buffer would */
	assert_int_equal(s.n, 8);
	assert_int_equal(s.lost_full, 2);
	for (uint64_t i = 0; i < 3; i++) {
		const struct rec *r = record_store_oldest(&s);
		assert_non_null(r);
		assert_int_equal(r->seq, i);
		assert_int_equal(r->b, i * 3);
		record_store_drop(&s);
	}
	/* room for 3 more: they go at the ring's start (the wrap) and come out after the rest */
	for (uint64_t i = 100; i < 104; i++)
		record_store_put(&s, &(struct rec){i, 0, 0});
	assert_int_equal(s.lost_full, 3);
	assert_int_equal(record_store_pending(&s), 8);
	const struct rec *p = record_store_peek(&s, 5);
	assert_int_equal(p->seq, 100);
	assert_null(record_store_peek(&s, 8));
	uint64_t want[] = {3, 4, 5, 6, 7, 100, 101, 102};
	for (unsigned i = 0; i < 8; i++) {
		const struct rec *r = record_store_oldest(&s);
		assert_int_equal(r->seq, want[i]);
		record_store_drop(&s);
	}
	assert_null(record_store_oldest(&s));
	assert_int_equal(s.n + s.lost_full, 14); /* 14 put: each kept or counted */
	assert_int_equal(s.taken, s.n);
}

/* A `full` callback that makes room itself (takes the oldest), as a consumer would. */
static uint64_t made_room;
static bool take_one(struct record_store *s)
{
	made_room++;
	record_store_drop(s);
	return true;
}

static void full_callback(void **state)
{
	(void)state;
	struct record_store s;
	assert_true(record_store_init(&s, mem, sizeof(mem), sizeof(struct rec)));
	s.full = take_one;
	made_room = 0;
	for (uint64_t i = 0; i < 20; i++) {
		struct rec *slot = record_store_reserve(&s);
		assert_non_null(slot);
		*slot = (struct rec){i, 0, 0};
		record_store_commit(&s);
	}
	assert_int_equal(made_room, 12);
	assert_int_equal(s.lost_full, 0);
	assert_int_equal(((const struct rec *)record_store_oldest(&s))->seq, 12);
}

/* ---- two threads ---------------------------------------------------------------------------- */

#define STRESS_RECORDS 1000000u

static uint64_t big[3 * 64];

/* The producer waits for the consumer (no clock: the consumer always comes). */
static bool wait_room(struct record_store *s)
{
	while (__atomic_load_n(&s->limit, __ATOMIC_ACQUIRE) == s->n)
		;
	return true;
}

static void *consumer(void *arg)
{
	struct record_store *s = arg;
	uint64_t want = 0, bad = 0;
	while (want < STRESS_RECORDS) {
		const struct rec *r = record_store_oldest(s);
		if (!r)
			continue;
		bad += r->seq != want || r->a != ~want || r->b != want * 7;
		want++;
		record_store_drop(s);
	}
	return (void *)(uintptr_t)bad;
}

static void two_threads(void **state)
{
	(void)state;
	static struct record_store s;
	assert_true(record_store_init(&s, big, sizeof(big), sizeof(struct rec)));
	s.full = wait_room;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, consumer, &s), 0);
	for (uint64_t i = 0; i < STRESS_RECORDS; i++) {
		struct rec *slot = record_store_reserve(&s);
		*slot = (struct rec){i, ~i, i * 7};
		record_store_commit(&s);
	}
	void *bad;
	pthread_join(t, &bad);
	assert_int_equal((uintptr_t)bad, 0);
	assert_int_equal(s.n, STRESS_RECORDS);
	assert_int_equal(s.taken, STRESS_RECORDS);
	assert_int_equal(s.lost_full, 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(init_refusals),
    cmocka_unit_test(fifo_and_full),
    cmocka_unit_test(full_callback),
    cmocka_unit_test(two_threads),
};
UNIT_MAIN(tests)
