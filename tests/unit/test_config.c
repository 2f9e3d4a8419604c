// UNIT-SOURCES: lib/config.c
/*
 * lib/config: the config file and command-line parsers and the help listing. Error messages
 * are compared whole, so these tests also pin their wording. Every input is copied into a
 * malloc'd buffer of exactly its length, without a NUL, so ASan catches any read past len.
 */
#include "tests/unit/unit.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/config.h"

struct settings {
	uint64_t port, baud, exit, selftest, mem;
	char name[32];
};

static const struct cfg_enum_value exit_values[] = {
    {"halt", 0, 0}, {"reset", 1, 0}, {"qemu", 2, 0}, {NULL, 0, 0}};

static const struct cfg_option opts[] = {
    {"serial.port", CFG_UINT, "UART I/O port", offsetof(struct settings, port), 0, 65535, NULL, 0,
     0, NULL},
    {"serial.baud", CFG_UINT, "UART baud rate", offsetof(struct settings, baud), 50, 115200, NULL,
     0, 0, NULL},
    {"exit", CFG_ENUM, "what to do at the end", offsetof(struct settings, exit), 0, 0, exit_values,
     0, 0, NULL},
    {"selftest", CFG_BOOL, "run the self tests", offsetof(struct settings, selftest), 0, 0, NULL, 0,
     0, NULL},
    {"mem", CFG_UINT, "memory limit", offsetof(struct settings, mem), 0, UINT64_MAX, NULL, 0, 0,
     NULL},
    {"name", CFG_STRING, "session name", offsetof(struct settings, name), 0,
     sizeof(((struct settings *)0)->name), NULL, 0, 0, NULL},
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

#define ALL_NAMES "serial.port, serial.baud, exit, selftest, mem, name"
#define UINT_NOTE "(decimal with an optional K/M/G suffix, or 0x hex)"

static struct cfg_error err;

static struct settings defaults(void)
{
	struct settings s = {.port = 0x3f8, .baud = 115200, .exit = 0, .selftest = 0, .mem = 0};
	strcpy(s.name, "default");
	return s;
}

/* An exact-size copy without a terminating NUL (ASan flags any read past it). */
static char *exact_copy(const char *text, size_t len)
{
	char *p = malloc(len); /* malloc(0): no byte may be read at all */

	if (len) {
		assert_non_null(p);
		memcpy(p, text, len);
	}
	return p;
}

static int parse_file_n(struct settings *s, const char *text, size_t len)
{
	char *buf = exact_copy(text, len);
	int r = cfg_parse_file(opts, NOPTS, s, buf, len, "baretrace.cfg", &err);
	free(buf);
	assert_non_null(memchr(err.msg, '\0', sizeof(err.msg))); /* always terminated */
	assert_true(r == 0 ? err.msg[0] == '\0' : err.msg[0] != '\0');
	return r;
}

static int parse_args_n(struct settings *s, const char *text, size_t len)
{
	char *buf = exact_copy(text, len);
	int r = cfg_parse_args(opts, NOPTS, s, buf, len, "load options", &err);
	free(buf);
	assert_non_null(memchr(err.msg, '\0', sizeof(err.msg)));
	assert_true(r == 0 ? err.msg[0] == '\0' : err.msg[0] != '\0');
	return r;
}

/* String literals, embedded NULs included. */
#define parse_file(s, lit) parse_file_n(s, lit, sizeof(lit) - 1)
#define parse_args(s, lit) parse_args_n(s, lit, sizeof(lit) - 1)

/* The file or command line `lit` fails with exactly the message `want`. */
#define FILE_FAILS(lit, want)                                                                      \
	do {                                                                                       \
		struct settings s_ = defaults();                                                   \
		assert_int_equal(parse_file(&s_, lit), -1);                                        \
		assert_string_equal(err.msg, want);                                                \
	} while (0)
#define ARGS_FAIL(lit, want)                                                                       \
	do {                                                                                       \
		struct settings s_ = defaults();                                                   \
		assert_int_equal(parse_args(&s_, lit), -1);                                        \
		assert_string_equal(err.msg, want);                                                \
	} while (0)

/* `mem = <lit>` in a file stores `want`. */
static void mem_is(const char *value, uint64_t want)
{
	char line[128];
	struct settings s = defaults();
	int n = snprintf(line, sizeof(line), "mem = %s", value);

	assert_int_equal(parse_file_n(&s, line, (size_t)n), 0);
	assert_true(s.mem == want);
}

/* ---- success ----------------------------------------------------------------------------------
 */

static void file_with_comments_crlf_tabs_quotes(void **state)
{
	(void)state;
	struct settings s = defaults();

	assert_int_equal(parse_file(&s, "# baretrace config\r\n"
					"\r\n"
					"   # indented comment\n"
					"\t \r\n"
					"serial.port = 0x2F8\r\n"
					"\tserial.baud\t=\t57600   # fast enough\r\n"
					"exit=qemu\n"
					"selftest = On#no space before the comment\n"
					"name = \"my box # 1\"  # the quotes keep the '#'\n"
					"mem = 512M"),
			 0);
	assert_int_equal(s.port, 0x2f8);
	assert_int_equal(s.baud, 57600);
	assert_int_equal(s.exit, 2);
	assert_int_equal(s.selftest, 1);
	assert_int_equal(s.mem, 512ull << 20);
	assert_string_equal(s.name, "my box # 1");
}

static void file_unquoted_values_keep_inner_spaces_and_quotes_allow_empty(void **state)
{
	(void)state;
	struct settings s = defaults();

	assert_int_equal(parse_file(&s, "name =  two words  # comment\n"), 0);
	assert_string_equal(s.name, "two words");
	assert_int_equal(parse_file(&s, "name = \"\"\n"), 0);
	assert_string_equal(s.name, "");
	assert_int_equal(parse_file(&s, "name=\"  padded\t\"\n"), -1); /* tab: control char */
	assert_int_equal(parse_file(&s, "name=\"  padded  \"\n"), 0);
	assert_string_equal(s.name, "  padded  ");
	assert_int_equal(parse_file(&s, "name = caf\xc3\xa9\n"), 0); /* UTF-8 passes through */
	assert_string_equal(s.name, "caf\xc3\xa9");
	assert_int_equal(parse_file(&s, "serial.baud = \"9600\"\n"),
			 0); /* any value may be quoted */
	assert_int_equal(s.baud, 9600);
}

static void file_skips_utf8_bom(void **state)
{
	(void)state;
	struct settings s = defaults();

	assert_int_equal(parse_file(&s, "\xef\xbb\xbfselftest = yes\n"), 0);
	assert_int_equal(s.selftest, 1);
}

static void empty_inputs_change_nothing(void **state)
{
	(void)state;
	struct settings s = defaults(), d = defaults();

	assert_int_equal(parse_file_n(&s, "", 0), 0);
	assert_int_equal(parse_file(&s, "\n\n# only comments\r\n   \n"), 0);
	assert_int_equal(parse_args_n(&s, "", 0), 0);
	assert_int_equal(parse_args(&s, "  \t\r\n "), 0);
	assert_int_equal(parse_args(&s, "\0\0"), 0); /* just a terminator */
	assert_int_equal(cfg_parse_file(opts, NOPTS, &s, NULL, 0, "baretrace.cfg", &err), 0);
	assert_int_equal(cfg_parse_args(opts, NOPTS, &s, NULL, 0, "load options", &err), 0);
	assert_memory_equal(&s, &d, sizeof(s));
}

static void args_tokens_quotes_and_bare_bool(void **state)
{
	(void)state;
	struct settings s = defaults();

	assert_int_equal(parse_args(&s, "  selftest\texit=RESET   name=\"my session # 1\"\r\n"
					"serial.port=0x2f8 mem=4K"),
			 0);
	assert_int_equal(s.selftest, 1);
	assert_int_equal(s.exit, 1);
	assert_string_equal(s.name, "my session # 1");
	assert_int_equal(s.port, 0x2f8);
	assert_int_equal(s.mem, 4096);
	assert_int_equal(parse_args(&s, "selftest=off name=\"\""), 0);
	assert_int_equal(s.selftest, 0);
	assert_string_equal(s.name, "");
	/* UEFI load options usually count their NUL terminator. */
	assert_int_equal(parse_args(&s, "selftest\0\0"), 0);
	assert_int_equal(s.selftest, 1);
	/* '#' is an ordinary character on the command line. */
	assert_int_equal(parse_args(&s, "name=a#b"), 0);
	assert_string_equal(s.name, "a#b");
}

static void later_settings_override_earlier(void **state)
{
	(void)state;
	struct settings s = defaults();

	assert_int_equal(parse_file(&s, "serial.baud = 9600\nexit = reset\nserial.baud = 38400\n"),
			 0);
	assert_int_equal(s.baud, 38400);
	assert_int_equal(parse_args(&s, "serial.baud=57600 serial.baud=19200"), 0);
	assert_int_equal(s.baud, 19200);
	assert_int_equal(s.exit, 1); /* untouched by the command line */
}

static void names_match_exactly_ignoring_case(void **state)
{
	(void)state;
	struct settings s = defaults();

	assert_int_equal(parse_file(&s, "SERIAL.Baud = 9600\nExit = QeMu\n"), 0);
	assert_int_equal(s.baud, 9600);
	assert_int_equal(s.exit, 2);
	FILE_FAILS("serial = 1",
		   "baretrace.cfg:1: unknown option 'serial'; accepted options: " ALL_NAMES);
	FILE_FAILS("serial.b = 1",
		   "baretrace.cfg:1: unknown option 'serial.b'; accepted options: " ALL_NAMES);
	FILE_FAILS(
	    "serial.baudrate = 1",
	    "baretrace.cfg:1: unknown option 'serial.baudrate'; accepted options: " ALL_NAMES);
	FILE_FAILS(
	    "exit = ha",
	    "baretrace.cfg:1: option 'exit': invalid value 'ha'; accepted: halt, reset, qemu");
	FILE_FAILS(
	    "exit = qemux",
	    "baretrace.cfg:1: option 'exit': invalid value 'qemux'; accepted: halt, reset, qemu");
}

static void bool_spellings(void **state)
{
	(void)state;
	static const char *const yes[] = {"1", "yes", "on", "true", "YES", "On", "TRUE"};
	static const char *const no[] = {"0", "no", "off", "false", "NO", "Off", "False"};
	char line[64];

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		struct settings s = defaults();
		int n = snprintf(line, sizeof(line), "selftest=%s", yes[i]);
		assert_int_equal(parse_args_n(&s, line, (size_t)n), 0);
		assert_int_equal(s.selftest, 1);
		s.selftest = 1;
		n = snprintf(line, sizeof(line), "selftest=%s", no[i]);
		assert_int_equal(parse_args_n(&s, line, (size_t)n), 0);
		assert_int_equal(s.selftest, 0);
	}
	ARGS_FAIL("selftest=maybe", "load options: in 'selftest=maybe': option 'selftest': invalid "
				    "value 'maybe'; accepted: 1, 0, yes, no, on, off, true, false");
	ARGS_FAIL("selftest=2", "load options: in 'selftest=2': option 'selftest': invalid value "
				"'2'; accepted: 1, 0, yes, no, on, off, true, false");
}

