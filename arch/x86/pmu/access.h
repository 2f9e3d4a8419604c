/* SPDX-License-Identifier: MIT */
/*
 * The one door to PMU and debug MSRs (one accessor for PMU MSRs): per CPU it routes to the real
 * RDMSR/WRMSR or to the software PMU, so drivers never know which. A refused access returns
 * STATUS_REFUSED, from the hardware (#GP caught) or from the model (its reason is kept).
 */
#ifndef ARCH_X86_PMU_ACCESS_H
#define ARCH_X86_PMU_ACCESS_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/status.h"
#include "arch/x86/model/model.h"

/* The PMU MSR accesses a CPU's hardware refused (#GP) since boot, and the first of them. */
struct pmu_hw_refusals {
	uint64_t count;
	uint32_t first_msr;
	uint64_t first_value;
	bool first_write;
};
struct pmu_hw_refusals pmu_hardware_refusals(unsigned cpu);

/* Boot CPU, once the CPUs are up: each other CPU's backend (the boot CPU's is static); false when
 * memory ran out. pmu_backend_ready: whether CPU cpu has one. */
bool pmu_backends_prepare(unsigned cpus);
bool pmu_backend_ready(unsigned cpu);
/* This CPU uses the software PMU with personality p (state reset), or the hardware. */
void pmu_use_model(const struct spmu_personality *p);
void pmu_use_hardware(void);
bool pmu_using_model(void);
struct spmu *pmu_model(void); /* this CPU's model (opaque; NULL when on hardware) */
/* Records the backend could not store (the model counts them; silicon does not say: 0). */
void pmu_backend_drops(uint64_t *bts, uint64_t *pebs);
/* Records the backend stored into BTS buffers so far on this CPU; false on the hardware, which
 * keeps no such count. */
bool pmu_backend_bts_stored(uint64_t *stored);
/* Why the last access was refused: the model's reason, "" on the hardware. */
const char *pmu_last_refusal(void);

/* An exception or interrupt the workload took: the model's LER and #DB rules (spmu.h). */
void pmu_note_exception(unsigned vector);
/* Trap observer (cpu/trap.h): an exception or interrupt a stepped workload takes goes to the
 * engine (a trap-class instruction retired) and then to the model. */
struct trap_frame;
void pmu_trap_observer(struct trap_frame *f);

/* STATUS_OK, or STATUS_REFUSED: a #GP from the hardware (caught) or the model (its reason
 * kept for pmu_last_refusal()). */
enum status pmu_rdmsr(uint32_t msr, uint64_t *value);
enum status pmu_wrmsr(uint32_t msr, uint64_t value);

#endif
