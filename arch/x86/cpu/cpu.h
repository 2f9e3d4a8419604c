/* SPDX-License-Identifier: MIT */
/*
 * Thin inline wrappers for privileged x86-64 instructions and the control-register bits the
 * kernel uses. PMU and debug MSRs never go through rdmsr()/wrmsr() here directly: they will
 * have their own accessor (arch/x86/pmu/access.h); these are for architectural MSRs.
 */
#ifndef ARCH_X86_CPU_CPU_H
#define ARCH_X86_CPU_CPU_H

#include <stdint.h>
#include "arch/x86/hw/cpu_regs.h"
#include "arch/x86/hw/cpuid.h"
#include "arch/x86/hw/msr.h"
#include "lib/bits.h"

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 :
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

/* The FS and GS bases of the running code (IA32_FS_BASE, IA32_GS_BASE, SDM Vol. 3A 3.4.4.1):
 * what a segment-prefixed memory operand adds. */
static inline void cpu_segment_bases(uint64_t *fs, uint64_t *gs)
{
	*fs = rdmsr(MSR_FS_BASE);
	*gs = rdmsr(MSR_GS_BASE);
}

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#define DEFINE_CR_ACCESSORS(n)                                                                     \
	static inline uint64_t read_cr##n(void)                                                    \
	{                                                                                          \
		uint64_t v;                                                                        \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                                  \
		return v;                                                                          \
	}                                                                                          \
	static inline void write_cr##n(uint64_t v)                                                 \
	{                                                                                          \
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory");                         \
	}
DEFINE_CR_ACCESSORS(0)
DEFINE_CR_ACCESSORS(2)
DEFINE_CR_ACCESSORS(3)
DEFINE_CR_ACCESSORS(4)

/* Debug registers (SDM Vol. 3B 17.2): DR6 the status, DR7 the control. */
#define DEFINE_DR_ACCESSORS(n)                                                                     \
	static inline uint64_t read_dr##n(void)                                                    \
	{                                                                                          \
		uint64_t v;                                                                        \
		__asm__ volatile("mov %%dr" #n ", %0" : "=r"(v));                                  \
		return v;                                                                          \
	}                                                                                          \
	static inline void write_dr##n(uint64_t v)                                                 \
	{                                                                                          \
		__asm__ volatile("mov %0, %%dr" #n : : "r"(v));                                    \
	}
DEFINE_DR_ACCESSORS(0)
DEFINE_DR_ACCESSORS(1)
DEFINE_DR_ACCESSORS(2)
DEFINE_DR_ACCESSORS(3)
DEFINE_DR_ACCESSORS(6)
DEFINE_DR_ACCESSORS(7)
#undef DEFINE_CR_ACCESSORS

static inline uint64_t read_rflags(void)
{
	uint64_t v;
	__asm__ volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline void invlpg(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* Every TLB entry of this CPU but the global ones: a MOV to CR3 (SDM Vol. 3A 4.10.4.1), which
 * is how the user mappings (never global) are flushed. */
static inline void tlb_flush_nonglobal(void)
{
	write_cr3(read_cr3());
}

static inline void cpu_cli(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void cpu_hlt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}

static inline void cpu_pause(void)
{
	__asm__ volatile("pause");
}

#endif
