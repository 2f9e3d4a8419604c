/* SPDX-License-Identifier: MIT */
#include "kernel/options.h"
#include "kernel/arch.h"
#include "lib/bits.h"
#include "lib/config.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define SERIAL_BAUD_MIN	 50
#define SERIAL_PORT_MAX	 0xffff
#define SERIAL_CLOCK_MAX 115200 /* 16550 at divisor 1 */

static const struct cfg_enum_value exit_values[] = {
    {"auto", EXIT_MODE_AUTO},
    {"qemu", EXIT_MODE_QEMU},
    {"halt", EXIT_MODE_HALT},
    {"reset", EXIT_MODE_RESET},
    {NULL, 0},
};

static const struct cfg_enum_value fault_values[] = {
    {"none", FAULT_NONE}, {"pf", FAULT_PF}, {"ud", FAULT_UD},	    {"gp", FAULT_GP},
    {"de", FAULT_DE},	  {"bp", FAULT_BP}, {"stack", FAULT_STACK}, {NULL, 0},
};

static const struct cfg_enum_value memmap_values[] = {
    {"summary", MEMMAP_SUMMARY},
    {"full", MEMMAP_FULL},
    {NULL, 0},
};

static const struct cfg_enum_value pmi_values[] = {
    {"vector", PMI_VECTOR},
    {"nmi", PMI_NMI},
    {NULL, 0},
};

static const struct cfg_enum_value bench_values[] = {
    {"none", BENCH_NONE},
    {"isr", BENCH_ISR},
    {NULL, 0},
};

static const struct cfg_enum_value cpus_values[] = {
    {"boot", TRACE_CPUS_BOOT},
    {"each", TRACE_CPUS_EACH},
    {"all", TRACE_CPUS_ALL},
    {NULL, 0},
};

static const struct cfg_enum_value ring_values[] = {
    {"all", TRACE_RING_ALL},
    {"user", TRACE_RING_USER},
    {"kernel", TRACE_RING_KERNEL},
    {NULL, 0},
};

static const struct cfg_enum_value leak_values[] = {
    {"filter", TRACE_LEAK_FILTER},
    {"flag", TRACE_LEAK_FLAG},
    {NULL, 0},
};

#define OPT(field)	 offsetof(struct kernel_options, field)
#define PERIOD_MAX	 (1ull << 31) /* what every counter width takes (legacy PMC writes) */
#define BTS_RECORDS_MAX	 1000000
#define PEBS_KIB_MAX	 4096
#define LDLAT_MAX	 0xffff /* MSR_PEBS_LD_LAT_THRESHOLD[15:0] */
#define LBR_DEPTH_MAX	 64
#define PEBS_COUNTER_MAX 7 /* IA32_PEBS_ENABLE bits 7:0 at most before extended PEBS */

