// clang-format off
// UNIT-SOURCES: kernel/options.c kernel/workloads.c arch/x86/workloads/table.c lib/config.c lib/shell_words.c lib/fmt.c lib/string.c arch/x86/model/personality.c
// clang-format on
/*
 * kernel/options: every option goes through the one parser into its typed value, and the
 * checks across options refuse at boot what could only fail later. Expected values come from
 * the option vocabulary docs/options.md documents (names, enums, TRACE_* bits of
 * kernel/arch_trace.h) and the SDM rules quoted where a check rests on one.
 */
#include "tests/unit/unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/options.h"
#include "kernel/selftest.h"
#include "kernel/workloads.h"
#include "kernel/arch_console.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_trace.h"
#include "lib/shell_words.h"

/* The kernel's self-test names live in a linker section; this test names its own. */
const char *selftest_name(unsigned i, bool *explicit_only)
{
	static const char *const names[] = {"exceptions", "paging", "smp", "pmi"};
	*explicit_only = false;
	return i < sizeof(names) / sizeof(names[0]) ? names[i] : NULL;
}

static struct boot_info bi;
static struct kernel_options o;
static char err[512];
static char warnings[1024];

static void warn(void *ctx, const char *line)
{
	(void)ctx;
	strncat(warnings, line, sizeof(warnings) - strlen(warnings) - 2);
	strcat(warnings, "\n");
}

/* Parse `args` as load options (and `file` as baretrace.cfg, if not NULL). */
static bool parse(const char *file, const char *args)
{
	memset(&bi, 0, sizeof(bi));
	bi.config_status = file ? BOOT_CONFIG_OK : BOOT_CONFIG_ABSENT;
	if (file) {
		snprintf(bi.config, sizeof(bi.config), "%s", file);
		bi.config_len = (uint32_t)strlen(file);
	}
	snprintf(bi.options, sizeof(bi.options), "%s", args);
	warnings[0] = err[0] = '\0';
	options_defaults(&o);
	return options_parse(&bi, &o, err, sizeof(err), warn, NULL);
}

static void refused(const char *args, const char *want)
{
	assert_false(parse(NULL, args));
	if (!strstr(err, want))
		fail_msg("'%s': got '%s', want '%s'", args, err, want);
}

/* A name's index in a table owned elsewhere (the kernel's workloads, the personalities). */
static unsigned index_of(const char *(*item)(unsigned, bool *), const char *name)
{
	bool e;
	const char *n;
	for (unsigned i = 0; (n = item(i, &e)); i++)
		if (strcmp(n, name) == 0)
			return i;
	fail_msg("no %s", name);
	return 0;
}

static unsigned wl(const char *name)
{
	return index_of(workload_name, name);
}

static unsigned personality(const char *name)
{
	return index_of(arch_spmu_name, name);
}

static void defaults_are_the_documented_ones(void **state)
{
	(void)state;
	assert_true(parse(NULL, ""));
	assert_int_equal(o.serial, CONSOLE_AUTO);
	assert_int_equal(o.serial_port, 0); /* none named: found (docs/hardware.md "Consoles") */
	assert_int_equal(o.serial_baud, 0); /* SPCR's rate, else 115200 */
	assert_int_equal(o.screen, 1);
	assert_int_equal(o.exit_mode, EXIT_MODE_AUTO);
	assert_int_equal(o.trace.n, 0);
	assert_int_equal(o.selftest.n, 0);
	assert_int_equal(o.ss.n, 0);
	assert_int_equal(o.spmu.n, 1);
	assert_int_equal(o.spmu.item[0], personality("skylake"));
	/* workload=all: every workload but bench, in table order */
	assert_false(cfg_list_has(&o.workload, wl("bench")));
	assert_true(cfg_list_has(&o.workload, wl("loop")) && cfg_list_has(&o.workload, wl("user")));
	assert_int_equal(o.tr.cpus, TRACE_CPUS_BOOT);
	assert_int_equal(o.tr.lbr_filter, 0);
	assert_int_equal(o.tr.freeze, 0);
	assert_int_equal(o.tr.pebs_event, TRACE_PEBS_INSTRUCTIONS);
	assert_int_equal(o.tr.pebs_groups, TRACE_PEBS_MEMINFO | TRACE_PEBS_GPR);
	assert_int_equal(o.tr.pebs_period, 37);
	assert_int_equal(o.tr.pebs_kib, 64);
	assert_int_equal(o.tr.pmc_period, 50);
}

