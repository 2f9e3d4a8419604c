/* SPDX-License-Identifier: MIT */
/* The door to the hardware report (docs/hardware.md "The hardware report"): the machine's part,
 * arch/x86/session/hw_report.c. */
#ifndef KERNEL_ARCH_REPORT_H
#define KERNEL_ARCH_REPORT_H

#include "kernel/arch_workloads.h"

/*
 * The machine's part of the hardware report (kernel/report.c), one line per put() call:
 * microcode, each CPU's capabilities (identical CPUs grouped), where each facility ran. Then
 * arch_report_oddities() puts one line per oddity (an MSR the hardware refused, CPUs that
 * differ, a hypervisor's rules) and returns how many it put.
 */
void arch_report_machine(workload_print_fn put);
unsigned arch_report_oddities(workload_print_fn put);

#endif