static const struct cfg_option option_table[] = {
    {"serial.port", CFG_UINT, "I/O port of the 16550 console (COM1 0x3f8, COM2 0x2f8)",
     OPT(serial_port), 1, SERIAL_PORT_MAX, NULL},
    {"serial.baud", CFG_UINT, "console baud rate; 115200 divided by a whole number",
     OPT(serial_baud), SERIAL_BAUD_MIN, SERIAL_CLOCK_MAX, NULL},
    {"exit", CFG_ENUM, "how a run ends: auto = QEMU exit device when virtualised, else halt",
     OPT(exit_mode), 0, 0, exit_values},
    {"selftest", CFG_STRING, "in-kernel self-tests: all, none, or names separated by commas",
     OPT(selftest), 0, OPTIONS_SELFTEST_MAX, NULL},
    {"fault", CFG_ENUM, "raise a deliberate exception after boot (tests the dump)", OPT(fault), 0,
     0, fault_values},
    {"memmap", CFG_ENUM, "memory map report: summary or every range", OPT(memmap), 0, 0,
     memmap_values},
    {"ss", CFG_STRING,
     "single-step these workloads and print their taken branches: all, none, or names", OPT(ss), 0,
     OPTIONS_SELFTEST_MAX, NULL},
    {"trace", CFG_STRING,
     "capture every workload with these facilities: none, or a list of bts, btsint, lbr, pebs, "
     "btf, pmc",
     OPT(trace), 0, OPTIONS_SELFTEST_MAX, NULL},
    {"workload", CFG_STRING,
     "workloads the trace sessions run: all (bench left out), or names separated by commas",
     OPT(workload), 0, OPTIONS_SELFTEST_MAX, NULL},
    {"spmu", CFG_STRING,
     "software PMU personalities (one session each) where the CPU lacks a facility: core2, "
     "nehalem, skylake, icelake, arrowlake; none: the hardware only (SKIP where it lacks it)",
     OPT(spmu), 0, OPTIONS_SELFTEST_MAX, NULL},
    {"pmi", CFG_ENUM, "deliver the performance-monitoring interrupt on its vector or as NMI",
     OPT(pmi), 0, 0, pmi_values},
    {"trace.cpus", CFG_ENUM,
     "where trace sessions run: the boot CPU, each CPU in turn, or all CPUs at once", OPT(tr.cpus),
     0, 0, cpus_values},
    {"bts.ring", CFG_ENUM, "rings BTS records (CPL-qualified with DS-CPL)", OPT(tr.bts_ring), 0, 0,
     ring_values},
    {"bts.leak", CFG_ENUM,
     "BTS records crossing into the other ring (e.g. SYSCALL's kernel target): filter or flag",
     OPT(tr.bts_leak), 0, 0, leak_values},
    {"bts.records", CFG_UINT, "BTS buffer size in records; 0 = 2730 (bts) or 32 (btsint)",
     OPT(tr.bts_records), 0, BTS_RECORDS_MAX, NULL},
    {"lbr.filter", CFG_STRING,
     "branches LBR records: any, or a list of user kernel cond call ind_call ret jmp ind_jmp "
     "far call_stack",
     OPT(tr.lbr_filter), 0, TRACE_LIST_MAX, NULL},
    {"lbr.depth", CFG_UINT, "Architectural LBR depth; 0 = the deepest the CPU has",
     OPT(tr.lbr_depth), 0, LBR_DEPTH_MAX, NULL},
    {"freeze", CFG_STRING, "freeze on PMI: none, or a list of lbrs perfmon smm", OPT(tr.freeze), 0,
     TRACE_LIST_MAX, NULL},
    {"pebs.event", CFG_STRING,
     "PEBS counter: instructions (PMC0), branches (PMC0), or fixed0 (extended PEBS)",
     OPT(tr.pebs_event), 0, TRACE_LIST_MAX, NULL},
    {"pebs.groups", CFG_STRING,
     "adaptive PEBS record groups: none, or a list of meminfo gpr xmm lbr (after the basic group)",
     OPT(tr.pebs_groups), 0, TRACE_LIST_MAX, NULL},
    {"pebs.counter", CFG_UINT,
     "general-purpose counter the PEBS event runs on (checked against the CPU's PEBS counters)",
     OPT(tr.pebs_counter), 0, PEBS_COUNTER_MAX, NULL},
    {"pebs.period", CFG_UINT, "events per PEBS record", OPT(tr.pebs_period), 1, PERIOD_MAX, NULL},
    {"pebs.kib", CFG_UINT, "PEBS buffer size in KiB", OPT(tr.pebs_kib), 4, PEBS_KIB_MAX, NULL},
    {"pebs.ldlat", CFG_UINT, "load-latency threshold in cycles (0 = off)", OPT(tr.pebs_ldlat), 0,
     LDLAT_MAX, NULL},
    {"pmc.period", CFG_UINT, "instructions per counter-overflow sample (trace=pmc)",
     OPT(tr.pmc_period), 1, PERIOD_MAX, NULL},
    {"bench", CFG_ENUM,
     "isr: count the PMI/DS service routine's instructions per PMI and per record (make bench)",
     OPT(bench), 0, 0, bench_values},
    {"help", CFG_BOOL, "print the accepted options", OPT(help), 0, 1, NULL},
};