static void every_option_reaches_its_typed_field(void **state)
{
	(void)state;
	assert_true(parse(NULL,
			  "serial.port=0x2f8 serial.baud=57600 exit=qemu selftest=smp,paging "
			  "fault=ud memmap=full ss=loop,bench trace=pebs,bts,btf "
			  "workload=calls,indirect spmu=icelake,core2 pmi=nmi trace.cpus=all "
			  "bts.ring=user bts.leak=flag bts.records=64 lbr.filter=user,ret,far "
			  "lbr.depth=16 freeze=lbrs,smm pebs.event=loads pebs.groups=gpr,lbr "
			  "pebs.counter=3 pebs.period=1000 pebs.kib=8 pebs.ldlat=30 "
			  "pmc.period=99 bench=isr help"));
	assert_int_equal(o.serial_port, 0x2f8);
	assert_int_equal(o.serial_baud, 57600);
	assert_int_equal(o.exit_mode, EXIT_MODE_QEMU);
	assert_int_equal(o.selftest.n, 2); /* given order; the runner runs them in table order */
	assert_int_equal(o.selftest.item[0], 2);
	assert_int_equal(o.selftest.item[1], 1);
	assert_int_equal(o.fault, FAULT_UD);
	assert_int_equal(o.memmap, MEMMAP_FULL);
	assert_int_equal(o.ss.n, 2);
	assert_int_equal(o.ss.item[0], wl("loop"));
	assert_int_equal(o.ss.item[1], wl("bench")); /* named: not left out */
	assert_int_equal(o.trace.n, 3);
	assert_int_equal(o.trace.item[0], TRACE_PEBS);
	assert_int_equal(o.trace.item[1], TRACE_BTS);
	assert_int_equal(o.trace.item[2], TRACE_BTF);
	assert_int_equal(o.workload.n, 2);
	assert_int_equal(o.workload.item[1], wl("indirect"));
	assert_int_equal(o.spmu.n, 2);
	assert_int_equal(o.spmu.item[0], personality("icelake"));
	assert_int_equal(o.spmu.item[1], personality("core2"));
	assert_int_equal(o.pmi, PMI_NMI);
	assert_int_equal(o.tr.cpus, TRACE_CPUS_ALL);
	assert_int_equal(o.tr.bts_ring, TRACE_RING_USER);
	assert_int_equal(o.tr.bts_leak, TRACE_LEAK_FLAG);
	assert_int_equal(o.tr.bts_records, 64);
	assert_int_equal(o.tr.lbr_filter, TRACE_LBR_USER | TRACE_LBR_NEAR_RET | TRACE_LBR_FAR);
	assert_int_equal(o.tr.lbr_depth, 16);
	assert_int_equal(o.tr.freeze, TRACE_FREEZE_LBRS | TRACE_FREEZE_SMM);
	assert_int_equal(o.tr.pebs_event, TRACE_PEBS_LOADS);
	assert_int_equal(o.tr.pebs_groups, TRACE_PEBS_GPR | TRACE_PEBS_LBR);
	assert_int_equal(o.tr.pebs_counter, 3);
	assert_int_equal(o.tr.pebs_period, 1000);
	assert_int_equal(o.tr.pebs_kib, 8);
	assert_int_equal(o.tr.pebs_ldlat, 30);
	assert_int_equal(o.tr.pmc_period, 99);
	assert_int_equal(o.bench, BENCH_ISR);
	assert_int_equal(o.help, 1);
	assert_string_equal(warnings, "");
}

static void lists_and_sets_ignore_case_and_take_all_or_none(void **state)
{
	(void)state;
	assert_true(parse("trace = BTS, Lbr\nlbr.filter = USER,Call\n", "spmu=NONE selftest=ALL"));
	assert_int_equal(o.trace.n, 2);
	assert_int_equal(o.trace.item[1], TRACE_LBR);
	assert_int_equal(o.tr.lbr_filter,
			 TRACE_LBR_USER | TRACE_LBR_NEAR_REL_CALL | TRACE_LBR_NEAR_IND_CALL);
	assert_int_equal(o.spmu.n, 0);
	assert_int_equal(o.selftest.n, 4);
	assert_true(parse(NULL, "lbr.filter=any,kernel freeze=none pebs.groups=none trace=none"));
	assert_int_equal(o.tr.lbr_filter, TRACE_LBR_CLASSES | TRACE_LBR_KERNEL);
	assert_int_equal(o.tr.freeze, 0);
	assert_int_equal(o.tr.pebs_groups, 0);
	assert_int_equal(o.trace.n, 0);
	assert_true(parse(NULL, "ss=all"));
	assert_false(cfg_list_has(&o.ss, wl("bench")));
}

