/* SPDX-License-Identifier: MIT */
/*
 * When the PMI handler unmasks LVTPC (references.md 7.4-7.5; Linux intel_pmu_handle_irq): the
 * delivery masked it, and the moment it is unmasked again differs by processor generation.
 *  - early: at handler entry, the SDM's plain rule, on the parts Linux flags neither way
 *    (Core 2, Nehalem to Ivy Bridge, Atoms up to Goldmont Plus);
 *  - late: last, after the counters are re-armed, "to avoid spurious NMIs on Haswell" —
 *    Haswell, Broadwell, Skylake, Ice Lake and the later big cores (Linux late_ack);
 *  - mid: after the overflows are processed, before the enables are restored — the Atom
 *    cores after Tremont, i.e. the E-cores of hybrid parts (Linux mid_ack).
 * Pure: chosen from the capability record, host-tested on recorded processors.
 */
#ifndef ARCH_X86_CAPS_PMI_ACK_H
#define ARCH_X86_CAPS_PMI_ACK_H

#include "arch/x86/caps/caps.h"

enum pmi_ack { PMI_ACK_EARLY, PMI_ACK_MID, PMI_ACK_LATE };

enum pmi_ack pmi_ack_for(const struct trace_caps *c);
const char *pmi_ack_name(enum pmi_ack a);

#endif
