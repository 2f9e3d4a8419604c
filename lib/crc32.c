/* SPDX-License-Identifier: MIT */
#include "lib/crc32.h"

#define CRC32_POLY_REFLECTED 0xedb88320u

uint32_t crc32_update(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (CRC32_POLY_REFLECTED & -(crc & 1));
	}
	return ~crc;
}
