/* SPDX-License-Identifier: MIT */
/* The per-CPU capability report: every CPU's snapshot, decoded, printed and kept for drivers. */
#ifndef ARCH_X86_CAPS_REPORT_H
#define ARCH_X86_CAPS_REPORT_H

#include "arch/x86/caps/caps.h"

/* Collect each online CPU's snapshot on that CPU, decode it, print the table (CPUs with the
 * same conclusions are grouped) and one machine-readable `caps-json:` line per CPU. */
void caps_report_all(void);
/* The decoded record of CPU `index` (NULL before caps_report_all or out of range). */
const struct trace_caps *caps_of_cpu(unsigned index);

#endif
