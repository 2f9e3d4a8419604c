/* SPDX-License-Identifier: MIT */
/*
 * A Linux program's files (arch/x86/user/linux.c's calls on paths and descriptors): the boot
 * volume's \data\ files (kernel/program_linux.c hands them over as /data/NAME), read-only,
 * in the directories "/" (holding "data") and "/data"; stdin an empty pipe or program.stdin's
 * file, stdout and stderr the run's output. Descriptors name open file descriptions, which
 * dup, dup2, dup3 and F_DUPFD share (with their offset), as Linux's do. In .text.workload like
 * linux.c, calling nothing outside it.
 */
#include "arch/x86/user/linux_files.h"
#include "arch/x86/user/linux_abi.h"
#include "arch/x86/user/linux_mm.h"
#include "arch/x86/cpu/usermode.h"
#include "kernel/arch_workloads.h"

#define ERR(e)	      ((uint64_t) - (int64_t)(e))
#define FD_BASE	      3
#define PATH_MAX_READ 256
#define O_ACCMODE     3
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

WORKLOAD_SECTION uint64_t linux_get_u64(uint64_t src)
{
	uint64_t v;
	user_access_begin();
	v = *(const volatile uint64_t *)src;
	user_access_end();
	return v;
}

/* Inside the program's memory and on pages mapped so (munmap and mprotect change them:
 * linux_mm.c). */
WORKLOAD_SECTION bool linux_writable(const struct user_run *u, uint64_t p, uint64_t n)
{
	return n == 0 || (user_buffer_ok(u, p, n) && linux_pages_ok(p, n, true));
}

