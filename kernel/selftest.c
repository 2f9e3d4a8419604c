/* SPDX-License-Identifier: MIT */
#include "kernel/selftest.h"
#include "kernel/console.h"
#include "lib/fmt.h"
#include "lib/list.h"
#include "lib/string.h"

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

static bool known_test(const char *name, size_t len)
{
	for (const struct selftest *t = __selftests_start; t < __selftests_end; t++)
		if (strlen(t->name) == len && strncmp(t->name, name, len) == 0)
			return true;
	return false;
}

bool selftest_validate(const char *selection, char *err, unsigned long err_size)
{
	if (strcmp(selection, "all") == 0 || strcmp(selection, "none") == 0)
		return true;
	size_t len;
	for (const char *c = selection, *p; list_next(&c, &p, &len);) {
		if (!known_test(p, len)) {
			size_t pos = (size_t)fmt_snprintf(
			    err, err_size,
			    "option 'selftest': unknown test '%.*s'; accepted: all, none, or a "
			    "comma-separated list of:",
			    (int)len, p);
			for (const struct selftest *t = __selftests_start;
			     t < __selftests_end && pos < err_size; t++)
				pos +=
				    (size_t)fmt_snprintf(err + pos, err_size - pos, " %s", t->name);
			return false;
		}
	}
	return true;
}

enum run_status selftest_run(const char *selection)
{
	bool all = strcmp(selection, "all") == 0;
	kprintf("TAP version 13\n");
	for (const struct selftest *t = __selftests_start; t < __selftests_end; t++) {
		if (!all && !list_contains(selection, t->name))
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
