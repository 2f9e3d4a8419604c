/* SPDX-License-Identifier: MIT */
/*
 * The Linux x86-64 system call ABI an unmodified static program uses: the numbers
 * (arch/x86/entry/syscalls/syscall_64.tbl in Linux; pinned against Debian's linux-libc-dev
 * asm/unistd_64.h by tests/unit/test_linux_abi.c), the errors (include/uapi/asm-generic/
 * errno-base.h, errno.h) and the structures the calls fill (arch/x86/include/uapi/asm/stat.h,
 * include/uapi/linux/utsname.h, sysinfo.h, time.h, resource.h).
 */
#ifndef ARCH_X86_USER_LINUX_ABI_H
#define ARCH_X86_USER_LINUX_ABI_H

#include <stdint.h>

#define LNX_read	       0
#define LNX_write	       1
#define LNX_open	       2
#define LNX_close	       3
#define LNX_fstat	       5
#define LNX_lseek	       8
#define LNX_mmap	       9
#define LNX_mprotect	       10
#define LNX_munmap	       11
#define LNX_brk		       12
#define LNX_rt_sigaction       13
#define LNX_rt_sigprocmask     14
#define LNX_ioctl	       16
#define LNX_pread64	       17
#define LNX_readv	       19
#define LNX_writev	       20
#define LNX_access	       21
#define LNX_sched_yield	       24
#define LNX_mremap	       25
#define LNX_madvise	       28
#define LNX_dup		       32
#define LNX_dup2	       33
#define LNX_nanosleep	       35
#define LNX_getpid	       39
#define LNX_clone	       56
#define LNX_fork	       57
#define LNX_vfork	       58
#define LNX_execve	       59
#define LNX_exit	       60
#define LNX_uname	       63
#define LNX_fcntl	       72
#define LNX_getcwd	       79
#define LNX_readlink	       89
#define LNX_gettimeofday       96
#define LNX_getrlimit	       97
#define LNX_sysinfo	       99
#define LNX_getuid	       102
#define LNX_getgid	       104
#define LNX_geteuid	       107
#define LNX_getegid	       108
#define LNX_getppid	       110
#define LNX_sigaltstack	       131
#define LNX_prctl	       157
#define LNX_arch_prctl	       158
#define LNX_gettid	       186
#define LNX_time	       201
#define LNX_futex	       202
#define LNX_sched_getaffinity  204
#define LNX_getdents64	       217
#define LNX_set_tid_address    218
#define LNX_clock_gettime      228
#define LNX_clock_nanosleep    230
#define LNX_exit_group	       231
#define LNX_tgkill	       234
#define LNX_openat	       257
#define LNX_newfstatat	       262
#define LNX_readlinkat	       267
#define LNX_faccessat	       269
#define LNX_set_robust_list    273
#define LNX_dup3	       292
#define LNX_prlimit64	       302
#define LNX_getrandom	       318
#define LNX_statx	       332
#define LNX_rseq	       334
#define LNX_clone3	       435
#define LNX_faccessat2	       439
#define LNX_SYSCALL_TABLE_SIZE 512 /* numbers below this are named in the "unsupported" note */

#define LNX_EPERM     1
#define LNX_ENOENT    2
#define LNX_ESRCH     3
#define LNX_EBADF     9
#define LNX_EAGAIN    11
#define LNX_ENOMEM    12
#define LNX_EACCES    13
#define LNX_EFAULT    14
#define LNX_EEXIST    17
#define LNX_ENOTDIR   20
#define LNX_EISDIR    21
#define LNX_EINVAL    22
#define LNX_EMFILE    24
#define LNX_ENOTTY    25
#define LNX_EROFS     30
#define LNX_ESPIPE    29
#define LNX_ERANGE    34
#define LNX_ENOSYS    38
#define LNX_ETIMEDOUT 110

#define LNX_ARCH_SET_FS 0x1002 /* arch/x86/include/uapi/asm/prctl.h */
#define LNX_ARCH_GET_FS 0x1003

