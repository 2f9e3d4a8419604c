/* SPDX-License-Identifier: MIT */
/*
 * btdecode's parts: the stream reader (btdecode.c: lines, frames, CRCs, sessions, digests), the
 * views it feeds (bt_views.c: text, json, perf, raw, stats; bt_calls.c: folded stacks and
 * Chrome trace events rebuilt from the branches) and the symbols (bt_symbols.c: elfutils).
 * The reader gives a view only what it decoded from an intact frame of an open session.
 */
#ifndef TOOLS_BTDECODE_H
#define TOOLS_BTDECODE_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "lib/stream.h"
#include "lib/x86_decode.h"

/* The session a record belongs to, as the reader knows it. */
struct bt_session {
	unsigned cpu;
	uint32_t number; /* its BEGIN's frame number */
	const char *facility, *name;
	uint32_t tid;	  /* the Linux thread it traced (bt_session_tid: 1 without " tid=") */
	uint64_t records; /* records so far (the next record's index) */
	/* The current record's TSC (a stream of format version 2: timed): a sample's own when it
	 * has one; else estimated between its batch's TSC and the one before (the session's
	 * BEGIN's for the first), by its place in the batch, as perf's Intel PT decoder
	 * estimates between timing packets; BEGIN's and END's their frames'. */
	bool timed;
	uint64_t tsc;
};
/* A TSC as ns, from the capture's HEADER "tsc-khz=": false when the capture has no rate. */
bool bt_tsc_ns(uint64_t tsc, uint64_t *ns);
/* The capture's HEADER "tsc-khz=" (0: none), as the reader read it for bt_tsc_ns. */
uint64_t bt_tsc_khz(void);

/* Whether a session ran on the software PMU: the kernel names it WORKLOAD@PERSONALITY
 * (arch/x86/session/runner.c), WORKLOAD@hardware on silicon. */
bool bt_session_modelled(const struct bt_session *s);

/* The Linux thread id a session traced, from its name: a program's thread runs on a CPU of its
 * own, traced by that CPU's session, and the kernel appends " tid=N" (decimal; the main thread
 * is tid 1, which is also the pid) to the session's name, "WORKLOAD@PERSONALITY cpu=C tid=N".
 * A name without " tid=" (a capture from before threads, or no program) is tid 1, as is one
 * whose " tid=" is not followed by a decimal 1..INT32_MAX (Linux's pid_t) and a space or the
 * name's end. The one parser: the reader fills struct bt_session's tid with it. */
uint32_t bt_session_tid(const char *name);

/* How a session ended: END's fields and the reader's verdict ("ok", "incomplete", ...). */
struct bt_session_end {
	uint64_t records, lost;
	const char *verdict, *why;
};

/* A view: each hook may be NULL. */
struct bt_view {
	const char *name;
	const char *about;   /* one line for the usage text */
	bool symbols;	     /* it names functions: the kernel's ELF is looked for by default */
	bool binary;	     /* it writes bytes, not text: never to a terminal */
	void (*start)(void); /* a capture begins: forget the last one */
	void (*header)(unsigned cpu, const char *const *pairs, unsigned n);
	void (*begin)(const struct bt_session *s);
	void (*bts)(const struct bt_session *s, const struct bt_bts *r);
	void (*lbr)(const struct bt_session *s, const struct bt_lbr *e);
	void (*pebs)(const struct bt_session *s, const struct bt_pebs *p);
	void (*sample)(const struct bt_session *s, const struct bt_sample *x);
	void (*end)(const struct bt_session *s, const struct bt_session_end *e);
	/* a user program's output, in order, each byte once (a gap was said as a problem) */
	void (*output)(const struct bt_session *s, const struct bt_output *o);
	void (*frame)(const struct bt_frame *f, uint64_t line); /* every intact frame */
	void (*finish)(void);
};

extern FILE *out_records, *out_problems; /* stdout and stderr (the fuzzer: /dev/null) */
extern uint64_t bt_record_wire_bytes;	 /* of the record frames' lines (BTS, PATH, LBR) */

/* The views, NULL-terminated (bt_views.c, bt_calls.c, bt_perfdata.c, bt_html.c). */
extern const struct bt_view bt_view_text, bt_view_verify, bt_view_stats, bt_view_json, bt_view_perf,
    bt_view_raw, bt_view_folded, bt_view_trace, bt_view_perfdata, bt_view_afdo, bt_view_llvm_prof,
    bt_view_output, bt_view_html;
/* --stream stdout|stderr|both: what the output view gives back (bt_output.c); 0 or -1 (said). */
int bt_output_streams(const char *which);
const struct bt_view *bt_view_find(const char *name);
/* --diff OLD (bt_diff.c): the tally view both captures are decoded with, which side it counts
 * (0: OLD, 1: NEW), and the two tables printed. */
extern const struct bt_view bt_view_diff_tally;
void bt_diff_side(int which);
void bt_diff_print(const char *old_name, const char *new_name);
/* --callchains: whether --view perf.data gives its samples call chains (default true). */
extern bool bt_perf_callchains;
extern const struct bt_view *const bt_views[];

/* The progress line on a terminal (bt_progress.c): from the start of a decode of `in` (allowed:
 * the view lets stderr carry it), after each chunk, and cleared before a message. */
void bt_progress_start(FILE *in, bool allowed);
void bt_progress_update(uint64_t bytes, uint64_t records);
void bt_progress_clear(void);

/* A JSON string of s, quotes and escapes included, to out_records (bt_views.c). */
void bt_json_str(const char *s);
/* The text view names each address (--elf or --program given). */
void bt_text_symbols(bool on);

/* ---- symbols (bt_symbols.c) ------------------------------------------------------------- */

/* Where an address is: in which ELF, which function and line. Strings live as long as the
 * symbol tables; func NULL when no symbol covers the address, file NULL without line data. */
