/* SPDX-License-Identifier: MIT */
/*
 * Per-block stepping: the single-step engine runs straight-line code at full speed and takes a
 * trap per block instead of one per instruction ("stop per block", the engine's speed goal).
 *
 * At a trap after which the workload goes on at an instruction the engine has nothing to do for,
 * the engine decodes ahead (the decode cache, from the bytes there now, before they run) the
 * plain instructions that follow: no branch, none the engine has work for (TF, DR6, MOV SS, ...,
 * engine_special), none that needs a trap of its own (below, ss_insn_plain). Where they end in a
 * direct branch whose successors lie on the block's page (branch_successors), the branch runs in
 * the block too, with instruction breakpoints on its successors: the #DB at one of them says
 * where it went, with the registers after it (one trap a block). Otherwise, on the first
 * instruction that needs its own trap it sets an instruction breakpoint (DR0 with DR7.L0, R/W0 =
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
 * (one page, one breakpoint page for QEMU's TCG), the workload's own TF, option test.ss.skip, and
 * option ss.block=off.
 *
 * A fault or an interrupt inside a block arrives with RIP at the instruction that did not run
 * (a fault) or runs next (an interrupt): the block is straight-line code, so the instructions
 * before it, and only those, retired (ss_block_cut, from the exception's observer, before the
 * delivery is reported). The kernel's direct map writes every page, the kernel's text too (the
 * smc workload does): a block is armed only where its stores are proven, before it runs, to
 * reach none of its code's bytes through any mapping (prove.c), so a change that a later store
 * of the block would undo cannot happen unseen. As a second line, at the block's end its
 * instructions' bytes are compared with those they were decoded from: one whose bytes changed
 * after a store in the block before it is said in the session's result
 * (ss_result.block_changed_at), never guessed.
 */
#include "arch/x86/step/block.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/usermode.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_step.h"
#include "kernel/memory.h"
#include "lib/x86_loop.h"
#include "lib/x86_mem.h"

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
#define INVPCID_0F38  0x82 /* 66 0F 38 82 (SDM Vol. 2 INVPCID) */

static bool block_on = true; /* option ss.block */

void arch_set_step_block(bool on)
{
	block_on = on;
}