/* ---- numbers ----------------------------------------------------------------------------------
 */

static void uint_forms_and_suffixes(void **state)
{
	(void)state;
	mem_is("0", 0);
	mem_is("010", 10); /* not octal */
	mem_is("0x10", 16);
	mem_is("0XaBcD", 0xabcd);
	mem_is("1K", 1024);
	mem_is("1k", 1024);
	mem_is("3M", 3ull << 20);
	mem_is("2g", 2ull << 30);
	mem_is("0K", 0);
}

static void uint_64_bit_boundaries(void **state)
{
	(void)state;
	mem_is("18446744073709551615", UINT64_MAX);
	mem_is("0xffffffffffffffff", UINT64_MAX);
	mem_is("0x00000000000000000000000001", 1); /* leading zeros never overflow */
	mem_is("17179869183G", UINT64_MAX - (1ull << 30) + 1);
	FILE_FAILS("mem = 18446744073709551616",
		   "baretrace.cfg:1: option 'mem': '18446744073709551616' does not fit in 64 bits; "
		   "accepted: 0..18446744073709551615");
	FILE_FAILS("mem = 0x10000000000000000",
		   "baretrace.cfg:1: option 'mem': '0x10000000000000000' does not fit in 64 bits; "
		   "accepted: 0..18446744073709551615");
	FILE_FAILS("mem = 17179869184G",
		   "baretrace.cfg:1: option 'mem': '17179869184G' does not fit "
		   "in 64 bits; accepted: 0..18446744073709551615");
	FILE_FAILS("mem = 99999999999999999999999999999",
		   "baretrace.cfg:1: option 'mem': '99999999999999999999999999999' does not fit in "
		   "64 bits; accepted: 0..18446744073709551615");
	/* Trailing garbage wins over overflow: it is not a number at all. */
	FILE_FAILS("mem = 99999999999999999999999x",
		   "baretrace.cfg:1: option 'mem': '99999999999999999999999x' is not a number; "
		   "accepted: 0..18446744073709551615 " UINT_NOTE);
}

