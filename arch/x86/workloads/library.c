/* SPDX-License-Identifier: MIT */
/*
 * The workload library's branch signatures (kernel/arch_workloads.h), each worked out from the
 * counting comments of arch/x86/workloads/library.S — never from a run: what a capture of one run
 * must hold, by branch class, for branches whose FROM lies in the workload's own code, and how many
 * instructions the run retires. sort's counts depend on its data: the same generator and the
 * same insertion sort run here in C, counting the branches the assembly takes at each step.
 */
#include "arch/x86/workloads/workloads.h"
#include "kernel/arch_workloads.h"

extern const char arch_wl_loop_end[], arch_wl_calls_end[], arch_wl_indirect_end[], edges_end[],
    flags_end[], arch_wl_countdown_end[], arch_wl_nest_end[], arch_wl_switch_end[],
    arch_wl_recursion_end[], arch_wl_sort_end[], arch_wl_hash_end[], arch_wl_chase_end[],
    arch_wl_alias_end[];

#define LCG_SEED	0x853c49e6748fea9bull /* library.S */
#define LCG_MUL		6364136223846793005ull
#define LCG_INC		1442695040888963407ull
#define LCG_SHIFT	33
#define FNV_OFFSET	0xcbf29ce484222325ull /* library.S */
#define FNV_PRIME	0x100000001b3ull
#define HASH_BYTE_SHIFT 56

void arch_wl_loop_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_loop, arch_wl_loop_end);
	s->taken[WL_COND] = n - 1;
	s->taken[WL_RET] = 1;
	s->instructions = 4 * n + 3;
}

void arch_wl_alias_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_alias, arch_wl_alias_end);
	s->taken[WL_CALL] = n;
	s->taken[WL_RET] = n + 1;
	s->taken[WL_COND] = n - 1;
	s->instructions = 10 * n + 3;
}

void arch_wl_calls_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_calls, arch_wl_calls_end);
	s->taken[WL_CALL] = 3 * n;
	s->taken[WL_RET] = 3 * n + 1;
	s->taken[WL_COND] = n - 1;
	s->instructions = 19 * n + 11;
}

void arch_wl_indirect_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_indirect, arch_wl_indirect_end);
	s->taken[WL_IND_CALL] = n;
	s->taken[WL_RET] = n + 1;
	s->taken[WL_COND] = n - 1;
	s->instructions = 11 + 11 * n + 2 * ((n + 2) / 3) + 3 * ((n + 1) / 3) + 2 * (n / 3);
}

/* edges.S's arch_edge_workload, from its header comment: a call, a jmp, an indirect jmp and an
 * indirect call each to the next instruction, jz and jrcxz taken, loop taken twice, the ret;
 * 37 instructions (the REP strings one each, the LOOP three times). */
void arch_edge_workload_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_edge_workload, edges_end);
	s->taken[WL_CALL] = 1;
	s->taken[WL_JMP] = 1;
	s->taken[WL_IND_JMP] = 1;
	s->taken[WL_IND_CALL] = 1;
	s->taken[WL_COND] = 4;
	s->taken[WL_RET] = 1;
	s->instructions = 37;
}

/* edges.S's arch_flags_workload: three jmps and the ret; the UD2 never retires (its record
 * and the one of the #DB the workload asks for with TF are deliveries); 29 instructions. */
void arch_flags_workload_signature(uint64_t n, struct workload_signature *s)
{
	(void)n;
	*s = workload_signature_of(arch_flags_workload, flags_end);
	s->taken[WL_JMP] = 3;
	s->taken[WL_RET] = 1;
	s->instructions = 29;
}

/* hash: library.S's steps in C (s may be NULL); returns its result. */
static uint64_t hash_steps(uint64_t n, struct workload_signature *s)
{
	uint64_t x = LCG_SEED, h = FNV_OFFSET, odd = 0;
	for (uint64_t i = 0; i < n; i++) {
		x = x * LCG_MUL + LCG_INC;
		h = (h ^ (x >> HASH_BYTE_SHIFT)) * FNV_PRIME;
		odd += h & 1;
	}
	if (s) {
		s->taken[WL_COND] = (n - odd) + (n - 1); /* "even", and the loop */
		s->taken[WL_RET] = 1;
		s->instructions = 10 + 11 * n + odd;
	}
	return h ^ odd;
}

