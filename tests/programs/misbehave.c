/* SPDX-License-Identifier: MIT */
/*
 * A program that ends badly on purpose, chosen by its argument (option program.arg), for the
 * kernel's fault containment and watchdog (tests/qemu/program.t):
 *   0 exits with 7;  1 writes through a wild pointer (#PF at 0x1000);  2 #UD (UD2);
 *   3 #GP (HLT in ring 3);  4 #DE (divide by zero);  5 never ends;  6 #BP (INT3);
 *   7 the wild pointer on CPU 1 only, 7 elsewhere;  8 steps itself (POPF with TF set, SDM Vol.
 *   3B 17.3.1.4) across a system call: IA32_FMASK clears TF for the kernel's side (as Linux
 *   sets it), SYSRET puts R11's TF back, and the #DB comes in ring 3 (its own, contained).
 * Each fault sits in its own function so the kernel's report can be checked to name it.
 */
#include <stdint.h>
#include "include/baretrace/user.h"

#define WILD_ADDRESS 0x1000

static volatile uint64_t zero;

__attribute__((noinline)) void wild_write(void)
{
	*(volatile uint64_t *)WILD_ADDRESS = 1;
}

__attribute__((noinline)) void invalid_opcode(void)
{
	__asm__ volatile("ud2");
}

__attribute__((noinline)) void privileged(void)
{
	__asm__ volatile("hlt");
}

__attribute__((noinline)) uint64_t divide(uint64_t x)
{
	return x / zero;
}

__attribute__((noinline)) void forever(void)
{
	for (;;)
		__asm__ volatile("");
}

#define RFLAGS_TF 0x100 /* SDM Vol. 1 3.4.3.3 */

__attribute__((noinline)) void step_self(void)
{
	__asm__ volatile("pushfq\n\t"
			 "orq %0, (%%rsp)\n\t"
			 "popfq\n\t"
			 "syscall\n\t"
			 "nop\n\t"
			 "nop"
			 :
			 : "i"(RFLAGS_TF), "a"(BT_SYS_NOP)
			 : "rcx", "r11", "memory", "cc");
}

__attribute__((noinline)) void breakpoint(void)
{
	__asm__ volatile("int3");
}

int64_t main(uint64_t arg)
{
	switch (arg) {
	case 1:
		wild_write();
		break;
	case 2:
		invalid_opcode();
		break;
	case 3:
		privileged();
		break;
	case 4:
		return (int64_t)divide(arg);
	case 5:
		forever();
		break;
	case 6:
		breakpoint();
		break;
	case 7:
		if (bt_cpu() == 1)
			wild_write();
		break;
	case 8:
		step_self();
		break;
	}
	return 7;
}
