/* SPDX-License-Identifier: MIT */
/*
 * The single-step engine's work for the instructions engine_special names (engine.h): the trap
 * flag kept the engine's own (PUSHF, POPF, IRET, SYSCALL, SYSRET), IA32_FMASK's TF lifted for a
 * SYSCALL, MOV SS's trap that stands for two instructions, DR6 around INT1 / INT n / MOV SS, a
 * workload's own breakpoints refused.
 */
#include "arch/x86/step/engine.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/trap.h"
#include "arch/x86/hw/msr.h"

/*
 * IA32_FMASK with TF set (as Linux sets it: arch/x86/kernel/cpu/common.c, syscall_init) makes
 * SYSCALL clear TF (SDM Vol. 2B SYSCALL: "RFLAGS := RFLAGS AND NOT(IA32_FMASK)"): no trap would
 * come until SYSRET, and the kernel's path in between would be lost (exactness class 4: one trap
 * for a handler's whole path). For the one SYSCALL about to retire the engine lifts FMASK's TF,
 * so that the kernel side is stepped like the rest, and puts it back at the trap after it, where
 * the workload's own TF (s->vtf) is cleared as FMASK says.
 */
static void lift_fmask_tf(struct ss_state *s)
{
	uint64_t fmask = rdmsr(MSR_FMASK);
	s->fmask_tf = fmask & RFLAGS_TF;
	if (s->fmask_tf)
		wrmsr(MSR_FMASK, fmask & ~RFLAGS_TF);
}

void restore_fmask_tf(struct ss_state *s)
{
	if (!s->fmask_tf)
		return;
	s->fmask_tf = false;
	wrmsr(MSR_FMASK, rdmsr(MSR_FMASK) | RFLAGS_TF);
}

uint64_t with_tf(uint64_t rflags, bool tf)
{
	return tf ? rflags | RFLAGS_TF : rflags & ~RFLAGS_TF;
}

/*
 * Keep the trap flag the engine's own business (SDM Vol. 3B 17.3.1.4): the workload sees its
 * own TF (s->vtf: clear, unless it set TF itself), never the engine's:
 * - PUSHF pushed RFLAGS with the engine's TF: the workload's in the pushed image;
 * - SYSCALL saved RFLAGS in R11 (SDM Vol. 2 SYSCALL: "R11 := RFLAGS"): the workload's TF there
 *   (IA32_FMASK leaves TF alone here, cpu/usermode.c, so the kernel side is stepped);
 * - POPF and IRET loaded an image: its TF is the workload's from now on; the trap after them
 *   still comes (it depends on TF before the instruction), but the next one would not if the
 *   image's TF is clear: set TF in the frame again;
 * - SYSRET is different: whether a trap follows it depends on the TF it loads from R11 (QEMU
 *   target/i386/tcg/translate.c: "The TF bit is checked after the sysret insn completes"),
 *   so before one retires, R11's TF is set (before_special) and given back after it;
 * - an exception's frame: ss_note_delivery and ss_note_resume.
 * The POPF in the engine's own exit stub (the trap lands on ss_exit) is left alone.
 */
static __attribute__((noinline)) void hide_tf_of(struct ss_state *s, unsigned opcode,
						 uint64_t retired, struct trap_frame *f)
{
	switch (opcode) {
	case OPC_PUSHF: {
		struct x86_insn in;
		if (!decode_at(retired, s->prev_mode, &in))
			return;
		if (in.operand16)
			*(uint16_t *)f->rsp = (uint16_t)with_tf(*(uint16_t *)f->rsp, s->vtf);
		else if (in.mode != X86_MODE_64) /* PUSHFD: the 32-bit EFLAGS image */
			*(uint32_t *)f->rsp = (uint32_t)with_tf(*(uint32_t *)f->rsp, s->vtf);
		else
			*(uint64_t *)f->rsp = with_tf(*(uint64_t *)f->rsp, s->vtf);
		return;
	}
	case OPC_SYSCALL:
		f->r11 = with_tf(f->r11, s->vtf);
		if (s->fmask_tf) {
			restore_fmask_tf(s);
			s->vtf = false; /* what FMASK.TF does to the workload's TF */
		}
		return;
	case OPC_SYSRET:
		f->r11 = with_tf(f->r11, s->sysret_tf); /* SYSRET leaves R11 as it was */
		s->vtf = s->sysret_tf;
		return;
	case OPC_POPF:
	case OPC_IRET:
		if (f->rip != (uint64_t)ss_exit) {
			s->vtf = f->rflags & RFLAGS_TF;
			f->rflags |= RFLAGS_TF;
		}
		return;
	default:
		return;
	}
}