#define LNX_PROT_READ		0x1 /* include/uapi/asm-generic/mman-common.h */
#define LNX_PROT_WRITE		0x2
#define LNX_PROT_EXEC		0x4
#define LNX_PROT_GROWS		0x03000000 /* PROT_GROWSDOWN | PROT_GROWSUP */
#define LNX_MAP_FIXED		0x10
#define LNX_MAP_ANONYMOUS	0x20
#define LNX_MAP_FIXED_NOREPLACE 0x100000
#define LNX_MADV_DONTNEED	4
#define LNX_MREMAP_MAYMOVE	1
#define LNX_PAGE		4096ull

#define LNX_S_IFIFO		     0010000 /* include/uapi/linux/stat.h */
#define LNX_S_IFCHR		     0020000
#define LNX_S_IFDIR		     0040000
#define LNX_DT_DIR		     4 /* include/linux/fs_types.h: a struct linux_dirent64's d_type */
#define LNX_DT_REG		     8
#define LNX_F_DUPFD		     0 /* include/uapi/asm-generic/fcntl.h */
#define LNX_F_SETFD		     2
#define LNX_F_SETFL		     4
#define LNX_F_DUPFD_CLOEXEC	     1030
#define LNX_O_CLOEXEC		     02000000
#define LNX_O_DIRECTORY		     0200000
#define LNX_STATX_BASIC		     0x7ff /* STATX_BASIC_STATS, include/uapi/linux/stat.h */
#define LNX_S_IFREG		     0100000
#define LNX_AT_EMPTY_PATH	     0x1000
#define LNX_F_GETFD		     1
#define LNX_FD_CLOEXEC		     1 /* F_GETFD/F_SETFD's flag, include/uapi/asm-generic/fcntl.h */
#define LNX_F_GETFL		     3
#define LNX_O_RDONLY		     0
#define LNX_O_WRONLY		     1
#define LNX_TIMER_ABSTIME	     1	/* clock_nanosleep's flag */
#define LNX_PR_SET_MDWE		     65 /* include/uapi/linux/prctl.h (Linux 6.3) */
#define LNX_PR_GET_MDWE		     66
#define LNX_PR_MDWE_REFUSE_EXEC_GAIN 1	  /* W^X from now on */
#define LNX_PR_MDWE_NO_INHERIT	     2	  /* Linux 6.6: for children only (none here) */
#define LNX_FUTEX_CMD		     0x7f /* FUTEX_CMD_MASK without FUTEX_PRIVATE_FLAG's bit */
#define LNX_FUTEX_WAIT		     0	  /* include/uapi/linux/futex.h */
#define LNX_FUTEX_WAKE		     1
#define LNX_FUTEX_REQUEUE	     3
#define LNX_FUTEX_CMP_REQUEUE	     4
#define LNX_FUTEX_WAIT_BITSET	     9
#define LNX_FUTEX_WAKE_BITSET	     10
#define LNX_FUTEX_CLOCK_REALTIME     256
#define LNX_CLONE_VM		     0x00000100 /* include/uapi/linux/sched.h */
#define LNX_CLONE_FS		     0x00000200
#define LNX_CLONE_FILES		     0x00000400
#define LNX_CLONE_SIGHAND	     0x00000800
#define LNX_CLONE_PIDFD		     0x00001000
#define LNX_CLONE_VFORK		     0x00004000
#define LNX_CLONE_THREAD	     0x00010000
#define LNX_CLONE_SYSVSEM	     0x00040000
#define LNX_CLONE_SETTLS	     0x00080000
#define LNX_CLONE_PARENT_SETTID	     0x00100000
#define LNX_CLONE_CHILD_CLEARTID     0x00200000
#define LNX_CLONE_DETACHED	     0x00400000
#define LNX_CLONE_CHILD_SETTID	     0x01000000
#define LNX_CLONE_ARGS_SIZE_VER0     64 /* struct clone_args up to tls */
#define LNX_CLONE_ARG_FLAGS	     0	/* struct clone_args' u64 fields, by index */
#define LNX_CLONE_ARG_CHILD_TID	     2
#define LNX_CLONE_ARG_PARENT_TID     3
#define LNX_CLONE_ARG_STACK	     5
#define LNX_CLONE_ARG_STACK_SIZE     6
#define LNX_CLONE_ARG_TLS	     7
#define LNX_RLIMIT_STACK	     3
#define LNX_RLIMIT_NOFILE	     7 /* include/uapi/asm-generic/resource.h */
#define LNX_RLIM_INFINITY	     (~0ull)

