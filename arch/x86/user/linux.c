/* SPDX-License-Identifier: MIT */
/*
 * Linux's system calls for an unmodified static program (arch/x86/user/linux_abi.h;
 * docs/programs.md "Trace your own program"): what musl's and glibc's start-up, stdio and malloc
 * use. Like syscalls.c this is part of every traced run, so it lives in .text.workload and calls
 * nothing outside it: copies and fills are one REP MOVSB / STOSB, every pointer is checked
 * against the program's memory first (user_buffer_ok). One process, its threads each on a
 * CPU of their own (linux_thread.c), sharing what follows: the boot volume's data files read-only
 * (linux_files.c), stdin empty, stdout and stderr to the run's output, memory from a heap and an
 * mmap arena mapped before the run. Any other number is -ENOSYS, tallied for the report after the
 * run.
 */
#include "arch/x86/user/run.h"
#include "arch/x86/user/linux_abi.h"
#include "arch/x86/user/linux_files.h"
#include "arch/x86/user/linux_mm.h"
#include "arch/x86/user/linux_thread.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/hw/msr.h"
#include "kernel/arch_workloads.h"

#define ERR(e)	      ((uint64_t) - (int64_t)(e))
#define USER_HALF_END 0x0000800000000000ull /* canonical lower half */
#define NS_PER_S      1000000000ull
#define IOV_SIZE      16 /* struct iovec */

WORKLOAD_SECTION static void zero_out(uint64_t dst, uint64_t n)
{
	user_access_begin();
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(0) : "memory");
	user_access_end();
}

WORKLOAD_SECTION static void put_u64(uint64_t dst, uint64_t v)
{
	linux_copy_out(dst, &v, sizeof(v));
}

/* stdout and stderr, wherever dup2 put them; the output stream is struct user_ofd.file. */
WORKLOAD_SECTION static uint64_t sys_write(struct user_run *u, uint64_t fd, uint64_t buf,
					   uint64_t len)
{
	const struct user_ofd *o = linux_ofd(u, fd);
	if (!o || o->kind != LINUX_OFD_OUTPUT)
		return ERR(LNX_EBADF);
	if (!linux_readable(u, buf, len))
		return ERR(LNX_EFAULT);
	user_output(u, o->file, buf, len); /* the description's stream, whichever fd names it */
	return len;
}

/* writev (read false) or readv: each iovec in turn; a short read ends it. */
WORKLOAD_SECTION static uint64_t sys_iov(struct user_run *u, uint64_t fd, uint64_t iov, uint64_t n,
					 bool read)
{
	if (n > 1024 || !linux_readable(u, iov, n * IOV_SIZE))
		return ERR(LNX_EFAULT);
	uint64_t total = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t base = linux_get_u64(iov + i * IOV_SIZE),
			 len = linux_get_u64(iov + i * IOV_SIZE + 8);
		uint64_t r =
		    read ? linux_read(u, fd, base, len, false, 0) : sys_write(u, fd, base, len);
		if ((int64_t)r < 0)
			return total ? total : r;
		total += r;
		if (r < len)
			break;
	}
	return total;
}

/* brk: the break moves inside [brk_lo, brk_hi); memory there was zeroed before the run. */
WORKLOAD_SECTION static uint64_t sys_brk(struct user_run *u, uint64_t want)
{
	if (want >= u->brk_lo && want <= u->brk_hi) {
		u->brk = want;
		if (want > u->brk_top)
			u->brk_top = want;
	}
	return u->brk;
}

WORKLOAD_SECTION static uint64_t sys_mremap(struct user_run *u, const struct linux_call *c)
{
	uint64_t old = c->a[0], old_len = c->a[1], new_len = c->a[2];
	if (new_len <= old_len)
		return old;
	if (!(c->a[3] & LNX_MREMAP_MAYMOVE) || !linux_writable(u, old, old_len))
		return ERR(LNX_ENOMEM);
	uint64_t len = (new_len + LNX_PAGE - 1) & ~(LNX_PAGE - 1);
	if (len > u->mmap_hi - u->mmap_next)
		return ERR(LNX_ENOMEM);
	uint64_t at = u->mmap_next;
	u->mmap_next += len;
	linux_copy_out(at, (const void *)old, old_len);
	return at;
}

WORKLOAD_SECTION static uint64_t sys_arch_prctl(struct user_run *u, uint64_t code, uint64_t addr)
{
	if (code == LNX_ARCH_SET_FS) {
		if (addr >= USER_HALF_END)
			return ERR(LNX_EPERM);
		wrmsr(MSR_FS_BASE, addr);
		return 0;
	}
	if (code == LNX_ARCH_GET_FS) {
		if (!linux_writable(u, addr, 8))
			return ERR(LNX_EFAULT);
		put_u64(addr, rdmsr(MSR_FS_BASE));
		return 0;
	}
	return ERR(LNX_EINVAL);
}

