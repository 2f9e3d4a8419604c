/* SPDX-License-Identifier: MIT */
/*
 * The kernel's option parser on the host: checks a baretrace.cfg and UEFI-style load options
 * with the very code the kernel runs at boot (kernel/options.c over lib/config.c), so that
 * scripts/mkimage refuses a bad option before it writes an image.
 *
 *   build/check-options [--config FILE] [key=value ...]
 *   build/check-options --help
 *
 * Prints what the kernel would print: "warning: ..." lines, and on a bad option "error: ..."
 * naming the problem and what is accepted. Exit status: 0 accepted, 2 rejected or bad usage.
 * The names of workloads, self-tests and personalities come from the kernel's own tables
 * (kernel/workloads.c, arch/x86/model/personality.c, and the SELFTEST() lines of the kernel
 * sources, which the Makefile collects).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "boot/text.h"
#include "kernel/boot_info.h"
#include "kernel/options.h"

#define STATUS_OK  0
#define STATUS_BAD 2 /* the runner's and the kernel's "bad options" status */

static void put(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}

static void warn(void *ctx, const char *line)
{
	(void)ctx;
	printf("warning: %s\n", line);
}

static int usage(void)
{
	fprintf(stderr, "usage: check-options [--config FILE] [key=value ...]\n"
			"       check-options --help    (the accepted options)\n");
	return STATUS_BAD;
}

/* The config file as the loader hands it over (boot/config_file.c): size and text checks. */
static int read_config(const char *path, struct boot_info *bi)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "check-options: %s: cannot open it\n", path);
		return -1;
	}
	size_t n = fread(bi->config, 1, sizeof(bi->config), f);
	fclose(f);
	if (n > sizeof(bi->config) - 1) {
		bi->config_status = BOOT_CONFIG_TOO_LARGE;
		return 0;
	}
	bi->config[n] = '\0';
	bi->config_len = (uint32_t)n;
	bi->config_status = config_text_status(bi->config, n);
	return 0;
}

int main(int argc, char **argv)
{
	static struct boot_info bi; /* large: not on the stack */
	struct kernel_options o;
	char err[512];
	size_t used = 0;
	int i = 1;

	bi.config_status = BOOT_CONFIG_ABSENT;
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		printf("accepted options (in %s or as UEFI load options):\n", BOOT_CONFIG_PATH + 1);
		options_describe(put, stdout);
		return STATUS_OK;
	}
	if (i + 1 < argc && strcmp(argv[i], "--config") == 0) {
		if (read_config(argv[i + 1], &bi) != 0)
			return STATUS_BAD;
		i += 2;
	}
	for (; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (argv[i][0] == '-')
			return usage();
		if (used + n + 2 > sizeof(bi.options)) {
			bi.options_truncated = 1;
			break;
		}
		memcpy(bi.options + used, argv[i], n);
		used += n;
		bi.options[used++] = ' ';
	}
	options_defaults(&o);
	if (!options_parse(&bi, &o, err, sizeof(err), warn, NULL)) {
		printf("error: %s\n", err);
		printf("(check-options --help lists the accepted options)\n");
		return STATUS_BAD;
	}
	return STATUS_OK;
}
