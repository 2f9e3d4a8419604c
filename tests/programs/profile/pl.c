/* SPDX-License-Identifier: MIT */
/*
 * A glibc program whose branch counts its source gives, for the profile loops
 * (tests/qemu/profiles.t): main calls mid ROUNDS times, mid calls leaf N times each (N from
 * argv[1]), and through the pointer `op` calls twice ROUNDS * N / 2 times and thrice as many,
 * so leaf is entered ROUNDS * N times. Its name is short (under 8 characters), as create_gcov
 * once failed on. Built by the test: gcc -O2 -g -gdwarf-4 -static.
 */
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 3

__attribute__((noinline)) static int twice(int x)
{
	return 2 * x;
}

__attribute__((noinline)) static int thrice(int x)
{
	return 3 * x;
}

__attribute__((noinline)) static int leaf(int x)
{
	return (x * 7) ^ (x >> 3);
}

__attribute__((noinline)) static long mid(int n, int (*volatile *op)(int))
{
	long s = 0;
	for (int i = 0; i < n; i++) {
		*op = (i & 1) ? thrice : twice;
		s += leaf(i) + (*op)(i);
	}
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int (*volatile op)(int) = twice;
	long total = 0;
	for (int r = 0; r < ROUNDS; r++)
		total += mid(n, &op);
	printf("pl %d: %ld\n", n, total);
	return 0;
}
