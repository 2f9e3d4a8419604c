/* SPDX-License-Identifier: MIT */
/*
 * btdecode's verdict (tools/bt_verdict.h): the problems said and counted by kind, the kernel's
 * own word on each run, and the exit status they make together.
 *
 * The kernel's word: a session whose END counts records not delivered (store full with
 * capture.full=stop, dropped by the model, overwritten in the circular BTS buffer, given up by
 * capture.full=wrap, program output not delivered) makes the kernel end its run "run finished:
 * INCOMPLETE" (docs/record-stream.md "Nothing lost"), and the host says the same (status 4). A run
 * the kernel calls INCOMPLETE for a reason no END carries (the stick's copy failed:
 * docs/usb-stick.md "Records onto the stick") is incomplete here too, said with the kernel's word.
 */
#include "tools/bt_verdict.h"
#include <inttypes.h>
#include <string.h>
#include "tools/btdecode.h"

static struct {
	uint64_t damaged, withheld;
	/* the run being read: its frames began, and its ENDs counted records not delivered */
	bool in_run;
	uint64_t run_lost;
	uint64_t sessions_lost, records_lost; /* the capture's */
} v;

void bt_verdict_start(void)
{
	memset(&v, 0, sizeof(v));
}

void bt_verdict_say(enum bt_problem_kind kind, uint64_t line, const char *fmt, va_list ap)
{
	bt_progress_clear();
	fprintf(out_problems, "btdecode: line %" PRIu64 ": ", line);
	vfprintf(out_problems, fmt, ap);
	fputc('\n', out_problems);
	if (kind == BT_WITHHELD)
		v.withheld++;
	else
		v.damaged++;
}

uint64_t bt_verdict_problems(void)
{
	return v.damaged + v.withheld;
}

static void say(enum bt_problem_kind kind, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(enum bt_problem_kind kind, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bt_verdict_say(kind, line, fmt, ap);
	va_end(ap);
}

void bt_verdict_run_start(void)
{
	v.in_run = true;
	v.run_lost = 0;
}

void bt_verdict_run_lost(uint64_t records)
{
	v.run_lost += records;
	v.sessions_lost++;
	v.records_lost += records;
}

void bt_verdict_run_end(const char *word, uint64_t line)
{
	if (v.in_run && !v.run_lost && !strncmp(word, "INCOMPLETE", 10))
		say(BT_WITHHELD, line,
		    "the kernel ends its run 'run finished: INCOMPLETE', and no session's END "
		    "here counts a record it did not deliver: the kernel's log says what it "
		    "withheld (its 'incomplete:' and 'stick: error:' lines)");
	v.in_run = false;
}

int bt_verdict_finish(FILE *to, bool always, uint64_t frames, uint64_t records, uint64_t bad_lines)
{
	if (always || bt_verdict_problems()) {
		fprintf(to,
			"btdecode: %" PRIu64 " frames, %" PRIu64 " records, %" PRIu64
			" problems (%" PRIu64 " damaged lines",
			frames, records, bt_verdict_problems(), bad_lines);
		if (v.sessions_lost)
			fprintf(to,
				"; %" PRIu64 " sessions incomplete: %" PRIu64
				" records the kernel did not deliver",
				v.sessions_lost, v.records_lost);
		fputs(")\n", to);
	}
	if (!frames && !bad_lines)
		return BT_EXIT_NONE;
	if (v.damaged)
		return BT_EXIT_DAMAGED;
	return v.withheld ? BT_EXIT_INCOMPLETE : BT_EXIT_COMPLETE;
}
