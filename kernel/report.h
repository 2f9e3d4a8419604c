/* SPDX-License-Identifier: MIT */
/* The hardware report (option report=1, make report): what a person sends back from a lab
 * machine. Every line starts "report: ", so it can be cut from a serial log with grep. */
#ifndef KERNEL_REPORT_H
#define KERNEL_REPORT_H

#include "kernel/tracing.h"

struct boot_info;
/* After the sessions: identity, microcode, capabilities, each facility's results (sum, NULL if
 * no session ran), oddities, and the run's status word. */
void report_print(const struct boot_info *bi, const struct tracing_summary *sum,
		  const char *status);

#endif
