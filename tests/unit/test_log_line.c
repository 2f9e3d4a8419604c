// UNIT-SOURCES: lib/log_line.c
/*
 * lib/log_line: which lines of the log are error lines, the ones README "The result contract"
 * says no passing run prints. The error lines are the kernel's own formats (grep "error: " in
 * kernel/ and arch/: "error: ..." and "stick: error: ..."); the others are the contract's other
 * line kinds and a program's output, which may say anything.
 */
#include "tests/unit/unit.h"
#include <string.h>
#include "lib/log_line.h"

static bool is_error(const char *line)
{
	return log_line_is_error(line, strlen(line));
}

static void the_kernels_error_lines_are_errors(void **state)
{
	(void)state;
	static const char *const lines[] = {
	    "error: trace: CPU 1 showed no progress for 60 s",
	    "error: bts: loop@skylake cpu=0: MSR 0x1d9 refused (#GP)",
	    "error: option program.argv: too many words (at most 64 words)",
	    "stick: error: the trace partition is full after 123 bytes; the rest of the capture",
	    "stick: error: writing blocks 2048+8: timeout; the capture on the stick ends here",
	    "error: CPU 0: trace output: 12 bytes of lines longer than 2048 bytes were cut",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!is_error(lines[i]))
			fail_msg("not an error line: %s", lines[i]);
}

static void other_lines_are_not(void **state)
{
	(void)state;
	static const char *const lines[] = {
	    "warning: option test.ss.skip=3 (a test build, make test-knobs)",
	    "incomplete: bts: loop@skylake cpu=0: 12 records not delivered (overwritten=12)",
	    "note: bts: loop@skylake cpu=0: the workload was held 3 us",
	    "not ok 7 - selfcheck bts countdown@skylake cpu=0: cond branches: 48 recorded",
	    "program-output cpu=0: error: the program's own words",
	    "program-stderr cpu=1: error: file not found",
	    "summary: bts 16 16 0 0 0 32/32 SOFTWARE PMU on 2 of 2 CPUs",
	    "run finished: PASS",
	    "errors: 0",
	    "Error: capital, not the kernel's",
	    " error: indented",
	    "two words: error: a tag is one word",
	    "",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (is_error(lines[i]))
			fail_msg("taken for an error line: '%s'", lines[i]);
	assert_false(log_line_is_error("error: ", 6)); /* only its first 6 bytes: "error:" */
	assert_true(log_line_is_error("error: x", 7));
}

static void lines_of_a_text_are_counted(void **state)
{
	(void)state;
	static const char text[] = "trace: 2 sessions\n"
				   "error: one\n"
				   "program-output cpu=0: error: not one\n"
				   "stick: error: two\n"
				   "error: three, without its newline";
	assert_int_equal(log_error_lines(text, strlen(text)), 3);
	assert_int_equal(log_error_lines(text, 0), 0);
	assert_int_equal(log_error_lines("\n\n", 2), 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_kernels_error_lines_are_errors),
    cmocka_unit_test(other_lines_are_not),
    cmocka_unit_test(lines_of_a_text_are_counted),
};

UNIT_MAIN(tests)
