/* SPDX-License-Identifier: MIT */
/*
 * The README's own program (README "Your own program, end to end"; tests/qemu/readme.t runs the
 * README's commands on it): a static Linux program, built as a user would build theirs
 * (gcc -O2 -g -gdwarf-4 -static -o mybench mybench.c). Its argument is a file to hash, or a number
 * of rounds over a buffer of its own; hot_loop does the work, so it is the hot function and the
 * one program.roi=function:hot_loop captures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4096

/* FNV-1a over n bytes */
__attribute__((noinline)) static unsigned hot_loop(const unsigned char *p, size_t n, unsigned h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

int main(int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] : "100";
	unsigned char buf[BLOCK];
	unsigned h = 2166136261u;
	FILE *f = fopen(arg, "rb");
	if (f) {
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			h = hot_loop(buf, n, h);
		fclose(f);
	} else {
		int rounds = atoi(arg);
		for (int r = 0; r < rounds; r++) {
			memset(buf, r & 0xff, 256);
			h = hot_loop(buf, 256, h);
		}
	}
	printf("mybench %s: %08x\n", arg, h);
	return 0;
}
