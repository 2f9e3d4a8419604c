/* SPDX-License-Identifier: MIT */
/*
 * The door for workloads: what a workload is (struct workload, its branch signature) and the
 * table of them the architecture exports (arch/x86/workloads/table.c). kernel/workloads.c adds
 * the workloads written in generic C and walks both.
 */
#ifndef KERNEL_ARCH_WORKLOADS_H
#define KERNEL_ARCH_WORKLOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Code that runs as part of a workload (stepped, traced, logged by QEMU's oracle over
 * linker.ld's .text.workload range): the workloads and the system calls of user programs. */
#define WORKLOAD_SECTION __attribute__((section(".text.workload"), noinline, used))
/* A workload's code that writes no code (compiled C): ring 0 code the single-step engine may
 * run translated (option ss.xlate, arch/x86/step/xlate.c), inside the workload range. */
#define WORKLOAD_XLATE_SECTION __attribute__((section(".text.workload.xlate"), noinline, used))

/* How a workload (or the hardware report) says something: printf-like. */
typedef void (*workload_print_fn)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A workload's branch signature, worked out from its source (the assembly workloads in
 * arch/x86/workloads/library.c from the counting comments of library.S): per class, the taken
 * branches whose FROM lies in [code_lo, code_hi) (or the second stretch), and the instructions
 * one run retires. Sessions check their captures against it.
 */
enum wl_class { WL_COND, WL_JMP, WL_IND_JMP, WL_CALL, WL_IND_CALL, WL_RET, WL_FAR, WL_CLASSES };
struct workload_signature {
	uint64_t taken[WL_CLASSES];
	uint64_t instructions;
	uint64_t code_lo, code_hi;
	uint64_t code2_lo, code2_hi; /* a second stretch of code (ring 3's page), or 0, 0 */
};
/* A signature with nothing counted yet, about the code [lo, hi). */
static inline struct workload_signature workload_signature_of(const void *lo, const void *hi)
{
	return (struct workload_signature){.code_lo = (uint64_t)lo, .code_hi = (uint64_t)hi};
}
#define WL_SORT_MAX  256  /* values workload "sort" sorts at most */
#define WL_CHASE_MAX 8192 /* nodes (64 bytes each) "chase" walks at most; a power of two */

struct workload {
	const char *name;
	const char *what;
	uint64_t (*fn)(uint64_t arg);
	uint64_t arg;
	uint64_t expect;     /* fn(arg)'s result, checked after every run */
	bool bench;	     /* long-running: left out of "all"; traced without keeping records */
	void (*reset)(void); /* run (not traced) before each run, or NULL */
	bool concurrent;     /* may run on several CPUs at once (no shared single slot) */
	bool threads;	     /* a Linux program: its threads run on other CPUs (hosts) */
	bool explicit_only;  /* left out of "all": runs only when named */
	bool expect_native;  /* the expected result is that of a native run just before, on the
			      * same CPU (the user program's exit status); `expect` is unused */
	/* run (not traced) after each run, or NULL: says how it ended with print (NULL: quiet) */
	void (*done)(workload_print_fn print);
	uint64_t (*expect_of)(uint64_t arg); /* the expected result, when not a constant */
	/* the branch signature for an argument, or NULL */
	void (*signature)(uint64_t arg, struct workload_signature *s);
	/* left out of the default session, signature or not: an oracle test's fixture (the
	 * workloads of code that changes under per-block stepping, tests/qemu/smcblock.t), run only
	 * when named */
	bool not_default;
};

/* A workload's code, in a table of workloads. Host builds (BT_HOST: build/check-options,
 * tests/unit/test_options.c) know workloads by their names and flags only: there every code
 * pointer is NULL, and nothing of the kernel's or the architecture's code is linked. */
#ifdef BT_HOST
#define WORKLOAD_CODE(f) NULL
#else
#define WORKLOAD_CODE(f) (f)
#endif

/* The architecture's workloads, in the order options `workload` and `ss` list them. */
extern const struct workload arch_workloads[];
extern const size_t arch_workloads_count;

#endif