static void bad_values_are_refused_with_place_and_accepted_values(void **state)
{
	(void)state;
	refused("trace=bts,nope",
		"option 'trace': unknown 'nope'; accepted: none, or names separated by commas "
		"from: bts btsint lbr pebs btf pmc");
	refused("spmu=pentium", "accepted: none, or names separated by commas from: skylake");
	refused("selftest=paging,nosuchtest", "unknown 'nosuchtest'");
	refused("workload=loop,loop", "'loop' is given twice");
	refused("freeze=none,lbrs", "'none' must stand alone");
	refused("pebs.event=cycles", "accepted: instructions, branches, loads, fixed0");
	refused("pebs.groups=meminfo,gprs", "unknown 'gprs'");
	refused("trace.cpus=some", "accepted: boot, each, all");
	refused("serial.baud=7000", "7000 is not 115200 divided by a whole number");
	/* The console options (docs/hardware.md "Consoles"): a 16550's registers are 1 or 4 bytes
	 * apart and accessed 8 or 32 bits wide (SPCR's GAS access widths); one UART is named. */
	refused("serial.stride=2", "accepted: stride 1 or 4, width 8 or 32");
	refused("serial.width=16", "accepted: stride 1 or 4, width 8 or 32");
	refused("serial.port=0x3f8 serial.mmio=0xfe032000", "accepted: one UART");
	refused("serial=usb", "accepted: auto, spcr, dbg2, pci, legacy, none");
	/* baud = clock / 16 / divisor: a 1.8432 MHz clock makes at most 115200 */
	refused("serial.clock=1843200 serial.baud=230400", "accepted: at most 115200");
	refused("serial.baud=4000001", "4000001");
	assert_true(parse(NULL, "serial.clock=64000000 serial.baud=4000000"));
	assert_true(parse(NULL, "serial.baud=921600")); /* an LPSS UART may make it */
	/* 0x3fg: a bad hex digit, not 0x3f GiB */
	refused("bts.records=0x3fg", "'0x3fg' is not a number");
	assert_false(parse("exit = qemu\nlbr.filter = user,bogus\n", ""));
	assert_true(strstr(err, "baretrace.cfg:2: option 'lbr.filter': unknown 'bogus'") == err);
}

/* Values that could only fail in every session are refused at boot. */
static void values_that_can_only_fail_are_refused_at_boot(void **state)
{
	(void)state;
	/* btsint keeps a quarter of the buffer as headroom: fewer than 4 records leave none. */
	refused("bts.records=1", "accepted: 0 (the default) or 4..1000000");
	refused("bts.records=3", "accepted: 0 (the default) or 4..1000000");
	assert_true(parse(NULL, "bts.records=4"));
	/* Architectural LBR depths are 8 * (n + 1), n a bit of CPUID.1CH:EAX[7:0]. */
	refused("lbr.depth=7", "accepted: 0 (the default) or 8..64 in steps of 8");
	refused("lbr.depth=12", "'12' is not a multiple of 8");
	refused("lbr.depth=72", "'72' is out of range");
	assert_true(parse(NULL, "lbr.depth=64"));
	/* SDM 17.9: "the LBR stack ... call-stack mode ... records near calls and returns". */
	refused("lbr.filter=call_stack,cond", "call_stack records near calls and returns only");
	refused("lbr.filter=call_stack,far", "call_stack records near calls and returns only");
	assert_true(parse(NULL, "lbr.filter=call_stack,user,call,ret"));
	refused("pebs.ldlat=30", "'pebs.ldlat': 30 applies to pebs.event=loads only");
	refused("pebs.event=fixed0 pebs.counter=2", "does not apply to pebs.event=fixed0");
	refused("pebs.kib=2", "accepted: 4..4096");
	/* Records streamed live are the record stream's: nothing to stream without it. */
	refused("stream=off stream.live=on",
		"'stream.live': on needs the record stream; accepted with it: "
		"stream=text or stream=binary");
	assert_true(parse(NULL, "stream=binary stream.live=on"));
	assert_int_equal(o.tr.stream_live, TRACE_LIVE_ON);
	/* the defaults: the text wire, streamed live where a CPU is free, a full store waits */
	assert_true(parse(NULL, "trace=bts"));
	assert_int_equal(o.tr.stream, TRACE_STREAM_TEXT);
	assert_int_equal(o.tr.stream_live, TRACE_LIVE_AUTO);
	assert_int_equal(o.tr.capture_full, TRACE_FULL_WAIT);
	assert_true(parse(NULL, "stream=off capture.full=stop"));
	assert_int_equal(o.tr.capture_full, TRACE_FULL_STOP);
	refused("pebs.period=0", "accepted: 1..2147483648");
}

