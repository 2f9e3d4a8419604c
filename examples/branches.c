/* SPDX-License-Identifier: MIT */
/*
 * An example user program with the branches compilers emit: loops, a switch compiled to a jump
 * table, recursion, calls through function pointers. Its exit status with argument 0, worked
 * out from this source: the 12 picks give 1+3+7+10+8+3 + 7+21+13+16+20+9 = 118, fib(10) adds 55
 * (173), then twice, plus_ten, twice, plus_ten: 346, 356, 712, 722. Every run must return 722.
 *   scripts/run --program build/examples/branches.elf -- workload=program trace=bts spmu=skylake
 */
#include <stdint.h>
#include "include/baretrace/user.h"

#define ROUNDS 12

static uint64_t fib(uint64_t n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Dense cases: a jump table at -O2. */
static __attribute__((noinline)) uint64_t pick(uint64_t i, uint64_t x)
{
	switch (i % 6) {
	case 0:
		return x + 1;
	case 1:
		return x * 3;
	case 2:
		return x ^ 5;
	case 3:
		return x + 7;
	case 4:
		return x << 1;
	default:
		return x - 2;
	}
}

static uint64_t twice(uint64_t x)
{
	return 2 * x;
}

static uint64_t plus_ten(uint64_t x)
{
	return x + 10;
}

static uint64_t (*const volatile ops[])(uint64_t) = {twice, plus_ten};

uint64_t main(uint64_t arg)
{
	uint64_t acc = arg;
	for (uint64_t i = 0; i < ROUNDS; i++)
		acc += pick(i, i);
	acc += fib(10);
	for (uint64_t i = 0; i < 4; i++)
		acc = ops[i & 1](acc) & 0xffff;
	return acc;
}
