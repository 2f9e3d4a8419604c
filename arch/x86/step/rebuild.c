/* SPDX-License-Identifier: MIT */
/*
 * Traps that stand for more than one instruction: the path between them rebuilt from the code
 * (arch_step_rebuild, lib/x86_step.h), and the test build's option test.ss.skip that leaves traps
 * out so that the rebuild is exercised.
 */
#include "arch/x86/step/engine.h"
#include "kernel/arch_step.h"

unsigned ss_skip_every; /* option test.ss.skip (a test build's) */

void arch_set_step_skip(unsigned every)
{
	ss_skip_every = every;
}

/*
 * Option test.ss.skip (a test build's): whether to leave this trap out, as a platform that skips
 * single-step traps would, so that the step hooks see one trap for two instructions and must
 * rebuild the path (arch_step_rebuild). Only a trap whose path the code decides can go: after an
 * instruction that is no branch or a direct JMP or CALL (an indirect branch's target is data),
 * at the same privilege level, with the engine's own duties (TF, DR6, the run's exit) not due
 * at either instruction, and not while the workload steps itself.
 */
__attribute__((noinline)) bool skip_trap(struct ss_state *s, const struct trap_frame *f)
{
	uint64_t ran = s->skipped_to ? s->skipped_to : s->prev; /* what retired just now */
	s->skipped_to = 0;
	if (s->prev_mode != X86_MODE_64 || cpu_code_mode(f->cs) != X86_MODE_64)
		return false; /* only 64-bit code is left out (a test option) */
	unsigned opcode = opcode_at(ran, X86_MODE_64), landing = opcode_at(f->rip, X86_MODE_64);
	if (s->vtf || engine_special(opcode) || engine_special(landing) ||
	    f->rip == (uint64_t)ss_exit || s->prev_cpl != (f->cs & 3))
		return false;
	struct x86_insn in;
	if (!decode_at(ran, X86_MODE_64, &in) ||
	    (in.branch != X86_BR_NONE && in.branch != X86_BR_JMP_REL &&
	     in.branch != X86_BR_CALL_REL) ||
	    ++s->skip_seen % ss_skip_every != 0)
		return false;
	s->skipped_to = f->rip;
	return true;
}

/* The rebuild follows code the workload has not run yet, and a direct branch's target may be
 * anywhere: only bytes on present pages are read (decode_at). ctx: the enum x86_mode of the
 * code (a rebuilt path stays in its code segment). */
static int decode_mapped(void *ctx, uint64_t ip, struct x86_step_insn *out)
{
	struct x86_insn in;
	enum x86_mode mode = ctx ? *(const enum x86_mode *)ctx : X86_MODE_64;
	if (!decode_at(ip, mode, &in))
		return -1;
	*out = x86_step_insn_of(&in);
	return 0;
}

int arch_step_rebuild(uint64_t retired, const struct x86_step_insn *in, uint64_t next,
		      const struct x86_step_regs *after, struct x86_path_step path[X86_PATH_MAX])
{
	struct ss_state *s = state_here();
	enum x86_mode mode = s && s->active ? (enum x86_mode)s->prev_mode : X86_MODE_64;
	int n = x86_path_rebuild(decode_mapped, &mode, retired, in, next, after, path);
	if (n > 0 && s && s->active) {
		s->steps += (uint64_t)n - 1; /* the trap's own step is counted already */
		s->rebuilt++;
	}
	return n;
}
