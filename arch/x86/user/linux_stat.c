/* SPDX-License-Identifier: MIT */
/*
 * What a Linux program learns of its files (linux_files.c's nodes): fstat and newfstatat
 * (struct stat, arch/x86/include/uapi/asm/stat.h), statx (struct statx, include/uapi/linux/
 * stat.h; the basic fields, times zero) and getdents64 (struct linux_dirent64, fs/readdir.c:
 * records 8-byte aligned, d_off the next entry's position). "/" holds "data"; "/data" the
 * data files, in the order the loader read them. The pipes (stdin without program.stdin,
 * stdout, stderr) are S_IFIFO, a file S_IFREG 0444, a directory S_IFDIR 0555. In
 * .text.workload like linux.c, calling nothing outside it.
 */
#include "arch/x86/user/linux_files.h"
#include "arch/x86/user/linux_abi.h"
#include "arch/x86/user/linux_mm.h"
#include "arch/x86/cpu/usermode.h"
#include "kernel/arch_workloads.h"

#define ERR(e)	     ((uint64_t) - (int64_t)(e))
#define INO_ROOT     2	/* the root directory's inode number, as on ext4 */
#define INO_FIRST    16 /* the data directory's, then each file's */
#define BLOCK	     512
#define DIR_SIZE     4096
#define NAME_MAX     255
#define DIRENT_ALIGN 8

struct node_stat {
	uint32_t mode, nlink;
	uint64_t ino, size, blocks;
};

WORKLOAD_SECTION static bool ok(const struct user_run *u, uint64_t p, uint64_t n)
{
	return user_buffer_ok(u, p, n) && linux_pages_ok(p, n, true);
}

WORKLOAD_SECTION static void zero_out(uint64_t dst, uint64_t n)
{
	user_access_begin();
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(0) : "memory");
	user_access_end();
}

/* n bytes of kernel memory zeroed (one REP STOSB: gcc would call memset for a loop). */
WORKLOAD_SECTION static void clear(void *p, uint64_t n)
{
	__asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(0) : "memory");
}

WORKLOAD_SECTION static struct node_stat stat_of(const struct user_run *u,
						 const struct linux_node *n)
{
	struct node_stat s = {LNX_S_IFIFO | 0600, 1, 0, 0, 0};
	if (n->kind == LINUX_OFD_FILE) {
		s.mode = LNX_S_IFREG | 0444;
		s.size = u->files[n->index].size;
		s.ino = INO_FIRST + 1 + (uint64_t)n->index;
	} else if (n->kind == LINUX_OFD_DIR) {
		s.mode = LNX_S_IFDIR | 0555;
		s.nlink = 2;
		s.size = DIR_SIZE;
		s.ino = n->index == LINUX_DIR_ROOT ? INO_ROOT : INO_FIRST;
	}
	s.blocks = (s.size + BLOCK - 1) / BLOCK;
	return s;
}

WORKLOAD_SECTION static uint64_t put_stat(struct user_run *u, const struct linux_node *n,
					  uint64_t st)
{
	if (!ok(u, st, sizeof(struct lnx_stat)))
		return ERR(LNX_EFAULT);
	struct node_stat s = stat_of(u, n);
	struct lnx_stat k;
	clear(&k, sizeof(k));
	k.st_ino = s.ino;
	k.st_nlink = s.nlink;
	k.st_mode = s.mode;
	k.st_size = (int64_t)s.size;
	k.st_blksize = (int64_t)LNX_PAGE;
	k.st_blocks = (int64_t)s.blocks;
	linux_copy_out(st, &k, sizeof(k));
	return 0;
}

WORKLOAD_SECTION uint64_t linux_fstat(struct user_run *u, uint64_t fd, uint64_t st)
{
	struct linux_node n;
	return linux_fd_node(u, fd, &n) ? put_stat(u, &n, st) : ERR(LNX_EBADF);
}

/* A descriptor (AT_EMPTY_PATH with an empty path) or a path (absolute, or relative to the
 * working directory "/": dirfd is not looked at otherwise). */
WORKLOAD_SECTION static uint64_t node_at(struct user_run *u, uint64_t fd, uint64_t path,
					 uint64_t flags, struct linux_node *n)
{
	if (flags & LNX_AT_EMPTY_PATH)
		return linux_fd_node(u, fd, n) ? 0 : ERR(LNX_EBADF);
	return linux_path_node(u, path, n);
}

