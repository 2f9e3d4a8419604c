/* SPDX-License-Identifier: MIT */
/* A Linux program's files and descriptors (linux_files.c), for linux.c's system calls. */
#ifndef ARCH_X86_USER_LINUX_FILES_H
#define ARCH_X86_USER_LINUX_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/user/run.h"

/* What an open file description is (struct user_ofd.kind). */
enum linux_ofd_kind {
	LINUX_OFD_EMPTY,  /* stdin without program.stdin: an empty pipe */
	LINUX_OFD_OUTPUT, /* stdout or stderr (file: LINUX_STDOUT or LINUX_STDERR), a pipe */
	LINUX_OFD_FILE,	  /* a data file (file: its index), read-only */
	LINUX_OFD_DIR,	  /* a directory (file: LINUX_DIR_*) */
};
#define LINUX_STDOUT   1 /* the output streams: the descriptors a run starts with */
#define LINUX_STDERR   2
#define LINUX_DIR_ROOT 0      /* "/", holding "data" */
#define LINUX_DIR_DATA 1      /* "/data", holding the data files */
#define LINUX_DATA_DIR "data" /* its name in "/" */

/* What a descriptor or a path names: a kind and the file's index or the directory. */
struct linux_node {
	uint8_t kind;
	int index;
};

/* The program's 8 bytes at src (checked by the caller). */
uint64_t linux_get_u64(uint64_t src);
/* The program's [p, p + n) the kernel may write (writable) or read (readable) without a
 * fault; an empty range always. */
bool linux_writable(const struct user_run *u, uint64_t p, uint64_t n);
bool linux_readable(const struct user_run *u, uint64_t p, uint64_t n);
/* n bytes from src to the program's memory at dst (checked by the caller). */
void linux_copy_out(uint64_t dst, const void *src, uint64_t n);
/* Descriptors 0, 1 and 2 as a run starts (stdin from u->stdin_file when it is not -1). */
void linux_fds_init(struct user_run *u);
struct user_ofd *linux_ofd(struct user_run *u, uint64_t fd);
uint64_t linux_openat(struct user_run *u, uint64_t path, uint64_t flags);
uint64_t linux_close(struct user_run *u, uint64_t fd);
/* dup (newfd ~0: the lowest free at or above from), dup2, dup3, F_DUPFD; the new descriptor
 * FD_CLOEXEC when cloexec. */
uint64_t linux_dup(struct user_run *u, uint64_t oldfd, uint64_t newfd, uint64_t from, bool cloexec);
uint64_t linux_fcntl(struct user_run *u, uint64_t fd, uint64_t cmd, uint64_t arg);
/* read (at false) or pread64 (at true, from off). */
uint64_t linux_read(struct user_run *u, uint64_t fd, uint64_t buf, uint64_t len, bool at,
		    uint64_t off);
uint64_t linux_lseek(struct user_run *u, uint64_t fd, int64_t off, uint64_t how);
bool linux_fd_node(struct user_run *u, uint64_t fd, struct linux_node *n);
uint64_t linux_path_node(const struct user_run *u, uint64_t path, struct linux_node *n);
uint64_t linux_access(struct user_run *u, uint64_t path, uint64_t mode);
uint64_t linux_readlink(struct user_run *u, uint64_t path, uint64_t buf, uint64_t len);
uint64_t linux_map_file(struct user_run *u, uint64_t at, uint64_t len, uint64_t fd, uint64_t off);
/* linux_stat.c: fstat, newfstatat, statx, getdents64. */
uint64_t linux_fstat(struct user_run *u, uint64_t fd, uint64_t st);
uint64_t linux_newfstatat(struct user_run *u, uint64_t fd, uint64_t path, uint64_t st,
			  uint64_t flags);
uint64_t linux_statx(struct user_run *u, const uint64_t *a);
uint64_t linux_getdents64(struct user_run *u, uint64_t fd, uint64_t buf, uint64_t len);

#endif
