/* SPDX-License-Identifier: MIT */
/*
 * btdecode's progress line for long decodes, on a terminal only (stderr a tty), redrawn in
 * place as `perf report` and scripts/run draw theirs: the bytes read (and of how many, for a
 * file), the records decoded and the time, once the decode has taken BTDECODE_PROGRESS_MS
 * (default 1000) ms; cleared before any message and at the end. Never with --view output,
 * whose stderr is the program's.
 */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "tools/btdecode.h"

#define PROGRESS_DELAY_MS 1000
#define PROGRESS_EVERY_MS 250
#define MIB		  (1024.0 * 1024.0)

static struct {
	bool on, shown;
	uint64_t total; /* the file's size, 0 unknown */
	double start, last, delay;
} pg;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void bt_progress_start(FILE *in, bool allowed)
{
	struct stat st;
	const char *ms = getenv("BTDECODE_PROGRESS_MS");
	pg.on = allowed && isatty(STDERR_FILENO);
	pg.shown = false;
	pg.total = fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	pg.delay = ms ? strtod(ms, NULL) : PROGRESS_DELAY_MS;
	pg.start = pg.last = now_ms();
}

void bt_progress_update(uint64_t bytes, uint64_t records)
{
	if (!pg.on)
		return;
	double t = now_ms();
	if (t - pg.start < pg.delay || (pg.shown && t - pg.last < PROGRESS_EVERY_MS))
		return;
	pg.last = t;
	pg.shown = true;
	if (pg.total)
		fprintf(stderr,
			"\r\033[K[ btdecode: %.0f%%, %.1f of %.1f MiB, %" PRIu64
			" records, %.1f s ]",
			100.0 * (double)bytes / (double)pg.total, (double)bytes / MIB,
			(double)pg.total / MIB, records, (t - pg.start) / 1e3);
	else
		fprintf(stderr, "\r\033[K[ btdecode: %.1f MiB, %" PRIu64 " records, %.1f s ]",
			(double)bytes / MIB, records, (t - pg.start) / 1e3);
	fflush(stderr);
}

void bt_progress_clear(void)
{
	if (!pg.shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	pg.shown = false;
}
