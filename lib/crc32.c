/* SPDX-License-Identifier: MIT */
#include "lib/crc32.h"

#define CRC32_POLY_REFLECTED 0xedb88320u
#define CRC32_SLICES	     8 /* bytes folded per step (slicing-by-8) */

/*
 * Slicing-by-8 (Kounavis and Berry, "A Systematic Approach to Building High Performance
 * Software-Based CRC Generators", 2005; zlib's crc32.c braids the same idea): table[0] is the
 * byte-at-a-time table, table[k][b] the CRC of byte b followed by k zero bytes, so eight input
 * bytes fold in with eight lookups. The tables are built on first use from the bitwise
 * definition, published with release/acquire order: CPUs that race to build them store equal
 * values, and a reader that sees `ready` sees whole tables.
 */
static uint32_t table[CRC32_SLICES][256];
static int ready;

static void build_tables(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int i = 0; i < 8; i++)
			c = (c >> 1) ^ (CRC32_POLY_REFLECTED & (0u - (c & 1)));
		table[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int k = 1; k < CRC32_SLICES; k++)
			table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xff];
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

static inline uint32_t load32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t len)
{
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		build_tables();
	const uint8_t *p = data;
	crc = ~crc;
	for (; len >= CRC32_SLICES; len -= CRC32_SLICES, p += CRC32_SLICES) {
		uint32_t lo = load32le(p) ^ crc, hi = load32le(p + 4);
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^ table[3][hi & 0xff] ^
		      table[2][(hi >> 8) & 0xff] ^ table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}