static void a_key_given_twice_is_a_warning(void **state)
{
	(void)state;
	assert_true(parse("exit = qemu\ntrace = bts\n\nexit = halt\n", "trace=lbr"));
	assert_int_equal(o.exit_mode, EXIT_MODE_HALT);
	assert_int_equal(o.trace.item[0], TRACE_LBR); /* load options override the file */
	assert_string_equal(warnings, "baretrace.cfg:4: option 'exit' given again (before at line "
				      "1): the later value wins\n");
}

static void facility_names(void **state)
{
	(void)state;
	assert_string_equal(options_facility_name(TRACE_BTS), "bts");
	assert_string_equal(options_facility_name(TRACE_BTSINT), "btsint");
	assert_string_equal(options_facility_name(TRACE_PMC), "pmc");
}

/* The workload options set their workload's argument (kernel/workloads.c pairs them by name
 * with the architecture's table); 0 or absent leaves the workload's own. */
static void workload_options_set_their_workloads_argument(void **state)
{
	(void)state;
	static const struct {
		const char *workload, *option;
		uint64_t own;
	} cases[] = {{"switch", "switch.n", 30},    {"recursion", "recursion.depth", 12},
		     {"sort", "sort.n", 48},	    {"hash", "hash.n", 64},
		     {"chase", "chase.nodes", 256}, {"qsort", "qsort.n", 2000},
		     {"crc32", "crc32.n", 4096},    {"interp", "interp.n", 2000},
		     {"memory", "memory.n", 128}};
	char args[64];
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct workload *w = workload_at(wl(cases[i].workload));
		snprintf(args, sizeof(args), "%s=8", cases[i].option);
		assert_true(parse(NULL, args));
		assert_int_equal(workload_arg(w, &o), 8);
		assert_true(parse(NULL, ""));
		assert_int_equal(workload_arg(w, &o), cases[i].own);
		assert_int_equal(workload_arg(w, NULL), cases[i].own);
	}
	assert_true(parse(NULL, "switch.n=8"));
	assert_int_equal(workload_arg(workload_at(wl("loop")), &o), 100);
}

static char described[16384];

static void gather(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	assert_true(strlen(described) + n < sizeof(described));
	strncat(described, s, n);
}

/* help=1 lists every option, whatever the length (it once stopped at 2,047 bytes). */
static void help_lists_every_option(void **state)
{
	(void)state;
	static const char *const keys[] = {
	    "serial.port",  "serial.baud",  "exit",	   "selftest",	  "fault",
	    "memmap",	    "ss",	    "trace",	   "workload",	  "spmu",
	    "pmi",	    "trace.cpus",   "bts.ring",	   "bts.leak",	  "bts.records",
	    "lbr.filter",   "lbr.depth",    "freeze",	   "pebs.event",  "pebs.groups",
	    "pebs.counter", "pebs.period",  "pebs.kib",	   "pebs.ldlat",  "pmc.period",
	    "bench",	    "help",	    "serial",	   "serial.mmio", "serial.stride",
	    "serial.width", "serial.clock", "serial.flow", "screen",	  "screen.hold",
	    "stream.live",  "ss.block"};
	char line[64];
	described[0] = '\0';
	options_describe(gather, NULL);
	assert_true(strlen(described) > 2048);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(line, sizeof(line), "\n  %s=", keys[i]);
		if (strncmp(described, line + 1, strlen(line) - 1) != 0 && !strstr(described, line))
			fail_msg("help lacks %s", keys[i]);
	}
	assert_int_equal(described[strlen(described) - 1], '\n');
}

/*
 * What a number option's help says of its values must be what its parser takes. The numbers a
 * help text gives as bounds ("N to M", "N-M", "N or M", "between N and M", "up to N", "at most
 * N"; KiB, MiB or GiB converted for an option counted in KiB) are the accepted range help=1
 * prints before it ("name=min..max", "0|" for the default): a range's ends its min and max, "up
 * to" its max. (trace.store's help once said "1 MiB to 64 MiB" of sizes the code never held to.)
 */
