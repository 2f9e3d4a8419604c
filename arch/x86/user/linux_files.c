/* SPDX-License-Identifier: MIT */
/*
 * A Linux program's files (arch/x86/user/linux.c's calls on paths and descriptors): the boot
 * volume's \data\ files (kernel/program_linux.c hands them over as /data/NAME), read-only;
 * descriptors 3 and up; stdin, stdout and stderr are pipes. In .text.workload like linux.c,
 * calling nothing outside it.
 */
#include "arch/x86/user/linux_files.h"
#include "arch/x86/user/linux_abi.h"
#include "arch/x86/cpu/usermode.h"
#include "kernel/arch_workloads.h"

#define ERR(e)	      ((uint64_t) - (int64_t)(e))
#define FD_BASE	      3
#define PATH_MAX_READ 256
#define O_ACCMODE     3
#define O_DIRECTORY   0200000
#define SEEK_SET      0
#define SEEK_CUR      1
#define SEEK_END      2
#define PROC_SELF_EXE "/proc/self/exe"

/* The NUL-terminated path at p (in the program's memory) into buf; false when it does not
 * end within buf or lies outside the program. */
WORKLOAD_SECTION static bool path_in(const struct user_run *u, uint64_t p, char *buf)
{
	for (unsigned i = 0; i < PATH_MAX_READ; i++) {
		if (!user_buffer_ok(u, p + i, 1))
			return false;
		user_access_begin();
		buf[i] = *(const volatile char *)(p + i);
		user_access_end();
		if (!buf[i])
			return true;
	}
	return false;
}

WORKLOAD_SECTION void linux_copy_out(uint64_t dst, const void *src, uint64_t n)
{
	user_access_begin();
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	user_access_end();
}

WORKLOAD_SECTION static bool same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* The file at path (absolute, or relative to the working directory "/"), or -1. */
WORKLOAD_SECTION static int find(const struct user_run *u, const char *path)
{
	const char *rel = path[0] == '/' ? path + 1 : path;
	for (unsigned i = 0; i < u->nfiles; i++)
		if (same(rel, u->files[i].path + 1))
			return (int)i;
	return -1;
}

WORKLOAD_SECTION static struct user_fd *fd_of(struct user_run *u, uint64_t fd)
{
	if (fd < FD_BASE || fd >= FD_BASE + USER_FDS || !u->fd[fd - FD_BASE].open)
		return 0;
	return &u->fd[fd - FD_BASE];
}

/* The file the program's path names: 0 and its index in *f, or -EFAULT, -ENOENT. */
WORKLOAD_SECTION static uint64_t lookup(const struct user_run *u, uint64_t path, int *f)
{
	char buf[PATH_MAX_READ];
	if (!path_in(u, path, buf))
		return ERR(LNX_EFAULT);
	*f = find(u, buf);
	return *f < 0 ? ERR(LNX_ENOENT) : 0;
}

WORKLOAD_SECTION uint64_t linux_openat(struct user_run *u, uint64_t path, uint64_t flags)
{
	int f;
	uint64_t r = lookup(u, path, &f);
	if (r)
		return r;
	if ((flags & O_ACCMODE) != LNX_O_RDONLY)
		return ERR(LNX_EROFS);
	if (flags & O_DIRECTORY)
		return ERR(LNX_ENOTDIR);
	for (unsigned i = 0; i < USER_FDS; i++)
		if (!u->fd[i].open) {
			u->fd[i].open = 1;
			u->fd[i].file = (uint8_t)f;
			u->fd[i].off = 0;
			return FD_BASE + i;
		}
	return ERR(LNX_EMFILE);
}

WORKLOAD_SECTION uint64_t linux_close(struct user_run *u, uint64_t fd)
{
	if (fd < FD_BASE)
		return 0;
	struct user_fd *d = fd_of(u, fd);
	if (!d)
		return ERR(LNX_EBADF);
	d->open = 0;
	return 0;
}

