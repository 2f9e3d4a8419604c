/* SPDX-License-Identifier: MIT */
/*
 * Per-block stepping: the single-step engine runs straight-line code at full speed and takes a
 * trap per block instead of one per instruction (issue 34, "stop per block").
 *
 * At a trap after which the workload goes on at an instruction the engine has nothing to do for,
 * the engine decodes ahead (the decode cache, from the bytes there now, before they run) the
 * plain instructions that follow: no branch, none the engine has work for (TF, DR6, MOV SS, ...,
 * engine_special), none that needs a trap of its own (below, block_plain). On the first one that
 * does (the block's branch, usually) it sets an instruction breakpoint (DR0 with DR7.L0, R/W0 =
 * 00: "instruction execution only", SDM Vol. 3B 17.2.4), clears TF in the frame and resumes:
 * the CPU runs the block without a trap, and "Instruction-breakpoint exceptions are faults"
 * (SDM Vol. 3B 17.3.1.1): the #DB comes before the breakpoint's instruction runs, with RIP on
 * it. The engine then tells the hooks that the block's instructions retired, as plain steps in a
 * row (ss_hooks.plain_n: nothing in them is a branch, so each would have been a plain step),
 * clears DR7, sets TF again and single-steps the instruction at the breakpoint as before, so
 * that where a branch goes is seen from the trap after it. Neither instruction breakpoint nor
 * TF is then pending: DR7 is clear when the instruction runs, so RF is not needed (SDM Vol. 3A
 * 6.9 / Vol. 3B 17.3.1.1: RF only keeps an instruction breakpoint from faulting again).
 *
 * A block is stepped instead (each instruction its own trap) where per-instruction precision is
 * needed: the hooks' room (ss_hooks.plain_room: a counter that would overflow inside the block,
 * so that its PMI comes at its instruction; PEBS armed; memory events, whose addresses come from
 * each instruction's registers; a PMI pending; BTF; a region-of-interest mark), REP strings,
 * STI (its interrupt shadow), CLI, HLT, the system instructions (MOV to or from CR/DR, RDMSR,
 * WRMSR, LGDT and the rest of 0F 00 / 0F 01, INVD, WBINVD, UD2), an SDE mark's NOP (64 67 90),
 * 16/32-bit code, code on a page this mapping may write (W^X: the kernel's text and the user
 * programs' code segments are mapped without R/W), a block that would reach into the next page
 * (one page, one breakpoint page for QEMU's TCG), the workload's own TF, option ss.skip, and
 * option ss.block=off.
 *
 * A fault or an interrupt inside a block arrives with RIP at the instruction that did not run
 * (a fault) or runs next (an interrupt): the block is straight-line code, so the instructions
 * before it, and only those, retired (ss_block_cut, from the exception's observer, before the
 * delivery is reported). The kernel's direct map writes every page, the kernel's text too (the
 * smc workload does): at the block's end its instructions' bytes are compared with those they
 * were decoded from. An instruction that overwrote its own bytes ran as what it was (SDM Vol. 3A
 * 8.1.3, as per-instruction stepping has it); one whose bytes changed after a store in the block
 * before it may have run as the new bytes: not known, said in the session's result
 * (ss_result.block_changed_at), never guessed. A change that a later store in the same block
 * undoes is not seen.
 */
#include "arch/x86/spmu/engine.h"
#include "arch/x86/cpu/pagetable.h"
#include "kernel/arch_step.h"
#include "lib/x86_mem.h"

#define BLOCK_MIN 2  /* fewer plain instructions: stepping them costs no more traps */
#define BLOCK_MAX 64 /* instructions in a block */
_Static_assert(BLOCK_MAX * X86_MAX_INSN_LENGTH < X86_DECODE_CACHE_SIZE,
	       "a block's decodings (and its end's) never share a decode cache slot");

/* DR7 (SDM Vol. 3B 17.2.4, Figure 17-2): L0 enables DR0; R/W0 = LEN0 = 00 (bits 16-19) make it
 * an instruction breakpoint; bit 10 reads as 1. */
#define DR7_L0	       BIT(0)
#define DR7_RESERVED_1 BIT(10)

/* Opcodes (SDM Vol. 2 Tables) stepped one by one besides engine_special's. */
#define OPC_CLI	     0xfa
#define OPC_STI	     0xfb /* "inhibits interrupts" until after the next instruction (STI) */
#define OPC_HLT	     0xf4
#define OPC_GRP6     X86_OPCODE_0F(0x00) /* SLDT, LLDT, LTR, ... */
#define OPC_GRP7     X86_OPCODE_0F(0x01) /* LGDT, LIDT, INVLPG, SWAPGS, ... */
#define OPC_INVD     X86_OPCODE_0F(0x08)
#define OPC_WBINVD   X86_OPCODE_0F(0x09)
#define OPC_UD2	     X86_OPCODE_0F(0x0b)
#define OPC_MOV_CR_R X86_OPCODE_0F(0x20)
#define OPC_MOV_R_DR X86_OPCODE_0F(0x21)
#define OPC_MOV_CR   X86_OPCODE_0F(0x22)
#define OPC_WRMSR    X86_OPCODE_0F(0x30)
#define OPC_RDMSR    X86_OPCODE_0F(0x32)
/* Intel SDE's SSC marks end with this NOP (64 67 90) after MOV EBX, 111H / 222H: a hook that
 * looks for it sees it stepped. Little-endian in x86_decoded.bytes[0]. */