static bool touches_tf(unsigned opcode)
{
	return opcode == OPC_PUSHF || opcode == OPC_POPF || opcode == OPC_IRET ||
	       opcode == OPC_SYSCALL || opcode == OPC_SYSRET;
}

static inline void hide_tf(struct ss_state *s, unsigned opcode, uint64_t retired,
			   struct trap_frame *f)
{
	if (touches_tf(opcode))
		hide_tf_of(s, opcode, retired, f);
}

/* MOV SS holds the single-step trap until after the next instruction (SDM Vol. 3B 6.8.3,
 * 17.3.1.4): one trap stands for two instructions. The address of the second, or 0. */
uint64_t mov_ss_shadowed(unsigned opcode, uint64_t retired, enum x86_mode mode)
{
	if (opcode != OPC_MOV_SR)
		return 0;
	struct x86_insn in;
	if (!decode_at(retired, mode, &in) || !in.has_modrm || MODRM_REG(in.modrm) != SREG_SS)
		return 0;
	return retired + in.length;
}

#define DR7_ENABLES GENMASK(7, 0)

/*
 * The workload armed breakpoints of its own (a MOV to DR7, or to DR0-DR3 with DR7 enabling
 * them): their #DBs would come beside the engine's single-step traps (a data breakpoint and
 * single-step after one store, SDM Vol. 3B 17.2.5 / 17.3.1.4, and, under QEMU, as two #DBs on
 * one IST stack) and the engine does not tell them apart: it refuses, loudly, rather than hang
 * or lose a trap (exactness class 7: breakpoints the workload arms): the enables are cleared before
 * any of them can fire (this is the trap right after the MOV), the run goes on stepped, and its
 * session fails naming the instruction (ss_result.dr_refused_at).
 */
static __attribute__((noinline)) void refuse_breakpoints(struct ss_state *s)
{
	s->dr[0] = s->dr[1] = s->dr[2] = s->dr[3] = UINT64_MAX; /* per-block stepping's again */
	uint64_t dr7 = read_dr7();
	if (!(dr7 & DR7_ENABLES))
		return;
	write_dr7(dr7 & ~DR7_ENABLES);
	if (!s->dr_refused_at)
		s->dr_refused_at = s->prev;
}

/* The step after an instruction engine_special names: TF kept the engine's (hide_tf), and the
 * trap MOV SS held back split into its two instructions. */
__attribute__((noinline)) void special_step(struct ss_state *s, unsigned opcode,
					    struct trap_frame *f)
{
	if (opcode == OPC_MOV_DR)
		refuse_breakpoints(s);
	hide_tf(s, opcode, s->prev, f);
	uint64_t second = mov_ss_shadowed(opcode, s->prev, s->prev_mode);
	if (second && second != f->rip) {
		/* The MOV SS and the instruction after it: report both, the second with the
		 * trap's own frame (the first one's registers are not visible any more). */
		report_step(s, s->view, f, s->prev, second);
		s->view->cpl_from = s->view->cpl_to;
		hide_tf(s, opcode_at(second, s->prev_mode), second, f);
		report_step(s, s->view, f, second, f->rip);
	} else {
		report_step(s, s->view, f, s->prev, f->rip);
	}
}

/* Before an instruction engine_special names runs: a SYSRET keeps the engine's TF (see
 * hide_tf), and DR6 is cleared where the trap after it must be told apart (dr6_matters). */
__attribute__((noinline)) void before_special(struct ss_state *s, unsigned opcode,
					      struct trap_frame *f)
{
	if (opcode == OPC_SYSRET) {
		s->sysret_tf = f->r11 & RFLAGS_TF;
		f->r11 |= RFLAGS_TF;
	}
	if (opcode == OPC_SYSCALL) {
		lift_fmask_tf(s);
		ss_code_forget(); /* the system call may change mappings */
	}
	if (dr6_matters(opcode))
		write_dr6(DR6_INIT_VALUE);
}

/* Whether the workload's own TF asks for the trap after the instruction with this opcode
 * (before special_step updates s->vtf): TF as it was when the instruction began, except where
 * TF is checked after the instruction completes (QEMU target/i386/tcg/translate.c on SYSCALL
 * and SYSRET: "The TF bit is checked after the syscall insn completes. This allows #DB to not
 * be generated after one has entered CPL0 if TF is set in FMASK"): SYSCALL with FMASK.TF
 * (lifted by the engine, lift_fmask_tf) asks for none, SYSRET for the TF it loads. */
bool own_trap(const struct ss_state *s, unsigned opcode)
{
	if (opcode == OPC_SYSCALL)
		return s->vtf && !s->fmask_tf;
	if (opcode == OPC_SYSRET)
		return s->sysret_tf;
	return s->vtf;
}
