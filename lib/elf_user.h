/* SPDX-License-Identifier: MIT */
/*
 * A user program's ELF file, checked before anything of it is mapped: a statically linked
 * x86-64 ET_EXEC, or a static PIE (ET_DYN placed at the window's start, R_X86_64_RELATIVE
 * relocations only), whose PT_LOAD segments lie in the user window the kernel offers, do not
 * overlap (page-granular: each page gets one set of permissions), fit the memory budget, and
 * whose entry point is in an executable segment. Every refusal names the problem and what is
 * accepted. Pure and freestanding (loader, kernel and host tests).
 */
#ifndef LIB_ELF_USER_H
#define LIB_ELF_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/elf.h"

#define ELF_USER_MAX_SEGMENTS 16
#define ELF_USER_PAGE	      4096ull

struct elf_user_segment {
	uint64_t vaddr, memsz;	 /* as the file says */
	uint64_t offset, filesz; /* file bytes to copy; the rest of memsz is zero */
	bool write, exec;
};

/* Elf64_Rela (System V ABI "Relocation"). */
struct elf_user_rela {
	uint64_t offset, info;
	int64_t addend;
};
_Static_assert(sizeof(struct elf_user_rela) == 24, "Elf64_Rela layout");

/* The system calls and process start a program gets (docs/programs.md "Trace your own program"). */
enum elf_user_abi {
	ELF_USER_ABI_BARETRACE, /* include/baretrace/user.h: its note, or linked in its window */
	ELF_USER_ABI_LINUX,	/* everything else: an unmodified static Linux program */
};
#define ELF_USER_NOTE_NAME "baretrace" /* include/baretrace/user.h's ABI note */
#define ELF_USER_NOTE_ABI  0x42540001u /* BT_NOTE_ABI */

/* Where each ABI's programs may lie, and the memory budget. */
struct elf_user_limits {
	uint64_t bt_lo, bt_hi;	     /* baretrace's window; its PIEs are placed at bt_lo */
	uint64_t linux_lo, linux_hi; /* Linux programs: the lower half the kernel gives them */
	uint64_t linux_pie_base;     /* where a Linux static PIE is placed */
	uint64_t max_pages;
};

struct elf_user_image {
	struct elf_image elf;
	enum elf_user_abi abi;
	uint64_t bias;	/* a PIE's load address (its segments' addresses count from 0); 0 */
	uint64_t entry; /* with the bias */
	uint64_t rela_off, rela_count; /* a PIE's R_X86_64_RELATIVE relocations in the file */
	unsigned n;
	struct elf_user_segment seg[ELF_USER_MAX_SEGMENTS];
	uint64_t lo, hi; /* the pages the segments cover: [lo, hi), page-aligned */
	uint64_t pages;	 /* pages to allocate */
};

/*
 * Check data[0..size) as a user program: its ABI first (the note, else an ET_EXEC inside
 * baretrace's window, else Linux), then its segments against that ABI's window and the
 * budget. A baretrace PIE's R_X86_64_RELATIVE relocations are applied by the kernel; a Linux
 * static PIE relocates itself (its start code, as under Linux), so only PT_INTERP and
 * DT_NEEDED (dynamically linked) are refused there. true and *out on success; false with the
 * reason in why[0..why_size).
 */
bool elf_user_check(const void *data, uint64_t size, const struct elf_user_limits *lim,
		    struct elf_user_image *out, char *why, size_t why_size);
/* A PIE's relocations: write(ctx, address, value) for each, B + A (after the segments are
 * filled; checked by elf_user_check to land inside them). */
void elf_user_relocate(const struct elf_user_image *img,
		       void (*write)(void *ctx, uint64_t va, uint64_t value), void *ctx);

#endif