/* The clock: the TSC since the run's start, plus what the program slept (sys_sleep). */
WORKLOAD_SECTION uint64_t linux_ns_now(const struct user_run *u)
{
	uint64_t t = rdtsc() - u->start_tsc; /* (t % hz) * 10^9 fits: hz is below 18 GHz */
	return t / u->tsc_hz * NS_PER_S + t % u->tsc_hz * NS_PER_S / u->tsc_hz + u->slept_ns;
}

/* nanosleep and clock_nanosleep (abs: TIMER_ABSTIME): the clock moves on by the time asked,
 * at once. Nothing else runs here, so waiting would only step a wait loop (millions of
 * instructions in the trace, minutes under the single-step engine) to arrive at the same
 * clock readings; a program that reads the TSC itself sees no sleep. */
WORKLOAD_SECTION static uint64_t sys_sleep(struct user_run *u, uint64_t req, bool abs)
{
	if (!linux_readable(u, req, sizeof(struct lnx_timespec)))
		return ERR(LNX_EFAULT);
	uint64_t s = linux_get_u64(req), ns = linux_get_u64(req + 8);
	if ((int64_t)s < 0 || ns >= NS_PER_S)
		return ERR(LNX_EINVAL);
	uint64_t want = s * NS_PER_S + ns, now = linux_ns_now(u);
	if (abs)
		want = want > now ? want - now : 0;
	u->slept_ns += want;
	return 0;
}

WORKLOAD_SECTION static uint64_t sys_clock_gettime(struct user_run *u, uint64_t ts)
{
	if (!linux_writable(u, ts, sizeof(struct lnx_timespec)))
		return ERR(LNX_EFAULT);
	uint64_t ns = linux_ns_now(u);
	put_u64(ts, ns / NS_PER_S);
	put_u64(ts + 8, ns % NS_PER_S);
	return 0;
}

WORKLOAD_SECTION static uint64_t sys_gettimeofday(struct user_run *u, uint64_t tv)
{
	if (!tv)
		return 0;
	if (!linux_writable(u, tv, 16))
		return ERR(LNX_EFAULT);
	uint64_t ns = linux_ns_now(u);
	put_u64(tv, ns / NS_PER_S);
	put_u64(tv + 8, ns % NS_PER_S / 1000);
	return 0;
}

/* xorshift64* from program.seed (getrandom, deterministic between the native and traced runs). */
WORKLOAD_SECTION static uint64_t sys_getrandom(struct user_run *u, uint64_t buf, uint64_t len)
{
	if (!linux_writable(u, buf, len))
		return ERR(LNX_EFAULT);
	for (uint64_t i = 0; i < len; i++) {
		u->rand_state ^= u->rand_state >> 12;
		u->rand_state ^= u->rand_state << 25;
		u->rand_state ^= u->rand_state >> 27;
		uint8_t b = (uint8_t)((u->rand_state * 0x2545f4914f6cdd1dull) >> 56);
		linux_copy_out(buf + i, &b, 1);
	}
	return len;
}

WORKLOAD_SECTION static void put_str(uint64_t dst, const char *s)
{
	uint64_t n = 0;
	while (s[n])
		n++;
	linux_copy_out(dst, s, n + 1);
}

WORKLOAD_SECTION static uint64_t sys_uname(struct user_run *u, uint64_t p)
{
	if (!linux_writable(u, p, sizeof(struct lnx_utsname)))
		return ERR(LNX_EFAULT);
	zero_out(p, sizeof(struct lnx_utsname));
	put_str(p + 0 * LNX_UTS_LEN, "Linux");
	put_str(p + 1 * LNX_UTS_LEN, "baretrace");
	put_str(p + 2 * LNX_UTS_LEN, "6.1.0-baretrace");
	put_str(p + 3 * LNX_UTS_LEN, "#1");
	put_str(p + 4 * LNX_UTS_LEN, "x86_64");
	put_str(p + 5 * LNX_UTS_LEN, "(none)");
	return 0;
}

WORKLOAD_SECTION static uint64_t sys_prlimit(struct user_run *u, uint64_t resource, uint64_t old)
{
	if (!old)
		return 0;
	if (!linux_writable(u, old, sizeof(struct lnx_rlimit)))
		return ERR(LNX_EFAULT);
	/* descriptors: the table's size, which dup2 and F_DUPFD hold a descriptor to (dup(2)) */
	uint64_t cur = resource == LNX_RLIMIT_STACK    ? 8ull << 20
		       : resource == LNX_RLIMIT_NOFILE ? USER_FDS
						       : LNX_RLIM_INFINITY;
	put_u64(old, cur);
	put_u64(old + 8, resource == LNX_RLIMIT_NOFILE ? USER_FDS : LNX_RLIM_INFINITY);
	return 0;
}

