/* SPDX-License-Identifier: MIT */
/*
 * Dispatch from the trap stubs: exceptions to arch/x86/cpu/exceptions.c, interrupts to the handler
 * registered for the vector. An interrupt nobody registered is counted and reported once per
 * vector (a misprogrammed device or LVT), never silently dropped and never fatal.
 */
#include "arch/x86/cpu/trap.h"
#include <stddef.h>
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/usermode.h"
#include "kernel/console.h"

static irq_handler_fn irq_handlers[256];
static volatile uint64_t unexpected_irqs[256];
static trap_claim_fn claims[TRAP_CLAIM_COUNT];
static trap_observer_fn observers[TRAP_MAX_OBSERVERS];
static unsigned n_observers;
static trap_observer_fn resume_observers[TRAP_MAX_OBSERVERS];
static unsigned n_resume_observers;

void trap_set_claim(enum trap_claim which, trap_claim_fn fn)
{
	if (which < TRAP_CLAIM_COUNT)
		claims[which] = fn;
}

bool trap_add_resume_observer(trap_observer_fn fn)
{
	if (n_resume_observers == TRAP_MAX_OBSERVERS)
		return false;
	resume_observers[n_resume_observers++] = fn;
	return true;
}

static void resumed(struct trap_frame *f)
{
	for (unsigned i = 0; i < n_resume_observers; i++)
		resume_observers[i](f);
}

trap_claim_fn trap_claim(enum trap_claim which)
{
	return which < TRAP_CLAIM_COUNT ? claims[which] : NULL;
}

bool trap_add_observer(trap_observer_fn fn)
{
	if (n_observers == TRAP_MAX_OBSERVERS)
		return false;
	observers[n_observers++] = fn;
	return true;
}

void irq_register(unsigned vector, irq_handler_fn fn)
{
	if (vector >= NUM_EXCEPTION_VECTORS && vector < 256)
		irq_handlers[vector] = fn;
}

void trap_dispatch(struct trap_frame *f)
{
	if ((f->vector == VEC_PF || f->vector == VEC_GP) && f->rip == (uint64_t)cpu_probe_at) {
		f->rip = (uint64_t)cpu_probe_fail; /* cpu_probe_byte: the read faulted */
		return;
	}
	struct percpu *cpu = percpu_current();
	/* STAC ends a translation block under QEMU's TCG: only where user pages may be touched.
	 * RFLAGS comes back from the frame at IRETQ. */
	if (cpu && (cpu->user_access_in_traps || (f->cs & 3) == 3))
		user_access_begin();
	for (unsigned i = 0; i < n_observers; i++)
		observers[i](f); /* the engine and the model, the session's exception record */
	if (f->vector < NUM_EXCEPTION_VECTORS) {
		exception_dispatch(f);
		resumed(f);
		return;
	}
	irq_handler_fn fn = irq_handlers[f->vector & 0xff];
	if (fn) {
		fn(f);
		resumed(f);
		return;
	}
	if (unexpected_irqs[f->vector & 0xff]++ == 0)
		kprintf("warning: unexpected interrupt on vector %#lx (no handler); ignored\n",
			f->vector);
	resumed(f); /* ignored, but resumed all the same: the observers see the return */
}
