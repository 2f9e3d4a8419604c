// UNIT-SOURCES:
/*
 * The Linux system call numbers and structure layouts of arch/x86/user/linux_abi.h against
 * Debian's linux-libc-dev (asm/unistd_64.h, asm/stat.h) and glibc's headers: an independent
 * source for every number a Linux program will use.
 */
#define _GNU_SOURCE
#include "tests/unit/unit.h"
#include <asm/unistd_64.h>
#include <sys/stat.h>
#include <asm/prctl.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <fcntl.h>
#include <dirent.h>
#include <time.h>
#include "arch/x86/user/linux_abi.h"

#define NR(name)                                                                                   \
	{                                                                                          \
#name, LNX_##name, __NR_##name                                                     \
	}

static void numbers_are_linux_s(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		long ours, linux_s;
	} nr[] = {
	    NR(read),	       NR(write),
	    NR(open),	       NR(close),
	    NR(fstat),	       NR(lseek),
	    NR(mmap),	       NR(mprotect),
	    NR(munmap),	       NR(brk),
	    NR(rt_sigaction),  NR(rt_sigprocmask),
	    NR(ioctl),	       NR(pread64),
	    NR(readv),	       NR(writev),
	    NR(access),	       NR(sched_yield),
	    NR(mremap),	       NR(madvise),
	    NR(dup),	       NR(dup2),
	    NR(nanosleep),     NR(getpid),
	    NR(clone),	       NR(fork),
	    NR(vfork),	       NR(execve),
	    NR(exit),	       NR(uname),
	    NR(fcntl),	       NR(getcwd),
	    NR(readlink),      NR(gettimeofday),
	    NR(getrlimit),     NR(sysinfo),
	    NR(getuid),	       NR(getgid),
	    NR(geteuid),       NR(getegid),
	    NR(getppid),       NR(sigaltstack),
	    NR(prctl),	       NR(arch_prctl),
	    NR(gettid),	       NR(time),
	    NR(futex),	       NR(sched_getaffinity),
	    NR(getdents64),    NR(set_tid_address),
	    NR(clock_gettime), NR(clock_nanosleep),
	    NR(exit_group),    NR(openat),
	    NR(newfstatat),    NR(readlinkat),
	    NR(faccessat),     NR(set_robust_list),
	    NR(dup3),	       NR(prlimit64),
	    NR(getrandom),     NR(statx),
	    NR(rseq),	       NR(faccessat2),
	    NR(tgkill),	       NR(clone3),
	};
	for (size_t i = 0; i < sizeof(nr) / sizeof(nr[0]); i++)
		if (nr[i].ours != nr[i].linux_s)
			fail_msg("%s: ours %ld, asm/unistd_64.h %ld", nr[i].name, nr[i].ours,
				 nr[i].linux_s);
	assert_true(__NR_statx < LNX_SYSCALL_TABLE_SIZE &&
		    __NR_faccessat2 < LNX_SYSCALL_TABLE_SIZE);
}

