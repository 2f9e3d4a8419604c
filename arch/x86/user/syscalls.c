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

/* n bytes from src into the output ring at byte `at` (wrapping at its end). */
WORKLOAD_SECTION static void out_copy(struct user_run *u, uint64_t at, const char *src, uint64_t n)
{
	while (n) {
		uint64_t piece = u->out_room - at < n ? u->out_room - at : n, c = piece;
		char *dst = u->out + at;
		user_access_begin();
		__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(c) : : "memory");
		user_access_end();
		n -= piece;
		at = 0;
	}
}

/* Room for `need` bytes in the ring: a drainer makes it (out_wait) or there is none. */
WORKLOAD_SECTION static bool out_room(struct user_run *u, uint64_t need)
{
	while (u->out_room - (u->out_head - __atomic_load_n(&u->out_tail, __ATOMIC_ACQUIRE)) <
	       need) {
		if (!__atomic_load_n(&u->out_wait, __ATOMIC_ACQUIRE))
			return false;
		__asm__ volatile("pause");
	}
	return true;
}

WORKLOAD_SECTION void user_output(struct user_run *u, unsigned fd, uint64_t buf, uint64_t len)
{
	unsigned s = fd == 2;
	uint64_t most = u->out_room / 2 - sizeof(struct user_out_piece);
	while (len) {
		uint64_t n = len < most ? len : most;
		uint64_t need = (sizeof(struct user_out_piece) + n + USER_OUT_ALIGN - 1) &
				~(uint64_t)(USER_OUT_ALIGN - 1);
		/* after a loss, all that follows is lost too: what arrives is a prefix */
		if (u->out_dropped[0] || u->out_dropped[1] || !out_room(u, need)) {
			u->out_dropped[s] += len;
			u->out_pos[s] += len;
			return;
		}
		uint32_t lo, hi;
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		struct user_out_piece h = {(uint32_t)n, fd, u->out_pos[s], (uint64_t)hi << 32 | lo};
		uint64_t at = u->out_head % u->out_room;
		out_copy(u, at, (const char *)&h, sizeof(h));
		out_copy(u, (at + sizeof(h)) % u->out_room, (const char *)buf, n);
		u->out_pos[s] += n;
		buf += n;
		len -= n;
		__atomic_store_n(&u->out_head, u->out_head + need, __ATOMIC_RELEASE);
	}
}

WORKLOAD_SECTION static int64_t user_write(struct user_run *u, uint64_t buf, uint64_t len)
{
	if (len > BT_WRITE_MAX)
		return BT_EINVAL;
	if (len && !user_buffer_ok(u, buf, len))
		return BT_EFAULT;
	user_output(u, 1, buf, len);
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