static void uint_range_boundaries(void **state)
{
	(void)state;
	struct settings s = defaults();

	assert_int_equal(parse_file(&s, "serial.baud = 50\nserial.port = 0\n"), 0);
	assert_int_equal(s.baud, 50);
	assert_int_equal(s.port, 0);
	assert_int_equal(parse_args(&s, "serial.baud=115200 serial.port=65535"), 0);
	assert_int_equal(s.baud, 115200);
	assert_int_equal(s.port, 65535);
	assert_int_equal(parse_args(&s, "serial.port=0xffff serial.baud=0x32"), 0);
	assert_int_equal(s.port, 65535);
	assert_int_equal(s.baud, 50);
	FILE_FAILS("serial.baud = 49",
		   "baretrace.cfg:1: option 'serial.baud': '49' is out of range; "
		   "accepted: 50..115200");
	FILE_FAILS("\n\n\n\nserial.baud = 7",
		   "baretrace.cfg:5: option 'serial.baud': '7' is out of "
		   "range; accepted: 50..115200");
	FILE_FAILS("serial.baud = 115201", "baretrace.cfg:1: option 'serial.baud': '115201' is out "
					   "of range; accepted: 50..115200");
	ARGS_FAIL("serial.port=65536",
		  "load options: in 'serial.port=65536': option 'serial.port': "
		  "'65536' is out of range; accepted: 0..65535");
	/* Hex and suffixes show their value. */
	ARGS_FAIL("serial.port=64K", "load options: in 'serial.port=64K': option 'serial.port': "
				     "'64K' (= 65536) is out of range; accepted: 0..65535");
	ARGS_FAIL("serial.baud=0x31", "load options: in 'serial.baud=0x31': option 'serial.baud': "
				      "'0x31' (= 49) is out of range; accepted: 50..115200");
}

static void uint_not_a_number(void **state)
{
	(void)state;
	static const char *const bad[] = {"xyz", "12abc", "-1", "+1", "0x", "1KB", "1 2", "1.5",
					  "K", "0xg", "1e3", "0x1K2", "1T", "1KK",
					  /* no suffix on hex: a letter past f is a bad digit */
					  "0x3fg", "0x10G", "0x1k", "0xffM"};
	char line[64], want[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct settings s = defaults();
		int n = snprintf(line, sizeof(line), "serial.port = %s", bad[i]);
		assert_int_equal(parse_file_n(&s, line, (size_t)n), -1);
		snprintf(want, sizeof(want),
			 "baretrace.cfg:1: option 'serial.port': '%s' is not a number; accepted: "
			 "0..65535 " UINT_NOTE,
			 bad[i]);
		assert_string_equal(err.msg, want);
		assert_int_equal(s.port, 0x3f8);
	}
	FILE_FAILS("serial.port = \"\"",
		   "baretrace.cfg:1: option 'serial.port': '' is not a number; "
		   "accepted: 0..65535 " UINT_NOTE);
}

/* ---- errors -----------------------------------------------------------------------------------
 */

static void unknown_option(void **state)
{
	(void)state;
	FILE_FAILS("selftest = 1\n# fine\nbaud = 9600\n",
		   "baretrace.cfg:3: unknown option 'baud'; accepted options: " ALL_NAMES);
	ARGS_FAIL(
	    "selftest baud=9600",
	    "load options: in 'baud=9600': unknown option 'baud'; accepted options: " ALL_NAMES);
	ARGS_FAIL("verbose", "load options: in 'verbose': unknown option 'verbose'; accepted "
			     "options: " ALL_NAMES);
	/* An empty table. */
	struct settings s = defaults();
	char *buf = exact_copy("x=1", 3);
	assert_int_equal(cfg_parse_args(opts, 0, &s, buf, 3, "load options", &err), -1);
	free(buf);
	assert_string_equal(err.msg,
			    "load options: in 'x=1': unknown option 'x'; accepted options: (none)");
}

static void invalid_enum_value(void **state)
{
	(void)state;
	ARGS_FAIL("exit=boom", "load options: in 'exit=boom': option 'exit': invalid value 'boom'; "
			       "accepted: halt, reset, qemu");
	FILE_FAILS("exit = \"halt \"", "baretrace.cfg:1: option 'exit': invalid value 'halt '; "
				       "accepted: halt, reset, qemu");
}

static void not_key_value(void **state)
{
	(void)state;
	FILE_FAILS("\n\n\njust words\n",
		   "baretrace.cfg:4: expected 'key = value', got 'just words'");
	FILE_FAILS("selftest  # bare bools need a value in a file",
		   "baretrace.cfg:1: expected 'key = value', got 'selftest'");
	FILE_FAILS("  = 5", "baretrace.cfg:1: expected 'key = value', got '= 5'");
	FILE_FAILS("name # = 5", "baretrace.cfg:1: expected 'key = value', got 'name'");
	ARGS_FAIL("selftest =5", "load options: in '=5': missing option name before '='; accepted: "
				 "key=value");
	ARGS_FAIL("=", "load options: in '=': missing option name before '='; accepted: key=value");
}

static void missing_value(void **state)
{
	(void)state;
	FILE_FAILS("\n\n\n\n\n\nexit =\n",
		   "baretrace.cfg:7: option 'exit': missing value; accepted: halt, reset, qemu");
	FILE_FAILS("serial.baud =   # later",
		   "baretrace.cfg:1: option 'serial.baud': missing value; accepted: 50..115200");
	FILE_FAILS("name =", "baretrace.cfg:1: option 'name': missing value; accepted: at most 31 "
			     "bytes, no control characters");
	ARGS_FAIL("serial.baud", "load options: in 'serial.baud': option 'serial.baud': missing "
				 "value; accepted: 50..115200");
	ARGS_FAIL("serial.baud= exit=halt",
		  "load options: in 'serial.baud=': option 'serial.baud': "
		  "missing value; accepted: 50..115200");
	ARGS_FAIL("selftest=", "load options: in 'selftest=': option 'selftest': missing value; "
			       "accepted: 1, 0, yes, no, on, off, true, false");
}

