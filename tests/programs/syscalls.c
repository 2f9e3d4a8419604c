/* SPDX-License-Identifier: MIT */
/*
 * The system calls of include/baretrace/user.h, each against what the header promises
 * (tests/qemu/program.t), and the vector registers a compiler may use. Each check that holds
 * sets one bit of the exit status, so a run that passes every one exits with
 * (1 << CHECKS) - 1 = 2047; the test knows that number from this source, not from a run. The
 * program also writes two lines, one naming its CPU.
 */
#include <stdint.h>
#include "include/baretrace/user.h"

#define CHECKS 11

static const char hello[] = "hello from a user program\n";
static char bss_buffer[64];

static uint64_t check(uint64_t status, unsigned bit, int ok)
{
	return ok ? status | (1ull << bit) : status;
}

/*
 * The vector registers work as the SDM tells a program to find out (Vol. 1 14.3, "Detection of
 * Intel AVX Instructions"): XMM always in 64-bit mode; YMM when CPUID.01H:ECX says OSXSAVE
 * (27: the OS set CR4.OSXSAVE) and AVX (28) and XGETBV says XCR0[2:1] = 11b. A processor with
 * AVX whose OS did not enable it fails the check: a program built with -mavx would fault.
 * A value goes through each register and back (inline assembly: this file is built with
 * -mgeneral-regs-only, so the compiler keeps nothing in them and takes no clobber of them).
 */
static int vectors_usable(void)
{
	static const uint64_t in[4] = {0x0123456789abcdefull, 0xfedcba9876543210ull, 7, 9};
	uint64_t out[4] = {0};
	__asm__ volatile("movdqu %1, %%xmm3\n\tmovdqu %%xmm3, %0" : "=m"(out) : "m"(in));
	int ok = out[0] == in[0] && out[1] == in[1] && !out[2];
	uint32_t a = 1, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	if (!(c & (1u << 28)))
		return ok; /* no AVX on this processor: nothing more to enable */
	if (!(c & (1u << 27)))
		return 0;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 6) != 6)
		return 0;
	__asm__ volatile("vmovdqu %1, %%ymm5\n\tvmovdqu %%ymm5, %0" : "=m"(out) : "m"(in));
	for (unsigned i = 0; i < 4; i++)
		ok &= out[i] == in[i];
	return ok;
}

int64_t main(uint64_t arg)
{
	(void)arg;
	uint64_t st = 0;
	char line[] = "cpu N says hi\n"; /* on the stack */
	line[4] = (char)('0' + bt_cpu() % 10);
	st = check(st, 0, bt_write(hello, sizeof(hello) - 1) == (int64_t)sizeof(hello) - 1);
	st = check(st, 1, bt_write(line, sizeof(line) - 1) == (int64_t)sizeof(line) - 1);
	/* Not the program's: the kernel's image, page 0, 128 KiB above a stack of 64 KiB. */
	st = check(st, 2, bt_write((const void *)0xffffffff80000000ull, 8) == BT_EFAULT);
	st = check(st, 3, bt_write((const void *)0, 1) == BT_EFAULT);
	st = check(st, 4, bt_write((const void *)((uintptr_t)line + 0x20000), 1) == BT_EFAULT);
	/* Starts inside .bss, runs past its end. */
	st = check(st, 5, bt_write(bss_buffer, 1 << 20) == BT_EINVAL);
	st = check(st, 6, bt_write(bss_buffer + sizeof(bss_buffer) - 1, 4000) == BT_EFAULT);
	st = check(st, 7, bt_syscall3(99, 0, 0, 0) == BT_ENOSYS);
	st = check(st, 8, bt_tsc_hz() >= 1000000);	      /* at least a megahertz */
	st = check(st, 9, bt_write((const void *)0, 0) == 0); /* nothing to write: no check */
	st = check(st, 10, vectors_usable());
	bt_exit(st);
}
