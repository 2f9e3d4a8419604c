/* SPDX-License-Identifier: MIT */
/*
 * The kernel's options: from the config file on the boot volume, then the UEFI load options,
 * parsed once into typed values (enums, sets, ordered lists of names; no strings) and checked
 * once. Pure: the same code runs in the kernel and in the host's option checker
 * (scripts/check-options.c, used by scripts/mkimage).
 */
#ifndef KERNEL_OPTIONS_H
#define KERNEL_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/arch_trace.h"
#include "kernel/boot_info.h"
#include "lib/config.h"

enum memmap_detail { MEMMAP_SUMMARY, MEMMAP_FULL };
/* Option pmi: the LVT performance-monitoring entry's delivery mode (SDM Vol. 3A 10.5.1, LVT;
 * Linux's perf programs APIC_DM_NMI: arch/x86/events/core.c, perf_events_lapic_init). NMI is
 * the default: no kernel path can hold it off with IF=0. */
enum pmi_delivery { PMI_VECTOR, PMI_NMI };
enum bench_kind { BENCH_NONE, BENCH_ISR, BENCH_CONSOLE };

#define PROGRAM_WORDS_MAX   512	 /* bytes of option program.argv or program.env */
#define PROGRAM_WORDS_COUNT 64	 /* words of program.argv or program.env (lib/shell_words.h) */
#define PROGRAM_ROI_MAX	    128	 /* bytes of option program.roi */
#define PROGRAM_BASE_ALIGN  4096 /* option program.base: a page */

struct kernel_options {
	uint64_t serial;				    /* enum console_source */
	uint64_t serial_port;				    /* 0: none named */
	uint64_t serial_mmio;				    /* 0: none named */
	uint64_t serial_stride, serial_width, serial_clock; /* 0: as the UART's source says */
	uint64_t serial_baud;	/* 0: what the console's source says, else 115200 */
	uint64_t serial_flow;	/* 1: RTS/CTS */
	uint64_t screen;	/* 1: the log on the GOP framebuffer too, when there is one */
	uint64_t screen_hold_s; /* seconds before an exit or reset while the screen shows */
	uint64_t ss_skip;  /* test build only (test.ss.skip): every Nth trap left out; 0 = off */
	uint64_t ss_block; /* the engine runs straight-line code at full speed (1) or steps all */
	uint64_t ss_xlate; /* ring 3 code runs translated (1) or per block (0) */
	uint64_t ss_xlate_map; /* 1: xlate-map lines after each stepped session */
	uint64_t ss_stats;     /* 1: an ss-stats line after each stepped session */
	uint64_t exit_mode;    /* enum exit_mode */
	uint64_t fault;	       /* enum fault_kind */
	uint64_t memmap;       /* enum memmap_detail */
	uint64_t help;
	uint64_t report;	  /* a paste-able hardware report at the end (kernel/report.c) */
	uint64_t pmi;		  /* enum pmi_delivery */
	uint64_t bench;		  /* enum bench_kind */
	struct cfg_list selftest; /* selftest_name()'s indexes */
	struct cfg_list ss;	  /* workloads to single-step: workload_name()'s indexes */
	struct cfg_list trace;	  /* enum trace_facility, in the order given */
	struct cfg_list spmu;	  /* arch_spmu_name()'s indexes; empty: the hardware only */
	struct cfg_list workload; /* workloads the trace sessions run */
	struct trace_options tr;  /* how the trace sessions run */
	char program[BOOT_PROGRAM_PATH_MAX];	   /* the user program (read by the loader) */
	uint64_t program_arg;			   /* its RDI at entry */
	char program_roi[PROGRAM_ROI_MAX];	   /* whole, marks or function:NAME */
	uint64_t program_base;			   /* a static PIE's load address; 0: the default */
	char program_stdin[BOOT_PROGRAM_PATH_MAX]; /* a data file stdin reads; "": empty */
	uint64_t program_watchdog_ms;		   /* a run's time budget; 0: none */
	uint64_t program_output_kib;		   /* its output ring's size */
	char program_argv[PROGRAM_WORDS_MAX];	   /* a Linux program's argv, shell words */
	char program_env[PROGRAM_WORDS_MAX];	   /* its environment, shell words */
	uint64_t program_seed;			   /* AT_RANDOM's bytes and getrandom's */
	/* the library's parameters (0: the workload's default) */
	uint64_t wl_switch_n, wl_recursion_depth, wl_sort_n, wl_hash_n, wl_chase_nodes;
	uint64_t wl_qsort_n, wl_crc32_n, wl_interp_n; /* the compiled-C workloads' (0: default) */
	uint64_t wl_memory_n;			      /* workload memory's hops (0: default) */
};

/* Option program.roi: capture the whole run, only between the program's marks (its own system
 * calls, Intel SDE's SSC marks), or only inside a function (function:NAME, from the ELF's
 * symbol table). options_program_roi: which, and NAME in *fn for PROGRAM_ROI_FUNCTION. */
enum program_roi { PROGRAM_ROI_WHOLE, PROGRAM_ROI_MARKS, PROGRAM_ROI_FUNCTION, PROGRAM_ROI_BAD };
#define PROGRAM_ROI_FUNCTION_PREFIX "function:"
enum program_roi options_program_roi(const struct kernel_options *o, const char **fn);
/* Option program.output: the ring of a run's output, in KiB. One CPU alone (nobody drains it
 * while the program runs) delivers this much of a run's output whole. */
#define PROGRAM_OUTPUT_DEFAULT_KIB  16384
#define PROGRAM_OUTPUT_MIN_KIB	    64
#define PROGRAM_OUTPUT_MAX_KIB	    262144
#define DEFAULT_PROGRAM_WATCHDOG_MS 0 /* none: a program that runs is never stopped by default */

void options_defaults(struct kernel_options *o);
/* Whether the boot has no config file (or one of comments only) and no load options: then the
 * kernel runs the default session (options_default_session), the hardware report a person
 * with a stick wants. */
bool options_none_given(const struct boot_info *bi);
/* The default session: every facility, over the workload library (the workloads with a branch
 * signature, but a test's fixtures: workload.not_default), on all CPUs at once, self-checked;
 * the software PMU ('skylake') where a CPU lacks a facility, said so by each session. */
void options_default_session(struct kernel_options *o);
/*
 * Parse the config file text, then the load options (later wins), and check the values
 * against each other. On error returns false with one message naming the problem and what is
 * accepted in err. Warnings (a key given twice in one input) go to warn(ctx, line) when warn
 * is not NULL. Pure: host-tested, and the host's option checker runs it.
 */
bool options_parse(const struct boot_info *bi, struct kernel_options *o, char *err, size_t size,
		   void (*warn)(void *ctx, const char *line), void *warn_ctx);
/* The accepted options, one per line, for `help` and error messages, of any length. */
void options_describe(void (*put)(void *ctx, const char *s, size_t n), void *ctx);
/* A facility's option name ("bts", ...). */
const char *options_facility_name(enum trace_facility f);

#endif