static void quote_errors(void **state)
{
	(void)state;
	FILE_FAILS(
	    "name = \"abc def  ",
	    "baretrace.cfg:1: missing closing '\"' in '\"abc def'; accepted: \"text\" within "
	    "one line (\\\" inside it is a '\"')");
	/* The quote does not continue onto the next line. */
	FILE_FAILS(
	    "name = \"abc\ndef\"\n",
	    "baretrace.cfg:1: missing closing '\"' in '\"abc'; accepted: \"text\" within one "
	    "line (\\\" inside it is a '\"')");
	FILE_FAILS("name = \"abc\" def # c", "baretrace.cfg:1: unexpected 'def # c' after the "
					     "closing '\"'; accepted: only a '#' comment after it");
	FILE_FAILS("name = ab\"c\"",
		   "baretrace.cfg:1: option 'name': stray '\"' in value "
		   "'ab\"c\"' (quotes go around the whole value; inside them \\\" "
		   "is a '\"'); accepted: at "
		   "most 31 bytes, no control characters");
	ARGS_FAIL("selftest name=\"abc def",
		  "load options: in 'name=\"abc def': missing closing "
		  "'\"'; accepted: key=\"text\" (\\\" inside it is a '\"')");
	ARGS_FAIL("name=\"abc\"def selftest",
		  "load options: in 'name=\"abc\"def': unexpected 'def' after the closing '\"'; "
		  "accepted: a space, then the next option");
	ARGS_FAIL("name=ab\"c d\"",
		  "load options: in 'name=ab\"c': option 'name': stray '\"' in "
		  "value 'ab\"c' (quotes go around the whole value; inside them \\\" is a "
		  "'\"'); accepted: at "
		  "most 31 bytes, no control characters");
}

static void string_length_and_control_characters(void **state)
{
	(void)state;
	struct settings s = defaults();
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "name=%031d", 7);
	assert_int_equal(parse_args_n(&s, line, (size_t)n), 0);
	assert_int_equal(strlen(s.name), 31);
	n = snprintf(line, sizeof(line), "name=%032d", 7);
	assert_int_equal(parse_args_n(&s, line, (size_t)n), -1);
	assert_string_equal(err.msg,
			    "load options: in 'name=00000000000000000000000000000007': "
			    "option 'name': value '00000000000000000000000000000007' is too "
			    "long (32 bytes); accepted: at most 31 bytes, no control "
			    "characters");
	assert_int_equal(strlen(s.name), 31); /* unchanged */
	n = snprintf(line, sizeof(line), "name=%0300d", 7);
	assert_int_equal(parse_args_n(&s, line, (size_t)n), -1);
	assert_string_equal(err.msg,
			    "load options: in 'name=00000000000000000000000000000000000...': "
			    "option 'name': value '0000000000000000000000000000000000000000...' "
			    "is too long (300 bytes); accepted: at most 31 bytes, no control "
			    "characters");
	FILE_FAILS("name = \"a\tb\"", "baretrace.cfg:1: option 'name': value 'a?b' contains a "
				      "control character; accepted: at most 31 bytes, no control "
				      "characters");
	FILE_FAILS("name = a\rb\r\n", "baretrace.cfg:1: option 'name': value 'a?b' contains a "
				      "control character; accepted: at most 31 bytes, no control "
				      "characters");
	FILE_FAILS("name = a\x7f", "baretrace.cfg:1: option 'name': value 'a?' contains a control "
				   "character; accepted: at most 31 bytes, no control characters");
}

static void nul_bytes(void **state)
{
	(void)state;
	FILE_FAILS("selftest = yes\nexit = h\0alt\n",
		   "baretrace.cfg:2: NUL byte at column 9; accepted: plain text only");
	FILE_FAILS("selftest = yes\n\0", "baretrace.cfg:2: NUL byte at column 1; accepted: plain "
					 "text only");
	FILE_FAILS("# comment \0\n", "baretrace.cfg:1: NUL byte at column 11; accepted: plain text "
				     "only");
	ARGS_FAIL("selftest exit=h\0alt",
		  "load options: in 'exit=h?alt': NUL byte; accepted: plain text only");
	ARGS_FAIL("selftest \0 exit=halt",
		  "load options: in '?': NUL byte; accepted: plain text only");
}

static void long_lines(void **state)
{
	(void)state;
	char text[CFG_MAX_LINE + 64];
	struct settings s = defaults();

	/* A CFG_MAX_LINE-byte (2047) comment line is fine, with "\n" or "\r\n"; one more is not. */
	assert_int_equal(CFG_MAX_LINE, 2047);
	memset(text, 0, sizeof(text));
	text[0] = '#';
	memset(text + 1, 'x', CFG_MAX_LINE - 1);
	strcat(text, "\r\nselftest = 1\n");
	assert_int_equal(parse_file_n(&s, text, strlen(text)), 0);
	assert_int_equal(s.selftest, 1);

	memset(text, 0, sizeof(text));
	strcpy(text, "selftest = 0\n#");
	memset(text + strlen(text), 'y', CFG_MAX_LINE);
	strcat(text, "\nexit = reset\n");
	s = defaults();
	assert_int_equal(parse_file_n(&s, text, strlen(text)), -1);
	assert_string_equal(err.msg,
			    "baretrace.cfg:2: line '#yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy..."
			    "' is too long (2048 bytes); accepted: at most 2047 bytes per "
			    "line");
	assert_int_equal(s.exit, 0);

	/* The limit counts bytes without the line ending, even when the last line has none. */
	memset(text, 0, sizeof(text));
	strcpy(text, "name = ");
	memset(text + strlen(text), 'z', CFG_MAX_LINE + 1 - strlen(text));
	assert_int_equal(parse_file_n(&s, text, strlen(text)), -1);
	assert_true(
	    strstr(err.msg, "is too long (2048 bytes); accepted: at most 2047 bytes per line"));
}

/*
 * Inside double quotes \" is '"' and \\ is '\'; any other backslash stays with its byte: a POSIX
 * shell's double quotes (XCU 2.2.3). Each expected value is what /bin/sh prints for
 * printf '%s' "TEXT" with the same TEXT between the quotes (checked with dash).
 */