#define SSC_NOP_BYTES 0x906764ull
#define SSC_NOP_LEN   3

static bool block_on = true; /* option ss.block */

void arch_set_step_block(bool on)
{
	block_on = on;
}

/* Whether the instruction may run inside a block (see the top of this file). */
static bool block_plain(const struct x86_decoded *d)
{
	if (d->step.branch != X86_BR_NONE || engine_special(d->opcode) ||
	    x86_is_rep_string(&d->step))
		return false;
	if (d->insn.length == SSC_NOP_LEN && d->bytes[0] == SSC_NOP_BYTES)
		return false;
	switch (d->opcode) {
	case OPC_CLI:
	case OPC_STI:
	case OPC_HLT:
	case OPC_GRP6:
	case OPC_GRP7:
	case OPC_INVD:
	case OPC_WBINVD:
	case OPC_UD2:
	case OPC_MOV_CR_R:
	case OPC_MOV_R_DR:
	case OPC_MOV_CR:
	case OPC_WRMSR:
	case OPC_RDMSR:
		return false;
	default:
		return true;
	}
}

/* How many plain steps the hooks take as one batch now. */
static uint64_t block_room(const struct ss_state *s)
{
	if (s->hooks.plain == ss_plain_nothing)
		return UINT64_MAX;
	if (!s->hooks.plain || !s->hooks.plain_room || !s->hooks.plain_n)
		return 0;
	return s->hooks.plain_room(s->hooks.ctx, s->prev_cpl);
}

bool ss_block_arm(struct ss_state *s, uint64_t *rflags)
{
	const struct x86_decoded *d = s->next_dec;
	if (!block_on || !s->hooks.cache || s->next_whole || !d || d->ip != s->prev ||
	    s->prev_mode != X86_MODE_64 || s->blk_end || !block_plain(d))
		return false;
	uint64_t room = block_room(s);
	if (room < BLOCK_MIN || !ss_code_readonly(s->prev))
		return false;
	uint64_t ip = s->prev, page = ip / PAGE_4K;
	unsigned n = 0;
	while (n < room && n < BLOCK_MAX && d && block_plain(d) &&
	       (ip + d->insn.length) / PAGE_4K == page) {
		ip += d->insn.length;
		n++;
		d = cached_at(s->hooks.cache, ip, true, X86_MODE_64);
	}
	if (n < BLOCK_MIN)
		return false;
	write_dr0(ip);
	write_dr7(DR7_L0 | DR7_RESERVED_1);
	*rflags &= ~RFLAGS_TF;
	s->blk_start = s->prev;
	s->blk_end = ip;
	s->blk_n = n;
	s->plain_to = 0;
	s->blocks++;
	return true;
}

void ss_block_reset(struct ss_state *s)
{
	if (s->blk_end)
		write_dr7(0);
	s->blk_end = 0;
}

/* Whether the decoded instruction may write memory (lib/x86_mem.h; an operand it does not
 * classify counts as a store). */
static bool may_store(const struct x86_decoded *d)
{
	struct x86_mem_use u = x86_mem_use_of(&d->insn);
	return u.store != X86_MEM_NONE || u.unknown;
}

/* The block's instruction at ip changed its bytes while the block ran: unknown what ran there
 * if an instruction before it in the block may have stored (the change may be its). */
static __attribute__((noinline, cold)) void block_changed(struct ss_state *s, uint64_t ip)
{
	const struct x86_decoded *cache = s->hooks.cache;
	for (uint64_t at = s->blk_start; at != ip;) {
		const struct x86_decoded *d = &cache[at % X86_DECODE_CACHE_SIZE];
		if (may_store(d)) {
			if (!s->block_changed_at)
				s->block_changed_at = ip;
			return;
		}
		at += d->insn.length;
	}
}

bool ss_block_cut(struct ss_state *s, uint64_t rip)
{
	const struct x86_decoded *cache = s->hooks.cache;
	ss_block_reset(s);
	/* The block's page was present when it was armed; a store in it may have unmapped it
	 * (the engine never faults on the workload's memory: then nothing is compared). */
	bool readable = ss_code_readable(s->blk_start) != 0;
	uint64_t ip = s->blk_start;
	unsigned n = 0;
	for (; ip != rip && n < s->blk_n; n++) {
		const struct x86_decoded *d = &cache[ip % X86_DECODE_CACHE_SIZE];
		if (d->ip != ip || d->insn.length == 0)
			return false; /* never: a block's decodings keep their slots */
		if (readable && !x86_decoded_same_bytes(d))
			block_changed(s, ip);
		ip += d->insn.length;
	}
	if (ip != rip)
		return false;
	if (n) {
		s->steps += n;
		if (s->hooks.plain != ss_plain_nothing)
			s->hooks.plain_n(s->hooks.ctx, n, s->prev_cpl);
	}
	s->prev = rip;
	s->next_dec = cached_at(s->hooks.cache, rip, true, X86_MODE_64);
	s->next_opcode_ip = 0;
	s->plain_to = 0;
	return true;
}
