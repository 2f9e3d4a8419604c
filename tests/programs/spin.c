/* SPDX-License-Identifier: MIT */
/*
 * A loop of exactly `arg` iterations (option program.arg) whose only taken branch is its own
 * JNZ back to the top, taken arg - 1 times (SDM Vol. 2A "Jcc": JNZ jumps while ZF = 0; DEC sets
 * ZF when the count reaches 0): the tests know how many records a capture of it holds from
 * here. The loop sits in its own function, spin, between the labels spin_top and spin_jnz, so a
 * test finds the JNZ's address with nm. Exit status: arg.
 */
#include <stdint.h>
#include "include/baretrace/user.h"

__attribute__((noinline)) static uint64_t spin(uint64_t n)
{
	uint64_t left = n;
	__asm__ volatile(".globl spin_top, spin_jnz\n"
			 "spin_top:\n\t"
			 "decq %0\n"
			 "spin_jnz:\n\t"
			 "jnz spin_top"
			 : "+r"(left)
			 :
			 : "cc");
	return n - left;
}

uint64_t main(uint64_t arg);
uint64_t main(uint64_t arg)
{
	return arg ? spin(arg) : 0;
}