struct stated {
	unsigned n;	       /* bounds found */
	uint64_t lo[8], hi[8]; /* lo == UINT64_MAX: an upper bound alone */
};

/* The number in word w ("64", "64,", "64)"), times its unit in the next word, in KiB when the
 * option counts KiB; false when w is no number. */
static bool stated_number(char words[][32], unsigned nw, unsigned i, bool kib, uint64_t *v,
			  unsigned *used)
{
	char *end;
	if (i >= nw || words[i][0] < '0' || words[i][0] > '9')
		return false;
	*v = strtoull(words[i], &end, 10);
	if (*end && !strchr(",;:)", *end))
		return false;
	*used = 1;
	static const struct {
		const char *name;
		uint64_t kib;
	} units[] = {{"KiB", 1}, {"MiB", 1024}, {"GiB", 1024 * 1024}};
	for (unsigned u = 0; kib && i + 1 < nw && u < 3; u++)
		if (!strncmp(words[i + 1], units[u].name, 3)) {
			*v *= units[u].kib;
			*used = 2;
		}
	return true;
}

static void stated_bounds(const char *help, bool kib, struct stated *st)
{
	char words[64][32];
	unsigned nw = 0;
	for (const char *p = help; *p && nw < 64;) {
		size_t len = strcspn(p, " (");
		snprintf(words[nw++], sizeof(words[0]), "%.*s", (int)(len < 31 ? len : 31), p);
		p += len;
		p += strspn(p, " (");
	}
	st->n = 0;
	for (unsigned i = 0; i < nw && st->n < 8; i++) {
		uint64_t a, b;
		unsigned ua, ub;
		char *dash = strchr(words[i], '-');
		if ((!strcmp(words[i], "to") && i > 0 && !strcmp(words[i - 1], "up")) ||
		    (!strcmp(words[i], "most") && i > 0 && !strcmp(words[i - 1], "at"))) {
			if (stated_number(words, nw, i + 1, kib, &b, &ub)) {
				st->lo[st->n] = UINT64_MAX;
				st->hi[st->n++] = b;
			}
		} else if (stated_number(words, nw, i, kib, &a, &ua) && i + ua < nw &&
			   (!strcmp(words[i + ua], "to") || !strcmp(words[i + ua], "or") ||
			    (!strcmp(words[i + ua], "and") && i > 0 &&
			     !strcmp(words[i - 1], "between"))) &&
			   stated_number(words, nw, i + ua + 1, kib, &b, &ub)) {
			st->lo[st->n] = a;
			st->hi[st->n++] = b;
		} else if (dash && dash > words[i] && dash[-1] >= '0' && dash[-1] <= '9' &&
			   dash[1] >= '0' && dash[1] <= '9' && words[i][0] >= '0' &&
			   words[i][0] <= '9') {
			st->lo[st->n] = strtoull(words[i], NULL, 10);
			st->hi[st->n++] = strtoull(dash + 1, NULL, 10);
		}
	}
}

/* "  name=[0|]min..max[ (xN)]  help": false for an option that takes no number range */
static bool uint_line(const char *line, char *name, size_t size, uint64_t *min, uint64_t *max,
		      bool *zero_default, const char **help)
{
	const char *eq = strchr(line, '='), *p;
	char *end;
	if (!eq || strncmp(line, "  ", 2))
		return false;
	snprintf(name, size, "%.*s", (int)(eq - line - 2), line + 2);
	p = eq + 1;
	*zero_default = !strncmp(p, "0|", 2);
	p += *zero_default ? 2 : 0;
	if (*p < '0' || *p > '9')
		return false;
	*min = strtoull(p, &end, 10);
	if (strncmp(end, "..", 2))
		return false;
	*max = strtoull(end + 2, &end, 10);
	if (!strncmp(end, " (x", 3))
		end = strchr(end, ')') + 1;
	*help = end + strspn(end, " ");
	return true;
}

