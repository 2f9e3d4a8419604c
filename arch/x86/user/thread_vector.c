/* SPDX-License-Identifier: MIT */
/*
 * A new thread's vector registers (thread_state.h: thread_vector_*): the parent's, copied at
 * clone (thread_host.c) and loaded on the thread's CPU before it starts (run.c,
 * user_thread_run_begin).
 */
#include "arch/x86/user/thread_state.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/usermode.h"
#include "arch/x86/hw/cpuid.h"
#include "kernel/memory.h"
#include "lib/string.h"

/* A new thread's x87, SSE and AVX state: the parent's (kernel/fork.c copy_thread via
 * fpu_clone: a thread inherits the floating-point environment, as POSIX asks of
 * pthread_create), saved on the parent's CPU here (the kernel never touches the vector
 * registers: -mgeneral-regs-only) and loaded on the child's (user_thread_run_begin). XSAVE with
 * the header zeroed first (XRSTOR faults on reserved bits there: SDM Vol. 1 13.8), else
 * FXSAVE. An area larger than the slot (not with x87, SSE, AVX and AVX-512) leaves the init
 * state. */
#define VECTOR_AREA_MAX	  4096
#define XSAVE_HEADER	  512 /* the legacy region's size: the XSAVE header follows */
#define XSAVE_HEADER_SIZE 64
/* a page each, for the CPUs that may take threads (linux_threads_open): not in the image,
 * whose size a machine of 64 MiB must still load */
static uint8_t *vector_area[MAX_CPUS];
static bool vector_saved[MAX_CPUS];

void thread_vector_save(unsigned child)
{
	uint8_t *a = vector_area[child];
	vector_saved[child] = false;
	if (!a)
		return;
	if (usermode_xcr0) {
		if (cpuid(CPUID_LEAF_XSAVE, 0).ebx > VECTOR_AREA_MAX)
			return;
		memset(a + XSAVE_HEADER, 0, XSAVE_HEADER_SIZE);
		__asm__ volatile("xsave64 %0"
				 : "=m"(*(uint8_t(*)[VECTOR_AREA_MAX])a)
				 : "a"((uint32_t)usermode_xcr0),
				   "d"((uint32_t)(usermode_xcr0 >> 32))
				 : "memory");
	} else {
		__asm__ volatile("fxsave64 %0"
				 : "=m"(*(uint8_t(*)[VECTOR_AREA_MAX])a)
				 :
				 : "memory");
	}
	vector_saved[child] = true;
}

const void *linux_thread_vector_state(void)
{
	unsigned me = this_cpu()->index;
	return vector_saved[me] ? vector_area[me] : NULL;
}

void thread_vector_prepare(unsigned cpu)
{
	if (cpu < MAX_CPUS && !vector_area[cpu])
		vector_area[cpu] = page_alloc_virt(VECTOR_AREA_MAX); /* page-aligned */
}
