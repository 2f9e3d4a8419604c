/* SPDX-License-Identifier: MIT */
/*
 * The one door to PMU and debug MSRs (../shared/design.md): per CPU it routes to the real
 * RDMSR/WRMSR or to the software PMU, so drivers never know which. A refused access returns
 * PMU_MSR_GP, from the hardware (#GP caught) or from the model (its reason is kept).
 */
#ifndef ARCH_X86_PMU_MSR_H
#define ARCH_X86_PMU_MSR_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/spmu/spmu.h"

#define PMU_MSR_OK 0
#define PMU_MSR_GP (-1)

/* This CPU uses the software PMU with personality p (state reset), or the hardware. */
void pmu_use_model(const struct spmu_personality *p);
void pmu_use_hardware(void);
bool pmu_using_model(void);
struct spmu *pmu_model(void); /* this CPU's model state (NULL when on hardware) */

/* An exception or interrupt the workload took: the model's LER and #DB rules (spmu.h). */
void pmu_note_exception(unsigned vector);

int pmu_rdmsr(uint32_t msr, uint64_t *value);
int pmu_wrmsr(uint32_t msr, uint64_t value);

#endif
