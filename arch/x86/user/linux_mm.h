/* SPDX-License-Identifier: MIT */
/*
 * A Linux program's memory calls with real effect on its page tables (linux_mm.c): mmap
 * (MAP_FIXED, MAP_FIXED_NOREPLACE, each mapping's protection), munmap, mprotect, madvise
 * (MADV_DONTNEED), and the page checks every system call's pointer passes.
 */
#ifndef ARCH_X86_USER_LINUX_MM_H
#define ARCH_X86_USER_LINUX_MM_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/user/run.h"

/* Every page of [p, p + n) present and user (and writable when write): a system call may
 * touch it without faulting. n == 0 is always fine. */
bool linux_pages_ok(uint64_t p, uint64_t n, bool write);
/* The calls (arguments as Linux's, results as Linux's: an address, 0 or -errno). */
uint64_t linux_mmap(struct user_run *u, const uint64_t *a);
uint64_t linux_munmap(struct user_run *u, uint64_t addr, uint64_t len);
uint64_t linux_mprotect(struct user_run *u, uint64_t addr, uint64_t len, uint64_t prot);
uint64_t linux_madvise(struct user_run *u, uint64_t addr, uint64_t len, uint64_t advice);
#endif
