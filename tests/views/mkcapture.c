/* SPDX-License-Identifier: MIT */
/*
 * Writes a record stream (lib/stream.h, the kernel's own writer) from a hand-written list, for
 * the decoder's view tests (tests/views/views.t): the records come from the test's reading of
 * its program's source, not from a run. Input lines (stdin), '#' comments:
 *   header KEY=VALUE...                         a HEADER frame
 *   config TEXT                                 a HEADER frame of the one pair config=TEXT,
 *                                               spaces kept (the run's own: its options)
 *   begin FACILITY NAME                         a session (CPU 0); NAME to the line's end
 *                                               ("calls@golden cpu=1 tid=2")
 *   bts FROM TO FLAGS                           a BTS record
 *   lbr INDEX FROM TO CYCLES MISPRED BR_TYPE    an LBR entry (MISPRED -1: not valid)
 *   end LOST [WHY]                              the session's END
 *   cpu N                                       frames from now on are CPU N's (each CPU's
 *                                               frame numbers run on from 0; CPU 0 at first)
 *   bootend                                     the boot's END (lib/stream.h): a HEADER frame
 *                                               of CPU 0 with "end=" and each CPU's frames
 *   log TEXT                                    a line of the human log, as it is
 *   tsc N                                       the open frames end: those begun from now on
 *                                               carry TSC N (0 at first)
 * Addresses may be written SYMBOL or SYMBOL+OFFSET: each SYMBOL=ADDRESS given as an argument.
 * --code BASE FILE: the code at BASE is FILE's bytes (objcopy -O binary): BTS records go as
 * PATH frames walked along it (lib/stream_path.h), as the kernel writes them.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/stream.h"

#define MAX_SYMS 256
#define MAX_CPUS 8
static struct {
	char name[64];
	uint64_t addr;
} syms[MAX_SYMS];
static unsigned n_syms;
static unsigned line_no;

static uint8_t code[1 << 20];
static size_t code_len;
static uint64_t code_base;

static size_t code_fn(void *ctx, uint64_t addr, uint8_t *buf)
{
	(void)ctx;
	return bt_code_copy(addr, code_base, code, code_len, buf);
}

static void emit(void *ctx, const uint8_t *frame, size_t len)
{
	(void)ctx;
	char text[BT_TEXT_PREFIX_LEN + BT_TEXT_MAX + 2];
	bt_text_line(frame, len, text);
	fputs(text, stdout);
}

static uint64_t now; /* the TSC the frames begun from now on carry (line "tsc N") */

static uint64_t clock_now(void)
{
	return now;
}

static uint64_t number(const char *s)
{
	if (!s) {
		fprintf(stderr, "mkcapture: line %u: a field is missing\n", line_no);
		exit(2);
	}
	char *end;
	uint64_t v = strtoull(s, &end, 0);
	if (end != s && !*end)
		return v;
	char name[64];
	const char *plus = strchr(s, '+');
	size_t len = plus ? (size_t)(plus - s) : strlen(s);
	uint64_t off = plus ? strtoull(plus + 1, NULL, 0) : 0;
	snprintf(name, sizeof(name), "%.*s", (int)len, s);
	for (unsigned i = 0; i < n_syms; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].addr + off;
	fprintf(stderr, "mkcapture: line %u: '%s': not a number or a known symbol\n", line_no, s);
	exit(2);
}