struct bt_sym {
	const char *module, *func, *file;
	uint64_t offset; /* from func's start */
	int line;
};

/* The kernel's ELF (--elf): checked against the capture's build-id when its HEADER comes;
 * `must` false for the default one (used only if its build id matches). 0, or -1 with a
 * message on stderr. */
int bt_sym_kernel(const char *path, bool must);
/* A user program's ELF (--program FILE[@BIAS]): has_bias false takes the capture's
 * program-bias (else 0). 0 or -1. */
int bt_sym_program(const char *path, bool has_bias, uint64_t bias);
/* Where a program's ELF is looked for by the build id its capture names, when no --program
 * is given: the capture's folder, then --debug-dir (each: a .build-id/ tree, then its files). */
void bt_sym_search(const char *log_dir, const char *debug_dir);
/* A HEADER pair: build ids and the program's bias are checked and taken here. */
void bt_sym_header_pair(const char *pair);
bool bt_sym_lookup(uint64_t addr, struct bt_sym *out);
/* "func+0xOFF" (or "0xADDR"), into buf. */
const char *bt_sym_name(uint64_t addr, char *buf, size_t size);
/* The kind of branch the instruction at addr can make, decoded from the ELF's bytes; -1 when
 * no ELF holds code there (or it does not decode). */
int bt_sym_branch_kind(uint64_t addr);
/* Code for a PATH frame's walk (lib/stream_path.h's bt_code_fn): up to 15 bytes at addr from
 * an executable segment of an ELF in use, 0 where none has code. */
size_t bt_sym_code(void *ctx, uint64_t addr, uint8_t *buf);
/* The straight line the code runs from `to` (a branch's target) up to, not including, `from`
 * (the next branch taken): each instruction's address into at[] and whether it is a
 * conditional branch (not taken, then) into cond[]; how many, or -1 when no ELF has the code,
 * it does not decode, another branch lies on the way, or it is longer than max instructions. */
int bt_sym_straight(uint64_t to, uint64_t from, uint64_t *at, bool *cond, unsigned max);
/* Changes whenever the code bt_sym_code gives may have changed (a header naming other ELFs). */
unsigned bt_sym_generation(void);
/* The fuzzer's code: n bytes at base, walked before any ELF's (NULL: none). */
void bt_sym_test_code(uint64_t base, const uint8_t *bytes, size_t n);
/* The modules in use, for perf's mmap events: fn(path, start, len, pgoff, bias) per executable
 * PT_LOAD segment. */
void bt_sym_for_each_exec(void (*fn)(const char *path, uint64_t start, uint64_t len, uint64_t pgoff,
				     uint64_t bias));
/* An executable PT_LOAD segment of an ELF in use, at its run address. */
struct bt_exec {
	const char *path, *build_id; /* build_id in hex, "" if it has none */
	bool is_kernel;
	uint64_t start, len, pgoff, bias;
};
/* fn(ctx, segment) for each, the ELFs in the order they were given (the kernel's first). */
void bt_sym_for_each_segment(void (*fn)(void *ctx, const struct bt_exec *x), void *ctx);
/* The functions inlined at addr, innermost first (libdw's scopes: DW_TAG_inlined_subroutine),
 * as addr2line -i lists them before the function itself: how many, at most max. */
unsigned bt_sym_inlines(uint64_t addr, const char **names, unsigned max);
/* The frames at addr as `eu-addr2line -i -f` prints them, innermost first: each function (an
 * inlined subroutine's, then the function's own) with its place (the address's line, then the
 * call site of the one inside): how many (at most max), 0 when nothing is inlined there. */
struct bt_inline_frame {
	const char *func, *file; /* file NULL when unknown */
	int line;
};
unsigned bt_sym_inline_frames(uint64_t addr, struct bt_inline_frame *out, unsigned max);
/* The source stack at addr as gcc's AutoFDO reader keys its counts (gcc/auto-profile.cc
 * get_inline_stack), innermost first: each function's name as gcc names it (linkage name, else
 * name; not demangled), its DW_AT_decl_line, and the place inside it (the address's line and
 * discriminator for the innermost, the call site of the one inside for the others): how many
 * (at most max), 0 when the address has no line or the stack does not reach its function. */
struct bt_src_frame {
	const char *name;
	int decl_line, line;
	unsigned discr;	     /* as DWARF has it: gcc's own */
	unsigned base_discr; /* LLVM's base discriminator of it (clang's units), else discr */
};
unsigned bt_sym_source_stack(uint64_t addr, struct bt_src_frame *out, unsigned max);
/* The DWARF version of an ELF's first unit when it has a line table, 0 when it has none, -1
 * when it cannot be read. */
int bt_sym_dwarf_version(const char *path);
/* The ELF files given (--elf, --program, the default kernel.elf), as paths: how many, at most
 * max. */
unsigned bt_sym_files(const char **paths, unsigned max);
void bt_sym_reset(void);

/* A kind as the views name it: x86_branch_name's, "async" for an interrupt or exception (a FROM
 * that cannot branch), "unknown" for -1. */
const char *bt_kind_name(int kind);
/* The branch kind of a record: from the ELF, else from an Arch LBR BR_TYPE (br_type >= 0),
 * else -1. An instruction that cannot branch (X86_BR_NONE) means an interrupt or exception
 * was delivered there. */
int bt_record_kind(uint64_t from, int br_type);
/* Whether a record of that kind enters a function (a call, INT, SYSCALL, SYSENTER, or an
 * interrupt or exception delivered: X86_BR_NONE) or leaves one (a return of any kind); the
 * rules of the call-stack views (bt_calls.c). */
bool bt_kind_is_call(int kind);
bool bt_kind_is_return(int kind);

#endif
