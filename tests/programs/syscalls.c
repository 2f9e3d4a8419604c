/* SPDX-License-Identifier: MIT */
/*
 * The system calls of include/baretrace/user.h, each against what the header promises
 * (tests/qemu/program.t). Each check that holds sets one bit of the exit status, so a run that
 * passes every one exits with (1 << CHECKS) - 1 = 1023; the test knows that number from this
 * source, not from a run. The program also writes two lines, one naming its CPU.
 */
#include <stdint.h>
#include "include/baretrace/user.h"

#define CHECKS 10

static const char hello[] = "hello from a user program\n";
static char bss_buffer[64];

static uint64_t check(uint64_t status, unsigned bit, int ok)
{
	return ok ? status | (1ull << bit) : status;
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
	bt_exit(st);
}
