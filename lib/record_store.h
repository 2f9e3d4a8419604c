/* SPDX-License-Identifier: MIT */
/*
 * The record store: one ring of fixed-size records, filled by one producer (the PMI/DS service
 * routine's sink, a single-step hook, a driver's drain after the run) and emptied, oldest first,
 * by one consumer (the session, or the live drainer on another CPU while the run goes on).
 *
 * The producer compares two numbers (n, the records kept so far, with limit) and copies; the
 * consumer moves limit to taken + cap as it takes, so the two sides share nothing but n and
 * limit (release/acquire). A full ring goes to the store's `full` callback, out of line: it may
 * wait for the consumer to make room (true: there is room now); without one, or when it gives
 * up, the record is lost and counted. Every record appended is either taken or counted lost.
 * Pure: no locks, no clock; builds freestanding and on the host.
 */
#ifndef LIB_RECORD_STORE_H
#define LIB_RECORD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECORD_STORE_ALIGN 8 /* a record's size is a multiple of this (quadwords) */

struct record_store {
	uint8_t *base, *at, *end; /* the ring; `at`: where the next record goes */
	size_t size;		  /* bytes per record */
	uint64_t cap;		  /* records the ring holds */
	uint64_t n;		  /* records appended and kept, since the store was made */
	uint64_t limit;		  /* the producer appends while n < limit */
	uint64_t taken;		  /* records the consumer took */
	uint64_t lost_full;	  /* records that found the ring full */
	/* A full ring (n == limit): true once the consumer has made room; NULL or false: the
	 * record is lost. Called by the producer. */
	bool (*full)(struct record_store *s);
	void *full_ctx;
};

/* An empty store of records of `size` bytes (a multiple of RECORD_STORE_ALIGN, not 0) in `bytes`
 * at `mem`; false when not one record fits. */
bool record_store_init(struct record_store *s, void *mem, uint64_t bytes, size_t size);

/* Producer, a full ring: the `full` callback, else the record counted lost. The slot, or NULL. */
void *record_store_full(struct record_store *s);

/* Producer: the slot the next record goes to (write `size` bytes there, then commit), or NULL
 * when the ring stays full (the record is counted lost: do not commit). */
static inline void *record_store_reserve(struct record_store *s)
{
	if (s->n == __atomic_load_n(&s->limit, __ATOMIC_ACQUIRE))
		return record_store_full(s);
	return s->at;
}

static inline void record_store_commit(struct record_store *s)
{
	uint8_t *next = s->at + s->size;
	s->at = next == s->end ? s->base : next;
	__atomic_store_n(&s->n, s->n + 1, __ATOMIC_RELEASE);
}

/* Producer: one record of `size` bytes copied in; false when it was lost. */
bool record_store_put(struct record_store *s, const void *record);

/* Consumer: the oldest record not yet taken (valid until record_store_drop), or NULL. */
const void *record_store_oldest(const struct record_store *s);
/* Consumer: the oldest record is taken; its slot goes back to the producer. */
void record_store_drop(struct record_store *s);
/* Records kept and not yet taken. */
static inline uint64_t record_store_pending(const struct record_store *s)
{
	return __atomic_load_n(&s->n, __ATOMIC_ACQUIRE) - s->taken;
}
/* Consumer: the record `i` places after the oldest (i < pending), without taking it. */
const void *record_store_peek(const struct record_store *s, uint64_t i);

#endif
