/* SPDX-License-Identifier: MIT */
/*
 * What the engine's traps cost, measured (make bench, option ss.stats): the platform's bare #DB
 * round trip (the single-step floor), what an instruction breakpoint costs QEMU's TCG on its
 * page and when hit, and, per run, the engine's traps and the TSC cycles inside its handler.
 */
#include "arch/x86/step/engine.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/idt.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/trap.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_step.h"

bool ss_count_traps;

void arch_set_step_stats(bool on)
{
	ss_count_traps = on;
}

/* ss_trap with option ss.stats: the trap counted, its time in the handler (hooks included)
 * added up; two RDTSC a trap. */
__attribute__((noinline)) bool ss_counted_trap(struct trap_frame *f)
{
	uint64_t t0 = rdtsc();
	bool r = ss_plain_trap(db_frame_of(f)) || ss_debug_trap(f);
	struct ss_state *s = state_here();
	if (s) {
		s->traps++;
		s->trap_cycles += rdtsc() - t0;
	}
	return r;
}

extern const char ss_floor_trap[];

uint64_t arch_step_floor(uint64_t (*fn)(uint64_t), uint64_t arg)
{
	/* The IDT is every CPU's: only while the others are idle (make bench's ss=bench). */
	idt_set_gate(VEC_DB, (uint64_t)ss_floor_trap, IST_DEBUG, 0);
	uint64_t t0 = arch_timestamp();
	ss_enter(fn, arg, 0);
	uint64_t cycles = arch_timestamp() - t0;
	ss_install_entry();
	return cycles;
}

extern const char ss_bp_loop[], ss_bp_head[], ss_bp_trap[];

#define BP_COST_DR7 (DR7_L0 | DR7_RESERVED_1) /* DR0: an instruction breakpoint */
/* a breakpoint on the loop's page, half a page away: never hit */
#define BP_COST_FAR (PAGE_4K / 2)

void arch_step_bp_cost(uint64_t iterations, struct arch_bp_cost *c)
{
	uint64_t (*loop)(uint64_t) = (uint64_t(*)(uint64_t))(uintptr_t)ss_bp_loop;
	uint64_t t0 = arch_timestamp();
	loop(iterations);
	c->plain = arch_timestamp() - t0;
	write_dr0((uint64_t)ss_bp_head ^ BP_COST_FAR); /* the loop is 64-byte aligned, 30 long */
	_Static_assert(BP_COST_FAR < PAGE_4K, "on the loop's page");
	write_dr7(BP_COST_DR7);
	t0 = arch_timestamp();
	loop(iterations);
	c->same_page = arch_timestamp() - t0;
	write_dr7(0);
	idt_set_gate(VEC_DB, (uint64_t)ss_bp_trap, IST_DEBUG, 0);
	write_dr0((uint64_t)ss_bp_head);
	write_dr7(BP_COST_DR7);
	t0 = arch_timestamp();
	loop(iterations);
	c->hit = arch_timestamp() - t0;
	write_dr7(0);
	ss_install_entry();
}
