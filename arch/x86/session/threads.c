/* SPDX-License-Identifier: MIT */
/*
 * A Linux program's threads, the session runner's side: while the main thread runs (natively,
 * then traced), every CPU that neither runs it nor writes the console waits for a thread (a
 * host: arch/x86/user/thread_host.c gives it one at clone). A traced run's thread gets a session
 * of its own on its CPU, the facility's, named "program@PERSONALITY cpu=N tid=T" (the record
 * stream's BEGIN carries the name: tools/ tell threads apart by it); a native run's thread just
 * runs. The drainer writes the hosts' output out while they run; their sessions count with the
 * main thread's (the worst outcome of all is the workload's on that CPU).
 */
#include "arch/x86/session/threads.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/session/output.h"
#include "arch/x86/smp/smp.h"
#include "arch/x86/user/linux_thread.h"
#include "arch/x86/user/run.h"
#include "kernel/arch_user.h"
#include "kernel/program.h"
#include "kernel/arch_cpu.h"
#include "lib/fmt.h"
#include "lib/string.h"

struct host_job {
	const struct trace_request *req;
	bool traced;
	/* the worst outcome of this CPU's thread sessions, and how many ran */
	enum trace_outcome worst;
	unsigned sessions;
	uint64_t seq;
	bool posted;
};
static struct host_job hosts[MAX_CPUS];
static volatile bool hosting[MAX_CPUS]; /* drained while it hosts (threads_drain) */
static bool text_only;			/* stream=off: records as text lines, which name no CPU */

static enum trace_outcome worse(enum trace_outcome a, enum trace_outcome b)
{
	if (a == TRACE_FAILED || b == TRACE_FAILED)
		return TRACE_FAILED;
	if (a == TRACE_INCOMPLETE || b == TRACE_INCOMPLETE)
		return TRACE_INCOMPLETE;
	return a == TRACE_PASSED || b == TRACE_PASSED ? TRACE_PASSED : TRACE_SKIPPED;
}

/* How often and how long this CPU's thread waited in the kernel, then what (with no what, a
 * thread that never waited says nothing: the main thread's line). */
static void say_waits(workload_print_fn print, const char *what)
{
	uint64_t waits, us;
	linux_thread_waits(&waits, &us);
	if (print && (waits || what[0]))
		print(
		    "program: tid %u (cpu %u): waited %lu time%s in the kernel, halted %lu us%s\n",
		    linux_thread_tid(), this_cpu()->index, (unsigned long)waits,
		    waits == 1 ? "" : "s", (unsigned long)us, what);
}

/* A thread's end, after its traced run (struct trace_request.done): a fault is said. */
static void thread_done(workload_print_fn print)
{
	struct user_run_end e;
	user_thread_end_of(&e);
	say_waits(print, " (futex waits, the system calls' lock: INT 0xe0 to its IRET in the "
			 "records)");
	if (print && e.kind == USER_END_FAULT)
		print("error: program: tid %u (cpu %u): ended by %s (vector %u) at %#lx "
		      "error-code=%#lx after %lu us: the process ends with it\n",
		      linux_thread_tid(), this_cpu()->index, arch_exception_name(e.vector),
		      e.vector, (unsigned long)e.rip, (unsigned long)e.error_code,
		      (unsigned long)e.elapsed_us);
}

/* On a host CPU, for one run of the main thread: each thread given to this CPU in turn. */
static void host(void *arg)
{
	struct host_job *j = arg;
	uint32_t tid;
	while (linux_thread_wait(&tid)) {
		linux_thread_begin();
		if (!j->traced) {
			linux_thread_workload(0);
		} else {
			struct trace_request own = *j->req;
			own.fn = linux_thread_workload;
			own.arg = 0;
			own.expect = 0;
			own.expect_native = false;
			own.signature = NULL;
			own.reset = NULL;
			own.done = thread_done;
			char suffix[24];
			fmt_snprintf(suffix, sizeof(suffix), " tid=%u", tid);
			enum trace_outcome o = runner_session(&own, suffix);
			j->worst = j->sessions++ ? worse(j->worst, o) : o;
		}
		linux_thread_end();
	}
}