static void quoted_values_take_shell_double_quote_escapes(void **state)
{
	(void)state;
	static const struct {
		const char *file, *args, *want;
	} cases[] = {
	    {"name = \"a \\\"b c\\\" d\"", "name=\"a \\\"b c\\\" d\"", "a \"b c\" d"},
	    {"name = \"\\\"\\\"\"", "name=\"\\\"\\\"\"", "\"\""},
	    {"name = \"x\\\\y\"", "name=\"x\\\\y\"", "x\\y"},
	    {"name = \"x\\y \\ z\"", "name=\"x\\y \\ z\"", "x\\y \\ z"},
	    {"name = \"a\\\\\\\"b\"", "name=\"a\\\\\\\"b\"", "a\\\"b"},
	    {"name = \"ends\\\\\" # c", "name=\"ends\\\\\"", "ends\\"},
	    {"name = \"# \\\" #\"  # c", "name=\"# \\\" #\"", "# \" #"},
	    {"name = \"\"", "name=\"\"", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct settings s = defaults();
		assert_int_equal(parse_file_n(&s, cases[i].file, strlen(cases[i].file)), 0);
		assert_string_equal(s.name, cases[i].want);
		s = defaults();
		char args[96];
		int n = snprintf(args, sizeof(args), "selftest %s exit=qemu", cases[i].args);
		assert_int_equal(parse_args_n(&s, args, (size_t)n), 0);
		assert_string_equal(s.name, cases[i].want);
		assert_int_equal(s.selftest, 1);
		assert_int_equal(s.exit, 2); /* the token after the value is read as its own */
	}
	/* Not in quotes: taken as it is. */
	struct settings s = defaults();
	assert_int_equal(parse_file(&s, "name = a\\\\b\\ c"), 0);
	assert_string_equal(s.name, "a\\\\b\\ c");
	/* An escaped quote does not close the value: one left open is said. */
	FILE_FAILS("name = \"open\\\"",
		   "baretrace.cfg:1: missing closing '\"' in '\"open\\\"'; accepted: \"text\" "
		   "within one line (\\\" inside it is a '\"')");
	/* A quoted value longer than any line is refused as such, in the command line too. */
	static char big[CFG_MAX_QUOTED + 16];
	int n = snprintf(big, sizeof(big), "name=\"%0*d\"", CFG_MAX_QUOTED + 1, 7);
	assert_int_equal(parse_args_n(&s, big, (size_t)n), -1);
	assert_non_null(strstr(err.msg, "option 'name': the quoted value is too long (2049 bytes); "
					"accepted: at most 2048"));
	ARGS_FAIL("name=\"open\\\" exit=qemu",
		  "load options: in 'name=\"open\\\" exit=qemu': missing closing '\"'; "
		  "accepted: key=\"text\" (\\\" inside it is a '\"')");
}

static void quoted_text_is_capped_and_printable(void **state)
{
	(void)state;
	FILE_FAILS("ba\x01\x7f\xff\td = 1", "baretrace.cfg:1: unknown option 'ba????d'; accepted "
					    "options: " ALL_NAMES);
	ARGS_FAIL("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1",
		  "load options: in 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...': unknown option "
		  "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'; accepted options: " ALL_NAMES);
	/* Exactly 40 bytes: no "...". */
	ARGS_FAIL(
	    "exit=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
	    "load options: in 'exit=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...': option 'exit': "
	    "invalid value 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'; accepted: halt, reset, "
	    "qemu");
}

static void message_that_does_not_fit_ends_in_dots(void **state)
{
	(void)state;
	static char names[40][48];
	static struct cfg_enum_value values[41];
	struct settings s = defaults();
	char *buf = exact_copy("e=nope", 6);

	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "a.rather.long.value.name.%02d", i);
		values[i] = (struct cfg_enum_value){names[i], (uint64_t)i, 0};
	}
	values[40] = (struct cfg_enum_value){NULL, 0, 0};
	struct cfg_option o = {.name = "e", .type = CFG_ENUM, .values = values};
	assert_int_equal(cfg_parse_args(&o, 1, &s, buf, 6, "load options", &err), -1);
	free(buf);
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
	assert_string_equal(err.msg + sizeof(err.msg) - 4, "...");
	assert_true(
	    strncmp(err.msg,
		    "load options: in 'e=nope': option 'e': invalid value 'nope'; accepted: "
		    "a.rather.long.value.name.00, a.rather.long.value.name.01",
		    120) == 0);
}

/* Too many option names for the message: their number instead, never a cut list. */
static void unknown_option_among_many_counts_them(void **state)
{
	(void)state;
	static char names[40][48];
	struct cfg_option many[40];
	struct settings s = defaults();
	char *buf = exact_copy("nope=1", 6);

	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "a.rather.long.option.name.%02d", i);
		many[i] = (struct cfg_option){.name = names[i], .type = CFG_BOOL};
	}
	assert_int_equal(cfg_parse_args(many, 40, &s, buf, 6, "load options", &err), -1);
	free(buf);
	assert_string_equal(err.msg, "load options: in 'nope=1': unknown option 'nope'; accepted "
				     "options: 40 names, too many to list here");
}

static void stops_at_first_error_keeping_earlier_settings(void **state)
{
	(void)state;
	struct settings s = defaults();

	assert_int_equal(
	    parse_file(&s, "serial.baud = 9600\nexit = boom\nbogus = 1\nselftest = 1\n"), -1);
	assert_string_equal(err.msg, "baretrace.cfg:2: option 'exit': invalid value 'boom'; "
				     "accepted: halt, reset, qemu");
	assert_int_equal(s.baud, 9600);
	assert_int_equal(s.exit, 0);
	assert_int_equal(s.selftest, 0);

	s = defaults();
	assert_int_equal(parse_args(&s, "exit=qemu serial.baud=1 selftest"), -1);
	assert_int_equal(s.exit, 2);
	assert_int_equal(s.baud, 115200);
	assert_int_equal(s.selftest, 0);
}

static void null_err_and_source(void **state)
{
	(void)state;
	struct settings s = defaults();
	char *buf = exact_copy("exit=boom", 9);

	assert_int_equal(cfg_parse_args(opts, NOPTS, &s, buf, 9, "load options", NULL), -1);
	assert_int_equal(cfg_parse_file(opts, NOPTS, &s, buf, 9, NULL, &err), -1);
	free(buf);
	assert_string_equal(
	    err.msg, "config:1: option 'exit': invalid value 'boom'; accepted: halt, reset, qemu");
}

/* ---- sets, lists, defaults and steps ------------------------------------------------------------
 */

struct typed {
	uint64_t flags, depth, records;
	struct cfg_list fac, wl;
};

#define F_USER	 0x1u
#define F_KERNEL 0x2u
#define F_COND	 0x4u
#define F_CALLS	 0x18u /* two classes at once, as "call" = near relative + indirect */

static const struct cfg_enum_value flag_values[] = {
    {"user", F_USER, 0},  {"kernel", F_KERNEL, 0},  {"cond", F_COND, 0},
    {"call", F_CALLS, 0}, {"none", 0, CFG_V_ALONE}, {NULL, 0, 0}};
