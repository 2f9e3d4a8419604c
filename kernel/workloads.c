/* SPDX-License-Identifier: MIT */
/*
 * The workloads: the architecture's table (kernel/arch_workloads.h: those in assembly), then
 * the ones written in generic C (memory, program, bench here; qsort, crc32, interp in
 * kernel/workloads_c.c), indexed in that order.
 */
#include "kernel/workloads.h"
#include "kernel/arch_workloads.h"
#include "kernel/program.h"
#include "kernel/workloads_c.h"
#include "kernel/options.h"
#include "lib/bits.h"
#include "lib/config.h"
#include "lib/string.h"

#define BENCH_LOOP_ITERATIONS 200000

/* Pointer chasing: CHASE_NODES nodes of one 64-byte line each, linked in steps of
 * CHASE_STRIDE (odd, so one cycle through all of them), each value copied to chase_out: loads
 * whose address the previous load decided, and stores. Linked afresh on every run. */
#define CHASE_NODES  128
#define CHASE_STRIDE 7
#define CHASE_LINE   64

#ifndef BT_HOST /* the host builds know the workloads by name only (WORKLOAD_CODE) */
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

/* What wl_memory(n) sums, from how it links the nodes: hop k reads node k * CHASE_STRIDE mod
 * CHASE_NODES (node i links to i + CHASE_STRIDE), whose value is its index; CHASE_STRIDE is
 * odd, so every CHASE_NODES hops visit each node once, 0 + 1 + ... + CHASE_NODES - 1. */
static uint64_t wl_memory_result(uint64_t n)
{
	uint64_t sum = n / CHASE_NODES * (CHASE_NODES * (CHASE_NODES - 1) / 2);
	for (uint64_t k = 0; k < n % CHASE_NODES; k++)
		sum += k * CHASE_STRIDE % CHASE_NODES;
	return sum;
}
#endif

/* After arch_workloads[]. */
static const struct workload workloads[] = {
    /* n = CHASE_NODES hops visit every node once: 0 + 1 + ... + 127 */
    {.name = "memory",
     .what = "pointer chasing and stores: loads and stores with data addresses (memory.n; named "
	     "only)",
     .fn = WORKLOAD_CODE(wl_memory),
     .arg = CHASE_NODES,
     .expect_of = WORKLOAD_CODE(wl_memory_result),
     .explicit_only = true},
    {.name = "program",
     .what = "the user program of option program (named only)",
     .fn = WORKLOAD_CODE(program_workload),
     .reset = WORKLOAD_CODE(program_reset),
     .done = WORKLOAD_CODE(program_done),
     .explicit_only = true,
     .expect_native = true,
     .threads = true},
    {.name = "bench",
     .what = "the counted loop, long, for single-step speed",
     .fn = WORKLOAD_CODE(wl_loop),
     .arg = BENCH_LOOP_ITERATIONS,
     .expect = (uint64_t)BENCH_LOOP_ITERATIONS * (BENCH_LOOP_ITERATIONS - 1) / 2,
     .bench = true,
     .concurrent = true},
    /* compiled C (kernel/workloads_c.c), for make bench and the oracle (named only) */
    {.name = "qsort",
     .what = "a recursive quicksort of a permutation of 2000 values (qsort.n; named only)",
     .fn = WORKLOAD_CODE(wl_qsort),
     .arg = WL_QSORT_N,
     .expect_of = WORKLOAD_CODE(wl_qsort_result),
     .explicit_only = true},
    {.name = "crc32",
     .what = "bitwise CRC-32 of 4096 bytes, a branch per bit (crc32.n; named only)",
     .fn = WORKLOAD_CODE(wl_crc32),
     .arg = WL_CRC32_N,
     .expect_of = WORKLOAD_CODE(wl_crc32_result),
     .explicit_only = true},
    {.name = "interp",
     .what = "a bytecode interpreter's switch, summing 1..2000 (interp.n; named only)",
     .fn = WORKLOAD_CODE(wl_interp),
     .arg = WL_INTERP_N,
     .expect_of = WORKLOAD_CODE(wl_interp_result),
     .explicit_only = true},
};

uint64_t workload_expect(const struct workload *w, uint64_t arg)
{
	return w->expect_of ? w->expect_of(arg) : w->expect;
}

/* The options that set a workload's argument (0 there: its own arg). */
static const struct {
	const char *workload;
	size_t option; /* offsetof(struct kernel_options, ...) */
} arg_options[] = {
    {"switch", offsetof(struct kernel_options, wl_switch_n)},
    {"recursion", offsetof(struct kernel_options, wl_recursion_depth)},
    {"sort", offsetof(struct kernel_options, wl_sort_n)},
    {"hash", offsetof(struct kernel_options, wl_hash_n)},
    {"chase", offsetof(struct kernel_options, wl_chase_nodes)},
    {"memory", offsetof(struct kernel_options, wl_memory_n)},
    {"qsort", offsetof(struct kernel_options, wl_qsort_n)},
    {"crc32", offsetof(struct kernel_options, wl_crc32_n)},
    {"interp", offsetof(struct kernel_options, wl_interp_n)},
};

uint64_t workload_arg(const struct workload *w, const struct kernel_options *o)
{
	for (unsigned i = 0; o && i < ARRAY_SIZE(arg_options); i++) {
		if (strcmp(arg_options[i].workload, w->name) != 0)
			continue;
		uint64_t v;
		memcpy(&v, (const char *)o + arg_options[i].option, sizeof(v));
		return v ? v : w->arg;
	}
	return w->arg;
}

const struct workload *workload_at(unsigned i)
{
	if (i < arch_workloads_count)
		return &arch_workloads[i];
	i -= (unsigned)arch_workloads_count;
	return i < ARRAY_SIZE(workloads) ? &workloads[i] : NULL;
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
