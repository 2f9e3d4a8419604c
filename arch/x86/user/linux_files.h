/* SPDX-License-Identifier: MIT */
/* A Linux program's files and descriptors (linux_files.c), for linux.c's system calls. */
#ifndef ARCH_X86_USER_LINUX_FILES_H
#define ARCH_X86_USER_LINUX_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/user/run.h"

/* n bytes from src to the program's memory at dst (checked by the caller). */
void linux_copy_out(uint64_t dst, const void *src, uint64_t n);
uint64_t linux_openat(struct user_run *u, uint64_t path, uint64_t flags);
uint64_t linux_close(struct user_run *u, uint64_t fd);
/* read (at false) or pread64 (at true, from off). */
uint64_t linux_read(struct user_run *u, uint64_t fd, uint64_t buf, uint64_t len, bool at,
		    uint64_t off);
uint64_t linux_lseek(struct user_run *u, uint64_t fd, int64_t off, uint64_t how);
bool linux_fd_size(struct user_run *u, uint64_t fd, int64_t *size);
uint64_t linux_path_size(struct user_run *u, uint64_t path, int64_t *size);
uint64_t linux_access(struct user_run *u, uint64_t path, uint64_t mode);
uint64_t linux_readlink(struct user_run *u, uint64_t path, uint64_t buf, uint64_t len);
uint64_t linux_map_file(struct user_run *u, uint64_t at, uint64_t len, uint64_t fd, uint64_t off);

#endif
