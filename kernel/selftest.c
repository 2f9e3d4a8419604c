/* SPDX-License-Identifier: MIT */
#include "kernel/selftest.h"
#include "kernel/console.h"
#include "kernel/arch_cpu.h"
#include "lib/config.h"
#include "lib/fmt.h"

extern const struct selftest __selftests_start[], __selftests_end[];

static const struct selftest *current;
static unsigned points, failures, skips;

static void point(const char *verdict, const char *directive, const char *fmt, va_list ap)
{
	char desc[200];
	fmt_vsnprintf(desc, sizeof(desc), fmt, ap);
	kprintf("%s %u - %s: %s%s\n", verdict, ++points, current ? current->name : "kernel", desc,
		directive);
}

bool report(bool cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	point(cond ? "ok" : "not ok", "", fmt, ap);
	va_end(ap);
	if (!cond)
		failures++;
	return cond;
}

void report_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	point("ok", " # SKIP", fmt, ap);
	va_end(ap);
	skips++;
}

void report_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kputs("# ");
	kvprintf(fmt, ap);
	kputs("\n");
	va_end(ap);
}

const char *selftest_name(unsigned i, bool *explicit_only)
{
	*explicit_only = false;
	return __selftests_start + i < __selftests_end ? __selftests_start[i].name : NULL;
}

enum run_status selftest_run(const struct cfg_list *selection)
{
	kprintf("TAP version 13\n");
	for (const struct selftest *t = __selftests_start; t < __selftests_end; t++) {
		if (!cfg_list_has(selection, (unsigned)(t - __selftests_start)))
			continue;
		current = t;
		t->fn();
		current = NULL;
	}
	kprintf("1..%u\n", points);
	kprintf("# selftests: %u points, %u failed, %u skipped\n", points, failures, skips);
	if (failures)
		return RUN_FAIL;
	return (points > 0 && skips == points) ? RUN_SKIP : RUN_PASS;
}
