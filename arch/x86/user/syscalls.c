/* SPDX-License-Identifier: MIT */
/*
 * The system calls of include/baretrace/user.h other than SYS_NOP and SYS_EXIT (entry.S keeps
 * those two in assembly). This code is part of every traced run that makes a system call, so
 * it lives in .text.workload like the workloads (the single-step engine steps it, QEMU's log
 * covers it) and calls nothing outside it: copies are one REP MOVSB (one instruction, no
 * branch per byte), the CPU number comes from GS. A pointer is checked against the program's
 * own segments and stack (arch_user_run_begin), never dereferenced unchecked.
 */
#include "arch/x86/user/run.h"
#include "arch/x86/cpu/usermode.h"
#define BT_NO_ABI_NOTE /* the kernel is not a program of this ABI */
#include "include/baretrace/user.h"
#include "kernel/arch_workloads.h"

/* [p, p + n) inside one of the program's ranges, or (a Linux program) its heap up to the
 * break or its mmap arena up to the next free byte. */
WORKLOAD_SECTION static bool inside(uint64_t p, uint64_t n, uint64_t lo, uint64_t hi)
{
	return p >= lo && p < hi && n <= hi - p;
}

WORKLOAD_SECTION bool user_buffer_ok(const struct user_run *u, uint64_t p, uint64_t n)
{
	for (unsigned i = 0; i < u->nrange; i++)
		if (inside(p, n, u->range[i].lo, u->range[i].hi))
			return true;
	return inside(p, n, u->brk_lo, u->brk) || inside(p, n, u->mmap_lo, u->mmap_next);
}

WORKLOAD_SECTION void user_output(struct user_run *u, uint64_t buf, uint64_t len)
{
	uint64_t room = u->out_room - u->out_len;
	uint64_t keep = len < room ? len : room;
	char *dst = u->out + u->out_len;
	const char *src = (const char *)buf;
	uint64_t n = keep;
	user_access_begin();
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	user_access_end();
	u->out_len += keep;
	u->out_dropped += len - keep;
}

WORKLOAD_SECTION static int64_t user_write(struct user_run *u, uint64_t buf, uint64_t len)
{
	if (len > BT_WRITE_MAX)
		return BT_EINVAL;
	if (len && !user_buffer_ok(u, buf, len))
		return BT_EFAULT;
	user_output(u, buf, len);
	return (int64_t)len;
}

/* A region-of-interest mark: the session applies it (at once when it runs unstepped, else
 * from its step hook right after this instruction). Without program.roi=marks it is a no-op. */
WORKLOAD_SECTION static int64_t user_roi(struct user_run *u, enum user_roi mark)
{
	if (u->roi_marks) {
		u->roi_pending = (uint8_t)mark;
		if (u->roi_now)
			u->roi_now();
	}
	return 0;
}

WORKLOAD_SECTION uint64_t user_syscall(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t nr)
{
	(void)a2;
	struct user_run *u = &user_runs[this_cpu()->index];
	int64_t r = BT_ENOSYS;
	if (nr == BT_SYS_WRITE)
		r = user_write(u, a0, a1);
	else if (nr == BT_SYS_ROI_BEGIN)
		r = user_roi(u, USER_ROI_BEGIN);
	else if (nr == BT_SYS_ROI_END)
		r = user_roi(u, USER_ROI_END);
	else if (nr == BT_SYS_CPU)
		r = this_cpu()->index;
	else if (nr == BT_SYS_TSC_HZ)
		r = (int64_t)u->tsc_hz;
	return (uint64_t)r;
}