/* An old value asked for (rt_sigaction, rt_sigprocmask, sigaltstack): none set, zeros. */
WORKLOAD_SECTION static uint64_t zero_old(struct user_run *u, uint64_t p, uint64_t n)
{
	if (!p)
		return 0;
	if (!linux_writable(u, p, n))
		return ERR(LNX_EFAULT);
	zero_out(p, n);
	return 0;
}

WORKLOAD_SECTION static uint64_t sys_getcwd(struct user_run *u, uint64_t buf, uint64_t size)
{
	if (size < 2)
		return ERR(LNX_ERANGE);
	if (!linux_writable(u, buf, 2))
		return ERR(LNX_EFAULT);
	put_str(buf, "/");
	return 2;
}

WORKLOAD_SECTION static uint64_t sys_sysinfo(struct user_run *u, uint64_t p)
{
	if (!linux_writable(u, p, sizeof(struct lnx_sysinfo)))
		return ERR(LNX_EFAULT);
	zero_out(p, sizeof(struct lnx_sysinfo));
	put_u64(p + __builtin_offsetof(struct lnx_sysinfo, totalram), u->mmap_hi - u->mmap_lo);
	put_u64(p + __builtin_offsetof(struct lnx_sysinfo, freeram), u->mmap_hi - u->mmap_next);
	uint16_t procs = 1;
	uint32_t unit = 1;
	linux_copy_out(p + __builtin_offsetof(struct lnx_sysinfo, procs), &procs, sizeof(procs));
	linux_copy_out(p + __builtin_offsetof(struct lnx_sysinfo, mem_unit), &unit, sizeof(unit));
	return 0;
}

/* -ENOSYS, tallied: each distinct number once in the report, and the total. */
WORKLOAD_SECTION static uint64_t unsupported(struct user_run *u, uint64_t nr)
{
	struct user_run_end *e = &u->end;
	e->unsupported_total++;
	for (unsigned i = 0; i < e->unsupported_n; i++)
		if (e->unsupported_nr[i] == nr) {
			e->unsupported_count[i]++;
			return ERR(LNX_ENOSYS);
		}
	if (e->unsupported_n < USER_UNSUPPORTED_MAX) {
		e->unsupported_nr[e->unsupported_n] = nr;
		e->unsupported_count[e->unsupported_n++] = 1;
	}
	return ERR(LNX_ENOSYS);
}

/* prctl's memory-deny-write-execute (Linux 6.3, kernel/sys.c prctl_set_mdwe): once set, W^X for
 * the rest of the run (linux_mm.c), never cleared (-EPERM); the other prctl options are -EINVAL. */
WORKLOAD_SECTION static uint64_t linux_prctl_mdwe(struct user_run *u, const uint64_t *a)
{
	const uint64_t known = LNX_PR_MDWE_REFUSE_EXEC_GAIN | LNX_PR_MDWE_NO_INHERIT;
	if (a[0] == LNX_PR_GET_MDWE)
		return a[1] || a[2] || a[3] || a[4] ? ERR(LNX_EINVAL) : u->mdwe;
	if (a[0] != LNX_PR_SET_MDWE || a[2] || a[3] || a[4] || (a[1] & ~known) ||
	    (a[1] == LNX_PR_MDWE_NO_INHERIT))
		return ERR(LNX_EINVAL);
	if (u->mdwe && a[1] != u->mdwe)
		return ERR(LNX_EPERM);
	u->mdwe = a[1];
	return 0;
}

/* The calls that only answer (ids, no-ops, refusals), or ~0 when nr is not one of them. */
WORKLOAD_SECTION static uint64_t answer(const struct linux_call *c)
{
	switch (c->nr) {
	case LNX_getppid:
	case LNX_getuid:
	case LNX_geteuid:
	case LNX_getgid:
	case LNX_getegid:
		return 0;
	case LNX_ioctl:
		return ERR(LNX_ENOTTY);
	default:
		return ~0ull;
	}
}

WORKLOAD_SECTION static uint64_t dispatch_files(struct user_run *u, const struct linux_call *c);

