/* SPDX-License-Identifier: MIT */
/* A Linux program's threads, the session runner's side (threads.c). */
#ifndef ARCH_X86_SESSION_THREADS_H
#define ARCH_X86_SESSION_THREADS_H

#include <stdbool.h>
#include "kernel/arch_trace.h"
#include "kernel/arch_workloads.h"

/* On the CPU about to run the workload, before each of its runs (native: traced false): for a
 * request with threads, every other CPU but the drainer's waits for the program's threads. */
void threads_start(const struct trace_request *req, bool traced, unsigned drainer);
/* After that run: the process over, every host back; the worse of `main` and the thread
 * sessions' outcomes (counted in req->sessions), and the threads said through print. */
enum trace_outcome threads_finish(enum trace_outcome main, workload_print_fn print);
/* The drainer's round (and the boot CPU's while it waits): the hosts' output written out. */
void threads_drain(void);
/* The console's owner, after the run: the hosts' output written out to the end. */
void threads_flush(void);

/* runner.c: one session of req on this CPU, its label "WORKLOAD@PERSONALITY cpu=N" followed
 * by suffix. */
enum trace_outcome runner_session(const struct trace_request *req, const char *suffix);

#endif
