/* SPDX-License-Identifier: MIT */
/*
 * The single-step engine's own state and helpers, shared by its files (singlestep.c: the traps
 * and the run; special.c: the instructions it has work for; block.c: per-block stepping). Not
 * for use outside arch/x86/step.
 */
#ifndef ARCH_X86_STEP_ENGINE_H
#define ARCH_X86_STEP_ENGINE_H

#include "arch/x86/step/singlestep.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/desc.h"
#include "arch/x86/cpu/percpu.h"
#include "arch/x86/cpu/trap.h"
#include "lib/x86_decode.h"
#include "lib/x86_decode_cache.h"
#include "lib/x86_step.h"

/* DR6 (SDM Vol. 3B 17.2.3, Figure 17-2): BS = single-step caused the #DB. */
#define DR6_BS	       BIT(14)
#define DR6_INIT_VALUE 0xffff0ff0ull /* the value DR6 holds with no condition recorded */
/* DR7 (SDM Vol. 3B 17.2.4, Figure 17-2): L0 and L1 enable DR0 and DR1; R/W0, R/W1 = LEN0 = 00
 * (bits 16-19) make it an instruction breakpoint; bit 10 reads as 1. */
#define DR7_L0	       BIT(0)
#define DR7_L1	       BIT(2)
#define DR7_L2	       BIT(4) /* DR2, DR3: a chain's ways not predicted (block.c) */
#define DR7_L3	       BIT(6)
#define DR7_RESERVED_1 BIT(10)
#define HANDLER_CPL    0 /* every IDT gate's selector is the kernel's (cpu/idt.c) */

uint64_t ss_enter(uint64_t (*fn)(uint64_t), uint64_t arg, uint64_t extra_flags);

/*
 * A prefix of the armed block (block.c): an indirect near branch from `from` to `to` (blk NULL:
 * arm_after_branch), or block blk and the direct branch at its end (`from`, enum
 * x86_branch_kind `kind`) going to `to` (arm_chain): a JMP, or a Jcc predicted to go there
 * (`taken`: to its target), with a breakpoint on the way not predicted (`side`, else 0).
 */
#define SS_PREFIX_MAX 2
struct ss_prefix {
	const struct ss_block *blk;
	uint64_t from, to, side;
	uint8_t kind;
	bool taken;
};

