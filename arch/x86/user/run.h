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
#define USER_FDS	  32 /* a Linux program's descriptors, 0, 1 and 2 included */

/* A region-of-interest mark waiting for the session (user_run.roi_pending). */
enum user_roi { USER_ROI_NONE, USER_ROI_BEGIN, USER_ROI_END };

struct trap_frame;

struct user_range {
	uint64_t lo, hi; /* [lo, hi) */
};

struct user_run {
	uint64_t start_tsc, deadline_tsc; /* deadline 0: no watchdog armed */
	uint64_t beat_tsc;		  /* the next progress line's time; 0: none */
	uint64_t tsc_hz;
	bool active;		      /* between arch_user_run_begin and _end */
	bool roi_marks;		      /* option program.roi=marks (its own and SSC marks) */
	uint64_t roi_function;	      /* program.roi=function:NAME: NAME's entry, else 0 */
	volatile uint8_t roi_pending; /* enum user_roi: a mark the session has not applied yet */
	/* Set by a session that runs the program unstepped (the hardware records by itself):
	 * applies a mark at once. Stepped runs apply roi_pending from the step hook instead. */
	void (*roi_now)(void);
	struct user_range range[USER_MAX_RANGES];
	unsigned nrange;
	/* stdout and stderr: a ring of pieces (struct user_out_piece, then its bytes, padded to
	 * USER_OUT_ALIGN) that the kernel takes while the run goes on (a drainer on another
	 * CPU: out_wait, a full ring waits for it) or after it (arch/x86/session/output.c,
	 * trace_program_output). Without a drainer, what finds the ring full is dropped and
	 * counted (out_dropped). head: the producer's bytes so far; tail: the consumer's. */
	char *out;	   /* out_buf, or the program's buffer (user_run_params.out) */
	uint64_t out_room; /* out's size, a multiple of USER_OUT_ALIGN */
	uint64_t out_head, out_tail;
	uint64_t out_pos[2];	 /* stdout's and stderr's bytes so far, dropped ones too */
	uint64_t out_dropped[2]; /* of them, dropped */
	volatile uint8_t out_wait;
	struct user_run_end end;
	/* Linux programs (linux.c): the heap's break and limits, the mmap arena's next free
	 * byte, getrandom's state, the -ENOSYS tally (end.unsupported_*); exit_now and
	 * exit_status for entry.S, which leaves the run when exit or exit_group set them. */
	uint64_t brk_lo, brk, brk_hi, brk_top;
	uint64_t mmap_lo, mmap_next, mmap_hi;
	uint64_t rand_state;
	uint64_t slept_ns; /* nanosleep's: the clock moved on by it */
	uint64_t mdwe;	   /* prctl(PR_SET_MDWE)'s flags: W^X once the program asks for it */
	const struct user_file *files;
	unsigned nfiles;
	int stdin_file; /* index in files of program.stdin's file, or -1 (empty stdin) */
	const char *exe;
	/* The memory calls (linux_mm.c): the image's segments, the stack, PTE_NX or 0. */
	const struct elf_user_image *img;
	uint64_t stack_lo, stack_hi, nx;
	/* Descriptors (linux_files.c): fd[n] is the index in ofd of what descriptor n names, or
	 * -1; ofd[] are the open file descriptions dup'ed descriptors share (offset included). */
	int8_t fd[USER_FDS];
	uint8_t fd_flags[USER_FDS]; /* descriptor n's own flags: FD_CLOEXEC (fcntl(2) F_GETFD) */
	struct user_ofd {
		uint8_t refs; /* 0: free */
		uint8_t kind; /* enum linux_ofd_kind (linux_files.h) */
		uint8_t file; /* index in files, or the directory, or the output stream (1, 2) */
		uint64_t off; /* the file offset, or the next directory entry */
	} ofd[USER_FDS];
	char out_buf[USER_OUTPUT_BYTES];
};

extern struct user_run user_runs[MAX_CPUS];

/* The system calls other than SYS_NOP and SYS_EXIT (entry.S calls it on the kernel's stack). */
uint64_t user_syscall(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t nr);
/* [p, p + n) inside one of the program's ranges (syscalls.c). */
bool user_buffer_ok(const struct user_run *u, uint64_t p, uint64_t n);
/* A piece of output in the ring: its head. */
struct user_out_piece {
	uint32_t len;	 /* bytes that follow */
	uint32_t fd;	 /* 1 stdout, 2 stderr */
	uint64_t offset; /* of its first byte in fd's output (dropped bytes leave a gap) */
	uint64_t tsc;	 /* when the program wrote it */
};
#define USER_OUT_ALIGN 8
/* What takes the rest of a run's output after it (arch_user_output): the session's
 * (arch/x86/session/output.c registers it; a pointer, so that this folder calls none of that
 * one's). */
extern void (*user_output_taker)(workload_print_fn print);
/* Append len bytes at buf to the run's stdout (fd 1) or stderr (2) (the caller checked buf). */
void user_output(struct user_run *u, unsigned fd, uint64_t buf, uint64_t len);

/* A Linux system call as linux_syscall_entry (entry.S) saved it: the number, then RDI, RSI,
 * RDX, R10, R8, R9; SYSCALL's R11 (RFLAGS) and RCX (the return address), then the registers a
 * new thread also starts with (clone: linux_thread.c) and the program's RSP. */
struct linux_call {
	uint64_t nr, a[6];
	uint64_t r11, rcx, rbx, rbp, r12, r13, r14, r15, rsp;
};
_Static_assert(__builtin_offsetof(struct linux_call, rsp) == 15 * 8, "entry.S's pushes");
uint64_t linux_syscall(const struct linux_call *c);
extern const char linux_syscall_entry[];
/* The program's clock in ns: the TSC since the run's start, plus what it slept (linux.c). */
uint64_t linux_ns_now(const struct user_run *u);

/* entry.S: the way out of a run (RDI = the status), and the kernel stack it goes back to. */
extern const char user_abort[], user_entry_end[];
/* End the run on this CPU that frame f interrupted in ring 3 (as its exit would, with status):
 * the IRETQ lands on user_abort (another thread ended the process). */
void user_run_leave(struct trap_frame *f, uint64_t status);
/* A thread's run on this CPU (linux_thread.c): the process's system call entry and the thread's
 * FS base and vector state (an XSAVE or FXSAVE image, or NULL: the init state); after it, the
 * entry put back. */
void user_thread_run_begin(uint64_t fs_base, const void *vector_state);
void user_thread_run_end(void);
/* How this CPU's thread run ended (after user_thread_run_end). */
void user_thread_end_of(struct user_run_end *e);
/* entry.S: IA32_LSTAR's target, and the "user" workload's ring 3 page (arch_init.c hands both
 * to arch/x86/cpu/usermode.c). */
extern const char user_syscall_entry[], user_code_page[];

/* A long run's progress, said every USER_BEAT_S seconds while it runs (the session's: a line
 * on its output; a pointer, as user_output_taker). In the timer's interrupt, which came in
 * ring 3. The runner takes such lines as the sign of a run that goes on. */
#define USER_BEAT_S 10
extern void (*user_progress_beat)(uint64_t seconds);

/* Boot CPU, once: the fault claim and the watchdog's interrupt (arch/x86/arch_init.c), and the
 * threads' vectors (thread_host.c: linux_threads_init). */
void user_run_init(void);
void linux_threads_init(void);

#endif