WORKLOAD_SECTION bool linux_readable(const struct user_run *u, uint64_t p, uint64_t n)
{
	return n == 0 || (user_buffer_ok(u, p, n) && linux_pages_ok(p, n, false));
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

/* The path at p made canonical in buf: no leading, trailing or double '/', no "." parts, ".."
 * taking the last part off (relative paths from the working directory "/"): "" is the root,
 * "data" the data directory, "data/NAME" a file. */
WORKLOAD_SECTION static void canonical(char *buf)
{
	unsigned w = 0;
	for (unsigned r = 0; buf[r];) {
		while (buf[r] == '/')
			r++;
		unsigned part = r;
		while (buf[r] && buf[r] != '/')
			r++;
		unsigned len = r - part;
		if (len == 0 || (len == 1 && buf[part] == '.'))
			continue;
		if (len == 2 && buf[part] == '.' && buf[part + 1] == '.') {
			while (w > 0 && buf[--w] != '/')
				;
			continue;
		}
		if (w)
			buf[w++] = '/';
		for (unsigned i = 0; i < len; i++)
			buf[w++] = buf[part + i];
	}
	buf[w] = 0;
}

/* What a canonical path names: a file's index, or NODE_ROOT / NODE_DATA, or -1. */
#define NODE_ROOT (-2)
#define NODE_DATA (-3)
WORKLOAD_SECTION static int find(const struct user_run *u, const char *path)
{
	if (!path[0])
		return NODE_ROOT;
	if (same(path, LINUX_DATA_DIR))
		return NODE_DATA;
	for (unsigned i = 0; i < u->nfiles; i++)
		if (same(path, u->files[i].path + 1))
			return (int)i;
	return -1;
}

WORKLOAD_SECTION struct user_ofd *linux_ofd(struct user_run *u, uint64_t fd)
{
	if (fd >= USER_FDS || u->fd[fd] < 0)
		return 0;
	return &u->ofd[u->fd[fd]];
}
#define ofd_of linux_ofd

WORKLOAD_SECTION bool linux_fd_node(struct user_run *u, uint64_t fd, struct linux_node *n)
{
	const struct user_ofd *o = ofd_of(u, fd);
	if (!o)
		return false;
	n->kind = o->kind;
	n->index = o->file;
	return true;
}

/* The node the program's path names: 0, or -EFAULT, -ENOENT. */
WORKLOAD_SECTION uint64_t linux_path_node(const struct user_run *u, uint64_t path,
					  struct linux_node *n)
{
	char buf[PATH_MAX_READ];
	if (!path_in(u, path, buf))
		return ERR(LNX_EFAULT);
	canonical(buf);
	int f = find(u, buf);
	if (f == -1)
		return ERR(LNX_ENOENT);
	n->kind = f < 0 ? LINUX_OFD_DIR : LINUX_OFD_FILE;
	n->index = f == NODE_ROOT ? LINUX_DIR_ROOT : f == NODE_DATA ? LINUX_DIR_DATA : f;
	return 0;
}

/* A new description of kind/file on the lowest free descriptor at or above `from`, its own
 * flags fd_flags (FD_CLOEXEC or 0). */
WORKLOAD_SECTION static uint64_t install(struct user_run *u, uint8_t kind, int file, uint64_t from,
					 uint8_t fd_flags)
{
	int d = -1;
	for (unsigned i = 0; i < USER_FDS && d < 0; i++)
		if (!u->ofd[i].refs)
			d = (int)i;
	for (uint64_t fd = from; d >= 0 && fd < USER_FDS; fd++)
		if (u->fd[fd] < 0) {
			u->ofd[d] = (struct user_ofd){1, kind, (uint8_t)file, 0};
			u->fd[fd] = (int8_t)d;
			u->fd_flags[fd] = fd_flags;
			return fd;
		}
	return ERR(LNX_EMFILE);
}

WORKLOAD_SECTION void linux_fds_init(struct user_run *u)
{
	for (unsigned i = 0; i < USER_FDS; i++) {
		u->fd[i] = -1;
		u->ofd[i].refs = 0;
	}
	if (u->stdin_file >= 0)
		install(u, LINUX_OFD_FILE, u->stdin_file, 0, 0);
	else
		install(u, LINUX_OFD_EMPTY, 0, 0, 0);
	/* stdout and stderr: two descriptions, each its own stream (struct user_ofd.file) */
	install(u, LINUX_OFD_OUTPUT, LINUX_STDOUT, LINUX_STDOUT, 0);
	install(u, LINUX_OFD_OUTPUT, LINUX_STDERR, LINUX_STDERR, 0);
}

WORKLOAD_SECTION uint64_t linux_openat(struct user_run *u, uint64_t path, uint64_t flags)
{
	struct linux_node n;
	uint64_t r = linux_path_node(u, path, &n);
	if (r)
		return r;
	if ((flags & O_ACCMODE) != LNX_O_RDONLY)
		return n.kind == LINUX_OFD_DIR ? ERR(LNX_EISDIR) : ERR(LNX_EROFS);
	if ((flags & LNX_O_DIRECTORY) && n.kind != LINUX_OFD_DIR)
		return ERR(LNX_ENOTDIR);
	return install(u, n.kind, n.index, 0, flags & LNX_O_CLOEXEC ? LNX_FD_CLOEXEC : 0);
}

WORKLOAD_SECTION uint64_t linux_close(struct user_run *u, uint64_t fd)
{
	struct user_ofd *o = ofd_of(u, fd);
	if (!o)
		return ERR(LNX_EBADF);
	o->refs--;
	u->fd[fd] = -1;
	return 0;
}

/* dup (newfd ~0: the lowest free), dup2 and dup3 (newfd closed first, if open), F_DUPFD (the
 * lowest free at or above `from`). One description, its offset and its stream shared, as
 * Linux's (dup(2): "refer to the same open file description"); the new descriptor's own flag
 * FD_CLOEXEC is `cloexec` (dup3 O_CLOEXEC, F_DUPFD_CLOEXEC), clear otherwise. */
WORKLOAD_SECTION uint64_t linux_dup(struct user_run *u, uint64_t oldfd, uint64_t newfd,
				    uint64_t from, bool cloexec)
{
	if (!ofd_of(u, oldfd))
		return ERR(LNX_EBADF);
	if (newfd == oldfd)
		return newfd;
	if (newfd != ~0ull) {
		if (newfd >= USER_FDS)
			return ERR(LNX_EBADF);
		if (u->fd[newfd] >= 0)
			linux_close(u, newfd);
	} else {
		for (newfd = from; newfd < USER_FDS && u->fd[newfd] >= 0; newfd++)
			;
		if (newfd >= USER_FDS)
			return from >= USER_FDS ? ERR(LNX_EINVAL) : ERR(LNX_EMFILE);
	}
	u->fd[newfd] = u->fd[oldfd];
	u->fd_flags[newfd] = cloexec ? LNX_FD_CLOEXEC : 0;
	u->ofd[u->fd[oldfd]].refs++;
	return newfd;
}

WORKLOAD_SECTION uint64_t linux_fcntl(struct user_run *u, uint64_t fd, uint64_t cmd, uint64_t arg)
{
	const struct user_ofd *o = ofd_of(u, fd);
	if (!o)
		return ERR(LNX_EBADF);
	switch (cmd) {
	case LNX_F_DUPFD:
	case LNX_F_DUPFD_CLOEXEC:
		return linux_dup(u, fd, ~0ull, arg, cmd == LNX_F_DUPFD_CLOEXEC);
	case LNX_F_GETFD:
		return u->fd_flags[fd];
	case LNX_F_SETFD:
		u->fd_flags[fd] = arg & LNX_FD_CLOEXEC;
		return 0;
	case LNX_F_GETFL:
		return o->kind == LINUX_OFD_OUTPUT ? LNX_O_WRONLY
		       : o->kind == LINUX_OFD_DIR  ? LNX_O_RDONLY | LNX_O_DIRECTORY
						   : LNX_O_RDONLY;
	default:
		return 0; /* F_SETFL, ...: nothing they set changes a pipe or a read-only file here
			   */
	}
}

/* len bytes of an open file from off to the program's buf; the count. */
WORKLOAD_SECTION static uint64_t copy_file(struct user_run *u, unsigned file, uint64_t off,
					   uint64_t buf, uint64_t len)
{
	const struct user_file *f = &u->files[file];
	uint64_t n = off >= f->size ? 0 : f->size - off < len ? f->size - off : len;
	if (n && (!user_buffer_ok(u, buf, n) || !linux_pages_ok(buf, n, true)))
		return ERR(LNX_EFAULT);
	linux_copy_out(buf, f->data + off, n);
	return n;
}

WORKLOAD_SECTION uint64_t linux_read(struct user_run *u, uint64_t fd, uint64_t buf, uint64_t len,
				     bool at, uint64_t off)
{
	struct user_ofd *o = ofd_of(u, fd);
	if (!o || o->kind == LINUX_OFD_OUTPUT)
		return ERR(LNX_EBADF);
	if (o->kind == LINUX_OFD_DIR)
		return ERR(LNX_EISDIR);
	if (o->kind == LINUX_OFD_EMPTY)
		return at ? ERR(LNX_ESPIPE) : 0; /* stdin is an empty pipe */
	uint64_t n = copy_file(u, o->file, at ? off : o->off, buf, len);
	if (!at && (int64_t)n > 0)
		o->off += n;
	return n;
}

WORKLOAD_SECTION uint64_t linux_lseek(struct user_run *u, uint64_t fd, int64_t off, uint64_t how)
{
	struct user_ofd *o = ofd_of(u, fd);
	if (!o)
		return ERR(LNX_EBADF);
	if (o->kind == LINUX_OFD_EMPTY || o->kind == LINUX_OFD_OUTPUT)
		return ERR(LNX_ESPIPE);
	int64_t size = o->kind == LINUX_OFD_FILE ? (int64_t)u->files[o->file].size : 0;
	int64_t base = how == SEEK_SET	 ? 0
		       : how == SEEK_CUR ? (int64_t)o->off
		       : how == SEEK_END ? size
					 : -1;
	if (base < 0 || base + off < 0)
		return ERR(LNX_EINVAL);
	o->off = (uint64_t)(base + off);
	return o->off;
}

WORKLOAD_SECTION uint64_t linux_access(struct user_run *u, uint64_t path, uint64_t mode)
{
	struct linux_node n;
	uint64_t r = linux_path_node(u, path, &n);
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
	if (n && (!user_buffer_ok(u, buf, n) || !linux_pages_ok(buf, n, true)))
		return ERR(LNX_EFAULT);
	linux_copy_out(buf, u->exe, n);
	return n;
}

/* A private mapping of an open file: its bytes copied to the fresh pages at `at`. */
WORKLOAD_SECTION uint64_t linux_map_file(struct user_run *u, uint64_t at, uint64_t len, uint64_t fd,
					 uint64_t off)
{
	const struct user_ofd *o = ofd_of(u, fd);
	if (!o || o->kind != LINUX_OFD_FILE)
		return o ? ERR(LNX_EACCES) : ERR(LNX_EBADF);
	uint64_t n = copy_file(u, o->file, off, at, len);
	return (int64_t)n < 0 ? n : at;
}
