/* SPDX-License-Identifier: MIT */
/* The few x86 instructions the loader needs, as inline functions. */
#ifndef BOOT_CPU_H
#define BOOT_CPU_H

#include <stdint.h>

#include "lib/bits.h"

#define CR4_LA57 BIT(12) /* 5-level paging: our 4-level tables would be misread */

static inline uint64_t cpu_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void cpu_outb(uint16_t port, uint8_t value)
{
	__asm__ volatile("outb %0, %1" : : "a"(value), "Nd"(port));
}

static inline uint8_t cpu_inb(uint16_t port)
{
	uint8_t value;
	__asm__ volatile("inb %1, %0" : "=a"(value) : "Nd"(port));
	return value;
}

static inline uint64_t cpu_read_cr4(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

/* CPUID.01H:ECX[31]: set by hypervisors (the kernel's exit=auto test as well). */
static inline int cpu_under_hypervisor(void)
{
	uint32_t a = 1, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return (c >> 31) & 1;
}

static inline void cpu_pause(void)
{
	__asm__ volatile("pause");
}

#endif