enum { FAC_BTS = 7, FAC_LBR = 3, FAC_PEBS = 5 };
static const struct cfg_enum_value fac_values[] = {{"bts", FAC_BTS, 0},
						   {"lbr", FAC_LBR, 0},
						   {"pebs", FAC_PEBS, 0},
						   {"none", 0, CFG_V_ALONE},
						   {"all", 0, CFG_V_ALONE | CFG_V_ALL},
						   {NULL, 0, 0}};
static const struct cfg_enum_value wl_words[] = {
    {"none", 0, CFG_V_ALONE}, {"all", 0, CFG_V_ALONE | CFG_V_ALL}, {NULL, 0, 0}};

/* A table owned elsewhere (the kernel's workloads): "bench" only when named. */
static const char *wl_item(unsigned i, bool *explicit_only)
{
	static const char *const names[] = {"loop", "calls", "bench", "user"};
	if (i >= sizeof(names) / sizeof(names[0]))
		return NULL;
	*explicit_only = i == 2;
	return names[i];
}

static const struct cfg_option typed_opts[] = {
    {.name = "flags",
     .type = CFG_SET,
     .offset = offsetof(struct typed, flags),
     .values = flag_values},
    {.name = "depth",
     .type = CFG_UINT,
     .offset = offsetof(struct typed, depth),
     .min = 8,
     .max = 64,
     .flags = CFG_ZERO_DEFAULT,
     .multiple = 8},
    {.name = "records",
     .type = CFG_UINT,
     .offset = offsetof(struct typed, records),
     .min = 4,
     .max = 1000,
     .flags = CFG_ZERO_DEFAULT},
    {.name = "trace",
     .type = CFG_LIST,
     .offset = offsetof(struct typed, fac),
     .values = fac_values},
    {.name = "workload",
     .type = CFG_LIST,
     .offset = offsetof(struct typed, wl),
     .values = wl_words,
     .item = wl_item},
};
#define NTYPED (sizeof(typed_opts) / sizeof(typed_opts[0]))

static int typed_file(struct typed *t, const char *text)
{
	char *buf = exact_copy(text, strlen(text));
	int r = cfg_parse_file(typed_opts, NTYPED, t, buf, strlen(text), "baretrace.cfg", &err);
	free(buf);
	return r;
}

static int typed_args(struct typed *t, const char *text)
{
	char *buf = exact_copy(text, strlen(text));
	int r = cfg_parse_args(typed_opts, NTYPED, t, buf, strlen(text), "load options", &err);
	free(buf);
	return r;
}

