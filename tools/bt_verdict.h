/* SPDX-License-Identifier: MIT */
/*
 * What btdecode concludes about a capture (tools/bt_verdict.c; docs/record-stream.md "Records off
 * the machine", its exit status table): every problem is said on stderr as it is found, of one of
 * two kinds, and the kinds make the exit status. A capture is complete (0) only when no problem
 * was found; damage (something lost or mangled on the way to the host) is 1; a capture that
 * came whole but whose kernel counted records it did not deliver is incomplete, 4, as
 * scripts/run's status for the kernel's "run finished: INCOMPLETE".
 */
#ifndef TOOLS_BT_VERDICT_H
#define TOOLS_BT_VERDICT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define BT_EXIT_COMPLETE   0
#define BT_EXIT_DAMAGED	   1 /* damaged, missing, doubled or out of order on the way */
#define BT_EXIT_USAGE	   2 /* bad usage, an input that cannot be read, an output refused */
#define BT_EXIT_NONE	   3 /* no record stream in the input */
#define BT_EXIT_INCOMPLETE 4 /* whole, but the kernel counted records it did not deliver */

enum bt_problem_kind {
	BT_DAMAGED,  /* the capture lost or mangled something: status 1 */
	BT_WITHHELD, /* the kernel says it did not deliver records: status 4 */
};

/* A capture begins: nothing found yet. */
void bt_verdict_start(void);
/* A problem at the capture's line `line`: said on out_problems, and counted by its kind. */
void bt_verdict_say(enum bt_problem_kind kind, uint64_t line, const char *fmt, va_list ap);
uint64_t bt_verdict_problems(void); /* of both kinds */

/* The run the frames come from, as its kernel's last line ends it ("run finished: WORD"): its
 * boot's first frame came; one of its sessions' END counted lost records (said by the caller). */
void bt_verdict_run_start(void);
void bt_verdict_run_lost(uint64_t records);
/* The kernel's last line, WORD after "run finished: ": its INCOMPLETE is a problem unless an
 * END of the run already said what was lost. The run that follows starts afresh. */
void bt_verdict_run_end(const char *word, uint64_t line);

/* The last line ("btdecode: N frames, ...") to `to` when `always` or when a problem was found
 * (to out_problems then), and the exit status: BT_EXIT_NONE when no frame (nor a damaged
 * one) came. */
int bt_verdict_finish(FILE *to, bool always, uint64_t frames, uint64_t records, uint64_t bad_lines);

#endif
