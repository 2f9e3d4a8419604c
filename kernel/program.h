/* SPDX-License-Identifier: MIT */
/*
 * The user program (option `program`): the file the loader read from the boot volume
 * (boot_info.program_*), checked before anything of it is mapped (lib/elf_user.c). Programs are
 * linked into the user window [PROGRAM_WINDOW_LO, PROGRAM_WINDOW_HI): below the ring 3 pages
 * of the built-in workloads (0x7f0000000000) and far above the kernel's identity map.
 */
#ifndef KERNEL_PROGRAM_H
#define KERNEL_PROGRAM_H

#include <stdbool.h>
#include "kernel/arch_cpu.h"
#include "kernel/arch_workloads.h"
#include "kernel/boot_info.h"
#include "lib/elf_user.h"

#define PROGRAM_WINDOW_LO    0x00007e0000000000ull /* segments: [LO, HI) */
#define PROGRAM_WINDOW_HI    0x00007e8000000000ull
#define PROGRAM_STACK_TOP    0x00007eff00000000ull /* the stack: pages below it */
#define PROGRAM_STACK_PAGES  16
#define PROGRAM_BUDGET_PAGES (64ull << 20 >> 12) /* 64 MiB of segments */
/*
 * A Linux program (docs/programs.md "Trace your own program") has the lower half, where the kernel
 * keeps nothing (its direct map and image are in the upper half, kernel/boot_info.h):
 * segments anywhere in [PROGRAM_LINUX_LO, PROGRAM_LINUX_HI) (the first 64 KiB stay unmapped,
 * Linux's default vm.mmap_min_addr; above HI are the built-in ring 3 workloads' pages and the
 * arenas below), a static PIE at PROGRAM_LINUX_PIE_BASE (Linux's ELF_ET_DYN_BASE without
 * address randomisation), brk's heap right after its last segment (as Linux puts it without
 * randomisation), an mmap arena and an 8 MiB stack (Linux's default RLIMIT_STACK) ending at
 * Linux's stack top. Heap and arena are mapped before the run: a system call never maps.
 */
#define PROGRAM_LINUX_LO	  0x0000000000010000ull
#define PROGRAM_LINUX_HI	  0x00007f0000000000ull
#define PROGRAM_LINUX_PIE_BASE	  0x0000555555554000ull
#define PROGRAM_LINUX_HEAP	  (64ull << 20) /* bytes brk may grow */
#define PROGRAM_LINUX_MMAP_LO	  0x00007f1000000000ull
#define PROGRAM_LINUX_MMAP	  (128ull << 20) /* bytes of the mmap arena */
#define PROGRAM_LINUX_STACK_TOP	  0x00007ffffffff000ull
#define PROGRAM_LINUX_STACK_PAGES (8ull << 20 >> 12)
#define PROGRAM_LINUX_SLACK_PAGES 4096 /* 16 MiB left for the boot's own needs besides it */

/* RUN_PASS when there is no program or it is acceptable (then *img describes it and *present
 * is true); otherwise the refusal has been printed ("error: program ...: why; accepted: ...")
 * and the result is RUN_BAD_CONFIG. */
struct kernel_options;
enum run_status program_check(const struct boot_info *bi, const struct kernel_options *o,
			      struct elf_user_image *img, bool *present);
/* Map the checked program into the user window: it becomes workload "program", run with the
 * options' program.arg, program.roi and program.watchdog. */
struct kernel_options;
bool program_load(const struct elf_user_image *img, const struct kernel_options *o);
/* Workload "program": before each run, put its data and stack back and arm its watchdog; the
 * run is ring 3 at its entry; the result is its exit status (SYS_EXIT) or the kernel's
 * USER_STATUS_* when a fault or the watchdog ended it; after it, program_done prints what it
 * wrote and how it ended. */
void program_reset(void);
uint64_t program_workload(uint64_t arg);
void program_done(workload_print_fn print);
/* The record stream's HEADER pairs for the program: "program=PATH", "program-build-id=HEX"
 * (when it has one) and "program-bias=0x..." (0 unless a PIE was placed), written into
 * pair[0..2] (each PROGRAM_PAIR_MAX bytes); their count, 0 without a program. */
#define PROGRAM_PAIR_MAX 160
unsigned program_stream_pairs(char (*pair)[PROGRAM_PAIR_MAX]);
/* Up to 15 bytes of the program's code at addr, from its ELF file (as a decoder on the host
 * reads it) where addr is in an executable segment: their count, else 0 (a bt_code_fn's
 * answer, lib/stream_path.h). */
size_t program_code_at(uint64_t addr, uint8_t *buf);
/* A Linux program's parts (kernel/program_linux.c): its heap, mmap arena, output buffer and
 * process start (argv and environment from the options); before each run, the memory the
 * last run used zeroed and the start laid out again, the RSP to enter with returned (0: it
 * did not fit); after it, the system calls it was refused. */
struct user_run_params;
struct user_run_end;
bool program_linux_load(const struct elf_user_image *img, const struct kernel_options *o,
			const char *path, struct user_run_params *p);
uint64_t program_linux_reset(const struct elf_user_image *img, struct user_run_params *p);
/* Before each run: the pages the last run's mmap/munmap/mprotect/madvise changed, put back. */
void program_linux_restore(const struct elf_user_image *img);
/* The options that concern a checked program (program.base, program.stdin, program.roi's
 * function, memory for it all): false with the reason and what is accepted in why. */
bool program_linux_check(const struct boot_info *bi, const struct kernel_options *o,
			 const struct elf_user_image *img, char *why, size_t size);
void program_linux_done(workload_print_fn print, const struct user_run_end *e);

/* Whether a traced run of the program faulted or was stopped by the watchdog (the boot then
 * ends with status 2, bad input). */
bool program_ended_badly(void);
/* The program's run went wrong for a reason of its own that the session said (a deadlock of its
 * threads, more threads than CPUs): the boot ends with status 2, as after a fault. */
void program_mark_bad(void);
/* Whether the loaded program is a Linux one (its threads may run on the other CPUs). */
bool program_linux_loaded(void);

#endif