void threads_start(const struct trace_request *req, bool traced, unsigned drainer)
{
	bool host_cpu[MAX_CPUS] = {0};
	unsigned me = this_cpu()->index;
	if (!req->threads)
		return;
	for (unsigned c = 0; c < arch_cpu_count(); c++)
		host_cpu[c] = c != me && c != drainer;
	linux_threads_open(host_cpu);
	text_only = req->opt->stream == TRACE_STREAM_OFF;
	for (unsigned c = 0; c < arch_cpu_count(); c++) {
		struct host_job *j = &hosts[c];
		*j = (struct host_job){.req = req, .traced = traced};
		if (!host_cpu[c])
			continue;
		trace_live_serve(c, traced);
		__atomic_store_n(&hosting[c], true, __ATOMIC_RELEASE);
		j->posted = smp_call_post(c, host, j, &j->seq);
		if (!j->posted) {
			hosting[c] = false;
			trace_live_serve(c, false);
			linux_thread_no_host(
			    c); /* still in an earlier call: never given a thread */
		}
	}
}

enum trace_outcome threads_finish(enum trace_outcome main, workload_print_fn print)
{
	struct linux_threads_summary sum;
	if (!linux_threads_opened())
		return main;
	say_waits(print, "");
	linux_threads_close(&sum);
	for (unsigned c = 0; c < arch_cpu_count(); c++) {
		struct host_job *j = &hosts[c];
		if (!j->posted)
			continue;
		while (!smp_call_finished(c, j->seq))
			cpu_pause(); /* it has left its last thread (linux_threads_close waited) */
		trace_live_serve(c, false);
		j->posted = false;
		if (j->sessions) {
			main = worse(main, j->worst);
			if (j->req->sessions) {
				struct trace_session_tally *t = j->req->sessions;
				__atomic_add_fetch(j->worst == TRACE_FAILED	  ? &t->failed
						   : j->worst == TRACE_INCOMPLETE ? &t->incomplete
						   : j->worst == TRACE_SKIPPED	  ? &t->skipped
										  : &t->passed,
						   j->sessions, __ATOMIC_RELAXED);
			}
		}
	}
	if (print && sum.made)
		print(
		    "program: %u thread%s besides the main one, each on a CPU of its own (%u CPUs "
		    "for threads)\n",
		    sum.made, sum.made == 1 ? "" : "s", sum.cpus);
	if (print && (sum.deadlock || sum.refused))
		program_mark_bad();
	if (print && sum.deadlock)
		print("error: program: deadlock: %s the process ended (status %#llx)\n",
		      sum.deadlock, USER_STATUS_DEADLOCK);
	if (print && sum.refused)
		print("error: program: clone refused %u time%s (-EAGAIN): no CPU left for another "
		      "thread; each thread takes a CPU of its own and one more writes the console: "
		      "scripts/run --smp %u or more\n",
		      sum.refused, sum.refused == 1 ? "" : "s", sum.cpus + sum.refused + 1);
	return main;
}

void threads_drain(void)
{
	for (unsigned c = 0; c < arch_cpu_count(); c++) {
		if (!__atomic_load_n(&hosting[c], __ATOMIC_ACQUIRE))
			continue;
		/* with the stream off, a host's lines wait for the main thread's session to end
		 * (threads_flush writes them out then, each CPU's whole), unless its ring fills: a
		 * thread never waits for room while others may wait for it */
		if (text_only && !trace_out_half_full(c))
			continue;
		trace_live_drain(c);
	}
}

void threads_flush(void)
{
	for (unsigned c = 0; c < arch_cpu_count(); c++)
		if (hosting[c]) {
			trace_out_flush(c);
			hosting[c] = false;
		}
}
