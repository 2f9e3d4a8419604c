/* SPDX-License-Identifier: MIT */
#include "kernel/workloads.h"
#include "kernel/arch.h"
#include "kernel/program.h"
#include "kernel/options.h"
#include "lib/config.h"
#include "lib/string.h"

/* The counted loop of "bench" (long; its step speed is what make bench reports). The
 * workloads "loop", "calls" and "indirect" are in assembly (arch/x86/workloads/library.S), so
 * that their branch signatures follow from their source. */
WORKLOAD_SECTION static uint64_t wl_loop(uint64_t n)
{
	uint64_t sum = 0;
	for (volatile uint64_t i = 0; i < n; i++)
		sum += i;
	return sum;
}

/* Pointer chasing: CHASE_NODES nodes of one 64-byte line each, linked in steps of
 * CHASE_STRIDE (odd, so one cycle through all of them), each value copied to chase_out: loads
 * whose address the previous load decided, and stores. Linked afresh on every run. */
#define CHASE_NODES  128
#define CHASE_STRIDE 7
#define CHASE_LINE   64

struct chase_node {
	struct chase_node *next;
	uint64_t value;
} __attribute__((aligned(CHASE_LINE)));

static struct chase_node chase[CHASE_NODES];
static volatile uint64_t chase_out[CHASE_NODES];

WORKLOAD_SECTION static uint64_t wl_memory(uint64_t n)
{
	for (uint64_t i = 0; i < CHASE_NODES; i++) {
		chase[i].next = &chase[(i + CHASE_STRIDE) % CHASE_NODES];
		chase[i].value = i;
	}
	uint64_t sum = 0;
	struct chase_node *p = &chase[0];
	for (uint64_t k = 0; k < n; k++) {
		__asm__ volatile("" : "+r"(p)); /* one hop per iteration, as written */
		sum += p->value;
		chase_out[k % CHASE_NODES] = p->value;
		p = p->next;
	}
	return sum;
}

#define BENCH_LOOP_ITERATIONS 200000