struct ss_state {
	bool active;
	bool in_trap;  /* the engine's own #DB handler runs (an NMI there is not the workload's) */
	uint64_t prev; /* the instruction that will retire next */
	unsigned prev_cpl;
	/* enum x86_mode of s->prev's code segment (cpu_code_mode): 16/32-bit code (compatibility
	 * mode) is decoded as such, and its traps all go debug_trap_whole's way. */
	uint8_t prev_mode;
	struct ss_step_view *view; /* this CPU's ss_step_views entry: frame and CPLs of a step */
	uint64_t steps;
	uint64_t rep_iterations; /* traps inside a REP string instruction (not steps) */
	uint64_t rebuilt;   /* traps that stood for more than one instruction (arch_step_rebuild) */
	uint64_t skip_seen; /* option test.ss.skip: traps that could have been left out */
	uint64_t skipped_to; /* option test.ss.skip: where the trap left out landed, or 0 */
	/* The frame of the workload's exception whose handler runs (unstepped), or NULL: until
	 * its IRET, traps are the handler's, not the workload's. */
	struct trap_frame *exc_frame;
	struct trap_frame *nmi_frame; /* an NMI inside the engine's #DB handler (a PMI) */
	bool vtf;	/* the workload's own TF: what it set, what PUSHF and handlers see */
	bool sysret_tf; /* R11.TF before the engine set it for the SYSRET about to retire */
	bool fmask_tf;	/* IA32_FMASK.TF lifted for the SYSCALL about to retire (lift_fmask_tf) */
	uint64_t next_opcode_ip; /* where next_opcode was read (s->prev, unless a handler moved) */
	unsigned next_opcode;
	/* The trap after next_opcode_ip goes the whole way (debug_trap_whole): an instruction
	 * engine_special names, the workload stepping itself, option test.ss.skip. */
	bool next_whole;
	/* Where the trap after s->prev lands when s->prev is a plain step (ss_hooks.plain): the
	 * instruction after it; 0 when the trap goes the common or the whole way (note_next). */
	uint64_t plain_to;
	/* With a decode cache (ss_hooks.cache): s->prev's decoding, made before it ran, or NULL
	 * (a handler moved the workload: decoded when it retired). */
	const struct x86_decoded *next_dec;
	struct x86_decoded spare; /* a retired instruction's decoding whose slot the next needs */
	uint64_t exc_from;	  /* the instruction that raised the exception being delivered */
	uint64_t dr_refused_at;	  /* refuse_breakpoints: the first MOV DRn that armed any */
	unsigned exc_cpl;
	struct ss_hooks hooks;
	/* Per-block stepping (block.c): the block running at full speed (blk_armed): blk_n plain
	 * instructions from blk_start, then the one at blk_last, which either runs in the block
	 * (a direct branch, blk_branch: breakpoints on its successors blk_to) or carries the
	 * breakpoint itself. */
	bool blk_armed, blk_branch;
	unsigned blk_n;
	uint64_t blk_start, blk_last, blk_to[2];
	const struct ss_block *blk;	 /* the armed block's description (block.c) */
	const struct ss_block *blk_same; /* a block whose bytes this trap found unchanged */
	uint64_t ok_page;    /* cached_at_s: a page found present in this trap, + 1 (0: none) */
	uint64_t dr[4], dr7; /* what the engine last wrote to DR0-DR3, DR7 */
	struct ss_block *blk_cache; /* this CPU's blocks seen (block.c) */
	uint32_t blk_gen;	    /* blocks decoded (ss_block.gen) */
	uint64_t blocks;	    /* blocks run (ss_result.blocks) */
	/* A counted loop armed (block.c): how often its jump goes back before it falls through,
	 * and its counter before the first run; 0 trips: none armed. */
	uint64_t blk_trips, blk_x0;
	uint64_t loop_declined; /* the start of a counted loop that runs a trap an iteration */
	/* What runs before the armed block, in order (npre of them; block.c): its prefixes. */
	uint8_t npre;
	struct ss_prefix pre[SS_PREFIX_MAX];
	uint64_t loops;		     /* counted loops run (ss_result.loops) */
	uint64_t chains;	     /* blocks armed with a prefix block (ss_result.chains) */
	uint64_t loop_lost_at;	     /* ss_result.loop_lost_at */
	uint64_t block_changed_at;   /* ss_result.block_changed_at */
	uint64_t traps, trap_cycles; /* ss_result.traps, .trap_cycles */
	/* The code cache (xlate.c): the workload runs a translation (xl_active); its counts. */
	bool xl_active;
	struct ss_xlate_stats xl;
};

extern struct ss_state ss_states[MAX_CPUS];

static inline struct ss_state *state_here(void)
{
	struct percpu *cpu = percpu_current();
	if (!cpu)
		return NULL;
	struct ss_state *s = &ss_states[cpu->index];
	PERCPU_SLOT_OPAQUE(s);
	return s;
}

/* Decode the workload's instruction at ip from the bytes the engine can read without a fault
 * (fetch.c): false where they are not there or no instruction. */
static inline bool decode_at(uint64_t ip, enum x86_mode mode, struct x86_insn *in)
{
	unsigned avail = ss_code_readable(ip);
	return avail && x86_decode_mode((const uint8_t *)ip, avail, mode, in) == 0;
}

/* The decode cache's answer for ip in `mode` (x86_decode_cached_at), from readable bytes only. */
static inline __attribute__((always_inline)) const struct x86_decoded *
cached_at(struct x86_decoded *cache, uint64_t ip, bool before_run, enum x86_mode mode)
{
	unsigned avail = ss_code_readable(ip);
	return avail ? x86_decode_cached_at(cache, ip, before_run, mode, avail) : NULL;
}

/* cached_at in a trap that found the page s->ok_page (page number + 1, 0: none) present a moment
 * ago (per-block stepping: a block, its branch and their successors share a page): its bytes
 * are readable without asking fetch.c again. */
static inline __attribute__((always_inline)) const struct x86_decoded *
cached_at_s(const struct ss_state *s, uint64_t ip, bool before_run, enum x86_mode mode)
{
	if ((ip >> 12) + 1 == s->ok_page && (ip & 0xfff) <= 0x1000 - X86_MAX_INSN_LENGTH)
		return x86_decode_cached_at(s->hooks.cache, ip, before_run, mode,
					    X86_MAX_INSN_LENGTH);
	return cached_at(s->hooks.cache, ip, before_run, mode);
}

