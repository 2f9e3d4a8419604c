/* SPDX-License-Identifier: MIT */
/*
 * In-kernel self-tests reported as TAP over the serial console (kvm-unit-tests' report()
 * semantics): each report() is one TAP test point; report_skip() a "# SKIP" point. Tests
 * register themselves with SELFTEST(name) into the .selftests section (linker.ld).
 */
#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

#include <stdbool.h>
#include "kernel/arch_cpu.h"

struct selftest {
	const char *name;
	void (*fn)(void);
};

#define SELFTEST(id)                                                                               \
	static void selftest_fn_##id(void);                                                        \
	static const struct selftest selftest_##id                                                 \
	    __attribute__((used, section(".selftests"), aligned(8))) = {#id, selftest_fn_##id};    \
	static void selftest_fn_##id(void)

/* One TAP point: "ok N - <test>: <description>" or "not ok ...". Returns cond. */
bool report(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void report_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct cfg_list;
/* The i-th registered test's name, NULL past the last (*explicit_only: false): the names of
 * option `selftest` (kernel/options.c). */
const char *selftest_name(unsigned i, bool *explicit_only);
/* Run the selected tests (selftest_name()'s indexes) in their registration order; returns the
 * run's status (fail if any point failed, skip if every point was skipped). */
enum run_status selftest_run(const struct cfg_list *selection);

#endif