static void help_ranges_are_the_parsers(void **state)
{
	(void)state;
	struct stated st;
	/* the scanner, on the words it must read */
	stated_bounds("free memory (an eighth shared by the CPUs, 1 MiB to 64 MiB)", true, &st);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.lo[0], 1024);
	assert_int_equal(st.hi[0], 65536);
	stated_bounds(
	    "bytes, 1 or 4 (default: 8); or up to 4000000; at most 7, 20-30; between 2 and 9",
	    false, &st);
	assert_int_equal(st.n, 5);
	assert_int_equal(st.hi[0], 4);
	assert_int_equal(st.lo[1], UINT64_MAX);
	assert_int_equal(st.hi[1], 4000000);
	assert_int_equal(st.hi[2], 7);
	assert_int_equal(st.lo[3], 20);
	assert_int_equal(st.lo[4], 2);
	stated_bounds("COM1-COM4, 0 = 30, bits 11, 12, 14", false, &st);
	assert_int_equal(st.n, 0);

	described[0] = '\0';
	options_describe(gather, NULL);
	unsigned checked = 0, bounds = 0;
	for (char *line = described; *line;) {
		char *nl = strchr(line, '\n'), name[48];
		*nl = '\0';
		uint64_t min, max;
		bool zero;
		const char *help;
		if (uint_line(line, name, sizeof(name), &min, &max, &zero, &help)) {
			bool kib = strstr(help, "KiB per") || strstr(help, "in KiB");
			stated_bounds(help, kib, &st);
			checked++;
			for (unsigned b = 0; b < st.n; b++, bounds++) {
				bool lo_ok = st.lo[b] == UINT64_MAX || st.lo[b] == min ||
					     (zero && st.lo[b] == 0);
				if (!lo_ok || st.hi[b] != max)
					fail_msg(
					    "option '%s': its help states %llu..%llu, its parser "
					    "takes "
					    "%s%llu..%llu: %s",
					    name,
					    st.lo[b] == UINT64_MAX ? 0ull
								   : (unsigned long long)st.lo[b],
					    (unsigned long long)st.hi[b], zero ? "0|" : "",
					    (unsigned long long)min, (unsigned long long)max, help);
			}
		}
		*nl = '\n';
		line = nl + 1;
	}
	assert_true(checked >= 30); /* every number option of the table */
	assert_true(bounds >= 3);   /* serial.stride, serial.width, serial.baud state theirs */
}

/*
 * Every pair docs/options.md's options table says does not go together ("Not with", "needs", "only
 * with") is refused by the parser, before any session, with a message naming both options;
 * each half alone is accepted. tests/qemu/badinput.t holds docs/options.md's rows to such pairs.
 */
static void documented_incompatible_pairs_are_refused_naming_both(void **state)
{
	(void)state;
	static const struct {
		const char *a, *b, *name_a, *name_b;
	} pairs[] = {
	    {"lbr.period=16", "lbr.filter=user", "lbr.period", "lbr.filter"},
	    {"lbr.period=16", "lbr.filter=any", "lbr.period", "lbr.filter"},
	    {"lbr.period=16", "lbr.depth=16", "lbr.period", "lbr.depth"},
	    {"pebs.ldlat=30 pebs.event=loads", "pebs.event=stores", "pebs.ldlat", "pebs.event"},
	    {"pebs.counter=1", "pebs.event=fixed0", "pebs.counter", "pebs.event"},
	    {"stream.live=on", "stream=off", "stream.live", "stream="},
	    {"trace.out=stick", "stream=off", "trace.out", "stream="},
	    {"trace.out=both", "stream=off", "trace.out", "stream="},
	    {"serial.port=0x3f8", "serial.mmio=0xfe032000", "serial.port", "serial.mmio"},
	    {"serial.clock=1843200", "serial.baud=230400", "serial.baud", "serial.clock"},
	    {"trace=bts", "workload=program", "workload", "program=FILE"},
	};
	char both[128];
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		if (!parse(NULL, pairs[i].a))
			fail_msg("'%s' alone: %s", pairs[i].a, err);
		if (strcmp(pairs[i].b, "workload=program") && !parse(NULL, pairs[i].b))
			fail_msg("'%s' alone: %s", pairs[i].b, err);
		for (int order = 0; order < 2; order++) {
			if (order && strchr(pairs[i].a, ' '))
				continue; /* a's own pebs.event would win over b's */
			snprintf(both, sizeof(both), "%s %s", order ? pairs[i].b : pairs[i].a,
				 order ? pairs[i].a : pairs[i].b);
			if (parse(NULL, both))
				fail_msg("'%s' accepted", both);
			if (!strstr(err, pairs[i].name_a) || !strstr(err, pairs[i].name_b) ||
			    !strstr(err, "accepted"))
				fail_msg("'%s': '%s' names not both of %s, %s and what is accepted",
					 both, err, pairs[i].name_a, pairs[i].name_b);
		}
	}
	/* lbr.filter's call_stack with other classes, one option's pair: in
	 * values_that_can_only_fail_are_refused_at_boot. The same from the config file: */
	assert_false(parse("trace = lbr\nlbr.period = 64\nlbr.filter = call\n", ""));
	assert_non_null(strstr(err, "'lbr.period' and 'lbr.filter' both given"));
}