WORKLOAD_SECTION static uint64_t dispatch(struct user_run *u, const struct linux_call *c)
{
	const uint64_t *a = c->a;
	switch (c->nr) {
	case LNX_write:
		return sys_write(u, a[0], a[1], a[2]);
	case LNX_writev:
		return sys_iov(u, a[0], a[1], a[2], false);
	case LNX_brk:
		return sys_brk(u, a[0]);
	case LNX_mmap:
		return linux_mmap(u, a);
	case LNX_munmap:
		return linux_munmap(u, a[0], a[1]);
	case LNX_mprotect:
		return linux_mprotect(u, a[0], a[1], a[2]);
	case LNX_madvise:
		return linux_madvise(u, a[0], a[1], a[2]);
	case LNX_nanosleep:
		return sys_sleep(u, a[0], false);
	case LNX_clock_nanosleep:
		return sys_sleep(u, a[2], a[1] & LNX_TIMER_ABSTIME);
	case LNX_mremap:
		return sys_mremap(u, c);
	case LNX_arch_prctl:
		return sys_arch_prctl(u, a[0], a[1]);
	case LNX_fstat:
		return linux_fstat(u, a[0], a[1]);
	case LNX_newfstatat:
		return linux_newfstatat(u, a[0], a[1], a[2], a[3]);
	case LNX_statx:
		return linux_statx(u, a);
	case LNX_clock_gettime:
		return sys_clock_gettime(u, a[1]);
	case LNX_gettimeofday:
		return sys_gettimeofday(u, a[0]);
	case LNX_time:
		return linux_ns_now(u) / NS_PER_S;
	case LNX_getrandom:
		return sys_getrandom(u, a[0], a[1]);
	case LNX_uname:
		return sys_uname(u, a[0]);
	case LNX_prlimit64:
		return sys_prlimit(u, a[1], a[3]);
	case LNX_getrlimit:
		return sys_prlimit(u, a[0], a[1]);
	case LNX_rt_sigaction:
		return zero_old(u, a[2], 32);
	case LNX_rt_sigprocmask:
		return zero_old(u, a[2], a[3] < 8 ? a[3] : 8);
	case LNX_sigaltstack:
		return zero_old(u, a[1], 24);
	case LNX_getcwd:
		return sys_getcwd(u, a[0], a[1]);
	default:
		return dispatch_files(u, c);
	}
}

/* The calls on paths and descriptors (linux_files.c), then those that only answer. */
WORKLOAD_SECTION static uint64_t dispatch_files(struct user_run *u, const struct linux_call *c)
{
	const uint64_t *a = c->a;
	switch (c->nr) {
	case LNX_open:
		return linux_openat(u, a[0], a[1]);
	case LNX_openat:
		return linux_openat(u, a[1], a[2]);
	case LNX_close:
		return linux_close(u, a[0]);
	case LNX_dup:
		return linux_dup(u, a[0], ~0ull, 0, false);
	case LNX_dup2:
		return linux_dup(u, a[0], a[1], 0, false);
	case LNX_dup3: /* flags: O_CLOEXEC only, and a different newfd (fs/file.c ksys_dup3) */
		return (a[2] & ~LNX_O_CLOEXEC) || a[0] == a[1]
			   ? ERR(LNX_EINVAL)
			   : linux_dup(u, a[0], a[1], 0, a[2] & LNX_O_CLOEXEC);
	case LNX_fcntl:
		return linux_fcntl(u, a[0], a[1], a[2]);
	case LNX_getdents64:
		return linux_getdents64(u, a[0], a[1], a[2]);
	case LNX_read:
		return linux_read(u, a[0], a[1], a[2], false, 0);
	case LNX_pread64:
		return linux_read(u, a[0], a[1], a[2], true, a[3]);
	case LNX_readv:
		return sys_iov(u, a[0], a[1], a[2], true);
	case LNX_lseek:
		return linux_lseek(u, a[0], (int64_t)a[1], a[2]);
	case LNX_access:
		return linux_access(u, a[0], a[1]);
	case LNX_faccessat:
	case LNX_faccessat2:
		return linux_access(u, a[1], a[2]);
	case LNX_readlink:
		return linux_readlink(u, a[0], a[1], a[2]);
	case LNX_readlinkat:
		return linux_readlink(u, a[1], a[2], a[3]);
	case LNX_sysinfo:
		return sys_sysinfo(u, a[0]);
	case LNX_prctl:
		return linux_prctl_mdwe(u, a);
	default: {
		uint64_t r = answer(c);
		return r != ~0ull ? r : unsupported(u, c->nr);
	}
	}
}

WORKLOAD_SECTION static bool maps_changed(uint64_t nr)
{
	return nr == LNX_munmap || nr == LNX_mprotect || nr == LNX_madvise || nr == LNX_mmap ||
	       nr == LNX_mremap;
}

/* Every thread's system calls: the thread calls first (linux_thread.c), the rest one at a
 * time on the process's state while threads run; a call that changed its page tables has the
 * other threads' CPUs flush their TLBs before it returns. */
WORKLOAD_SECTION uint64_t linux_syscall(const struct linux_call *c)
{
	struct user_run *u = linux_process_run();
	uint64_t r = linux_thread_syscall(u, c);
	if (r == ~0ull) {
		linux_process_lock();
		r = dispatch(u, c);
		linux_process_unlock();
		if (maps_changed(c->nr))
			linux_tlb_shootdown();
	}
	linux_thread_check_end();
	return r;
}
