/* SPDX-License-Identifier: MIT */
/*
 * Host builds that link kernel/workloads.c (build/check-options, tests/unit/test_options.c)
 * need the workloads its table takes from arch/x86: only their names matter there, they never
 * run. One definition each, here.
 */
#include <stdint.h>
#include "kernel/arch.h"
#include "kernel/program.h"

uint64_t arch_user_roundtrip(uint64_t n)
{
	return n;
}

uint64_t arch_fault_workload(uint64_t n)
{
	return n;
}

void arch_fault_workload_reset(void)
{
}

uint64_t arch_edge_workload(uint64_t n)
{
	return n;
}

uint64_t arch_flags_workload(uint64_t n)
{
	return n;
}

uint64_t arch_smc_workload(uint64_t n)
{
	return n;
}

void arch_smc_workload_reset(void)
{
}

uint64_t program_workload(uint64_t n)
{
	return n;
}

void program_reset(void)
{
}

void program_done(workload_print_fn print)
{
	(void)print;
}

uint64_t arch_wl_countdown(uint64_t n)
{
	return n;
}

uint64_t arch_wl_nest(uint64_t n)
{
	return n;
}

uint64_t arch_wl_switch(uint64_t n)
{
	return n;
}

uint64_t arch_wl_recursion(uint64_t n)
{
	return n;
}

uint64_t arch_wl_sort(uint64_t n)
{
	return n;
}

uint64_t arch_wl_sort_result(uint64_t n)
{
	return n;
}

void arch_wl_countdown_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

void arch_wl_nest_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

void arch_wl_switch_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

void arch_wl_recursion_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

void arch_wl_sort_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

uint64_t arch_wl_loop(uint64_t n)
{
	return n;
}

void arch_wl_loop_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

uint64_t arch_wl_calls(uint64_t n)
{
	return n;
}

void arch_wl_calls_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

uint64_t arch_wl_indirect(uint64_t n)
{
	return n;
}

void arch_wl_indirect_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

void arch_user_roundtrip_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

void arch_fault_workload_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

void arch_edge_workload_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

void arch_flags_workload_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

uint64_t arch_wl_hash(uint64_t n)
{
	return n;
}

void arch_wl_hash_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

uint64_t arch_wl_chase(uint64_t n)
{
	return n;
}

void arch_wl_chase_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}

uint64_t arch_wl_hash_result(uint64_t n)
{
	return n;
}

uint64_t arch_wl_switch_result(uint64_t n)
{
	return n;
}

uint64_t arch_wl_recursion_result(uint64_t n)
{
	return n;
}

uint64_t arch_wl_chase_result(uint64_t n)
{
	return n;
}

void arch_smc_workload_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	(void)s;
}
