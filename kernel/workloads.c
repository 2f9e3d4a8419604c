/* SPDX-License-Identifier: MIT */
#include "kernel/workloads.h"
#include "kernel/arch.h"
#include "kernel/program.h"
#include "lib/config.h"
#include "lib/string.h"

/* A counted loop: one taken backward Jcc per iteration but the last. */
WORKLOAD_SECTION static uint64_t wl_loop(uint64_t n)
{
	uint64_t sum = 0;
	for (volatile uint64_t i = 0; i < n; i++)
		sum += i;
	return sum;
}

WORKLOAD_SECTION static uint64_t leaf(uint64_t x)
{
	__asm__ volatile("" ::: "memory"); /* keep it a real call */
	return x * 3 + 1;
}

WORKLOAD_SECTION static uint64_t middle(uint64_t x)
{
	return leaf(x) + leaf(x + 1);
}

/* Nested direct calls and returns, three deep. */
WORKLOAD_SECTION static uint64_t wl_calls(uint64_t n)
{
	uint64_t acc = 0;
	for (uint64_t i = 0; i < n; i++)
		acc += middle(i);
	return acc;
}

WORKLOAD_SECTION static uint64_t op_add(uint64_t a)
{
	return a + 7;
}

WORKLOAD_SECTION static uint64_t op_xor(uint64_t a)
{
	return a ^ 0x55;
}

WORKLOAD_SECTION static uint64_t op_shl(uint64_t a)
{
	return a << 1;
}

static uint64_t (*const volatile ops[])(uint64_t) = {op_add, op_xor, op_shl};

/* Indirect calls through a table, targets varying per iteration. */
WORKLOAD_SECTION static uint64_t wl_indirect(uint64_t n)
{
	uint64_t v = 1;
	for (uint64_t i = 0; i < n; i++)
		v = ops[i % 3](v) & 0xffff;
	return v;
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
    {"loop", "counted loop (backward conditional branch)", wl_loop, 100, 4950, false, NULL, true,
     false, false},
    {"calls", "nested direct calls and returns", wl_calls, 20, 1240, false, NULL, true, false,
     false},
    {"indirect", "indirect calls through a table", wl_indirect, 30, 17292, false, NULL, true, false,
     false},
    {"user", "ring 3 <-> ring 0 round trips (IRETQ, SYSCALL, SYSRET)", arch_user_roundtrip, 5, 5,
     false, NULL, false, false, false},
    {"faults", "a #BP and a #PF the kernel handles and resumes from", arch_fault_workload, 77, 77,
     false, arch_fault_workload_reset, false, false, false},
    {"edges",
     "branches to the next instruction, conditions, LOOP to itself, REP strings (named only)",
     arch_edge_workload, 40, 45, false, NULL, true, true, false},
    {"flags", "PUSHF, POPF clearing TF, MOV SS: TF stays invisible (named only)",
     arch_flags_workload, 60, 60, false, NULL, true, true, false},
    {"smc", "code that rewrites a Jcc between two executions (named only)", arch_smc_workload, 10,
     11, false, arch_smc_workload_reset, false, true, false},
    /* n = CHASE_NODES hops visit every node once: 0 + 1 + ... + 127 */
    {"memory", "pointer chasing and stores: loads and stores with data addresses (named only)",
     wl_memory, CHASE_NODES, CHASE_NODES *(CHASE_NODES - 1) / 2, false, NULL, false, true, false},
    {"program", "the user program of option program (named only)", program_workload, 0, 0, false,
     program_reset, false, true, true},
    {"bench", "the counted loop, long, for single-step speed", wl_loop, BENCH_LOOP_ITERATIONS,
     (uint64_t)BENCH_LOOP_ITERATIONS *(BENCH_LOOP_ITERATIONS - 1) / 2, true, NULL, true, false,
     false},
};

uint64_t workload_expected(const struct workload *w)
{
	if (!w->expect_native)
		return w->expect;
	if (w->reset)
		w->reset();
	return w->fn(w->arg);
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
