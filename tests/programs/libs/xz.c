/* SPDX-License-Identifier: MIT */
// LINK: -llzma -lbz2
/* A real program on Debian's liblzma and libbz2 (static): the same generated text through xz
 * (LZMA2, preset 0) and bzip2 (block size 1), each compressed and back. Output: the sizes and
 * whether the round trips give the input. */
#include <bzlib.h>
#include <lzma.h>
#include <stdio.h>
#include <string.h>

#define N 4000
static char in[N], packed[N * 2], back[N];

int main(void)
{
	unsigned x = 7;
	for (size_t i = 0; i < N; i++) {
		x = x * 1664525 + 1013904223;
		in[i] = "lorem ipsum dolor sit amet\n"[(x >> 20) % 27];
	}
	size_t xz_len = 0, back_len = 0;
	lzma_ret xr = lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, (const uint8_t *)in, N,
					      (uint8_t *)packed, &xz_len, sizeof(packed));
	uint64_t limit = UINT64_MAX;
	size_t in_pos = 0;
	lzma_ret dr = lzma_stream_buffer_decode(&limit, 0, NULL, (const uint8_t *)packed, &in_pos,
						xz_len, (uint8_t *)back, &back_len, sizeof(back));
	printf("xz: %d -> %zu -> %zu (%s)\n", N, xz_len, back_len,
	       xr == LZMA_OK && dr == LZMA_OK && !memcmp(in, back, N) ? "same" : "DIFFERENT");
	unsigned bz_len = sizeof(packed), bz_back = sizeof(back);
	int br = BZ2_bzBuffToBuffCompress(packed, &bz_len, in, N, 1, 0, 30);
	int bd = BZ2_bzBuffToBuffDecompress(back, &bz_back, packed, bz_len, 0, 0);
	printf("bzip2: %d -> %u -> %u (%s)\n", N, bz_len, bz_back,
	       br == BZ_OK && bd == BZ_OK && !memcmp(in, back, N) ? "same" : "DIFFERENT");
	return 0;
}
