/* SPDX-License-Identifier: MIT */
/*
 * CRC-32 as IEEE 802.3, zlib and the UEFI specification compute it (reflected polynomial
 * 0xEDB88320, initial value and final XOR 0xFFFFFFFF): the GPT header and entry-array CRCs
 * (UEFI 2.10, 5.3.2 "GPT Header"), and the record stream's frames. Slicing-by-8 tables (8 KiB,
 * built on first use); crc32_update chains pieces.
 */
#ifndef LIB_CRC32_H
#define LIB_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32_update(uint32_t crc, const void *data, size_t len); /* start from 0 */
static inline uint32_t crc32(const void *data, size_t len)
{
	return crc32_update(0, data, len);
}

#endif
