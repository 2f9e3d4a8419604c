/* SPDX-License-Identifier: MIT */
/* Time sources: the TSC rate and the local APIC timer rate, each with where it came from. */
#ifndef ARCH_X86_SMP_TIMER_H
#define ARCH_X86_SMP_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86/cpu/cpu.h"

struct timer_info {
	uint64_t tsc_hz;
	const char *tsc_source; /* "CPUID 15H", "CPUID 16H", "PIT", "loader" */
	uint64_t tsc_hz_loader; /* the loader's Stall()-based estimate, for comparison */
	uint64_t tsc_hz_pit;	/* measured against the PIT, 0 if not measured or not trusted */
	uint64_t pit_uncertainty_ppm; /* from the reads' brackets; 1000000: a turn may be unseen */
	uint64_t tsc_hz_pit_rejected; /* a PIT figure too disturbed to use (uncertainty > 1%) */
	unsigned pit_attempts;	      /* measurements taken (again when one was disturbed) */
	uint64_t apic_timer_hz;	      /* local APIC timer input clock, measured against the TSC */
};

/* CPUID 15H/16H when they give a rate, else a PIT measurement, else the loader's estimate. */
void timer_calibrate(uint64_t loader_tsc_hz);
/* Needs the local APIC enabled (lapic_init_cpu). */
void timer_calibrate_apic(void);
const struct timer_info *timer_info(void);
void udelay(uint64_t us);
/* The TSC value `us` microseconds from now, and whether the TSC has reached such a value. */
uint64_t tsc_deadline(uint64_t us);
static inline bool tsc_passed(uint64_t deadline)
{
	return (int64_t)(rdtsc() - deadline) >= 0;
}
/* This CPU's local APIC timer, one-shot on VEC_APIC_TIMER in about `us` microseconds (at most
 * what 32 bits of count allow: arm again from the interrupt), and stopped. */
void timer_oneshot_us(uint64_t us);
void timer_oneshot_stop(void);
uint64_t tsc_to_us(uint64_t cycles);

/* Pure: TSC Hz from CPUID 15H (EAX denominator, EBX numerator, ECX crystal Hz) or 16H EAX
 * (base MHz); 0 when the leaves do not give it (SDM Vol. 2A CPUID, leaves 15H and 16H). */
uint64_t timer_tsc_hz_from_cpuid(uint32_t max_leaf, uint32_t l15_eax, uint32_t l15_ebx,
				 uint32_t l15_ecx, uint32_t l16_eax);

#endif
