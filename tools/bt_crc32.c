/* SPDX-License-Identifier: MIT */
/*
 * The host decoder's CRC-32: zlib's (crc32_z), the same CRC-32/ISO-HDLC as the kernel's
 * lib/crc32.c, which is hand-written only because the freestanding kernel has no zlib
 * (tests/unit/test_crc32.c checks the two agree). btdecode and its fuzzer link this in place of
 * lib/crc32.c, so what the host checks a frame with is a well-kept library, not the code that
 * wrote the frame.
 */
#include <zlib.h>

#include <stddef.h>
#include <stdint.h>

/* lib/crc32.h's declaration; its inline crc32() would clash with zlib's, so it is not included. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

uint32_t crc32_update(uint32_t crc, const void *data, size_t len)
{
	return (uint32_t)crc32_z(crc, data, len);
}
