/* SPDX-License-Identifier: MIT */
/*
 * btdecode's output view (docs/programs.md "Trace your own program"): a user program's stdout and
 * stderr, given back byte for byte from the stream's OUTPUT frames (lib/stream.h), the program's
 * stdout to btdecode's stdout (or -o FILE) and its stderr to btdecode's stderr, as a shell would
 * have them; --stream stdout or --stream stderr gives one alone, on stdout. Every session's
 * output comes in stream order; a gap (bytes the kernel could not deliver, a lost frame) is a
 * problem the reader says on stderr, with exit status 1.
 */
#include <stdio.h>
#include <string.h>
#include "tools/btdecode.h"

enum { OUT_BOTH, OUT_STDOUT, OUT_STDERR };
static int streams = OUT_BOTH;

int bt_output_streams(const char *which)
{
	static const char *const names[] = {"both", "stdout", "stderr"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(which, names[i])) {
			streams = i;
			return 0;
		}
	fprintf(stderr,
		"btdecode: --stream '%s': accepted: stdout, stderr, both (the default: "
		"stdout to stdout, stderr to stderr)\n",
		which);
	return -1;
}

static void output(const struct bt_session *s, const struct bt_output *o)
{
	(void)s;
	bool err = o->fd == BT_OUTPUT_STDERR;
	if ((streams == OUT_STDOUT && err) || (streams == OUT_STDERR && !err))
		return;
	FILE *to = err && streams == OUT_BOTH ? out_problems : out_records;
	fwrite(o->bytes, 1, o->len, to);
}

static void finish(void)
{
	fflush(out_problems);
}

const struct bt_view bt_view_output = {
    .name = "output",
    .about = "a user program's stdout and stderr, byte for byte (--stream stdout|stderr|both)",
    .output = output,
    .finish = finish,
};
