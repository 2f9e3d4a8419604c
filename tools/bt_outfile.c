/* SPDX-License-Identifier: MIT */
/*
 * btdecode's -o FILE (tools/bt_outfile.h). fopen(FILE, "wb") truncates FILE at once, so a FILE
 * that is the capture (or an ELF) being read would be emptied before a byte of it is read: it
 * is refused first. Two names are the same file when stat(2) gives both the same st_dev and
 * st_ino (POSIX <sys/stat.h>: "the file serial number and device ID taken together uniquely
 * identify the file within the system"), which stat's following of symbolic links and a hard
 * link's shared inode both come to; a block device's node, by the device it names (st_rdev).
 * An output that does not exist yet is no file that is read. The standard output is checked
 * too (btdecode CAP >> CAP would read what it writes).
 */
#include "tools/bt_outfile.h"
#include <sys/stat.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Whether a and b are one file that holds data (a regular file or a block device: writing it
 * replaces what is read; a terminal or /dev/null does not keep what was written). */
static bool same_file(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode))
		return a->st_rdev == b->st_rdev;
	return S_ISREG(a->st_mode) && a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Whether writing path (NULL: the standard output) would write over one of the inputs
 * (said). */
static bool over_an_input(const char *path, const char *const *inputs, unsigned n)
{
	struct stat out;
	if (path ? stat(path, &out) : fstat(STDOUT_FILENO, &out))
		return false; /* not there yet (or unreachable: fopen says why) */
	for (unsigned i = 0; i < n; i++) {
		bool is_stdin = !inputs[i] || !strcmp(inputs[i], "-");
		struct stat in;
		if (is_stdin ? fstat(STDIN_FILENO, &in) : stat(inputs[i], &in))
			continue;
		if (!same_file(&in, &out))
			continue;
		const char *what = is_stdin ? "the standard input, the capture being read"
				   : i	    ? "an ELF being read"
					    : "the capture being read";
		fprintf(stderr,
			"btdecode: %s%s is %s%s%s (the same file: device %#lx, inode %lu): writing "
			"it would destroy it before it is read; accepted: an output that is none "
			"of the files btdecode reads\n",
			path ? "-o " : "the standard output", path ? path : "", what,
			is_stdin ? "" : ", ", is_stdin ? "" : inputs[i], (unsigned long)out.st_dev,
			(unsigned long)out.st_ino);
		return true;
	}
	return false;
}

FILE *bt_outfile_open(const char *path, const char *const *inputs, unsigned n, const char *view,
		      bool binary)
{
	if (!path || !strcmp(path, "-")) {
		if (binary && isatty(STDOUT_FILENO)) {
			fprintf(
			    stderr,
			    "btdecode: --view %s writes a binary file: name it with -o FILE (or "
			    "redirect stdout)\n",
			    view);
			return NULL;
		}
		return over_an_input(NULL, inputs, n) ? NULL : stdout;
	}
	if (over_an_input(path, inputs, n))
		return NULL;
	FILE *f = fopen(path, "wb");
	if (!f)
		fprintf(stderr, "btdecode: -o %s: %s\n", path, strerror(errno));
	return f;
}
