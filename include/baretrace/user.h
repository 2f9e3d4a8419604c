/* SPDX-License-Identifier: MIT */
/*
 * The interface a user program has with baretrace (option `program`, README "User programs"):
 * where it is linked, and its system calls. A program is a static x86-64 ELF executable linked
 * into the user window (e.g. gcc -nostdlib -static -no-pie -Wl,-Ttext-segment=BT_USER_WINDOW);
 * it starts at its entry point in ring 3 with RDI = the workload's argument, RSP = the top of a
 * 64 KiB stack, and ends with bt_exit(). System calls: SYSCALL with the number in RAX and the
 * arguments in RDI, RSI, RDX (the Linux x86-64 convention, so RCX and R11 are clobbered).
 */
#ifndef BARETRACE_USER_H
#define BARETRACE_USER_H

#include <stdint.h>

#define BT_USER_WINDOW 0x7e0000000000ull /* segments go in [BT_USER_WINDOW, +512 GiB) */

#define BT_SYS_NOP  0 /* does nothing */
#define BT_SYS_EXIT 1 /* ends the program: RDI is its status, the workload's result */

/* End the program with `status` (the result of workload "program"). */
static inline __attribute__((noreturn)) void bt_exit(uint64_t status)
{
	__asm__ volatile("syscall" : : "a"(BT_SYS_EXIT), "D"(status) : "rcx", "r11", "memory");
	__builtin_unreachable();
}

#endif