/* Opcodes the engine treats itself (SDM Vol. 2 Tables ). */
#define OPC_PUSHF    0x9c
#define OPC_POPF     0x9d
#define OPC_IRET     0xcf
#define OPC_MOV_SR   0x8e /* MOV Sreg, r/m: ModRM.reg 2 is SS */
#define OPC_SYSCALL  X86_OPCODE_0F(0x05)
#define OPC_SYSRET   X86_OPCODE_0F(0x07)
#define OPC_INT1     0xf1 /* INT1 (ICEBP): a #DB without DR6.BS */
#define OPC_INT3     0xcc
#define OPC_INTN     0xcd		 /* INT n: n = 1 delivers vector 1 too */
#define OPC_INTO     0xce		 /* INTO: #OF as a trap, 16/32-bit code only (i64) */
#define OPC_MOV_DR   X86_OPCODE_0F(0x23) /* MOV DRn, r64 */
#define MODRM_REG(m) (((m) >> 3) & 7)
#define SREG_SS	     2

/* Whether code segment cs is one of the kernel's two 64-bit ones: cpu_code_mode's answer without
 * a call, on the engine's common path. */
static inline bool cs_64bit(uint64_t cs)
{
	return cs == SEL_KERNEL_CODE || cs == SEL_USER_CODE;
}
/* The opcode at ip in `mode` (lib/x86_decode.h) from the bytes the engine can read without a
 * fault (fetch.c), 0 where there are none: a cheap filter, so that only the few instructions
 * below are decoded in full. */
static inline unsigned opcode_at(uint64_t ip, enum x86_mode mode)
{
	unsigned avail = ss_code_readable(ip);
	if (!avail)
		return 0;
	if (mode != X86_MODE_64) /* 40-4F are INC/DEC there, not REX */
		return x86_opcode_of_mode((const uint8_t *)ip, avail, mode);
	return x86_opcode_quick((const uint8_t *)ip, avail);
}

/* Whether the instruction with this opcode may invalidate TLB entries (SDM Vol. 3A 4.10.4.1:
 * INVLPG, 0F 01 /7; INVPCID, 66 0F 38 82; MOV to CR0, CR3, CR4, 0F 22): the group and map
 * opcodes those are in, a superset (stepped: block.c keeps them out of blocks). */
#define OPC_GRP7_ALL  X86_OPCODE_0F(0x01)
#define OPC_MOV_TO_CR X86_OPCODE_0F(0x22)
#define OPC_MAP_0F38  X86_OPCODE_0F(0x38)
static inline bool invalidates_tlb(unsigned opcode)
{
	return opcode == OPC_GRP7_ALL || opcode == OPC_MOV_TO_CR || opcode == OPC_MAP_0F38;
}
/* Of those, the ones that may say a mapping changed (the code cache's translations go,
 * xlate.c): INVLPG (0F 01 /7 with a memory operand, SDM Vol. 2A "INVLPG"; 0F 01 /7 with a
 * register is SWAPGS or RDTSCP), a MOV to a control register, INVPCID (66 0F 38 82). STAC,
 * CLAC, XGETBV and the rest of group 7 leave mappings alone. */
static inline bool changes_mappings(const struct x86_insn *in)
{
	if (in->opcode_map == X86_MAP_0F && in->opcode == 0x01)
		return ((in->modrm >> 3) & 7) == 7 && (in->modrm >> 6) != 3;
	if (in->opcode_map == X86_MAP_0F && in->opcode == 0x22)
		return true;
	return in->opcode_map == X86_MAP_0F38 && in->opcode == 0x82;
}

/* Whether a #DB after the instruction with this opcode may be other than its single-step trap
 * (ss_debug_trap): INT1, INT n, and MOV SS, whose trap covers the next instruction too. */
static inline bool dr6_matters(unsigned opcode)
{
	return opcode == OPC_INT1 || opcode == OPC_INTN || opcode == OPC_MOV_SR;
}

/* Opcodes the engine has work for besides reporting the step: those hide_tf and dr6_matters
 * name. One test on every trap (a bit in a table for the one-byte map). */
#define SPECIAL_BIT(op, base) ((op) >= (base) && (op) < (base) + 64 ? 1ull << ((op) - (base)) : 0)
#define SPECIAL_WORD(base)                                                                         \
	(SPECIAL_BIT(OPC_PUSHF, base) | SPECIAL_BIT(OPC_POPF, base) |                              \
	 SPECIAL_BIT(OPC_IRET, base) | SPECIAL_BIT(OPC_MOV_SR, base) |                             \
	 SPECIAL_BIT(OPC_INT1, base) | SPECIAL_BIT(OPC_INTN, base))