/* struct stat of arch/x86/include/uapi/asm/stat.h (x86-64). */
struct lnx_stat {
	uint64_t st_dev, st_ino, st_nlink;
	uint32_t st_mode, st_uid, st_gid, pad0;
	uint64_t st_rdev;
	int64_t st_size, st_blksize, st_blocks;
	uint64_t times[6]; /* st_atime, its nanoseconds, st_mtime, ..., st_ctime, ... */
	int64_t unused[3];
};
_Static_assert(sizeof(struct lnx_stat) == 144, "x86-64 struct stat");

/* struct new_utsname (include/uapi/linux/utsname.h). */
#define LNX_UTS_LEN 65
struct lnx_utsname {
	char sysname[LNX_UTS_LEN], nodename[LNX_UTS_LEN], release[LNX_UTS_LEN];
	char version[LNX_UTS_LEN], machine[LNX_UTS_LEN], domainname[LNX_UTS_LEN];
};
_Static_assert(sizeof(struct lnx_utsname) == 390, "struct new_utsname");

/* struct statx (include/uapi/linux/stat.h): the fields a basic stat fills; times zero. */
struct lnx_statx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, pad0;
	uint64_t ino, size, blocks, attributes_mask;
	uint8_t times[4][16]; /* atime, btime, ctime, mtime: struct statx_timestamp */
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t spare[14];
};
_Static_assert(sizeof(struct lnx_statx) == 256, "struct statx");

/* struct linux_dirent64 (include/linux/dirent.h): d_ino, d_off, d_reclen, d_type, d_name. */
#define LNX_DIRENT64_NAME 19 /* d_name's offset */

struct lnx_timespec {
	int64_t tv_sec, tv_nsec;
};
struct lnx_rlimit {
	uint64_t cur, max;
};

/* struct sysinfo (include/uapi/linux/sysinfo.h), x86-64. */
struct lnx_sysinfo {
	int64_t uptime;
	uint64_t loads[3], totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	uint16_t procs, pad;
	uint32_t pad2;
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;
	char f[4];
};
_Static_assert(sizeof(struct lnx_sysinfo) == 112, "struct sysinfo");

/* The auxiliary vector's types (include/uapi/linux/auxvec.h, arch/x86/include/uapi/asm/
 * auxvec.h). */
#define LNX_AT_NULL	   0
#define LNX_AT_PHDR	   3
#define LNX_AT_PHENT	   4
#define LNX_AT_PHNUM	   5
#define LNX_AT_PAGESZ	   6
#define LNX_AT_BASE	   7
#define LNX_AT_FLAGS	   8
#define LNX_AT_ENTRY	   9
#define LNX_AT_UID	   11
#define LNX_AT_EUID	   12
#define LNX_AT_GID	   13
#define LNX_AT_EGID	   14
#define LNX_AT_PLATFORM	   15
#define LNX_AT_HWCAP	   16
#define LNX_AT_CLKTCK	   17
#define LNX_AT_SECURE	   23
#define LNX_AT_RANDOM	   25
#define LNX_AT_HWCAP2	   26
#define LNX_AT_EXECFN	   31
#define LNX_AT_MINSIGSTKSZ 51

#endif