static void constants_and_layouts_are_linux_s(void **state)
{
	(void)state;
	assert_int_equal(LNX_EPERM, EPERM);
	assert_int_equal(LNX_ESRCH, ESRCH);
	assert_int_equal(LNX_ETIMEDOUT, ETIMEDOUT);
	/* threads: clone(2)'s flags, clone3's struct, futex(2)'s operations */
	assert_int_equal(LNX_CLONE_VM, CLONE_VM);
	assert_int_equal(LNX_CLONE_FS, CLONE_FS);
	assert_int_equal(LNX_CLONE_FILES, CLONE_FILES);
	assert_int_equal(LNX_CLONE_SIGHAND, CLONE_SIGHAND);
	assert_int_equal(LNX_CLONE_PIDFD, CLONE_PIDFD);
	assert_int_equal(LNX_CLONE_VFORK, CLONE_VFORK);
	assert_int_equal(LNX_CLONE_THREAD, CLONE_THREAD);
	assert_int_equal(LNX_CLONE_SYSVSEM, CLONE_SYSVSEM);
	assert_int_equal(LNX_CLONE_SETTLS, CLONE_SETTLS);
	assert_int_equal(LNX_CLONE_PARENT_SETTID, CLONE_PARENT_SETTID);
	assert_int_equal(LNX_CLONE_CHILD_CLEARTID, CLONE_CHILD_CLEARTID);
	assert_int_equal(LNX_CLONE_DETACHED, CLONE_DETACHED);
	assert_int_equal(LNX_CLONE_CHILD_SETTID, CLONE_CHILD_SETTID);
	assert_int_equal(LNX_CLONE_ARGS_SIZE_VER0, CLONE_ARGS_SIZE_VER0);
	assert_int_equal(offsetof(struct clone_args, flags), LNX_CLONE_ARG_FLAGS * 8);
	assert_int_equal(offsetof(struct clone_args, child_tid), LNX_CLONE_ARG_CHILD_TID * 8);
	assert_int_equal(offsetof(struct clone_args, parent_tid), LNX_CLONE_ARG_PARENT_TID * 8);
	assert_int_equal(offsetof(struct clone_args, stack), LNX_CLONE_ARG_STACK * 8);
	assert_int_equal(offsetof(struct clone_args, stack_size), LNX_CLONE_ARG_STACK_SIZE * 8);
	assert_int_equal(offsetof(struct clone_args, tls), LNX_CLONE_ARG_TLS * 8);
	assert_int_equal(LNX_FUTEX_WAIT, FUTEX_WAIT);
	assert_int_equal(LNX_FUTEX_WAKE, FUTEX_WAKE);
	assert_int_equal(LNX_FUTEX_REQUEUE, FUTEX_REQUEUE);
	assert_int_equal(LNX_FUTEX_CMP_REQUEUE, FUTEX_CMP_REQUEUE);
	assert_int_equal(LNX_FUTEX_WAIT_BITSET, FUTEX_WAIT_BITSET);
	assert_int_equal(LNX_FUTEX_WAKE_BITSET, FUTEX_WAKE_BITSET);
	assert_int_equal(LNX_FUTEX_CLOCK_REALTIME, FUTEX_CLOCK_REALTIME);
	assert_int_equal(LNX_FUTEX_CMD, FUTEX_CMD_MASK & 0x7f);
	assert_int_equal(LNX_ENOENT, ENOENT);
	assert_int_equal(LNX_EBADF, EBADF);
	assert_int_equal(LNX_EAGAIN, EAGAIN);
	assert_int_equal(LNX_ENOMEM, ENOMEM);
	assert_int_equal(LNX_EFAULT, EFAULT);
	assert_int_equal(LNX_EINVAL, EINVAL);
	assert_int_equal(LNX_ENOTTY, ENOTTY);
	assert_int_equal(LNX_ESPIPE, ESPIPE);
	assert_int_equal(LNX_ERANGE, ERANGE);
	assert_int_equal(LNX_ENOSYS, ENOSYS);
	assert_int_equal(LNX_EACCES, EACCES);
	assert_int_equal(LNX_EEXIST, EEXIST);
	assert_int_equal(LNX_EISDIR, EISDIR);
	assert_int_equal(LNX_ENOTDIR, ENOTDIR);
	assert_int_equal(LNX_PROT_READ, PROT_READ);
	assert_int_equal(LNX_PROT_WRITE, PROT_WRITE);
	assert_int_equal(LNX_PROT_EXEC, PROT_EXEC);
	assert_int_equal(LNX_PROT_GROWS, PROT_GROWSDOWN | PROT_GROWSUP);
	assert_int_equal(LNX_MAP_FIXED_NOREPLACE, MAP_FIXED_NOREPLACE);
	assert_int_equal(LNX_MADV_DONTNEED, MADV_DONTNEED);
	assert_int_equal(LNX_S_IFDIR, S_IFDIR);
	assert_int_equal(LNX_DT_DIR, DT_DIR);
	assert_int_equal(LNX_DT_REG, DT_REG);
	assert_int_equal(LNX_F_DUPFD, F_DUPFD);
	assert_int_equal(LNX_F_SETFD, F_SETFD);
	assert_int_equal(LNX_F_SETFL, F_SETFL);
	assert_int_equal(LNX_F_DUPFD_CLOEXEC, F_DUPFD_CLOEXEC);
	assert_int_equal(LNX_O_CLOEXEC, O_CLOEXEC);
	assert_int_equal(LNX_O_DIRECTORY, O_DIRECTORY);
	assert_int_equal(LNX_STATX_BASIC, STATX_BASIC_STATS);
	assert_int_equal(LNX_TIMER_ABSTIME, TIMER_ABSTIME);
	assert_int_equal(sizeof(struct lnx_statx), sizeof(struct statx));
	assert_int_equal(offsetof(struct lnx_statx, mode), offsetof(struct statx, stx_mode));
	assert_int_equal(offsetof(struct lnx_statx, size), offsetof(struct statx, stx_size));
	assert_int_equal(offsetof(struct lnx_statx, times), offsetof(struct statx, stx_atime));
	assert_int_equal(offsetof(struct lnx_statx, rdev_major),
			 offsetof(struct statx, stx_rdev_major));
	assert_int_equal(LNX_DIRENT64_NAME, offsetof(struct dirent64, d_name));
	assert_int_equal(LNX_ARCH_SET_FS, ARCH_SET_FS);
	assert_int_equal(LNX_ARCH_GET_FS, ARCH_GET_FS);
	assert_int_equal(LNX_MAP_FIXED, MAP_FIXED);
	assert_int_equal(LNX_MAP_ANONYMOUS, MAP_ANONYMOUS);
	assert_int_equal(LNX_MREMAP_MAYMOVE, MREMAP_MAYMOVE);
	assert_int_equal(LNX_AT_EMPTY_PATH, AT_EMPTY_PATH);
	assert_int_equal(LNX_F_GETFD, F_GETFD);
	assert_int_equal(LNX_FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(LNX_RLIMIT_NOFILE, RLIMIT_NOFILE);
	assert_int_equal(LNX_F_GETFL, F_GETFL);
	assert_int_equal(sizeof(struct lnx_stat), sizeof(struct stat));
	assert_int_equal(offsetof(struct lnx_stat, st_mode), offsetof(struct stat, st_mode));
	assert_int_equal(offsetof(struct lnx_stat, st_blksize), offsetof(struct stat, st_blksize));
	assert_int_equal(sizeof(struct lnx_utsname), sizeof(struct utsname));
	assert_int_equal(sizeof(struct lnx_sysinfo), sizeof(struct sysinfo));
	assert_int_equal(offsetof(struct lnx_sysinfo, totalram),
			 offsetof(struct sysinfo, totalram));
	assert_int_equal(offsetof(struct lnx_sysinfo, procs), offsetof(struct sysinfo, procs));
	assert_int_equal(offsetof(struct lnx_sysinfo, mem_unit),
			 offsetof(struct sysinfo, mem_unit));
	static const long at[][2] = {
	    {LNX_AT_NULL, AT_NULL},	    {LNX_AT_PHDR, AT_PHDR},
	    {LNX_AT_PHENT, AT_PHENT},	    {LNX_AT_PHNUM, AT_PHNUM},
	    {LNX_AT_PAGESZ, AT_PAGESZ},	    {LNX_AT_BASE, AT_BASE},
	    {LNX_AT_FLAGS, AT_FLAGS},	    {LNX_AT_ENTRY, AT_ENTRY},
	    {LNX_AT_UID, AT_UID},	    {LNX_AT_EUID, AT_EUID},
	    {LNX_AT_GID, AT_GID},	    {LNX_AT_EGID, AT_EGID},
	    {LNX_AT_PLATFORM, AT_PLATFORM}, {LNX_AT_HWCAP, AT_HWCAP},
	    {LNX_AT_CLKTCK, AT_CLKTCK},	    {LNX_AT_SECURE, AT_SECURE},
	    {LNX_AT_RANDOM, AT_RANDOM},	    {LNX_AT_HWCAP2, AT_HWCAP2},
	    {LNX_AT_EXECFN, AT_EXECFN},	    {LNX_AT_MINSIGSTKSZ, AT_MINSIGSTKSZ},
	};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		assert_int_equal(at[i][0], at[i][1]);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(numbers_are_linux_s),
    cmocka_unit_test(constants_and_layouts_are_linux_s),
};

UNIT_MAIN(tests)
