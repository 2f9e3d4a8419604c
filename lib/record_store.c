/* SPDX-License-Identifier: MIT */
#include "lib/record_store.h"
#include "lib/string.h"

bool record_store_init(struct record_store *s, void *mem, uint64_t bytes, size_t size)
{
	memset(s, 0, sizeof(*s));
	if (!size || size % RECORD_STORE_ALIGN || bytes < size)
		return false;
	s->base = s->at = mem;
	s->size = size;
	s->cap = s->limit = bytes / size;
	s->end = s->base + s->cap * size;
	return true;
}

void *record_store_full(struct record_store *s)
{
	if (s->full && s->full(s))
		return s->at;
	s->lost_full++;
	return NULL;
}

bool record_store_put(struct record_store *s, const void *record)
{
	void *slot = record_store_reserve(s);
	if (!slot)
		return false;
	memcpy(slot, record, s->size);
	record_store_commit(s);
	return true;
}

const void *record_store_peek(const struct record_store *s, uint64_t i)
{
	if (i >= record_store_pending(s))
		return NULL;
	return s->base + (s->taken + i) % s->cap * s->size;
}

const void *record_store_oldest(const struct record_store *s)
{
	return record_store_peek(s, 0);
}

void record_store_drop(struct record_store *s)
{
	uint64_t taken = s->taken + 1;
	s->taken = taken;
	__atomic_store_n(&s->limit, taken + s->cap, __ATOMIC_RELEASE);
}