static int signed_field(const char *s)
{
	return s ? atoi(s) : -1;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc && n_syms < MAX_SYMS; i++) {
		if (!strcmp(argv[i], "--code") && i + 2 < argc) {
			code_base = strtoull(argv[i + 1], NULL, 0);
			FILE *f = fopen(argv[i + 2], "rb");
			if (!f) {
				perror(argv[i + 2]);
				return 2;
			}
			code_len = fread(code, 1, sizeof(code), f);
			fclose(f);
			i += 2;
			continue;
		}
		char *eq = strchr(argv[i], '=');
		if (!eq) {
			fprintf(stderr,
				"usage: mkcapture [--code BASE FILE] [SYMBOL=ADDRESS]... < list\n");
			return 2;
		}
		snprintf(syms[n_syms].name, sizeof(syms[n_syms].name), "%.*s", (int)(eq - argv[i]),
			 argv[i]);
		syms[n_syms++].addr = strtoull(eq + 1, NULL, 0);
	}
	static struct bt_writer writers[MAX_CPUS];
	static bool used[MAX_CPUS];
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		bt_writer_init(&writers[c], (uint16_t)c, 0, emit, NULL);
		writers[c].clock = clock_now;
		if (code_len)
			bt_writer_set_code(&writers[c], code_fn, NULL);
	}
	struct bt_writer *wp = &writers[0];
	char line[1024];
	while (fgets(line, sizeof(line), stdin)) {
		line_no++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *save, *cmd = strtok_r(line, " \t\n", &save);
		if (!cmd)
			continue;
		if (!strcmp(cmd, "log")) {
			char *text = strtok_r(NULL, "\n", &save);
			printf("%s\n", text ? text : "");
			continue;
		}
		if (!strcmp(cmd, "tsc")) {
			now = number(strtok_r(NULL, " \t\n", &save));
			for (unsigned c = 0; c < MAX_CPUS; c++)
				bt_write_flush(&writers[c]); /* a new batch */
			continue;
		}
		if (!strcmp(cmd, "cpu")) {
			uint64_t c = number(strtok_r(NULL, " \t\n", &save));
			if (c >= MAX_CPUS) {
				fprintf(stderr,
					"mkcapture: line %u: cpu %" PRIu64 ": accepted: 0..%u\n",
					line_no, c, MAX_CPUS - 1);
				return 2;
			}
			wp = &writers[c];
			continue;
		}
		used[wp - writers] = true;
		if (!strcmp(cmd, "bootend")) {
			/* each CPU's frames so far; CPU 0's END frame itself not counted */
			char pair[16 * MAX_CPUS] = "end=";
			size_t n = strlen(pair);
			for (unsigned c = 0; c < MAX_CPUS; c++)
				if (used[c] || !c)
					n += (size_t)snprintf(pair + n, sizeof(pair) - n,
							      "%s%u:%" PRIu32, n > 4 ? "," : "", c,
							      writers[c].seq);
			const char *pairs[] = {pair};
			bt_write_header(&writers[0], pairs, 1);
		} else if (!strcmp(cmd, "header")) {
			const char *pairs[32];
			unsigned n = 0;
			for (char *p; n < 32 && (p = strtok_r(NULL, " \t\n", &save));)
				pairs[n++] = p;
			bt_write_header(wp, pairs, n);
		} else if (!strcmp(cmd, "config")) {
			char pair[BT_PAYLOAD_MAX], *text = strtok_r(NULL, "\n", &save);
			snprintf(pair, sizeof(pair), "config=%s", text ? text : "");
			const char *pairs[] = {pair};
			bt_write_header(wp, pairs, 1);
		} else if (!strcmp(cmd, "begin")) {
			char *fac = strtok_r(NULL, " \t\n", &save),
			     *name = strtok_r(NULL, "\n", &save);
			bt_write_begin(wp, fac ? fac : "bts", name ? name : "");
		} else if (!strcmp(cmd, "bts")) {
			struct bt_bts r = {0};
			r.from = number(strtok_r(NULL, " \t\n", &save));
			r.to = number(strtok_r(NULL, " \t\n", &save));
			r.flags = number(strtok_r(NULL, " \t\n", &save));
			bt_write_bts(wp, &r);
		} else if (!strcmp(cmd, "lbr")) {
			struct bt_lbr e = {0};
			e.index = (uint32_t)number(strtok_r(NULL, " \t\n", &save));
			e.from = number(strtok_r(NULL, " \t\n", &save));
			e.to = number(strtok_r(NULL, " \t\n", &save));
			e.cycles = (uint32_t)number(strtok_r(NULL, " \t\n", &save));
			e.cycles_valid = e.cycles != 0;
			int mispred = signed_field(strtok_r(NULL, " \t\n", &save));
			e.mispred_valid = mispred >= 0;
			e.mispred = mispred > 0;
			e.br_type = signed_field(strtok_r(NULL, " \t\n", &save));
			bt_write_lbr(wp, &e);
		} else if (!strcmp(cmd, "end")) {
			uint64_t lost = number(strtok_r(NULL, " \t\n", &save));
			char *why = strtok_r(NULL, "\n", &save);
			bt_write_end(wp, lost, why ? why : "");
		} else {
			fprintf(
			    stderr,
			    "mkcapture: line %u: '%s': accepted: header, config, begin, bts, lbr, "
			    "end, cpu, bootend, log, tsc\n",
			    line_no, cmd);
			return 2;
		}
	}
	return 0;
}
