/* SPDX-License-Identifier: MIT */
/*
 * The code cache's private parts (option ss.xlate, docs/engine.md "Translated blocks"), shared
 * by xlate.c (the cache: its memory, its region, its checks, entering it), xlate_make.c
 * (translating a block, a target stub) and xlate_runs.c (the runs told to the hooks at a
 * hand-back, an interrupt or exception taken back to the original code). Not for the rest of
 * the engine (engine.h declares the four calls it makes).
 */
#ifndef ARCH_X86_STEP_XLATE_H
#define ARCH_X86_STEP_XLATE_H

#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/step/block.h"
#include "lib/x86_xlate.h"

#define XLATE_CODE_PAGES 1024 /* 4 MiB of translations a CPU, forgotten all at once when full */
#define XLATE_BLOCKS	 16384
#define XLATE_RUNS	 (2 * XLATE_BLOCKS)
#define XLATE_INSNS	 (8 * XLATE_BLOCKS)
#define XLATE_HASH	 32768	    /* a power of two */
#define XLATE_ORIG	 (1u << 20) /* bytes of the original code of the blocks translated */
#define XLATE_BLOCK_MAX	 BLOCK_MAX
#define XLATE_LOG_MIN	 8 /* fewer runs of room: stepped as before */
/* Runs told to the hooks at once: a whole log's, and a run or two a hand-back or cut adds
 * (the CPU's xl_cpu.batch). */
#define XLATE_BATCH (XLATE_LOG_CAP + 2)
/* Room for a block of the most instructions and stubs, in whole words. */
#define XLATE_BLOCK_BYTES                                                                          \
	ALIGN_UP((XLATE_BLOCK_MAX + 1) * X86_MAX_INSN_LENGTH + XLATE_JCC_LEN + 2 * XLATE_STUB_LEN, \
		 8)
/* Where a CPU's region lies: the first GiB boundary at least XLATE_GAP above the first code
 * it translates (past a static program's image and its brk heap, kernel/program.h), one
 * XLATE_STRIDE a CPU. */
#define XLATE_GAP	  (512ull << 20)
#define XLATE_ALIGN	  (1ull << 30)
#define XLATE_STRIDE	  (8ull << 20)
#define XLATE_REACH	  (1ull << 31)
#define USER_HALF_END	  0x0000800000000000ull /* the lower half: user addresses */
#define XLATE_TABLE_PAGES (XLATE_TABLE_SIZE / PAGE_4K)
#define XLATE_DATA_PAGES  (XLATE_DATA_SIZE / PAGE_4K)
/* A CPU's region: its data pages, the indirect branches' table, its code */
#define XLATE_REGION (XLATE_DATA_SIZE + XLATE_TABLE_SIZE + XLATE_CODE_PAGES * PAGE_4K)
_Static_assert(XLATE_REGION <= XLATE_STRIDE, "a CPU's region fits its stride");

/* One way out of a translated block: n plain steps, then the direct branch at `from` on to
 * `to` (taken or not), or (RUN_PLAIN) n plain steps on to `to`; an indirect branch's site (n
 * plain steps, then the branch at `from`, its target the log's next word says) or a target
 * of one (`to`: its target stub's run). */
enum xl_run_what { RUN_BRANCH, RUN_PLAIN, RUN_SITE, RUN_TARGET };
struct xl_run {
	uint64_t from, to;
	uint32_t stub; /* its stub's offset in the code */
	uint8_t n, kind, what;
	int8_t rsp; /* a site's stack work (struct x86_xlate_site) */
	bool taken;
};

/* A translated block: its code from `cc` (offset in the code), its body's instructions (n, the
 * branch's PUSH or Jcc among them) at insn[first..first+n), its stubs (or its indirect
 * branch's site) from body_end. Or a target stub (start: the target), the miss stub, or none:
 * no translation starts at `start`. */
enum xl_block_type { XB_NONE, XB_STUBS, XB_SITE, XB_TARGET, XB_MISS };
struct xl_block {
	uint64_t start;
	uint32_t cc, body_end, first, run;
	uint8_t n, nstubs, type;
	struct x86_xlate_site site;
	uint32_t orig;	   /* its original bytes, at xl_cpu.orig + orig */
	uint16_t orig_len; /* from start to past its branch */
};
struct xl_insn {
	uint16_t cc, orig; /* offsets from the block's cc and start */
};

struct xl_cpu {
	unsigned cpl;				 /* the code's privilege level: 0 or 3 */
	uint64_t data_pa, table_pa, code_pa, va; /* va: the region's user address, 0: none */
	uint8_t *data, *code;			 /* the kernel's view of them (the direct map) */
	uint64_t *table;
	bool tried;	  /* prepare ran (its memory is there where code is not NULL) */
	bool ready;	  /* the miss stub made, the table filled, for the region at va */
	bool stale;	  /* a run began or mappings changed since the blocks were checked */
	uint64_t last_va; /* where the region was mapped last (the translations' addresses) */
	uint8_t *orig;	  /* the blocks' original bytes, XLATE_ORIG of them */
	uint32_t norig;
	uint64_t step_at; /* an indirect branch that missed: stepped, not entered there */
	struct xl_block *blocks;
	struct xl_run *runs;
	struct xl_insn *insns;
	uint32_t *hash;		       /* block index + 1 by start; 0: none */
	struct run_with_branch *batch; /* XLATE_BATCH runs on their way to the hooks */
	uint8_t *scratch; /* a block's translation, made here, then copied in whole words */
	uint32_t used, nblocks, nruns, ninsns, gen, cap;
	uint32_t link_run; /* the run whose stub handed back, + 1: linked at the next entry */
};

/* The running CPU's cache for code of privilege level cpl (0 or 3). */
struct xl_cpu *xl_here(unsigned cpl);
/* Whether the instruction at ip may be translated into cache x (ring 0: xlate.c's range). */
bool xl_may_translate(const struct xl_cpu *x, uint64_t ip);
/* Ring 0's translations at a hand-back or cut: their code's bytes checked (xlate.c); a change
 * counted in s->xl_changed (the session fails: what ran is not known). */
void xl_ring0_checked(struct ss_state *s, struct xl_cpu *x);
/* The translated block (or none, or target stub: never found here) starting at start, or NULL. */
struct xl_block *xl_find(struct xl_cpu *x, uint64_t start);
/* Translate the block at start (d: its first instruction's decoding); NULL where none
 * (xlate_make.c). */
struct xl_block *xl_translate(struct ss_state *s, struct xl_cpu *x, uint64_t start,
			      const struct x86_decoded *d);
/* The target stub for block t, an indirect branch's target, unless one is there for it. */
void xl_add_target(struct xl_cpu *x, const struct xl_block *t);
/* Forget every translation (the region stays where it is), and the next start after it. */
void xl_forget(struct xl_cpu *x);
void xl_make_ready(struct xl_cpu *x);
/* Block number index into the lookup by start. */
void xl_insert(struct xl_cpu *x, uint32_t index);

static inline uint64_t xl_table_va(const struct xl_cpu *x)
{
	return x->va + XLATE_DATA_SIZE;
}

static inline uint64_t xl_code_va(const struct xl_cpu *x)
{
	return xl_table_va(x) + XLATE_TABLE_SIZE;
}

#endif
