/* SPDX-License-Identifier: MIT */
/*
 * The door to user programs: their memory (arch/x86/cpu/usermode.c), ring 3 and back
 * (arch/x86/user/entry.S) and a run's state (arch/x86/user/run.c).
 */
#ifndef KERNEL_ARCH_USER_H
#define KERNEL_ARCH_USER_H

#include <stdbool.h>
#include <stdint.h>

struct elf_user_image;

/* User programs (arch/x86/cpu/usermode.c): map a checked program's segments (copies of the
 * file's bytes, bss zeroed, each page with its segment's W and X) and a stack of stack_pages
 * below stack_top (a guard page under it); false, said, when memory or a mapping fails. */
bool arch_user_program_map(const struct elf_user_image *img, uint64_t stack_top,
			   uint64_t stack_pages);
/* Put the writable segments and the stack back as the file has them (before every run). */
void arch_user_program_reset(const struct elf_user_image *img, uint64_t stack_top,
			     uint64_t stack_pages);
/* Ring 3 at `entry` with RSP = stack_top and RDI = arg; returns the status the program gives
 * SYS_EXIT, or USER_STATUS_ENDED | ... when the kernel ended it (arch/x86/user/entry.S). */
uint64_t arch_user_enter(uint64_t entry, uint64_t stack_top, uint64_t arg);

/* A user program's run on one CPU (arch/x86/user/run.c). Statuses with bit 63 set are the
 * kernel's (include/baretrace/user.h: an exit status is below 2^63): a fault in ring 3 gives
 * USER_STATUS_ENDED | vector << 48 | the faulting RIP's low 48 bits (the same fault gives the
 * same status in the native and the traced run), the watchdog USER_STATUS_WATCHDOG. */
#define USER_STATUS_ENDED    (1ull << 63)
#define USER_STATUS_WATCHDOG (USER_STATUS_ENDED | (1ull << 62))
enum user_end_kind { USER_END_EXIT, USER_END_FAULT, USER_END_WATCHDOG };
struct user_run_params {
	uint64_t watchdog_ms; /* 0: no watchdog */
	bool roi_marks;	      /* capture only between BT_SYS_ROI_BEGIN and _END */
	/* the memory a system call's pointer may name: the program's segments and its stack */
	const struct elf_user_image *img;
	uint64_t stack_lo, stack_hi;
};
struct user_run_end {
	enum user_end_kind kind;
	unsigned cpu;
	uint32_t vector; /* USER_END_FAULT: the exception */
	uint64_t error_code, rip, cr2;
	bool has_cr2;	     /* a #PF: cr2 is its linear address */
	uint64_t elapsed_us; /* from arch_user_run_begin */
	const char *output;  /* what the program wrote (BT_SYS_WRITE), output_len bytes */
	uint64_t output_len, output_dropped; /* bytes kept; bytes past the buffer, dropped */
	uint64_t output_room;		     /* the buffer's size */
};
/* Before each run on this CPU (not stepped, not traced): output cleared, watchdog armed. */
void arch_user_run_begin(const struct user_run_params *p);
/* After it: watchdog disarmed, how the run ended and what it wrote (valid until the next
 * arch_user_run_begin on this CPU). */
void arch_user_run_end(struct user_run_end *e);

#endif
