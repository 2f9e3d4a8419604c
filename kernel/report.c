/* SPDX-License-Identifier: MIT */
#include "kernel/report.h"
#include <stdarg.h>
#include "kernel/boot_info.h"
#include "kernel/build_id.h"
#include "kernel/console.h"
#include "kernel/options.h"
#include "kernel/version.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_report.h"
#include "lib/fmt.h"

#define CPU_TEXT_MAX  160
#define BUILD_ID_TEXT 48

__attribute__((format(printf, 1, 2))) static void put(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kvprintf_line("report: ", fmt, ap);
	va_end(ap);
}

/* Oddities the sessions show: a facility that ran on the CPU's own hardware and failed, or whose
 * self-checks failed there (a facility CPUID advertises that records nothing or the wrong
 * branches fails its self-check). Failures on the software PMU are the model's, said too. */
static unsigned session_oddities(const struct tracing_summary *sum)
{
	unsigned n = 0;
	for (unsigned i = 0; sum && i < sum->n; i++) {
		const struct tracing_row *r = &sum->row[i];
		const char *where = r->hw_cpus ? "on the CPU's own hardware (at least in part)"
					       : "on the software PMU";
		if (r->failed) {
			put("odd: %s: %u of %u sessions failed %s; their lines above say why",
			    options_facility_name(r->facility), r->failed,
			    r->passed + r->failed + r->skipped, where);
			n++;
		}
		if (r->checks.failed) {
			put("odd: %s: %u of %u self-checks failed %s",
			    options_facility_name(r->facility), r->checks.failed, r->checks.checks,
			    where);
			n++;
		}
	}
	return n;
}

void report_print(const struct boot_info *bi, const struct tracing_summary *sum, const char *status)
{
	char cpu[CPU_TEXT_MAX], id[BUILD_ID_TEXT];
	put("===== baretrace hardware report: send every line from here to 'end of report' "
	    "=====");
	build_id_hex(id, sizeof(id));
	put("baretrace %s build-id %s", BARETRACE_VERSION, id);
	arch_describe_cpu(cpu, sizeof(cpu));
	put("cpu: %s", cpu);
	put("cpus: %u online; TSC %lu kHz", arch_cpu_count(), bi->tsc_hz / 1000);
	arch_report_machine(put);
	if (sum && sum->n)
		tracing_print_table(sum, put);
	else
		put("no trace session ran");
	bool any_hw = false;
	for (unsigned i = 0; sum && i < sum->n; i++)
		any_hw |= sum->row[i].hw_cpus != 0;
	if (sum && sum->n && !any_hw)
		put("note: no facility ran on this machine's own hardware: every result above is "
		    "the "
		    "software PMU's (model-verified, not silicon)");
	if (sum && sum->model_allowed)
		put("software PMU personalities (where a CPU lacks a facility): %s",
		    sum->personalities);
	unsigned odd = session_oddities(sum) + arch_report_oddities(put);
	if (!odd)
		put("odd: nothing");
	put("status: %s", status);
	put("===== end of report =====");
}
