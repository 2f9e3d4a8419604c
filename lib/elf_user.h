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

struct elf_user_image {
	struct elf_image elf;
	uint64_t bias;	/* a PIE's load address (its segments' addresses count from 0); 0 */
	uint64_t entry; /* with the bias */
	uint64_t rela_off, rela_count; /* a PIE's R_X86_64_RELATIVE relocations in the file */
	unsigned n;
	struct elf_user_segment seg[ELF_USER_MAX_SEGMENTS];
	uint64_t lo, hi; /* the pages the segments cover: [lo, hi), page-aligned */
	uint64_t pages;	 /* pages to allocate */
};

/*
 * Check data[0..size) as a user program for the window [window_lo, window_hi) and a budget of
 * max_pages pages. true and *out on success; false with the reason in why[0..why_size).
 */
bool elf_user_check(const void *data, uint64_t size, uint64_t window_lo, uint64_t window_hi,
		    uint64_t max_pages, struct elf_user_image *out, char *why, size_t why_size);
/* A PIE's relocations: write(ctx, address, value) for each, B + A (after the segments are
 * filled; checked by elf_user_check to land inside them). */
void elf_user_relocate(const struct elf_user_image *img,
		       void (*write)(void *ctx, uint64_t va, uint64_t value), void *ctx);

#endif
