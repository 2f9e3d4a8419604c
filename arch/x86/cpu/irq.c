/* SPDX-License-Identifier: MIT */
/*
 * Dispatch from the trap stubs: exceptions to arch/x86/cpu/exceptions.c, interrupts to the handler
 * registered for the vector. An interrupt nobody registered is counted and reported once per
 * vector (a misprogrammed device or LVT), never silently dropped and never fatal.
 */
#include "arch/x86/cpu/trap.h"
#include "kernel/console.h"
#include "arch/x86/pmu/access.h"
#include "arch/x86/session/session.h"
#include "arch/x86/spmu/singlestep.h"

static irq_handler_fn irq_handlers[256];
static volatile uint64_t unexpected_irqs[256];

void irq_register(unsigned vector, irq_handler_fn fn)
{
	if (vector >= NUM_EXCEPTION_VECTORS && vector < 256)
		irq_handlers[vector] = fn;
}

void trap_dispatch(struct trap_frame *f)
{
	if (f->vector == VEC_DB && ss_debug_trap(f))
		return;		/* the single-step engine's own trap: invisible to the model */
	if (ss_active_here()) { /* the workload took it */
		ss_note_exception(f);
		pmu_note_exception((unsigned)f->vector);
	}
	trace_note_exception(f); /* its last exception record, when a session runs */
	if (f->vector < NUM_EXCEPTION_VECTORS) {
		exception_dispatch(f);
		return;
	}
	irq_handler_fn fn = irq_handlers[f->vector & 0xff];
	if (fn) {
		fn(f);
		return;
	}
	if (unexpected_irqs[f->vector & 0xff]++ == 0)
		kprintf("warning: unexpected interrupt on vector %#lx (no handler); ignored\n",
			f->vector);
}