/* Whether the instruction may run inside a block (see the top of this file). */
bool ss_insn_plain(const struct x86_decoded *d)
{
	if (d->step.branch != X86_BR_NONE || engine_special(d->opcode) ||
	    x86_is_rep_string(&d->step))
		return false;
	if (d->insn.length == SSC_NOP_LEN && d->bytes[0] == SSC_NOP_BYTES)
		return false;
	if (d->insn.opcode_map == X86_MAP_0F38 && d->insn.opcode == INVPCID_0F38 &&
	    !(d->insn.prefixes & (X86_PFX_VEX | X86_PFX_EVEX)))
		return false; /* invalidates TLB entries: stepped (invalidates_tlb) */
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

/* Whether the decoded instruction may write memory (lib/x86_mem.h; an operand it does not
 * classify counts as a store). */
static bool may_store_insn(const struct x86_insn *in)
{
	struct x86_mem_use u = x86_mem_use_of(in);
	return u.store != X86_MEM_NONE || u.unknown;
}

/* How many plain steps the hooks take as one batch now. */
static inline __attribute__((always_inline)) uint64_t block_room(const struct ss_state *s)
{
	if (s->hooks.plain == ss_plain_nothing)
		return UINT64_MAX;
	if (!s->hooks.plain || !s->hooks.plain_room || !s->hooks.plain_n)
		return 0;
	return s->hooks.plain_room(s->hooks.ctx, s->prev_cpl);
}

/*
 * Whether the block may run the direct branch d at ip that ends it, with breakpoints on its
 * successors to[] (its target, and a conditional one's fall-through, else 0): a near JMP, CALL,
 * Jcc or LOOP/JrCXZ with a 64-bit IP, its bytes and its fall-through on the block's page; its
 * target anywhere. (Hardware looks for an instruction breakpoint before every instruction. QEMU
 * 7.2's TCG looks before every translation block it enters through its lookup, and runs a page
 * with a breakpoint one instruction a block: it chains blocks directly (goto_tb) only to a
 * destination on the page where the jumping block starts, so a jump to another page always goes
 * through the lookup, accel/tcg/cpu-exec.c helper_lookup_tb_ptr and check_for_breakpoints. A
 * straight line running onto the next page may stay inside one translation block: hence the
 * block's bytes and its fall-through on its page.) A successor at the block's
 * start is reached again only by the branch: the block is resumed with RF set, which lets that
 * first instruction run without its breakpoint's fault (SDM Vol. 3B 17.3.1.1), and only with
 * interrupts disabled: an interrupt is served before a code breakpoint (SDM Vol. 3A 6.9, Table
 * 6-2, priority 6 before 7), and its frame's RIP at the start would not tell whether the
 * branch ran.
 */
static bool branch_successors(const struct x86_decoded *d, uint64_t ip, uint64_t start,
			      uint64_t rflags, uint64_t to[2])
{
	enum x86_branch_kind k = (enum x86_branch_kind)d->step.branch;
	if ((k != X86_BR_JCC && k != X86_BR_JCXZ_LOOP && k != X86_BR_JMP_REL &&
	     k != X86_BR_CALL_REL) ||
	    d->step.ip_size != sizeof(uint64_t) || !d->step.has_rel)
		return false;
	uint64_t page = start / PAGE_4K, next = ip + d->insn.length;
	to[0] = x86_branch_target(&d->insn, ip);
	to[1] = x86_branch_conditional(k) ? next : 0;
	if ((next - 1) / PAGE_4K != page || (to[1] && to[1] / PAGE_4K != page))
		return false;
	return !((to[0] == start || to[1] == start) && (rflags & RFLAGS_IF));
}

/* Each CPU's remembered blocks, from the page allocator at boot for the CPUs that came up (not
 * in the kernel's image, which the loader must place whole in a small machine's memory). NULL:
 * no blocks on that CPU, each step traps. The pages are taken uncleared (clearing megabytes
 * costs boot time under emulation): every slot's start is cleared here, a slot's other fields
 * written when a block is decoded there, and a run's reset clears the slots filled since. */
static struct ss_block *blocks[MAX_CPUS];
unsigned ss_block_slots = BLOCK_SLOTS_MIN;
/* Which slots a CPU's runs filled since its last reset, so that the reset clears only those
 * (thousands of slots a few KiB apart: clearing them all cost a short run a millisecond). */
static uint16_t *slots_used[MAX_CPUS];
static unsigned nslots_used[MAX_CPUS];
_Static_assert(BLOCK_SLOTS_MAX <= 65536, "a slot's number in a uint16_t");
/* the blocks of all CPUs take at most this share of the free memory (the rest is the record
 * stores', trace.store) */
#define BLOCK_MEMORY_SHARE 16

void ss_blocks_prepare(unsigned cpus)
{
	if (cpus > MAX_CPUS)
		cpus = MAX_CPUS;
	static bool sized; /* the slots a CPU's blocks have, once for all (slot_of) */
	if (!sized) {
		uint64_t budget = memory_allocator()->free_pages * PAGE_4K / BLOCK_MEMORY_SHARE;
		ss_block_slots = BLOCK_SLOTS_MAX;
		while (ss_block_slots > BLOCK_SLOTS_MIN &&
		       (uint64_t)cpus * ss_block_slots * sizeof(struct ss_block) > budget)
			ss_block_slots /= 2;
		sized = true;
	}
	uint64_t pages = (ss_block_slots * sizeof(struct ss_block) + PAGE_4K - 1) / PAGE_4K;
	for (unsigned c = 0; c < cpus; c++) {
		if (blocks[c])
			continue;
		uint64_t pa = page_alloc_uncleared(pages);
		slots_used[c] = pa ? page_alloc_virt(ss_block_slots * sizeof(uint16_t)) : NULL;
		blocks[c] = pa && slots_used[c] ? arch_phys_to_virt(pa) : NULL;
		if (pa && !blocks[c])
			page_free(pa, pages);
		for (unsigned i = 0; blocks[c] && i < ss_block_slots; i++) {
			blocks[c][i].start = 0; /* the pages' old contents: no block */
			blocks[c][i].listed = false;
		}
	}
}

/* Whether a block from start to end (the address after its last instruction) can be remembered
 * whole: its bytes, in words read from start, on start's page. */
static bool block_fits(uint64_t start, uint64_t end)
{
	uint64_t words = (end - start + sizeof(uint64_t) - 1) / sizeof(uint64_t);
	return words <= BLOCK_WORDS &&
	       (start + words * sizeof(uint64_t) - 1) / PAGE_4K == start / PAGE_4K;
}

/* The bytes from start to end (block_fits), as decoded. */
static void remember_bytes(struct ss_block *b, uint64_t start, uint64_t end)
{
	b->start = start;
	b->words = (uint8_t)((end - start + sizeof(uint64_t) - 1) / sizeof(uint64_t));
	__builtin_memcpy(b->bytes, (const void *)start, b->words * sizeof(uint64_t));
}

/* Decode the block at start from the bytes there now (the decode cache's, before they run):
 * its plain instructions (at most room), and the direct branch that ends it, if it may run in
 * the block. False where there is no block worth a breakpoint. */
static bool block_decode(struct ss_state *s, const struct x86_decoded *d, uint64_t start,
			 uint64_t room, struct ss_block *b)
{
	if (!b->listed) { /* a slot filled for the first time since the reset */
		unsigned c = this_cpu()->index;
		slots_used[c][nslots_used[c]++] = (uint16_t)(b - s->blk_cache);
		b->listed = true;
	}
	b->gen = ++s->blk_gen; /* a new decoding, or none: plans made with the old one go */
	b->proven_gen = 0;
	b->plan.k = 0;
	/* the decode cache's (no two share a slot), and the branch's after them */
	const struct x86_insn *insn[BLOCK_MAX + 1];
	uint64_t ip = start;
	unsigned n = 0;
	while (n < room && n < BLOCK_MAX && d && ss_insn_plain(d) &&
	       block_fits(start, ip + d->insn.length)) {
		b->len[n] = d->insn.length;
		insn[n] = &d->insn;
		ip += d->insn.length;
		n++;
		d = cached_at(s->hooks.cache, ip, true, X86_MODE_64);
	}
	b->to[0] = b->to[1] = 0;
	b->branch = d && n < room && block_fits(start, ip + d->insn.length) &&
		    branch_successors(d, ip, start, 0, b->to);
	/* Where its stores go, in terms of the registers before it (prove.c proves them with
	 * the registers of the trap that arms it): the block ends before the first store whose
	 * address those registers do not give (lib/x86_stores.h); it runs alone. */
	if (b->branch)
		insn[n] = &d->insn;
	unsigned cut_len = d ? d->insn.length : 0;
	unsigned covered = x86_stores_follow(insn, n + b->branch, start, &b->st);
	if (covered < n + b->branch) {
		if (covered < n) {
			cut_len = insn[covered]->length;
			for (; n > covered; n--)
				ip -= b->len[n - 1];
		}
		b->branch = false;
		b->to[0] = b->to[1] = 0;
	}
	if (!b->branch && n < BLOCK_MIN) {
		/* no block here whatever the room, while these bytes stay: remembered as none */
		b->none = n < room && cut_len && block_fits(start, ip + cut_len);
		if (b->none)
			remember_bytes(b, start, ip + cut_len);
		return false;
	}
	b->none = false;
	b->start = start;
	b->n = (uint8_t)n;
	b->stores = b->st.n > 0;
	b->went = 0;
	b->turns = 0;
	b->last = ip;
	b->end = ip + (b->branch ? d->insn.length : 0);
	b->to_start = b->to[0] == start || b->to[1] == start;
	b->kind = b->branch ? d->step.branch : X86_BR_NONE;
	_Static_assert(BLOCK_MAX <= X86_LOOP_MAX_INSNS, "a block's body fits a loop's");
	b->counted = b->branch && b->kind == X86_BR_JCC && b->to[0] == start &&
		     x86_loop_analyze(insn, n, &d->insn, &b->loop);
	remember_bytes(b, start, b->end);
	return true;
}

/* The block at `start` (d: its first instruction's decoding, made before it runs) with at most
 * `room` plain steps: remembered (its bytes unchanged), or decoded now; NULL where none. */
struct ss_block *ss_block_at(struct ss_state *s, const struct x86_decoded *d, uint64_t start,
			     uint64_t room, const struct ss_block *same)
{
	struct ss_block *b = &s->blk_cache[slot_of(start)];
	/* a block remembered was on a read-only page when it was decoded; the block that just
	 * ran, compared after it (check_bytes), runs again: nothing ran since */
	if (b->start == start && (b == same || same_words(b))) {
		if (b->none)
			return NULL;
		if (b->n <= room)
			return b;
	}
	if (!ss_insn_plain(d) || !ss_code_readonly(start))
		return NULL;
	if (!block_decode(s, d, start, room, b)) {
		if (!b->none)
			b->start = 0;
		return NULL;
	}
	return b;
}

bool ss_block_arm(struct ss_state *s, uint64_t *rflags, const struct trap_frame *f)
{
	const struct x86_decoded *d = s->next_dec;
	uint64_t start = s->prev;
	const struct ss_block *same = s->blk_same; /* this trap's only */
	s->blk_same = NULL;
	if (!block_on || !s->blk_cache || !s->hooks.cache || s->next_whole || !d ||
	    d->ip != start || s->prev_mode != X86_MODE_64 || s->blk_armed)
		return false;
	uint64_t room = block_room(s);
	if (room == 0 || ((start >> 12) + 1 != s->ok_page && !ss_code_readable(start)))
		return false;
	/* the frame is the trap's own, whole (the callers' frame_of): its RIP may move */
	if (ss_xlate_enter(s, (struct trap_frame *)f, d))
		return true;
	if (indirect_near(d->step.branch))
		return ss_chain_after_branch(s, d, f, room, rflags);
	struct ss_block *b = ss_block_at(s, d, start, room, same);
	if (!b)
		return false;
	/* A counted loop runs to its exit, where its counter tells where it stopped (interrupts
	 * too); once declined, it runs a trap an iteration until another block comes. */
	if (b->counted && start != s->loop_declined) {
		if (ss_loop_arm(s, b, f, rflags))
			return true;
		s->loop_declined = start;
	}
	if (b->to_start && (*rflags & RFLAGS_IF))
		return false; /* see branch_successors: stepped while interrupts are enabled */
	if (chain_first(b) && ss_chain_arm(s, b, room, true, rflags, f))
		return true;
	if (!ss_prove_one(b, f))
		return false;
	arm(s, b, rflags, false);
	return true;
}

void ss_block_idle(struct ss_state *s)
{
	if (s->dr7)
		write_dr7(0);
	s->dr7 = 0;
}

void ss_block_reset(struct ss_state *s)
{
	ss_xlate_reset(s);
	s->blk_armed = false;
	s->blk_trips = 0;
	s->npre = 0;
	ss_block_idle(s);
	unsigned c = this_cpu()->index;
	s->blk_cache = blocks[c];
	for (unsigned i = 0; s->blk_cache && i < nslots_used[c]; i++) {
		s->blk_cache[slots_used[c][i]].start = 0;
		s->blk_cache[slots_used[c][i]].listed = false;
	}
	nslots_used[c] = 0;
	s->dr[0] = read_dr0();
	s->dr[1] = read_dr1();
	s->dr[2] = read_dr2();
	s->dr[3] = read_dr3();
}

/* Whether rip is a successor of the block's branch. */
static inline __attribute__((always_inline)) bool branch_to(const struct ss_state *s, uint64_t rip)
{
	return s->blk_branch && (rip == s->blk_to[0] || (s->blk_to[1] && rip == s->blk_to[1]));
}

/* Block b's instruction at byte offset `at` from its start changed while it ran (its bytes
 * differ from those remembered): unknown what ran there if an instruction before it in the
 * block may have stored. */
void ss_block_changed(struct ss_state *s, const struct ss_block *b, unsigned at)
{
	const uint8_t *then = (const uint8_t *)b->bytes;
	for (unsigned i = 0, off = 0; i < b->n && off < at; off += b->len[i++]) {
		struct x86_insn in;
		if (x86_decode_mode(then + off, b->len[i], X86_MODE_64, &in) != 0 ||
		    may_store_insn(&in)) {
			if (!s->block_changed_at)
				s->block_changed_at = b->start + at;
			return;
		}
	}
}

/* Compare the block's bytes now with those it was decoded from (up to `end`, the address after
 * the last instruction that ran): an instruction that changed goes to block_changed. */
static inline __attribute__((always_inline)) void check_bytes(struct ss_state *s, uint64_t end)
{
	const struct ss_block *b = s->blk;
	if (same_words(b)) {
		s->blk_same = b;
		return;
	}
	const uint8_t *then = (const uint8_t *)b->bytes, *now = (const uint8_t *)b->start;
	for (unsigned i = 0, off = 0; b->start + off < end; off += b->len[i++]) {
		unsigned len = i < b->n ? b->len[i] : (unsigned)(end - b->start - off);
		for (unsigned k = 0; k < len; k++)
			if (then[off + k] != now[off + k]) {
				ss_block_changed(s, b, off);
				return;
			}
	}
}

/* The block's plain instructions before `stop` (or all of them, stop 0) retired: counted and
 * told to the hooks. The address after the last one counted, or 0 where stop is not on the
 * block's path. */
static inline __attribute__((always_inline)) uint64_t retire_plain(struct ss_state *s,
								   uint64_t stop)
{
	const struct ss_block *b = s->blk;
	uint64_t ip = b->start;
	unsigned n = 0;
	if (stop == b->last || !stop) {
		n = s->blk_n;
		ip = b->last;
	} else {
		for (; ip < stop && n < b->n; n++)
			ip += b->len[n];
		if (ip != stop)
			return 0;
	}
	if (n) {
		s->steps += n;
		if (s->hooks.plain != ss_plain_nothing)
			s->hooks.plain_n(s->hooks.ctx, n, s->prev_cpl);
	}
	return ip;
}

enum ss_block_stop ss_block_cut(struct ss_state *s, const struct trap_frame *f, bool breakpoint)
{
	uint64_t rip = f->rip;
	s->blk_same = NULL;
	if (s->npre && !s->pre[0].blk && rip == s->pre[0].from && !breakpoint) {
		/* a fault of the prefix branch, or an interrupt before it: nothing ran */
		s->blk_armed = false;
		s->npre = 0;
		s->next_opcode_ip = 0;
		s->plain_to = 0;
		s->next_dec = cached_at(s->hooks.cache, rip, true, X86_MODE_64);
		return SS_BLOCK_AT;
	}
	/* the last block's breakpoint at the chain's start: it ran whole (chain_apart's wrap) */
	unsigned npre = breakpoint && branch_to(s, rip) ? 0 : s->npre;
	for (unsigned k = 0; k < npre; k++) {
		const struct ss_prefix *p = &s->pre[k];
		if (!p->blk || !(on_line(p->blk, rip) || (p->side && rip == p->side)))
			continue;
		/* a stop on a prefix's straight line (a fault, an interrupt: no breakpoint lies
		 * there, chain_apart) or on its way not predicted: the prefixes before it ran
		 * whole, it as far as there (its branch the other way), nothing after it */
		const struct ss_block *pb = p->blk;
		s->npre = (uint8_t)k;
		ss_block_prefix_retire(s);
		s->blk = pb;
		s->blk_branch = true;
		s->blk_start = pb->start;
		s->blk_last = pb->last;
		s->blk_to[0] = pb->to[0];
		s->blk_to[1] = pb->to[1];
		s->blk_n = pb->n;
		if (p->side && rip == p->side)
			note_way(pb, rip == pb->to[0]);
		break;
	}
	if (s->npre)
		ss_block_prefix_retire(s);
	s->blk_armed = false;
	if (s->blk_trips)
		ss_loop_retire(s, f);
	/* The straight line first: an instruction there stops the block before the branch runs,
	 * a successor there too (its breakpoint comes first on the way), but the start: that is
	 * the branch's successor when its breakpoint (suppressed by RF the first time) fires. */
	bool wrapped = breakpoint && rip == s->blk_start && branch_to(s, rip);
	bool on_path = !wrapped && rip >= s->blk_start && rip <= s->blk_last;
	if (!on_path && !branch_to(s, rip))
		return SS_BLOCK_OFF_PATH;
	uint64_t at = retire_plain(s, on_path ? rip : 0);
	if (!at)
		return SS_BLOCK_OFF_PATH;
	/* The block's page was present when it was armed and ran since (the engine never faults
	 * on the workload's memory: a store that unmapped it leaves nothing to compare). */
	if (ss_code_readable(s->blk_start)) {
		s->ok_page = (s->blk_start >> 12) + 1; /* until the trap ends (block_stop) */
		check_bytes(s, on_path ? rip : s->blk->end);
	}
	s->prev = at;
	s->next_opcode_ip = 0;
	s->plain_to = 0;
	/* the branch's decoding, checked against its bytes now: those it ran as (no store of the
	 * block reaches them, prove.c). A decoding in the cache may be older than this run: a
	 * remembered block is not decoded again, and its branch's address may have held other
	 * bytes in between (smcblock's slots, put back after each pass). */
	s->next_dec = cached_at_s(s, at, true, X86_MODE_64);
	return on_path ? SS_BLOCK_AT : SS_BLOCK_BRANCH;
}

/*
 * A block's breakpoint on its own straight line: a successor of its branch that lies inside it
 * (a loop the block falls into, its Jcc going back to an instruction after the block's start)
 * fires before the branch runs, when the straight line reaches it. The plain instructions
 * before it retired (as ss_block_cut's SS_BLOCK_AT has it); the one there is set up as after a
 * step (SS_SHORT_FED), unless the engine has work for it.
 */
static enum ss_block_short block_inner_trap(struct ss_state *s, const struct ss_block *b,
					    struct db_cpu_frame *c)
{
	uint64_t rip = c->rip;
	unsigned i = 0;
	uint64_t ip = b->start;
	while (ip < rip && i < b->n)
		ip += b->len[i++];
	if (ip != rip || s->blk_trips || !ss_block_intact(s))
		return SS_SHORT_NONE;
	const struct x86_decoded *dec = cached_at(s->hooks.cache, rip, true, X86_MODE_64);
	if (!dec || engine_special(dec->opcode))
		return SS_SHORT_NONE;
	s->blk_armed = false;
	s->steps += i;
	if (i && s->hooks.plain != ss_plain_nothing)
		s->hooks.plain_n(s->hooks.ctx, i, s->prev_cpl); /* the block's room was for all n */
	s->prev = rip;
	s->next_dec = dec;
	/* the loop fallen into, a counted one remembered with its bytes unchanged: armed now, as
	 * ss_block_arm would (else it does, the long way) */
	struct ss_block *lb = &s->blk_cache[slot_of(rip)];
	if (lb->start == rip && !lb->none && lb->counted && rip != s->loop_declined &&
	    same_words(lb)) {
		s->next_opcode_ip = 0;
		s->next_whole = false;
		if (ss_loop_arm(s, lb, frame_of(c), &c->rflags))
			return SS_SHORT_ARMED;
	}
	return SS_SHORT_FED;
}

/*
 * The short way of a block's breakpoint #DB (ss_plain_trap): where it came at a successor of the
 * block's branch (on the straight line before it: block_inner_trap), at the privilege level the
 * block ran at, the block's bytes unchanged (check_bytes' test), the next block one seen before
 * with its bytes unchanged and the hooks' room enough for both (the room only shrinks by the steps
 * fed: each ticks a counter at most once, spmu_counters_tick), the hook takes the block and its
 * branch at once (ss_hooks.block_branch) and the next block is armed: what block_stop,
 * ss_block_cut and ss_block_arm do, without the decodings they make on the way (the block's were
 * made and compared when it was first armed). Anything else goes the long way, nothing changed.
 */
enum ss_block_short ss_block_trap(struct ss_state *s, struct db_cpu_frame *c)
{
	const struct ss_block *b = s->blk;
	uint64_t rip = c->rip;
	bool taken = rip == b->to[0];
	if (!s->blk_branch || !s->hooks.block_branch || b->to[0] == b->to[1] ||
	    (!taken && rip != b->to[1]) || (c->cs & 3) != s->prev_cpl || !cs_64bit(c->cs) ||
	    s->vtf || ss_skip_every)
		return SS_SHORT_NONE;
	if (s->npre)
		ss_block_prefix_retire(s);
	if (rip > b->start && rip <= b->last)
		return block_inner_trap(s, b, c);
	/* b's bytes lie on its page (block_fits), present when b was armed: ss_block_intact's one
	 * probe says whether it still is (the engine never faults on it, fetch.c); the next
	 * block's too where it starts there (a fall-through, or a target on b's page), else its
	 * own page is probed (a target anywhere, branch_successors). */
	if (!ss_block_intact(s))
		return SS_SHORT_NONE;
	struct ss_block *nb = &s->blk_cache[slot_of(rip)];
	bool next_seen =
	    nb->start == rip && !nb->none &&
	    (nb == b || ((rip ^ b->start) < PAGE_4K ? same_words(nb) : present_same_words(nb)));
	/* a counted loop next is armed by ss_block_arm (FED), also where interrupts are enabled */
	bool next_loop = next_seen && nb->counted && rip != s->loop_declined && s->hooks.loop_room;
	bool next_known = next_seen && !next_loop && !(nb->to_start && (c->rflags & RFLAGS_IF)) &&
			  !ss_xlate_wanted(s, rip) && ss_prove_one(nb, frame_of(c));
	const struct x86_decoded *dec = NULL;
	if (!next_known) {
		/* the instruction there, decoded before it runs (as decode_step does), unless the
		 * engine has work for it (before_special writes the whole frame) */
		dec = cached_at(s->hooks.cache, rip, true, X86_MODE_64);
		if (!dec || engine_special(dec->opcode))
			return SS_SHORT_NONE;
	}
	if (s->blk_trips) /* a counted loop's exit: its runs but the last go first */
		ss_loop_retire(s, frame_of(c));
	/* the next block a chain's first (arm_chain): room for it and those after it */
	bool chain = next_known && chain_first(nb);
	if (b->kind == X86_BR_JCC)
		note_way(b, taken);
	const struct run_with_branch bb = {.n = b->n,
					   .from = b->last,
					   .to = rip,
					   .next_n =
					       next_known ? nb->n + (chain ? CHAIN_ROOM : 0) : 0,
					   .kind = b->kind,
					   .cpl = s->prev_cpl,
					   .taken = taken};
	if (!s->hooks.block_branch(s->hooks.ctx, &bb))
		return SS_SHORT_NONE;
	s->blk_armed = false;
	s->steps += b->n + 1u;
	s->view->cpl_from = s->view->cpl_to = s->prev_cpl;
	s->prev = rip;
	s->next_dec = dec; /* NULL: decoded when a trap needs it (a known block's start is plain) */
	if (!next_known)
		return SS_SHORT_FED;
	s->next_opcode_ip = 0;
	s->next_whole = false;
	if (!chain || !ss_chain_arm(s, nb, bb.next_n, false, &c->rflags, frame_of(c)))
		arm(s, nb, &c->rflags, false);
	return SS_SHORT_ARMED;
}

bool ss_block_intact(const struct ss_state *s)
{
	return cpu_probe_byte((const void *)s->blk_start) && same_words(s->blk);
}
