/* SPDX-License-Identifier: MIT */
/*
 * The HTML view's counts: an open-addressing hash map (linear probing, doubled at half full)
 * from a pair of 64-bit keys to a zeroed value of a fixed size. Values move when it grows.
 */
#include <stdlib.h>
#include <string.h>
#include "tools/bt_html.h"

#define SLOTS0	 256
#define KEYS	 16 /* two 64-bit keys */
#define USED_OFF KEYS
#define VAL_OFF	 (KEYS + 8)

void html_map_init(struct html_map *m, size_t vsize)
{
	*m = (struct html_map){.vsize = vsize, .stride = VAL_OFF + ((vsize + 7) & ~(size_t)7)};
}

static size_t slot_of(uint64_t k1, uint64_t k2, size_t slots)
{
	uint64_t h = (k1 * 0x9e3779b97f4a7c15ull) ^ (k2 + 0x632be59bd9b4e019ull);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (size_t)(h & (slots - 1));
}

static uint8_t *probe(const struct html_map *m, uint64_t k1, uint64_t k2, bool *found)
{
	for (size_t i = slot_of(k1, k2, m->slots);; i = (i + 1) & (m->slots - 1)) {
		uint8_t *e = m->mem + i * m->stride;
		uint64_t k[2];
		if (!e[USED_OFF]) {
			*found = false;
			return e;
		}
		memcpy(k, e, sizeof(k));
		if (k[0] == k1 && k[1] == k2) {
			*found = true;
			return e;
		}
	}
}

static void grow(struct html_map *m)
{
	struct html_map old = *m;
	m->slots = old.slots ? 2 * old.slots : SLOTS0;
	m->mem = calloc(m->slots, m->stride);
	if (!m->mem) {
		fprintf(stderr, "btdecode: out of memory for the HTML report's counts\n");
		exit(2);
	}
	for (size_t i = 0; i < old.slots; i++) {
		const uint8_t *e = old.mem + i * old.stride;
		uint64_t k[2];
		bool found;
		if (!e[USED_OFF])
			continue;
		memcpy(k, e, sizeof(k));
		memcpy(probe(m, k[0], k[1], &found), e, m->stride);
	}
	free(old.mem);
}

void *html_map_get(struct html_map *m, uint64_t k1, uint64_t k2)
{
	if (2 * (m->used + 1) > m->slots)
		grow(m);
	bool found;
	uint8_t *e = probe(m, k1, k2, &found);
	if (!found) {
		uint64_t k[2] = {k1, k2};
		memcpy(e, k, sizeof(k));
		e[USED_OFF] = 1;
		m->used++;
	}
	return e + VAL_OFF;
}

void *html_map_find(const struct html_map *m, uint64_t k1, uint64_t k2)
{
	bool found;
	if (!m->slots)
		return NULL;
	uint8_t *e = probe(m, k1, k2, &found);
	return found ? e + VAL_OFF : NULL;
}

void **html_map_values(const struct html_map *m, size_t *n)
{
	void **v = malloc((m->used ? m->used : 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "btdecode: out of memory for the HTML report\n");
		exit(2);
	}
	*n = 0;
	for (size_t i = 0; i < m->slots; i++)
		if (m->mem[i * m->stride + USED_OFF])
			v[(*n)++] = m->mem + i * m->stride + VAL_OFF;
	return v;
}

void html_map_free(struct html_map *m)
{
	free(m->mem);
	html_map_init(m, m->vsize);
}