static void list_is(const struct cfg_list *l, unsigned n, const uint16_t *want)
{
	assert_int_equal(l->n, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(l->item[i], want[i]);
}

static void set_ors_values_ignoring_case_and_spaces(void **state)
{
	(void)state;
	struct typed t = {0};

	assert_int_equal(typed_file(&t, "flags = User, COND ,call\n"), 0);
	assert_int_equal(t.flags, F_USER | F_COND | F_CALLS);
	assert_int_equal(typed_args(&t, "flags=kernel"), 0);
	assert_int_equal(t.flags, F_KERNEL);
	assert_int_equal(typed_args(&t, "flags=NONE"), 0);
	assert_int_equal(t.flags, 0);
}

static void set_and_list_errors_name_the_place(void **state)
{
	(void)state;
	struct typed t = {0};
	static const char accepted[] =
	    "accepted: none, or names separated by commas from: user kernel cond call";

	assert_int_equal(typed_file(&t, "# x\nflags = user,kernal\n"), -1);
	assert_string_equal(err.msg,
			    "baretrace.cfg:2: option 'flags': unknown 'kernal'; accepted: "
			    "none, or names separated by commas from: user kernel cond call");
	assert_int_equal(typed_args(&t, "flags=user,,cond"), -1);
	assert_true(strstr(err.msg, "load options: in 'flags=user,,cond': option 'flags': empty "
				    "name in 'user,,cond'; ") == err.msg);
	assert_int_equal(typed_file(&t, "flags = user,\n"), -1);
	assert_true(strstr(err.msg, "baretrace.cfg:1: option 'flags': empty name in 'user,'"));
	assert_int_equal(typed_file(&t, "flags = cond,COND\n"), -1);
	assert_true(strstr(err.msg, "baretrace.cfg:1: option 'flags': 'COND' is given twice; "));
	assert_int_equal(typed_file(&t, "flags = user,none\n"), -1);
	assert_true(strstr(err.msg, "option 'flags': 'none' must stand alone; "));
	assert_int_equal(typed_file(&t, "flags = none,user\n"), -1);
	assert_true(strstr(err.msg, "option 'flags': 'none' must stand alone; "));
	assert_true(strstr(err.msg, accepted));
}

static void list_keeps_order_and_expands_all(void **state)
{
	(void)state;
	struct typed t = {0};

	assert_int_equal(typed_file(&t, "trace = pebs,BTS,lbr\n"), 0);
	list_is(&t.fac, 3, (const uint16_t[]){FAC_PEBS, FAC_BTS, FAC_LBR});
	assert_true(cfg_list_has(&t.fac, FAC_LBR));
	assert_false(cfg_list_has(&t.fac, 0));
	assert_int_equal(cfg_list_mask(&t.fac),
			 (1u << FAC_PEBS) | (1u << FAC_BTS) | (1u << FAC_LBR));
	assert_int_equal(typed_args(&t, "trace=all"), 0);
	list_is(&t.fac, 3, (const uint16_t[]){FAC_BTS, FAC_LBR, FAC_PEBS});
	assert_int_equal(typed_args(&t, "trace=none"), 0);
	assert_int_equal(t.fac.n, 0);
	/* Names from a table owned elsewhere: their index; "all" leaves explicit-only ones out. */
	assert_int_equal(typed_args(&t, "workload=User,bench"), 0);
	list_is(&t.wl, 2, (const uint16_t[]){3, 2});
	assert_int_equal(typed_args(&t, "workload=ALL"), 0);
	list_is(&t.wl, 3, (const uint16_t[]){0, 1, 3});
	assert_int_equal(typed_file(&t, "workload = loop\nworkload = lop\n"), -1);
	assert_string_equal(err.msg,
			    "baretrace.cfg:2: option 'workload': unknown 'lop'; accepted: none, or "
			    "all, or names separated by commas from: loop calls bench user");
	assert_int_equal(typed_args(&t, "workload=all,loop"), -1);
	assert_true(strstr(err.msg, "'all' must stand alone"));
}

static void list_capacity(void **state)
{
	(void)state;
	static char names[CFG_LIST_MAX + 1][8];
	static const char *ptrs[CFG_LIST_MAX + 1];
	static const struct cfg_enum_value words[] = {{"none", 0, CFG_V_ALONE}, {NULL, 0, 0}};
	struct cfg_enum_value vals[CFG_LIST_MAX + 2];
	char text[CFG_LIST_MAX * 8 + 16];
	size_t len = 0;
	struct typed t = {0};

	for (unsigned i = 0; i <= CFG_LIST_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "n%u", i);
		ptrs[i] = names[i];
		vals[i] = (struct cfg_enum_value){ptrs[i], i, 0};
	}
	vals[CFG_LIST_MAX + 1] = (struct cfg_enum_value){NULL, 0, 0};
	(void)words;
	struct cfg_option o = {
	    .name = "l", .type = CFG_LIST, .offset = offsetof(struct typed, fac), .values = vals};
	len += (size_t)snprintf(text, sizeof(text), "l=");
	for (unsigned i = 0; i < CFG_LIST_MAX; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%sn%u", i ? "," : "", i);
	assert_int_equal(cfg_parse_args(&o, 1, &t, text, len, "load options", &err), 0);
	assert_int_equal(t.fac.n, CFG_LIST_MAX);
	len += (size_t)snprintf(text + len, sizeof(text) - len, ",n%u", CFG_LIST_MAX);
	assert_int_equal(cfg_parse_args(&o, 1, &t, text, len, "load options", &err), -1);
	assert_true(strstr(err.msg, "option 'l': more than 64 names"));
}

/* A table owned elsewhere with one name more than a list holds (none explicit-only). */
static const char *wide_item(unsigned i, bool *explicit_only)
{
	static char names[CFG_LIST_MAX + 1][8];
	if (i > CFG_LIST_MAX)
		return NULL;
	snprintf(names[i], sizeof(names[i]), "w%u", i);
	*explicit_only = false;
	return names[i];
}

/* `all` standing for more names than a list holds is refused, never cut
 * silently to the first CFG_LIST_MAX. */
static void list_all_over_capacity(void **state)
{
	(void)state;
	struct typed t = {0};
	struct cfg_option o = {.name = "workload",
			       .type = CFG_LIST,
			       .offset = offsetof(struct typed, wl),
			       .values = wl_words,
			       .item = wide_item};
	assert_int_equal(cfg_parse_args(&o, 1, &t, "workload=all", 12, "load options", &err), -1);
	assert_true(strstr(err.msg, "option 'workload': 'all' stands for more than 64 names"));
	assert_int_equal(cfg_parse_args(&o, 1, &t, "workload=w3,w64", 15, "load options", &err), 0);
	assert_int_equal(t.wl.n, 2);
}

static void uint_zero_default_and_steps(void **state)
{
	(void)state;
	struct typed t = {0};

	assert_int_equal(typed_args(&t, "depth=0 records=0"), 0);
	assert_int_equal(typed_args(&t, "depth=16 records=4"), 0);
	assert_int_equal(t.depth, 16);
	assert_int_equal(t.records, 4);
	assert_int_equal(typed_args(&t, "depth=7"), -1);
	assert_string_equal(err.msg, "load options: in 'depth=7': option 'depth': '7' is out of "
				     "range; accepted: 0 (the default) or 8..64 in steps of 8");
	assert_int_equal(typed_args(&t, "depth=12"), -1);
	assert_string_equal(err.msg,
			    "load options: in 'depth=12': option 'depth': '12' is not a "
			    "multiple of 8; accepted: 0 (the default) or 8..64 in steps of 8");
	assert_int_equal(typed_args(&t, "records=1"), -1);
	assert_string_equal(err.msg,
			    "load options: in 'records=1': option 'records': '1' is out of "
			    "range; accepted: 0 (the default) or 4..1000");
}

/* ---- warnings ----------------------------------------------------------------------------------
 */

static char warnings[1024];

static void collect(void *ctx, const char *line)
{
	(void)ctx;
	strncat(warnings, line, sizeof(warnings) - strlen(warnings) - 2);
	strcat(warnings, "\n");
}

static void a_key_given_twice_warns_naming_both_places(void **state)
{
	(void)state;
	struct settings s = defaults();

	warnings[0] = '\0';
	err.warn = collect;
	assert_int_equal(parse_file(&s, "exit = qemu\nserial.baud = 9600\n\nEXIT = reset\n"), 0);
	assert_int_equal(s.exit, 1); /* the later value wins */
	assert_int_equal(parse_args(&s, "exit=halt name=a exit=qemu"), 0);
	assert_int_equal(s.exit, 2);
	/* Each input on its own: a file line then a load option is the documented override. */
	assert_int_equal(parse_file(&s, "name = x\n"), 0);
	assert_int_equal(parse_args(&s, "name=y"), 0);
	err.warn = NULL;
	assert_string_equal(warnings,
			    "baretrace.cfg:4: option 'exit' given again (before at line "
			    "1): the later value wins\n"
			    "load options: option 'exit' given again (before as option 1): "
			    "the later value wins\n");
	/* Without a listener nothing happens. */
	assert_int_equal(parse_file(&s, "exit = qemu\nexit = halt\n"), 0);
}

static void unknown_option_suggests_a_near_name(void **state)
{
	(void)state;
	FILE_FAILS("serial.bud = 9600",
		   "baretrace.cfg:1: unknown option 'serial.bud' (did you mean "
		   "'serial.baud'?); accepted options: " ALL_NAMES);
	FILE_FAILS("Exti = qemu", "baretrace.cfg:1: unknown option 'Exti' (did you mean 'exit'?); "
				  "accepted options: " ALL_NAMES);
}

/* ---- cfg_describe -----------------------------------------------------------------------------
 */

#define DESCRIPTION                                                                                \
	"  serial.port=0..65535           UART I/O port\n"                                         \
	"  serial.baud=50..115200         UART baud rate\n"                                        \
	"  exit=halt|reset|qemu           what to do at the end\n"                                 \
	"  selftest=yes|no                run the self tests\n"                                    \
	"  mem=0..18446744073709551615    memory limit\n"                                          \
	"  name=<text, at most 31 bytes>  session name\n"

static void describe_lists_every_option_aligned(void **state)
{
	(void)state;
	char buf[1024];

	memset(buf, 'X', sizeof(buf));
	assert_int_equal(cfg_describe(opts, NOPTS, buf, sizeof(buf)), strlen(DESCRIPTION));
	assert_string_equal(buf, DESCRIPTION);
}

static void describe_truncates_like_snprintf(void **state)
{
	(void)state;
	char buf[16];

	assert_int_equal(cfg_describe(opts, NOPTS, NULL, 0), strlen(DESCRIPTION));
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(cfg_describe(opts, NOPTS, buf, sizeof(buf)), strlen(DESCRIPTION));
	assert_string_equal(buf, "  serial.port=0");
	buf[0] = 'X';
	assert_int_equal(cfg_describe(opts, NOPTS, buf, 1), strlen(DESCRIPTION));
	assert_int_equal(buf[0], '\0');
	assert_int_equal(cfg_describe(opts, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void describe_without_help_and_with_long_entries(void **state)
{
	(void)state;
	static const struct cfg_enum_value many[] = {{"alpha", 0, 0},	{"bravo", 1, 0},
						     {"charlie", 2, 0}, {"delta", 3, 0},
						     {"echo", 4, 0},	{NULL, 0, 0}};
	static const struct cfg_option o[] = {
	    {.name = "a", .type = CFG_BOOL, .help = "flag"},
	    {.name = "b", .type = CFG_UINT, .min = 1, .max = 9},
	    {.name = "phonetic", .type = CFG_ENUM, .help = "too wide to align", .values = many},
	};
	char buf[256];

	cfg_describe(o, 3, buf, sizeof(buf));
	assert_string_equal(buf, "  a=yes|no  flag\n"
				 "  b=1..9\n"
				 "  phonetic=alpha|bravo|charlie|delta|echo  too wide to align\n");
}

static size_t piece_count;
static char assembled[4096];

static void gather(void *ctx, const char *text, size_t n)
{
	(void)ctx;
	assert_true(n > 0 && n <= 128);
	piece_count++;
	strncat(assembled, text, n);
}

static void describe_to_streams_any_length(void **state)
{
	(void)state;
	static char names[60][48];
	struct cfg_option many[60];
	char *whole = malloc(8192);

	for (int i = 0; i < 60; i++) {
		snprintf(names[i], sizeof(names[i]), "a.rather.long.option.name.%02d", i);
		many[i] = (struct cfg_option){.name = names[i], .type = CFG_BOOL, .help = "flag"};
	}
	assembled[0] = '\0';
	piece_count = 0;
	cfg_describe_to(many, 60, gather, NULL);
	assert_int_equal(cfg_describe(many, 60, whole, 8192), strlen(assembled));
	assert_string_equal(assembled, whole);
	assert_true(strlen(assembled) > 2048);
	assert_true(piece_count > 1);
	free(whole);
}

static void describe_sets_lists_and_steps(void **state)
{
	(void)state;
	char buf[1024];

	cfg_describe(typed_opts, NTYPED, buf, sizeof(buf));
	assert_string_equal(buf, "  flags=none|<list: user,kernel,cond,call>\n"
				 "  depth=0|8..64 (x8)\n"
				 "  records=0|4..1000\n"
				 "  trace=none|all|<list: bts,lbr,pebs>\n"
				 "  workload=none|all|<list: loop,calls,bench,user>\n");
}

/* cfg_pick_*: only the table's keys are taken; other keys, known elsewhere or not, are skipped
 * without error; the command line still overrides the file; bad syntax is still an error. */
static void pick_takes_only_its_keys(void **state)
{
	(void)state;
	static const struct cfg_option only_name[] = {
	    {"name", CFG_STRING, "session name", offsetof(struct settings, name), 0,
	     sizeof(((struct settings *)0)->name), NULL, 0, 0, NULL},
	};
	struct settings s = defaults();
	static const char file[] = "trace = bts\nname = from-file # comment\nbogus.key = 7\n";
	assert_int_equal(
	    cfg_pick_file(only_name, 1, &s, file, sizeof(file) - 1, "baretrace.cfg", &err), 0);
	assert_string_equal(s.name, "from-file");
	static const char args[] = "unknown=1 name=\"from args\" other";
	assert_int_equal(
	    cfg_pick_args(only_name, 1, &s, args, sizeof(args) - 1, "load options", &err), 0);
	assert_string_equal(s.name, "from args");
	static const char bad[] = "name\n"; /* no '=' */
	assert_int_equal(
	    cfg_pick_file(only_name, 1, &s, bad, sizeof(bad) - 1, "baretrace.cfg", &err), -1);
	assert_true(err.msg[0] != '\0');
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(pick_takes_only_its_keys),
    cmocka_unit_test(file_with_comments_crlf_tabs_quotes),
    cmocka_unit_test(file_unquoted_values_keep_inner_spaces_and_quotes_allow_empty),
    cmocka_unit_test(file_skips_utf8_bom),
    cmocka_unit_test(empty_inputs_change_nothing),
    cmocka_unit_test(args_tokens_quotes_and_bare_bool),
    cmocka_unit_test(later_settings_override_earlier),
    cmocka_unit_test(names_match_exactly_ignoring_case),
    cmocka_unit_test(bool_spellings),
    cmocka_unit_test(uint_forms_and_suffixes),
    cmocka_unit_test(uint_64_bit_boundaries),
    cmocka_unit_test(uint_range_boundaries),
    cmocka_unit_test(uint_not_a_number),
    cmocka_unit_test(unknown_option),
    cmocka_unit_test(invalid_enum_value),
    cmocka_unit_test(not_key_value),
    cmocka_unit_test(missing_value),
    cmocka_unit_test(quote_errors),
    cmocka_unit_test(quoted_values_take_shell_double_quote_escapes),
    cmocka_unit_test(string_length_and_control_characters),
    cmocka_unit_test(nul_bytes),
    cmocka_unit_test(long_lines),
    cmocka_unit_test(quoted_text_is_capped_and_printable),
    cmocka_unit_test(message_that_does_not_fit_ends_in_dots),
    cmocka_unit_test(unknown_option_among_many_counts_them),
    cmocka_unit_test(stops_at_first_error_keeping_earlier_settings),
    cmocka_unit_test(null_err_and_source),
    cmocka_unit_test(describe_lists_every_option_aligned),
    cmocka_unit_test(describe_truncates_like_snprintf),
    cmocka_unit_test(describe_without_help_and_with_long_entries),
    cmocka_unit_test(set_ors_values_ignoring_case_and_spaces),
    cmocka_unit_test(set_and_list_errors_name_the_place),
    cmocka_unit_test(list_keeps_order_and_expands_all),
    cmocka_unit_test(list_capacity),
    cmocka_unit_test(list_all_over_capacity),
    cmocka_unit_test(uint_zero_default_and_steps),
    cmocka_unit_test(a_key_given_twice_warns_naming_both_places),
    cmocka_unit_test(unknown_option_suggests_a_near_name),
    cmocka_unit_test(describe_to_streams_any_length),
    cmocka_unit_test(describe_sets_lists_and_steps),
};
UNIT_MAIN(tests)