WORKLOAD_SECTION uint64_t linux_newfstatat(struct user_run *u, uint64_t fd, uint64_t path,
					   uint64_t st, uint64_t flags)
{
	struct linux_node n;
	uint64_t r = node_at(u, fd, path, flags, &n);
	return r ? r : put_stat(u, &n, st);
}

/* statx(dirfd, path, flags, mask, buf): the basic fields whatever the mask asks. */
WORKLOAD_SECTION uint64_t linux_statx(struct user_run *u, const uint64_t *a)
{
	struct linux_node n;
	uint64_t r = node_at(u, a[0], a[1], a[2], &n);
	if (r)
		return r;
	if (!ok(u, a[4], sizeof(struct lnx_statx)))
		return ERR(LNX_EFAULT);
	struct node_stat s = stat_of(u, &n);
	zero_out(a[4], sizeof(struct lnx_statx));
	struct lnx_statx x; /* the first 56 bytes: mask to blocks */
	x.mask = LNX_STATX_BASIC;
	x.blksize = (uint32_t)LNX_PAGE;
	x.attributes = 0;
	x.nlink = s.nlink;
	x.uid = x.gid = 0;
	x.mode = (uint16_t)s.mode;
	x.pad0 = 0;
	x.ino = s.ino;
	x.size = s.size;
	x.blocks = s.blocks;
	linux_copy_out(a[4], &x, __builtin_offsetof(struct lnx_statx, attributes_mask));
	return 0;
}

/* Directory entry i of dir: its name (NULL past the last), inode and type. */
WORKLOAD_SECTION static const char *entry(const struct user_run *u, unsigned dir, uint64_t i,
					  uint64_t *ino, uint8_t *type)
{
	*type = LNX_DT_DIR;
	*ino = dir == LINUX_DIR_ROOT ? INO_ROOT : INO_FIRST;
	if (i == 0)
		return ".";
	*ino = INO_ROOT;
	if (i == 1)
		return "..";
	if (dir == LINUX_DIR_ROOT) {
		*ino = INO_FIRST;
		return i == 2 ? LINUX_DATA_DIR : 0;
	}
	if (i - 2 >= u->nfiles)
		return 0;
	*type = LNX_DT_REG;
	*ino = INO_FIRST + 1 + (i - 2);
	return u->files[i - 2].path + sizeof("/data/") - 1;
}

/* getdents64: as many whole records as fit in len from the description's position. */
WORKLOAD_SECTION uint64_t linux_getdents64(struct user_run *u, uint64_t fd, uint64_t buf,
					   uint64_t len)
{
	struct user_ofd *o = linux_ofd(u, fd);
	if (!o)
		return ERR(LNX_EBADF);
	if (o->kind != LINUX_OFD_DIR)
		return ERR(LNX_ENOTDIR);
	if (!ok(u, buf, len))
		return ERR(LNX_EFAULT);
	uint64_t done = 0, ino;
	uint8_t type, rec[LNX_DIRENT64_NAME + NAME_MAX + DIRENT_ALIGN];
	for (const char *name; (name = entry(u, o->file, o->off, &ino, &type));) {
		uint16_t n = 0;
		while (name[n] && n < NAME_MAX)
			n++;
		uint16_t reclen =
		    (LNX_DIRENT64_NAME + n + 1 + DIRENT_ALIGN - 1) & ~(DIRENT_ALIGN - 1);
		if (done + reclen > len)
			return done ? done : ERR(LNX_EINVAL); /* not even one record fits */
		int64_t next = (int64_t)o->off + 1;
		clear(rec, reclen);
		__builtin_memcpy(rec, &ino, sizeof(ino));
		__builtin_memcpy(rec + 8, &next, sizeof(next));
		__builtin_memcpy(rec + 16, &reclen, sizeof(reclen));
		rec[18] = type;
		void *dst = rec + LNX_DIRENT64_NAME;
		uint64_t left = n;
		__asm__ volatile("rep movsb" : "+D"(dst), "+S"(name), "+c"(left) : : "memory");
		linux_copy_out(buf + done, rec, reclen);
		done += reclen;
		o->off++;
	}
	return done;
}
