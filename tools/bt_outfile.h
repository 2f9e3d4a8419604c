/* SPDX-License-Identifier: MIT */
/* btdecode's -o FILE (tools/bt_outfile.c): where a view writes, never over what it reads. */
#ifndef TOOLS_BT_OUTFILE_H
#define TOOLS_BT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/* The file a view of `view` writes: `path` (NULL or "-": stdout; a binary view's bytes never
 * to a terminal), or NULL with the problem said on stderr. Refused before it is opened for
 * writing (stdout: before a byte goes there) when it is one of the files read, inputs[0..n) (the
 * capture, NULL or "-" for stdin, and the ELFs), the same file by device and inode through any
 * name: a symbolic or hard link, another path to it. */
FILE *bt_outfile_open(const char *path, const char *const *inputs, unsigned n, const char *view,
		      bool binary);

#endif
