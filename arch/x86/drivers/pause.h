/* SPDX-License-Identifier: MIT */
/*
 * Every facility paused and resumed as one (a user program's region of interest,
 * include/baretrace/user.h): pausing clears every enable bit a facility's driver sets —
 * DEBUGCTL's LBR, BTF, TR and BTS (SDM Vol. 3B 17.4.1), IA32_PERF_GLOBAL_CTRL (counters, hence
 * PEBS; perfmon version 2 and later, 18.2.2), IA32_LBR_CTL.LBREn (Architectural LBR) — and
 * resuming writes back what was there.
 */
#ifndef ARCH_X86_DRIVERS_PAUSE_H
#define ARCH_X86_DRIVERS_PAUSE_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/caps/caps.h"
#include "lib/status.h"

struct facility_pause {
	bool paused;
	bool global, lbr_ctl; /* which MSRs it saved */
	uint64_t debugctl, global_ctrl, arch_lbr_ctl;
};

/* Pause on the running CPU (nothing when already paused); the refused MSR in *msr. */
enum status facility_pause(const struct trace_caps *c, struct facility_pause *p, uint32_t *msr);
/* Resume what facility_pause found (nothing when not paused). */
enum status facility_resume(struct facility_pause *p, uint32_t *msr);

#endif
