/* SPDX-License-Identifier: MIT */
/*
 * Shared glue for host unit tests: cmocka, with TAP output so that `prove` (the one harness of
 * `make test`) runs unit tests and QEMU tests alike. Each tests/unit/test_<name>.c names the
 * sources it links on a line `// UNIT-SOURCES: lib/a.c lib/b.c`, and ends with UNIT_MAIN(tests).
 */
#ifndef TESTS_UNIT_UNIT_H
#define TESTS_UNIT_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define UNIT_MAIN(tests)                                                                           \
	int main(void)                                                                             \
	{                                                                                          \
		cmocka_set_message_output(CM_OUTPUT_TAP);                                          \
		return cmocka_run_group_tests(tests, NULL, NULL);                                  \
	}

#endif