/* Test knobs are a test build's (make test-knobs), never a user's option. */
static void test_knobs_are_no_users_options(void **state)
{
	(void)state;
	refused("ss.skip=1", "unknown option 'ss.skip'");
	refused("test.ss.skip=3", "unknown option 'test.ss.skip'");
	assert_true(parse(NULL, "ss.block=off")); /* slower, the same records: a user's choice */
	assert_int_equal(o.ss_block, 0);
	assert_int_equal(o.ss_skip, 0);
}

/* program.argv's (and program.env's) words as the program gets them. */
static size_t words_of(const char *value, const char **w, char *buf)
{
	size_t n = 0;
	const char *why = "";
	if (!shell_words_split(value, buf, PROGRAM_WORDS_MAX, w, PROGRAM_WORDS_COUNT, &n, &why))
		fail_msg("'%s': %s", value, why);
	return n;
}

/*
 * The grammar the help documents, from the option's text to the program's words: a quoted
 * value reads \" and \\ (lib/config.h), then blanks separate, "..." groups, \ takes the next
 * byte. Each case's words are what dash gives for the same text (v="TEXT"; eval "set -- $v";
 * printf '[%s]\n' "$@"): the cases hold no $, `, ' or a \ in "..." before an ordinary byte, where
 * the shell's grammar goes beyond the documented one.
 */
static void program_argv_words_follow_the_documented_grammar(void **state)
{
	(void)state;
	static const struct {
		const char *file, *args;
		const char *want[6];
	} cases[] = {
	    {"program.argv = \"prog -n 100 a\\ b\"",
	     "program.argv=\"prog -n 100 a\\ b\"",
	     {"prog", "-n", "100", "a b", NULL}},
	    {"program.argv = \"p \\\"a b\\\" \\\"\\\" say\\\\\\\"hi\"",
	     "program.argv=\"p \\\"a b\\\" \\\"\\\" say\\\\\\\"hi\"",
	     {"p", "a b", "", "say\"hi", NULL}},
	    {"program.argv = \"\\\"\\\"\"", "program.argv=\"\\\"\\\"\"", {"", NULL}},
	    {"program.argv = \"x\\\\\\\\y\"", "program.argv=\"x\\\\\\\\y\"", {"x\\y", NULL}},
	    {"program.argv = \"  lead  trail  \"",
	     "program.argv=\"  lead  trail  \"",
	     {"lead", "trail", NULL}},
	    {"program.argv = \"a\\\"b c\\\"d e\"",
	     "program.argv=\"a\\\"b c\\\"d e\"",
	     {"ab cd", "e", NULL}},
	    {"program.argv = prog a\\ b # unquoted: as it is",
	     "program.argv=prog",
	     {"prog", "a b", NULL}},
	    {"program.env = \"A=1 B=\\\"x y\\\" C=\"",
	     "program.env=\"A=1 B=\\\"x y\\\" C=\"",
	     {"A=1", "B=x y", "C=", NULL}},
	};
	const char *w[PROGRAM_WORDS_COUNT];
	char buf[PROGRAM_WORDS_MAX];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int form = 0; form < 2; form++) {
			if (form == 1 && !strcmp(cases[i].args, "program.argv=prog"))
				continue; /* a load option ends at a blank: quotes are its way */
			if (!(form ? parse(NULL, cases[i].args) : parse(cases[i].file, "")))
				fail_msg("case %zu: %s", i, err);
			const char *v = strstr(form ? cases[i].args : cases[i].file, "env")
					    ? o.program_env
					    : o.program_argv;
			size_t n = words_of(v, w, buf), want = 0;
			while (cases[i].want[want])
				want++;
			if (n != want)
				fail_msg("case %zu form %d: '%s': %zu words, want %zu", i, form, v,
					 n, want);
			for (size_t k = 0; k < n; k++)
				assert_string_equal(w[k], cases[i].want[k]);
		}
	}
	/* ' is an ordinary byte (the documented grammar has no single quotes). */
	assert_true(parse(NULL, "program.argv=\"echo 'a b'\""));
	assert_int_equal(words_of(o.program_argv, w, buf), 3);
	assert_string_equal(w[1], "'a");
	/* Words that cannot be split are refused before the run, saying why. */
	refused("program.argv=\"a \\\"b\"", "option 'program.argv': 'a \"b': a double quote is "
					    "left open");
	refused("program.env=\"A=\\\\\"",
		"option 'program.env': 'A=\\': a backslash ends the value");
	char many[4 * PROGRAM_WORDS_COUNT + 32] = "program.argv=\"";
	for (int k = 0; k <= PROGRAM_WORDS_COUNT; k++)
		strcat(many, "w ");
	strcat(many, "\"");
	refused(many, "too many words (words: blanks separate");
	/* the help says the real limits */
	char said[64];
	described[0] = '\0';
	options_describe(gather, NULL);
	snprintf(said, sizeof(said), "at most %d words", PROGRAM_WORDS_COUNT);
	assert_non_null(strstr(described, said));
	snprintf(said, sizeof(said), "program.argv=<text, at most %d bytes>",
		 PROGRAM_WORDS_MAX - 1);
	assert_non_null(strstr(described, said));
}