static inline bool engine_special(unsigned opcode)
{
	static const uint64_t one_byte[4] = {SPECIAL_WORD(0x00), SPECIAL_WORD(0x40),
					     SPECIAL_WORD(0x80), SPECIAL_WORD(0xc0)};
	if (opcode < 0x100)
		return (one_byte[opcode >> 6] >> (opcode & 63)) & 1;
	return opcode == OPC_SYSCALL || opcode == OPC_SYSRET || opcode == OPC_MOV_DR;
}

/* The decodings a step hook reads (ss_step_decoded): the retired instruction's, made before it
 * ran (or now, where a handler moved the workload there), and the next one's, from its bytes
 * now, before it runs. The next one's becomes the following step's retired one. */
/* The decoding of `retired`, kept aside in s->spare where the next instruction's decoding is
 * about to take its slot (the decode cache is direct-mapped by address). */
static inline __attribute__((always_inline)) const struct x86_decoded *
keep_aside(struct ss_state *s, const struct x86_decoded *in, uint64_t retired, uint64_t next)
{
	if (!in || next % X86_DECODE_CACHE_SIZE != retired % X86_DECODE_CACHE_SIZE)
		return in;
	s->spare = *in;
	return &s->spare;
}

static inline __attribute__((always_inline)) void decode_step(struct ss_state *s,
							      struct ss_step_view *v,
							      uint64_t retired, uint64_t next,
							      enum x86_mode next_mode)
{
	struct x86_decoded *cache = s->hooks.cache;
	if (!cache) {
		v->in = v->upcoming = NULL;
		return;
	}
	const struct x86_decoded *in = s->next_dec;
	if (!in || in->ip != retired || in->insn.length == 0 || in->insn.mode != s->prev_mode)
		in = cached_at(cache, retired, false, s->prev_mode);
	v->in = in = keep_aside(s, in, retired, next);
	v->upcoming = s->next_dec = cached_at_s(s, next, true, next_mode);
}

static inline __attribute__((always_inline)) void report_step(struct ss_state *s,
							      struct ss_step_view *v,
							      struct trap_frame *f,
							      uint64_t retired, uint64_t next)
{
	s->steps++;
	decode_step(s, v, retired, next, cs_64bit(f->cs) ? X86_MODE_64 : cpu_code_mode(f->cs));
	v->frame = f;
	s->in_trap = true; /* a PMI sent as NMI from on_step arrives right here */
	if (s->hooks.step)
		s->hooks.step(s->hooks.ctx, retired, next);
	s->in_trap = false;
	v->frame = NULL;
}

/* special.c: the instructions engine_special names. */
void restore_fmask_tf(struct ss_state *s);
uint64_t with_tf(uint64_t rflags, bool tf);
/* MOV SS holds the single-step trap until after the next instruction: the second one's
 * address, or 0. */
uint64_t mov_ss_shadowed(unsigned opcode, uint64_t retired, enum x86_mode mode);
void special_step(struct ss_state *s, unsigned opcode, struct trap_frame *f);
void before_special(struct ss_state *s, unsigned opcode, struct trap_frame *f);
bool own_trap(const struct ss_state *s, unsigned opcode);

/* rebuild.c: option test.ss.skip (a test build's), and whether to leave this trap out. */
extern unsigned ss_skip_every;
bool skip_trap(struct ss_state *s, const struct trap_frame *f);

/* Per-block stepping (block.c). At a trap after which the workload resumes at s->prev (decoded
 * in s->next_dec, nothing special due there): run the plain instructions from there at full
 * speed, TF cleared in *rflags, up to an instruction breakpoint on the first one that needs a
 * trap of its own, or on the successors of a direct branch that ends them; with the whole
 * frame f (its registers), a counted loop there runs to its exit. True if armed. */
bool ss_block_arm(struct ss_state *s, uint64_t *rflags, const struct trap_frame *f);
/* Where the armed block stopped, at rip (its breakpoint, a fault or an interrupt inside it). */
enum ss_block_stop {
	SS_BLOCK_OFF_PATH, /* rip is not where the block can stop: nothing accounted */
	SS_BLOCK_AT,	 /* the instructions before rip retired (told to the hooks); s->prev rip */
	SS_BLOCK_BRANCH, /* the plain ones and the branch at s->prev retired, the branch went to
			  * rip: the caller reports that step */
};
/* The block is disarmed and what retired before f->rip is accounted (ss_block_stop; a counted
 * loop's runs from its counter in f); `breakpoint`: the stop is the #DB of one of the block's
 * breakpoints. */