static const struct workload workloads[] = {
    {.name = "loop",
     .what = "counted loop (backward conditional branch)",
     .fn = arch_wl_loop,
     .signature = arch_wl_loop_signature,
     .arg = 100,
     .expect = 4950,
     .concurrent = true},
    {.name = "calls",
     .what = "nested direct calls and returns",
     .fn = arch_wl_calls,
     .signature = arch_wl_calls_signature,
     .arg = 20,
     .expect = 1240,
     .concurrent = true},
    {.name = "indirect",
     .what = "indirect calls through a table",
     .fn = arch_wl_indirect,
     .signature = arch_wl_indirect_signature,
     .arg = 30,
     .expect = 17292,
     .concurrent = true},
    {.name = "user",
     .what = "ring 3 <-> ring 0 round trips (IRETQ, SYSCALL, SYSRET)",
     .fn = arch_user_roundtrip,
     .signature = arch_user_roundtrip_signature,
     .arg = 5,
     .expect = 5},
    {.name = "faults",
     .what = "a #BP and a #PF the kernel handles and resumes from",
     .fn = arch_fault_workload,
     .signature = arch_fault_workload_signature,
     .arg = 77,
     .expect = 77,
     .reset = arch_fault_workload_reset},
    {.name = "edges",
     .what = "branches to the next instruction, conditions, LOOP to itself, REP strings (named "
	     "only)",
     .fn = arch_edge_workload,
     .signature = arch_edge_workload_signature,
     .arg = 40,
     .expect = 45,
     .concurrent = true,
     .explicit_only = true},
    {.name = "flags",
     .what = "PUSHF, POPF clearing TF, MOV SS: TF stays invisible (named only)",
     .fn = arch_flags_workload,
     .signature = arch_flags_workload_signature,
     .arg = 60,
     .expect = 60,
     .concurrent = true,
     .explicit_only = true},
    {.name = "smc",
     .what = "code that rewrites a Jcc between two executions (named only)",
     .fn = arch_smc_workload,
     .signature = arch_smc_workload_signature,
     .arg = 10,
     .expect = 11,
     .reset = arch_smc_workload_reset,
     .explicit_only = true},
    /* n = CHASE_NODES hops visit every node once: 0 + 1 + ... + 127 */
    {.name = "memory",
     .what = "pointer chasing and stores: loads and stores with data addresses (named only)",
     .fn = wl_memory,
     .arg = CHASE_NODES,
     .expect = CHASE_NODES * (CHASE_NODES - 1) / 2,
     .explicit_only = true},
    {.name = "program",
     .what = "the user program of option program (named only)",
     .fn = program_workload,
     .reset = program_reset,
     .done = program_done,
     .explicit_only = true,
     .expect_native = true},
    /* The library (arch/x86/workloads/library.S): signatures from their source, checked after
     * every capture. Results worked out there: countdown 50 + ... + 1 = 1275; nest 6 * 20; the
     * others for any argument by library.c. */
    {.name = "countdown",
     .what = "library: a counted loop (DEC/JNZ), signature checked",
     .fn = arch_wl_countdown,
     .arg = 50,
     .expect = 1275,
     .concurrent = true,
     .signature = arch_wl_countdown_signature,
     .explicit_only = true},
    {.name = "nest",
     .what = "library: calls two deep and returns, signature checked",
     .fn = arch_wl_nest,
     .arg = 20,
     .expect = 120,
     .concurrent = true,
     .signature = arch_wl_nest_signature,
     .explicit_only = true},
    {.name = "switch",
     .what = "library: a jump table (indirect JMP) and its cases (switch.n)",
     .fn = arch_wl_switch,
     .arg = 30,
     .expect_of = arch_wl_switch_result,
     .concurrent = true,
     .signature = arch_wl_switch_signature,
     .arg_option = offsetof(struct kernel_options, wl_switch_n),
     .explicit_only = true},
    {.name = "recursion",
     .what = "library: recursion, 12 deep (recursion.depth)",
     .fn = arch_wl_recursion,
     .arg = 12,
     .expect_of = arch_wl_recursion_result,
     .concurrent = true,
     .signature = arch_wl_recursion_signature,
     .arg_option = offsetof(struct kernel_options, wl_recursion_depth),
     .explicit_only = true},
    {.name = "sort",
     .what = "library: insertion sort of 48 generated values, data-dependent (sort.n)",
     .fn = arch_wl_sort,
     .arg = 48,
     .expect_of = arch_wl_sort_result,
     .signature = arch_wl_sort_signature,
     .arg_option = offsetof(struct kernel_options, wl_sort_n),
     .explicit_only = true},
    {.name = "hash",
     .what = "library: FNV-1a over 64 generated bytes, a data-dependent branch (hash.n)",
     .fn = arch_wl_hash,
     .arg = 64,
     .expect_of = arch_wl_hash_result,
     .concurrent = true,
     .signature = arch_wl_hash_signature,
     .arg_option = offsetof(struct kernel_options, wl_hash_n),
     .explicit_only = true},
    {.name = "chase",
     .what = "library: pointer chasing over 256 nodes of a cache line (chase.nodes)",
     .fn = arch_wl_chase,
     .arg = 256,
     .expect_of = arch_wl_chase_result,
     .signature = arch_wl_chase_signature,
     .arg_option = offsetof(struct kernel_options, wl_chase_nodes),
     .explicit_only = true},
    {.name = "bench",
     .what = "the counted loop, long, for single-step speed",
     .fn = wl_loop,
     .arg = BENCH_LOOP_ITERATIONS,
     .expect = (uint64_t)BENCH_LOOP_ITERATIONS * (BENCH_LOOP_ITERATIONS - 1) / 2,
     .bench = true,
     .concurrent = true},
};

uint64_t workload_expect(const struct workload *w, uint64_t arg)
{
	return w->expect_of ? w->expect_of(arg) : w->expect;
}

uint64_t workload_arg(const struct workload *w, const struct kernel_options *o)
{
	if (!w->arg_option || !o)
		return w->arg;
	uint64_t v;
	memcpy(&v, (const char *)o + w->arg_option, sizeof(v));
	return v ? v : w->arg;
}

const struct workload *workload_at(unsigned i)
{
	return i < sizeof(workloads) / sizeof(workloads[0]) ? &workloads[i] : NULL;
}

int workload_index(const char *name)
{
	for (unsigned i = 0; workload_at(i); i++)
		if (strcmp(workload_at(i)->name, name) == 0)
			return (int)i;
	return -1;
}

const char *workload_name(unsigned i, bool *explicit_only)
{
	const struct workload *w = workload_at(i);
	if (!w)
		return NULL;
	*explicit_only = w->bench || w->explicit_only;
	return w->name;
}

bool workload_for_each(const struct cfg_list *selection,
		       bool (*fn)(const struct workload *, void *ctx), void *ctx)
{
	bool ok = true;
	for (unsigned i = 0; i < selection->n; i++)
		if (workload_at(selection->item[i]))
			ok &= fn(workload_at(selection->item[i]), ctx);
	return ok;
}