/* The documented limit, 511 bytes, is the real one, in either input; a line that holds a
 * 511-byte value of escaped bytes only fits a line (CFG_MAX_LINE). */
static void program_argv_holds_511_bytes(void **state)
{
	(void)state;
	static char file[CFG_MAX_LINE + 64], args[BOOT_OPTIONS_MAX];
	/* 255 pairs of quotes and an x, one word "x": 511 bytes, 1021 as written (each quote
	 * escaped), more than a line held before (255 bytes) */
	strcpy(file, "program.argv = \"");
	for (int k = 0; k < 255; k++)
		strcat(file, "\\\"\\\"");
	strcat(file, "x\"\n");
	assert_true(strlen(file) > 1024);
	if (!parse(file, ""))
		fail_msg("%s", err);
	assert_int_equal(strlen(o.program_argv), PROGRAM_WORDS_MAX - 1);
	const char *w[PROGRAM_WORDS_COUNT];
	char buf[PROGRAM_WORDS_MAX];
	assert_int_equal(words_of(o.program_argv, w, buf), 1);
	assert_string_equal(w[0], "x");
	snprintf(args, sizeof(args), "program.argv=\"%0*d\"", PROGRAM_WORDS_MAX - 1, 7);
	assert_true(parse(NULL, args));
	assert_int_equal(strlen(o.program_argv), PROGRAM_WORDS_MAX - 1);
	snprintf(args, sizeof(args), "program.argv=\"%0*d\"", PROGRAM_WORDS_MAX, 7);
	refused(args, "is too long (512 bytes); accepted: at most 511 bytes");
}

/* docs/usb-stick.md "Real hardware": with no config file, or one of blank lines and # comments only
 * (make usb's example), and no load options, the kernel runs its default session; any setting, in
 * either place, means the options chose. */
static void comments_only_mean_no_options(void **state)
{
	(void)state;
	static const struct {
		const char *file, *args;
		bool none;
	} cases[] = {
	    {NULL, "", true},
	    {"", "", true},
	    {"# a comment\n\n   # indented\n\t\r\n", "", true},
	    {"# trace = bts   # commented out\n", "", true},
	    {"trace = bts\n", "", false},
	    {"# header\n  trace = bts # why\n", "", false},
	    {NULL, "trace=bts", false},
	    {"# only comments\n", "trace=bts", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_true(parse(cases[i].file, cases[i].args));
		if (options_none_given(&bi) != cases[i].none)
			fail_msg("case %zu: none given %d, want %d", i, !cases[i].none,
				 cases[i].none);
	}
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(defaults_are_the_documented_ones),
    cmocka_unit_test(every_option_reaches_its_typed_field),
    cmocka_unit_test(lists_and_sets_ignore_case_and_take_all_or_none),
    cmocka_unit_test(bad_values_are_refused_with_place_and_accepted_values),
    cmocka_unit_test(values_that_can_only_fail_are_refused_at_boot),
    cmocka_unit_test(a_key_given_twice_is_a_warning),
    cmocka_unit_test(facility_names),
    cmocka_unit_test(workload_options_set_their_workloads_argument),
    cmocka_unit_test(help_lists_every_option),
    cmocka_unit_test(help_ranges_are_the_parsers),
    cmocka_unit_test(comments_only_mean_no_options),
    cmocka_unit_test(documented_incompatible_pairs_are_refused_naming_both),
    cmocka_unit_test(test_knobs_are_no_users_options),
    cmocka_unit_test(program_argv_words_follow_the_documented_grammar),
    cmocka_unit_test(program_argv_holds_511_bytes),
};
UNIT_MAIN(tests)