enum ss_block_stop ss_block_cut(struct ss_state *s, const struct trap_frame *f, bool breakpoint);
/* No block armed any more (after ss_block_cut, unless one is armed again): DR7 cleared before
 * the workload or a handler runs. */
void ss_block_idle(struct ss_state *s);
/* Whether the decoded instruction may run inside a block (or a translation): no branch,
 * nothing the engine has work for (block.c). */
bool ss_insn_plain(const struct x86_decoded *d);

/* The code cache (xlate.c, option ss.xlate): at a trap after which ring 3 code resumes at
 * f->rip (d: its decoding), the workload goes on in its translation (f->rip moved there, TF
 * cleared, no breakpoint armed) where the hooks take enough runs at once (ss_hooks.runs_room).
 * True if it does. */
bool ss_xlate_enter(struct ss_state *s, struct trap_frame *f, const struct x86_decoded *d);
/* Whether ss_xlate_enter may take ring 3 code now (per-block stepping's short way leaves the
 * arming to ss_block_arm then). */
bool ss_xlate_wanted(const struct ss_state *s, uint64_t ip);
/* An interrupt or exception inside a translation (s->xl_active): the runs logged and the
 * instructions before the one it stands at told to the hooks, f moved back to the original
 * code (ss_cut_stepped). */
void ss_xlate_cut(struct ss_state *s, struct trap_frame *f);
/* A translation's hand-back (its INT, the gate's one call): the runs logged told to the hooks,
 * the workload stepped on at the original address (ss_resume_stepped). False: not the
 * engine's. */
bool ss_xlate_handback(struct trap_frame *f);
/* A run's start and end: translations forgotten, the region unmapped. */
void ss_xlate_reset(struct ss_state *s);
/* The workload changed its mappings (INVLPG, MOV CR3): every CPU's translations go. */
void ss_xlate_code_changed(void);
/* singlestep.c: the workload goes on stepped at f->rip, a block start, nothing retired there
 * yet: after a hand-back (the next block armed or entered, as after a step) and after a cut
 * (TF set, for the handler's return). */
void ss_resume_stepped(struct ss_state *s, struct trap_frame *f);
void ss_cut_stepped(struct ss_state *s, struct trap_frame *f);
/* The CPU's part of the #DB frame (SDM Vol. 3A 6.14.2, Figure 6-9), what a plain step or a
 * block's short way reads of it (ss_plain_trap); the engine's entry saved the whole struct
 * trap_frame around it (frame_of: a counted loop's registers). */
struct db_cpu_frame {
	uint64_t rip, cs, rflags, rsp, ss;
};
static inline struct trap_frame *frame_of(struct db_cpu_frame *c)
{
	return (struct trap_frame *)((char *)c - TRAP_FRAME_RIP);
}
/* The CPU's part of the whole frame f (frame_of's inverse). */
static inline struct db_cpu_frame *db_frame_of(struct trap_frame *f)
{
	return (struct db_cpu_frame *)((char *)f + TRAP_FRAME_RIP);
}
/* A block's breakpoint #DB at one of its branch's successors, taken the short way: the block and
 * its branch told to the hooks at once (ss_hooks.block_branch), and the next block armed where
 * it is one seen before with its bytes unchanged. */
enum ss_block_short {
	SS_SHORT_NONE,	/* not taken: the long way (ss_debug_trap, block_stop), nothing changed */
	SS_SHORT_ARMED, /* told, and the next block armed */
	SS_SHORT_FED,	/* told; s->prev and s->next_dec are the instruction at the successor,
			 * which the caller sets up as after a step (arm_next, ss_block_arm) */
};
enum ss_block_short ss_block_trap(struct ss_state *s, struct db_cpu_frame *c);
/* The armed block's prefix branch ran: told to the hooks (before the block's own steps). */
void ss_block_prefix_retire(struct ss_state *s);
/* Whether the armed block's page is present and its bytes (up to its last instruction, and its
 * branch's where it runs one) are those it was decoded from (check_bytes' test, without the
 * report). */
bool ss_block_intact(const struct ss_state *s);
/* The run starts: nothing armed, nothing remembered. */
void ss_block_reset(struct ss_state *s);

#endif