void options_defaults(struct kernel_options *o)
{
	memset(o, 0, sizeof(*o));
	o->serial_port = DEFAULT_SERIAL_PORT;
	o->serial_baud = DEFAULT_SERIAL_BAUD;
	o->exit_mode = EXIT_MODE_AUTO;
	o->fault = FAULT_NONE;
	o->memmap = MEMMAP_SUMMARY;
	memcpy(o->selftest, "none", sizeof("none"));
	memcpy(o->ss, "none", sizeof("none"));
	memcpy(o->trace, "none", sizeof("none"));
	memcpy(o->spmu, "skylake", sizeof("skylake"));
	memcpy(o->workload, "all", sizeof("all"));
	o->tr.cpus = TRACE_CPUS_BOOT;
	memcpy(o->tr.lbr_filter, "any", sizeof("any"));
	memcpy(o->tr.freeze, "none", sizeof("none"));
	memcpy(o->tr.pebs_event, "instructions", sizeof("instructions"));
	memcpy(o->tr.pebs_groups, "meminfo,gpr", sizeof("meminfo,gpr"));
	o->tr.pebs_period = 37;
	o->tr.pebs_kib = 64;
	o->tr.pmc_period = 50;
}

size_t options_describe(char *buf, size_t size)
{
	return cfg_describe(option_table, ARRAY_SIZE(option_table), buf, size);
}

static bool config_file_ok(const struct boot_info *bi, char *err, size_t size)
{
	switch (bi->config_status) {
	case BOOT_CONFIG_OK:
	case BOOT_CONFIG_ABSENT:
		return true;
	case BOOT_CONFIG_TOO_LARGE:
		fmt_snprintf(err, size, "%s: file too large; accepted: at most %d bytes",
			     BOOT_CONFIG_PATH + 1, BOOT_CONFIG_MAX - 1);
		return false;
	case BOOT_CONFIG_NOT_TEXT:
		fmt_snprintf(err, size,
			     "%s: contains NUL bytes; accepted: plain text `key = value`",
			     BOOT_CONFIG_PATH + 1);
		return false;
	default:
		fmt_snprintf(err, size, "%s: the loader could not read it (status %d)",
			     BOOT_CONFIG_PATH + 1, bi->config_status);
		return false;
	}
}

bool options_parse(const struct boot_info *bi, struct kernel_options *o, char *err, size_t size)
{
	struct cfg_error e;
	if (!config_file_ok(bi, err, size))
		return false;
	if (bi->config_status == BOOT_CONFIG_OK &&
	    cfg_parse_file(option_table, ARRAY_SIZE(option_table), o, bi->config,
			   strnlen(bi->config, sizeof(bi->config)), BOOT_CONFIG_PATH + 1,
			   &e) != 0) {
		fmt_snprintf(err, size, "%s", e.msg);
		return false;
	}
	if (bi->options_truncated) {
		fmt_snprintf(err, size, "load options: too long; accepted: at most %d bytes",
			     BOOT_OPTIONS_MAX - 1);
		return false;
	}
	if (cfg_parse_args(option_table, ARRAY_SIZE(option_table), o, bi->options,
			   strnlen(bi->options, sizeof(bi->options)), "load options", &e) != 0) {
		fmt_snprintf(err, size, "%s", e.msg);
		return false;
	}
	if (SERIAL_CLOCK_MAX % o->serial_baud != 0) {
		fmt_snprintf(err, size,
			     "option 'serial.baud': %lu is not 115200 divided by a whole number; "
			     "accepted: 115200, 57600, 38400, 19200, 9600, 4800, 2400, 1200, ...",
			     (unsigned long)o->serial_baud);
		return false;
	}
	return true;
}
