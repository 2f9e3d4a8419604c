/* SPDX-License-Identifier: MIT */
/*
 * Host builds that link kernel/workloads.c (build/check-options, tests/unit/test_options.c)
 * need the workloads its table takes from arch/x86: only their names matter there, they never
 * run. One definition each, here.
 */
#include <stdint.h>
#include "kernel/arch.h"
#include "kernel/program.h"

/* A workload (or a result function) that returns its argument, and its signature. */
#define STUB_FN(name)                                                                              \
	uint64_t name(uint64_t n)                                                                  \
	{                                                                                          \
		return n;                                                                          \
	}
#define STUB_SIGNATURE(name)                                                                       \
	void name(uint64_t n, struct workload_signature *s)                                        \
	{                                                                                          \
		(void)n;                                                                           \
		(void)s;                                                                           \
	}

STUB_FN(arch_user_roundtrip)
STUB_FN(arch_fault_workload)
STUB_FN(arch_edge_workload)
STUB_FN(arch_flags_workload)
STUB_FN(arch_smc_workload)
STUB_FN(program_workload)
STUB_FN(arch_wl_loop)
STUB_FN(arch_wl_calls)
STUB_FN(arch_wl_indirect)
STUB_FN(arch_wl_countdown)
STUB_FN(arch_wl_nest)
STUB_FN(arch_wl_switch)
STUB_FN(arch_wl_recursion)
STUB_FN(arch_wl_sort)
STUB_FN(arch_wl_hash)
STUB_FN(arch_wl_chase)
STUB_FN(arch_wl_sort_result)
STUB_FN(arch_wl_hash_result)
STUB_FN(arch_wl_switch_result)
STUB_FN(arch_wl_recursion_result)
STUB_FN(arch_wl_chase_result)

STUB_SIGNATURE(arch_user_roundtrip_signature)
STUB_SIGNATURE(arch_fault_workload_signature)
STUB_SIGNATURE(arch_edge_workload_signature)
STUB_SIGNATURE(arch_flags_workload_signature)
STUB_SIGNATURE(arch_smc_workload_signature)
STUB_SIGNATURE(arch_wl_loop_signature)
STUB_SIGNATURE(arch_wl_calls_signature)
STUB_SIGNATURE(arch_wl_indirect_signature)
STUB_SIGNATURE(arch_wl_countdown_signature)
STUB_SIGNATURE(arch_wl_nest_signature)
STUB_SIGNATURE(arch_wl_switch_signature)
STUB_SIGNATURE(arch_wl_recursion_signature)
STUB_SIGNATURE(arch_wl_sort_signature)
STUB_SIGNATURE(arch_wl_hash_signature)
STUB_SIGNATURE(arch_wl_chase_signature)

void arch_fault_workload_reset(void)
{
}

void arch_smc_workload_reset(void)
{
}

void program_reset(void)
{
}

void program_done(workload_print_fn print)
{
	(void)print;
}
