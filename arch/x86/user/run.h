/* SPDX-License-Identifier: MIT */
/*
 * A user program's run on one CPU (kernel/arch_user.h's arch_user_run_*): what the system calls
 * (syscalls.c), the fault claim and the watchdog (run.c) and the trace session (its region of
 * interest, arch/x86/session/session.c) share. One slot per CPU.
 */
#ifndef ARCH_X86_USER_RUN_H
#define ARCH_X86_USER_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/cpu/percpu.h"
#include "kernel/arch_user.h"
#include "lib/elf_user.h"

#define USER_OUTPUT_BYTES 2048			      /* per CPU and run; the rest is counted */
#define USER_MAX_RANGES	  (ELF_USER_MAX_SEGMENTS + 1) /* the segments and the stack */

/* A region-of-interest mark waiting for the session (user_run.roi_pending). */
enum user_roi { USER_ROI_NONE, USER_ROI_BEGIN, USER_ROI_END };

struct user_range {
	uint64_t lo, hi; /* [lo, hi) */
};

struct user_run {
	uint64_t start_tsc, deadline_tsc; /* deadline 0: no watchdog armed */
	uint64_t tsc_hz;
	bool active;		      /* between arch_user_run_begin and _end */
	bool roi_marks;		      /* option program.roi=marks */
	volatile uint8_t roi_pending; /* enum user_roi: a mark the session has not applied yet */
	/* Set by a session that runs the program unstepped (the hardware records by itself):
	 * applies a mark at once. Stepped runs apply roi_pending from the step hook instead. */
	void (*roi_now)(void);
	struct user_range range[USER_MAX_RANGES];
	unsigned nrange;
	uint64_t out_len, out_dropped;
	struct user_run_end end;
	char out[USER_OUTPUT_BYTES];
};

extern struct user_run user_runs[MAX_CPUS];

/* The system calls other than SYS_NOP and SYS_EXIT (entry.S calls it on the kernel's stack). */
uint64_t user_syscall(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t nr);

/* entry.S: the way out of a run (RDI = the status), and the kernel stack it goes back to. */
extern const char user_abort[], user_entry_end[];
/* entry.S: IA32_LSTAR's target, and the "user" workload's ring 3 page (arch_init.c hands both
 * to arch/x86/cpu/usermode.c). */
extern const char user_syscall_entry[], user_code_page[];
extern uint64_t user_saved_kernel_rsp;

/* Boot CPU, once: the fault claim and the watchdog's interrupt (arch/x86/arch_init.c). */
void user_run_init(void);

#endif