/* len bytes of an open file from off to the program's buf; the count. */
WORKLOAD_SECTION static uint64_t copy_file(struct user_run *u, const struct user_fd *d,
					   uint64_t off, uint64_t buf, uint64_t len)
{
	const struct user_file *f = &u->files[d->file];
	uint64_t n = off >= f->size ? 0 : f->size - off < len ? f->size - off : len;
	if (n && !user_buffer_ok(u, buf, n))
		return ERR(LNX_EFAULT);
	linux_copy_out(buf, f->data + off, n);
	return n;
}

WORKLOAD_SECTION uint64_t linux_read(struct user_run *u, uint64_t fd, uint64_t buf, uint64_t len,
				     bool at, uint64_t off)
{
	if (fd == 0)
		return 0; /* stdin is empty */
	struct user_fd *d = fd_of(u, fd);
	if (!d)
		return ERR(LNX_EBADF);
	uint64_t n = copy_file(u, d, at ? off : d->off, buf, len);
	if (!at && (int64_t)n > 0)
		d->off += n;
	return n;
}

WORKLOAD_SECTION uint64_t linux_lseek(struct user_run *u, uint64_t fd, int64_t off, uint64_t how)
{
	struct user_fd *d = fd_of(u, fd);
	if (!d)
		return fd < FD_BASE ? ERR(LNX_ESPIPE) : ERR(LNX_EBADF);
	int64_t base = how == SEEK_SET	 ? 0
		       : how == SEEK_CUR ? (int64_t)d->off
		       : how == SEEK_END ? (int64_t)u->files[d->file].size
					 : -1;
	if (base < 0 || base + off < 0)
		return ERR(LNX_EINVAL);
	d->off = (uint64_t)(base + off);
	return d->off;
}

/* The size of what fd names: -1 for the pipes 0-2, else the file's; false: not open. */
WORKLOAD_SECTION bool linux_fd_size(struct user_run *u, uint64_t fd, int64_t *size)
{
	if (fd < FD_BASE) {
		*size = -1;
		return true;
	}
	struct user_fd *d = fd_of(u, fd);
	if (d)
		*size = (int64_t)u->files[d->file].size;
	return d != 0;
}

/* stat on a path: the file's size, or -ENOENT (the size in *size). */
WORKLOAD_SECTION uint64_t linux_path_size(struct user_run *u, uint64_t path, int64_t *size)
{
	int f;
	uint64_t r = lookup(u, path, &f);
	if (!r)
		*size = (int64_t)u->files[f].size;
	return r;
}

WORKLOAD_SECTION uint64_t linux_access(struct user_run *u, uint64_t path, uint64_t mode)
{
	int64_t size;
	uint64_t r = linux_path_size(u, path, &size);
	return r ? r : (mode & 2) ? ERR(LNX_EROFS) : 0; /* W_OK: read-only */
}

WORKLOAD_SECTION uint64_t linux_readlink(struct user_run *u, uint64_t path, uint64_t buf,
					 uint64_t len)
{
	char p[PATH_MAX_READ];
	if (!path_in(u, path, p))
		return ERR(LNX_EFAULT);
	if (!same(p, PROC_SELF_EXE) || !u->exe)
		return ERR(LNX_ENOENT);
	uint64_t n = 0;
	while (u->exe[n])
		n++;
	n = n < len ? n : len; /* no NUL, as Linux */
	if (n && !user_buffer_ok(u, buf, n))
		return ERR(LNX_EFAULT);
	linux_copy_out(buf, u->exe, n);
	return n;
}

/* A private read-only mapping of an open file: its bytes copied to fresh arena memory. */
WORKLOAD_SECTION uint64_t linux_map_file(struct user_run *u, uint64_t at, uint64_t len, uint64_t fd,
					 uint64_t off)
{
	struct user_fd *d = fd_of(u, fd);
	if (!d)
		return ERR(LNX_EBADF);
	uint64_t n = copy_file(u, d, off, at, len);
	return (int64_t)n < 0 ? n : at;
}
