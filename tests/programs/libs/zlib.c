/* SPDX-License-Identifier: MIT */
// LINK: -lz
/* A real program on Debian's zlib (static): deflate and inflate of generated text, streamed
 * in small pieces, and a CRC-32 and Adler-32. Output: sizes, checks and the round trip. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define N 16384
static unsigned char in[N], packed[N + 1024], back[N];

int main(void)
{
	unsigned x = 12345;
	for (size_t i = 0; i < N; i++) {
		x = x * 1103515245 + 12345;
		in[i] = "abcdefgh ij\n"[(x >> 16) % 12];
	}
	z_stream s;
	memset(&s, 0, sizeof(s));
	deflateInit(&s, 6);
	s.next_out = packed;
	s.avail_out = sizeof(packed);
	for (size_t at = 0; at < N; at += 1000) { /* fed in pieces, as a stream */
		s.next_in = in + at;
		s.avail_in = (uInt)(N - at < 1000 ? N - at : 1000);
		deflate(&s, at + 1000 >= N ? Z_FINISH : Z_NO_FLUSH);
	}
	uLong packed_len = s.total_out;
	deflateEnd(&s);
	uLongf back_len = sizeof(back);
	int rc = uncompress(back, &back_len, packed, packed_len);
	printf("%d -> %lu -> %lu (%s), crc32 %08lx adler32 %08lx\n", N, packed_len,
	       (unsigned long)back_len, rc == Z_OK && !memcmp(in, back, N) ? "same" : "DIFFERENT",
	       crc32(0, in, N), adler32(1, in, N));
	return rc == Z_OK ? 0 : 1;
}
