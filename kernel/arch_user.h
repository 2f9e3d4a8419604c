/* SPDX-License-Identifier: MIT */
/*
 * The door to user programs: their memory (arch/x86/cpu/usermode.c), ring 3 and back
 * (arch/x86/user/entry.S) and a run's state (arch/x86/user/run.c).
 */
#ifndef KERNEL_ARCH_USER_H
#define KERNEL_ARCH_USER_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/arch_workloads.h"

struct elf_user_image;

/* User programs (arch/x86/cpu/usermode.c): map a checked program's segments (copies of the
 * file's bytes, bss zeroed, each page with its segment's W and X) and a stack of stack_pages
 * below stack_top (a guard page under it); false, said, when memory or a mapping fails. */
bool arch_user_program_map(const struct elf_user_image *img, uint64_t stack_top,
			   uint64_t stack_pages);
/* Put the writable segments and the stack back as the file has them (before every run). */
void arch_user_program_reset(const struct elf_user_image *img, uint64_t stack_top,
			     uint64_t stack_pages);
/* Map [lo, lo + pages * 4 KiB) user read+write, not executable, zeroed (a Linux program's heap
 * and mmap arena); zero [lo, hi) of it again (before a run, what the last one used). */
bool arch_user_region_map(uint64_t lo, uint64_t pages);
void arch_user_region_zero(uint64_t lo, uint64_t hi);
/* A Linux program's pages in [lo, hi) that its memory calls changed, put back as
 * arch_user_program_map left them (arch/x86/user/linux_mm.c); before a run on the CPU that
 * runs it (its TLB flushed). */
void arch_user_linux_mm_restore(const struct elf_user_image *img, uint64_t lo, uint64_t hi);
/* Copy len bytes to the program's memory at va (mapped by the calls above; not during a run).
 * false when a page is not mapped. */
bool arch_user_copy_out(uint64_t va, const void *src, uint64_t len);

/* A Linux program's process start (arch/x86/user/linux_start.c): argv, envp, the auxiliary
 * vector, AT_RANDOM's bytes and the strings, laid out below stack_top as Linux lays them
 * (fs/binfmt_elf.c create_elf_tables, fs/exec.c); returns the RSP to enter with (pointing at
 * argc), or 0 when they do not fit in `room` bytes. */
struct linux_start {
	const struct elf_user_image *img;
	uint64_t stack_top, room;
	const char *const *argv, *const *envp;
	unsigned argc, envc;
	const char *execfn;
	uint8_t random[16]; /* AT_RANDOM's bytes (from program.seed) */
};
uint64_t arch_user_linux_start(const struct linux_start *s);
/* The name of Linux system call nr (x86-64), or NULL. */
const char *arch_linux_syscall_name(uint64_t nr);
/* Ring 3 at `entry` with RSP = stack_top and RDI = arg; returns the status the program gives
 * SYS_EXIT, or USER_STATUS_ENDED | ... when the kernel ended it (arch/x86/user/entry.S). */
uint64_t arch_user_enter(uint64_t entry, uint64_t stack_top, uint64_t arg);

/* A user program's run on one CPU (arch/x86/user/run.c). Statuses with bit 63 set are the
 * kernel's (include/baretrace/user.h: an exit status is below 2^63): a fault in ring 3 gives
 * USER_STATUS_ENDED | vector << 48 | the faulting RIP's low 48 bits (the same fault gives the
 * same status in the native and the traced run), the watchdog USER_STATUS_WATCHDOG. */
#define USER_STATUS_ENDED    (1ull << 63)
#define USER_STATUS_WATCHDOG (USER_STATUS_ENDED | (1ull << 62))
/* Every thread of a Linux program waited with none left to wake another (said, with where). */
#define USER_STATUS_DEADLOCK (USER_STATUS_ENDED | (1ull << 61))
enum user_end_kind { USER_END_EXIT, USER_END_FAULT, USER_END_WATCHDOG };
/* A file a Linux program may open: its absolute path ("/data/input.dat") and bytes. */
struct user_file {
	const char *path;
	const uint8_t *data;
	uint64_t size;
};
struct user_run_params {
	bool linux_abi;	       /* Linux's system calls (else include/baretrace/user.h's) */
	uint64_t watchdog_ms;  /* 0: no watchdog */
	bool roi_marks;	       /* capture only between BT_SYS_ROI_BEGIN and _END, or SSC marks */
	uint64_t roi_function; /* capture only inside the function at this entry (0: none) */
	/* the memory a system call's pointer may name: the program's segments and its stack */
	const struct elf_user_image *img;
	uint64_t stack_lo, stack_hi;
	/* Linux programs: brk's heap [heap_lo, heap_hi) and the mmap arena [mmap_lo, mmap_hi),
	 * mapped before (arch_user_region_map); getrandom's seed. */
	uint64_t heap_lo, heap_hi, mmap_lo, mmap_hi, seed;
	const struct user_file *files; /* what a Linux program may open, read-only */
	unsigned nfiles;
	const char *exe;   /* readlink("/proc/self/exe") */
	int stdin_file;	   /* index in files of what stdin reads (program.stdin), or -1: empty */
	char *out;	   /* where stdout and stderr go (NULL: a per-CPU 2 KiB buffer) */
	uint64_t out_room; /* its size */
};
#define USER_MM_AREAS	     4
#define USER_UNSUPPORTED_MAX 16 /* distinct unsupported system calls a run reports */
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
	/* Linux programs: the heap and mmap arena's used tops; the system calls answered
	 * -ENOSYS (number and times), how many of them in all. */
	uint64_t heap_used_hi, mmap_used_hi;
	unsigned unsupported_n;
	uint64_t unsupported_nr[USER_UNSUPPORTED_MAX], unsupported_count[USER_UNSUPPORTED_MAX];
	uint64_t unsupported_total;
	/* Linux programs: the pages their mmap/munmap/mprotect/madvise changed, [mm_lo, mm_hi)
	 * in each of its areas (segments, stack, heap, mmap arena; put back before the next run);
	 * MAP_FIXED refused outside the premapped memory (how often, the first address). */
	uint64_t mm_lo[USER_MM_AREAS], mm_hi[USER_MM_AREAS];
	uint64_t fixed_refused, fixed_refused_at;
};
/* Before each run on this CPU (not stepped, not traced): output cleared, watchdog armed. */
void arch_user_run_begin(const struct user_run_params *p);
/* After it, on its CPU: what the program wrote to stdout and stderr and the kernel has not taken
 * yet, as log lines through print ("program-output cpu=N: ..." and "program-stderr cpu=N:
 * ...") and OUTPUT frames when the session streams; bytes that could not be delivered said
 * ("incomplete: ..."). print NULL (the native reference run): dropped. */
void arch_user_output(workload_print_fn print);
/* After it: watchdog disarmed, how the run ended and what it wrote (valid until the next
 * arch_user_run_begin on this CPU). */
void arch_user_run_end(struct user_run_end *e);

#endif
