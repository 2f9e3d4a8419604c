/* SPDX-License-Identifier: MIT */
/*
 * The interface a user program has with baretrace (option `program`, docs/programs.md "Trace your
 * own program"): where it is linked, and its system calls. A program is a static x86-64 ELF
 * executable linked into the user window (e.g. gcc -nostdlib -static -no-pie
 * -Wl,-Ttext-segment=BT_USER_WINDOW); it starts at its entry point in ring 3 with RDI = the
 * workload's argument (option program.arg), RSP = the top of a 64 KiB stack, interrupts on,
 * and ends with bt_exit().
 *
 * System calls: SYSCALL with the number in RAX and the arguments in RDI, RSI, RDX (the Linux
 * x86-64 convention); the result comes back in RAX, RCX and R11 are clobbered, every other
 * register is kept. A result in [-4095, -1] (as int64_t) is an error, BT_E*. Pointers are
 * checked: a buffer outside the program's own segments and stack gets BT_EFAULT, never a fault.
 *
 * How a run ends: bt_exit(status) with status < 2^63 (the workload's result, compared between
 * the native and the traced runs); a fault in ring 3 (#PF, #UD, #GP, #DE, ...) or the watchdog
 * (option program.watchdog, milliseconds) ends it with a report on the log, and the boot then
 * ends with status 2 (bad input).
 */
#ifndef INCLUDE_BARETRACE_USER_H
#define INCLUDE_BARETRACE_USER_H

#include <stdint.h>

#define BT_USER_WINDOW 0x7e0000000000ull /* segments go in [BT_USER_WINDOW, +512 GiB) */

/*
 * How the kernel tells this ABI from Linux's (docs/programs.md "Trace your own program"): a program
 * that includes this header carries an ELF note, owner "baretrace", type BT_NOTE_ABI (emitted
 * below, into the program's PT_NOTE segment), or is an ET_EXEC linked inside BT_USER_WINDOW.
 * Every other program is a Linux program and gets Linux's system calls and process start.
 */
#define BT_NOTE_ABI 0x42540001u
#ifndef BT_NO_ABI_NOTE /* the kernel's own syscalls.c, which is no program */
__asm__(".pushsection .note.baretrace, \"a\", @note\n"
	".balign 4\n"
	".long 10\n"	     /* n_namesz: "baretrace" and its NUL */
	".long 0\n"	     /* n_descsz */
	".long 0x42540001\n" /* n_type: BT_NOTE_ABI */
	".asciz \"baretrace\"\n"
	".balign 4\n"
	".popsection");
#endif

#define BT_SYS_NOP	 0 /* does nothing; returns 0 */
#define BT_SYS_EXIT	 1 /* ends the program: RDI is its status (below 2^63; else BT_EINVAL) */
#define BT_SYS_WRITE	 2 /* RDI = bytes, RSI = length: to the log; returns the length */
#define BT_SYS_ROI_BEGIN 3 /* region of interest: capture from here (option program.roi) */
#define BT_SYS_ROI_END	 4 /* ... to here; returns 0 */
#define BT_SYS_CPU	 5 /* returns the CPU's number (0 = the boot CPU) */
#define BT_SYS_TSC_HZ	 6 /* returns the TSC's rate in Hz */

#define BT_EFAULT (-14) /* a buffer not inside the program's segments or stack */
#define BT_EINVAL (-22) /* a bad argument (a length above BT_WRITE_MAX) */
#define BT_ENOSYS (-38) /* no such system call */

#define BT_WRITE_MAX 4096 /* bytes one BT_SYS_WRITE takes at most */

static inline int64_t bt_syscall3(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	int64_t r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a0), "S"(a1), "d"(a2)
			 : "rcx", "r11", "memory");
	return r;
}

/* End the program with `status` (the result of workload "program"). */
static inline __attribute__((noreturn)) void bt_exit(uint64_t status)
{
	bt_syscall3(BT_SYS_EXIT, status, 0, 0);
	__builtin_trap(); /* status >= 2^63 was refused: UD2 ends the run with #UD, said */
}

/* Write len bytes to the log (lines "program-output cpu=N: ..." after the run). */
static inline int64_t bt_write(const void *buf, uint64_t len)
{
	return bt_syscall3(BT_SYS_WRITE, (uint64_t)buf, len, 0);
}

/* With option program.roi=marks the capture runs only between these marks (the software PMU
 * and the hardware alike: the kernel clears and restores the facility's enable bits). */
static inline void bt_roi_begin(void)
{
	bt_syscall3(BT_SYS_ROI_BEGIN, 0, 0, 0);
}

static inline void bt_roi_end(void)
{
	bt_syscall3(BT_SYS_ROI_END, 0, 0, 0);
}

static inline uint64_t bt_cpu(void)
{
	return (uint64_t)bt_syscall3(BT_SYS_CPU, 0, 0, 0);
}

static inline uint64_t bt_tsc_hz(void)
{
	return (uint64_t)bt_syscall3(BT_SYS_TSC_HZ, 0, 0, 0);
}

#endif
