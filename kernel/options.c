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

#define OPT(field) offsetof(struct kernel_options, field)

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
     "capture every workload with these facilities: none, or a list of bts, btsint, lbr",
     OPT(trace), 0, OPTIONS_SELFTEST_MAX, NULL},
    {"workload", CFG_STRING,
     "workloads the trace sessions run: all (bench left out), or names separated by commas",
     OPT(workload), 0, OPTIONS_SELFTEST_MAX, NULL},
    {"spmu", CFG_STRING,
     "software PMU personalities (one session each) where the CPU lacks a facility: skylake, "
     "nehalem, arrowlake",
     OPT(spmu), 0, OPTIONS_SELFTEST_MAX, NULL},
    {"pmi", CFG_ENUM, "deliver the performance-monitoring interrupt on its vector or as NMI",
     OPT(pmi), 0, 0, pmi_values},
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
