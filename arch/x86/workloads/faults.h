/* SPDX-License-Identifier: MIT */
#ifndef ARCH_X86_WORKLOADS_FAULTS_H
#define ARCH_X86_WORKLOADS_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

#define LAZY_PAGE_VA 0x00007f0000100000ull /* mapped on first touch (faults_entry.S) */

struct trap_frame;

/* The exceptions the fault workload takes on purpose: true if handled (resume). */
bool workload_fault_fixup(struct trap_frame *f);
/* Unmap the lazy page so the next run faults again. */
void workload_faults_reset(void);
uint64_t workload_faults_handled(void);

#endif