void arch_wl_hash_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_hash, arch_wl_hash_end);
	hash_steps(n, s);
}

uint64_t arch_wl_hash_result(uint64_t n)
{
	return hash_steps(n, NULL);
}

/* Results, from library.S's header comments. */
uint64_t arch_wl_switch_result(uint64_t n)
{
	uint64_t sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum += i % 4 + 1;
	return sum;
}

uint64_t arch_wl_recursion_result(uint64_t d)
{
	return d;
}

uint64_t arch_wl_chase_result(uint64_t n)
{
	return n * (n - 1) / 2;
}

void arch_wl_chase_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_chase, arch_wl_chase_end);
	s->taken[WL_COND] = 2 * (n - 1);
	s->taken[WL_RET] = 1;
	s->instructions = 18 * n + 8;
}

void arch_wl_countdown_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_countdown, arch_wl_countdown_end);
	s->taken[WL_COND] = n - 1;
	s->taken[WL_RET] = 1;
	s->instructions = 3 * n + 3;
}

void arch_wl_nest_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_nest, arch_wl_nest_end);
	s->taken[WL_CALL] = 3 * n;
	s->taken[WL_RET] = 3 * n + 1;
	s->taken[WL_COND] = n - 1;
	s->instructions = 10 * n + 5;
}

void arch_wl_switch_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_switch, arch_wl_switch_end);
	s->taken[WL_IND_JMP] = n;
	s->taken[WL_JMP] = n - n / 4;
	s->taken[WL_COND] = n - 1;
	s->taken[WL_RET] = 1;
	s->instructions = 9 * n - n / 4 + 3;
}

void arch_wl_recursion_signature(uint64_t d, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_recursion, arch_wl_recursion_end);
	s->taken[WL_COND] = 1;
	s->taken[WL_CALL] = d;
	s->taken[WL_RET] = d + 1;
	s->instructions = 8 * d + 4;
}

/* sort: library.S's steps in C, counting what the assembly takes at each step (s may be NULL);
 * returns its result. Instructions per the comments there: 5 + 8n to generate; 3 to test n;
 * per key (n - 1 of them): 2, then 8 per shift, 2 when j reaches 0 or 5 when value[j - 1] <=
 * key, then 4; 2 + 6n for the sum; 1 for the RET. */
static uint64_t sort_steps(uint64_t n, struct workload_signature *s)
{
	static uint64_t v[WL_SORT_MAX];
	if (n < 1 || n > WL_SORT_MAX)
		return 0;
	uint64_t x = LCG_SEED;
	for (uint64_t i = 0; i < n; i++) {
		x = x * LCG_MUL + LCG_INC;
		v[i] = x >> LCG_SHIFT;
	}
	uint64_t cond = n - 1, shifts = 0, insns = 5 + 8 * n + 3;
	if (n == 1)
		cond++; /* jae 5f */
	for (uint64_t i = 1; i < n; i++) {
		uint64_t key = v[i], j = i;
		insns += 2;
		while (j > 0 && v[j - 1] > key) {
			v[j] = v[j - 1];
			j--;
			shifts++;
			insns += 8;
		}
		insns += j == 0 ? 2 : 5;
		cond++; /* stop_at_0 or stop_le */
		v[j] = key;
		insns += 4;
	}
	if (n >= 2)
		cond += n - 2; /* jb 2b */
	cond += n - 1;	       /* jb 6b */
	insns += 2 + 6 * n + 1;
	uint64_t sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum += v[i] * (i + 1);
	if (s) {
		s->taken[WL_COND] = cond;
		s->taken[WL_JMP] = shifts;
		s->taken[WL_RET] = 1;
		s->instructions = insns;
	}
	return sum;
}

void arch_wl_sort_signature(uint64_t n, struct workload_signature *s)
{
	*s = workload_signature_of(arch_wl_sort, arch_wl_sort_end);
	sort_steps(n, s);
}

uint64_t arch_wl_sort_result(uint64_t n)
{
	return sort_steps(n, NULL);
}
