/* SPDX-License-Identifier: MIT */
/*
 * The code cache (option ss.xlate, docs/engine.md "Translated blocks"): a second producer of
 * runs behind run.h. Where per-block stepping would arm a block of ring 3 code, the block is
 * translated once (lib/x86_xlate.h: its plain instructions copied, its direct branch ending in
 * a stub per way out that logs the way taken) and the workload runs the translation instead,
 * TF clear, no breakpoint armed, from block to block through linked stubs, until a way out
 * leads somewhere not translated, the log is full, or an interrupt or exception comes. Then
 * the runs the log holds go to the hooks (ss_hooks.block_branch, plain_n) in the order they
 * ran, exactly as per-block stepping's traps would have told them, and the workload goes on at
 * the original address, stepped.
 *
 * Exact by construction: a translation is made only of instructions block.c would run in a
 * block (ss_insn_plain) from read-only pages, and of direct branches whose ways are known from
 * their bytes; the log holds which way each branch went; the hooks promised room for every run
 * the log can hold before the workload entered (ss_hooks.runs_room: no counter overflows, no
 * BTS threshold, nothing the session does per step); an interrupt or fault inside a
 * translation is taken back to the original instruction it stands for, the runs before it
 * told first (ss_xlate_cut). Translations are forgotten at each run's start and whenever the
 * workload changes its mappings (INVLPG, MOV CR3: ss_xlate_code_changed).
 *
 * Per CPU: a data page (lib/x86_xlate.h: scratch words, the log) and XLATE_CODE_PAGES of code,
 * allocated at the first translation of a run and mapped at a user address within RIP-relative
 * reach of the workload's code (user: the stubs run at CPL 3), unmapped at the run's end.
 */
#include "arch/x86/step/xlate.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/cpu/paging.h"
#include "arch/x86/cpu/vectors.h"
#include "kernel/arch_cpu.h"
#include "kernel/boot_info.h"
#include "kernel/arch_step.h"
#include "kernel/memory.h"

static bool xlate_on;
/* Each CPU's caches: ring 0's (supervisor pages near the kernel's image) and ring 3's. */
static struct xl_cpu xl_cpus[2][MAX_CPUS];

struct xl_cpu *xl_here(unsigned cpl)
{
	struct xl_cpu *x = &xl_cpus[cpl == 3][this_cpu()->index];
	x->cpl = cpl == 3 ? 3 : 0;
	return x;
}

/* Ring 0 code that may run translated: the compiled-C workloads (kernel/workloads_c.c,
 * WORKLOAD_XLATE_SECTION), code that writes no code. That it writes none is checked at every
 * hand-back and cut (xl_ring0_checked): a change fails the session. Other ring 0 code (code
 * that rewrites itself through another mapping, smcblock; the system calls' side, which edits
 * page tables) runs per block, its stores proven (prove.c). */
extern const char __workload_xlate_start[], __workload_xlate_end[];

bool xl_may_translate(const struct xl_cpu *x, uint64_t ip)
{
	return x->cpl == 3 ||
	       (ip >= (uint64_t)__workload_xlate_start && ip < (uint64_t)__workload_xlate_end);
}
static volatile uint32_t code_gen; /* ss_xlate_code_changed's calls, on any CPU */

bool ss_xlate_map_on;

void arch_set_step_xlate_map(bool on)
{
	ss_xlate_map_on = on;
}

static void say_map(const struct xl_cpu *x, void (*say)(const char *fmt, ...));

void ss_xlate_say_map(void (*say)(const char *fmt, ...))
{
	for (unsigned cpl = 0; cpl <= 3; cpl += 3)
		say_map(xl_here(cpl), say);
}

static void say_map(const struct xl_cpu *x, void (*say)(const char *fmt, ...))
{
	/* the region where the run had it (unmapped since, kept for the next run) */
	uint64_t code = x->last_va + XLATE_DATA_SIZE + XLATE_TABLE_SIZE;
	if (!x->code || !x->last_va)
		return;
	say("xlate-region cpu=%u lo=%#lx hi=%#lx\n", this_cpu()->index, code,
	    code + XLATE_CODE_PAGES * PAGE_4K);
	for (uint32_t i = 0; i < x->nblocks; i++) {
		const struct xl_block *b = &x->blocks[i];
		if (b->type != XB_STUBS && b->type != XB_SITE)
			continue;
		for (unsigned k = 0; k < b->n; k++)
			say("xlate-map cpu=%u cc=%#lx orig=%#lx%s\n", this_cpu()->index,
			    code + b->cc + x->insns[b->first + k].cc,
			    b->start + x->insns[b->first + k].orig,
			    b->type == XB_SITE && k + 1 == b->n ? " site" : "");
	}
}

void arch_set_step_xlate(bool on)
{
	xlate_on = on;
}

_Static_assert(VEC_XLATE_HANDBACK == XLATE_HANDBACK_VEC, "the stubs' INT is the gate's vector");

bool ss_xlate_wanted(const struct ss_state *s, uint64_t ip)
{
	return xlate_on && s->hooks.runs_room && s->hooks.runs_feed &&
	       (s->prev_cpl == 3 || (s->prev_cpl == 0 && xl_may_translate(xl_here(0), ip)));
}

void ss_xlate_code_changed(void)
{
	__atomic_add_fetch(&code_gen, 1, __ATOMIC_RELAXED);
}

void xl_forget(struct xl_cpu *x)
{
	x->used = x->nblocks = x->nruns = x->ninsns = x->norig = 0;
	x->link_run = 0;
	x->step_at = 0;
	x->ready = false;
	for (unsigned i = 0; i < XLATE_HASH; i++)
		x->hash[i] = 0;
}

/* After forget, with the region mapped: the miss stub first in the code (a block of its own
 * for cuts), every table slot going to it. */
void xl_make_ready(struct xl_cpu *x)
{
	uint8_t miss[8] = {0};
	x86_xlate_miss(miss);
	__builtin_memcpy(x->code, miss, sizeof(miss));
	x->blocks[0] = (struct xl_block){.cc = 0, .body_end = 0, .type = XB_MISS};
	x->nblocks = 1;
	x->used = sizeof(miss);
	for (unsigned i = 0; i < (1u << XLATE_TABLE_BITS); i++)
		x->table[i] = xl_code_va(x);
	x->ready = true;
}

/* The CPU's tables and pages (cleared: page_alloc_virt), tried once a boot: where memory is
 * short, the cache stays without them (x->code NULL) and blocks run as before. */
static bool prepare(struct xl_cpu *x)
{
	if (x->tried)
		return x->code != NULL;
	x->tried = true;
	x->hash = page_alloc_virt(XLATE_HASH * sizeof(uint32_t));
	x->blocks = page_alloc_virt(XLATE_BLOCKS * sizeof(struct xl_block));
	x->runs = page_alloc_virt(XLATE_RUNS * sizeof(struct xl_run));
	x->insns = page_alloc_virt(XLATE_INSNS * sizeof(struct xl_insn));
	x->batch = page_alloc_virt(XLATE_BATCH * sizeof(struct run_with_branch));
	x->scratch = page_alloc_virt(XLATE_BLOCK_BYTES);
	x->orig = page_alloc_virt(XLATE_ORIG);
	x->data_pa = page_alloc(XLATE_DATA_PAGES);
	x->table_pa = page_alloc_uncleared(XLATE_TABLE_PAGES);
	x->code_pa = page_alloc_uncleared(XLATE_CODE_PAGES);
	if (!x->hash || !x->blocks || !x->runs || !x->insns || !x->batch || !x->scratch ||
	    !x->orig || !x->data_pa || !x->table_pa || !x->code_pa) {
		x->code = NULL;
		return false;
	}
	x->data = arch_phys_to_virt(x->data_pa);
	x->table = arch_phys_to_virt(x->table_pa);
	x->code = arch_phys_to_virt(x->code_pa);
	return true;
}

static void unmap(struct xl_cpu *x)
{
	if (!x->va)
		return;
	for (uint64_t off = 0; off < XLATE_REGION; off += PAGE_4K)
		paging_unmap_kernel_4k(x->va + off);
	x->va = 0;
}

static bool map_page(const struct xl_cpu *x, uint64_t va, uint64_t pa, bool writable, bool exec)
{
	if (x->cpl == 3)
		return paging_map_user_4k(va, pa, writable, exec);
	return exec ? paging_map_kernel_text_4k(va, pa) : paging_map_kernel_4k(va, pa, writable);
}

/* Map the region near `near` (a code address), where nothing is mapped: for ring 3 code at
 * user addresses above it, for ring 0 code (the kernel's image) below KERNEL_VIRT_BASE. */
static bool map_near(struct xl_cpu *x, uint64_t near, unsigned cpu)
{
	uint64_t va =
	    x->cpl == 3 ? ALIGN_UP(near + XLATE_GAP, XLATE_ALIGN) : KERNEL_VIRT_BASE - XLATE_ALIGN;
	va += (uint64_t)cpu * XLATE_STRIDE;
	if (x->cpl == 3 &&
	    (va + XLATE_REGION > USER_HALF_END || va + XLATE_REGION - near >= XLATE_REACH))
		return false;
	if (x->cpl == 0 && (va + XLATE_REGION > KERNEL_VIRT_BASE || near - va >= XLATE_REACH))
		return false;
	for (uint64_t off = 0; off < XLATE_REGION; off += PAGE_4K) {
		uint64_t pa, flags, size;
		if (paging_translate(va + off, &pa, &flags, &size))
			return false;
	}
	if (va != x->last_va)
		xl_forget(x); /* the translations' addresses are the region's */
	x->last_va = va;
	x->va = va;
	/* data read and written by the stubs; table read by them; code run (user pages for ring
	 * 3's stubs, supervisor pages for ring 0's: SMEP and SMAP keep each to its own), all
	 * written by the kernel through the direct map */
	uint64_t at = va;
	for (uint64_t p = 0; p < XLATE_DATA_PAGES; p++, at += PAGE_4K)
		if (!map_page(x, at, x->data_pa + p * PAGE_4K, true, false))
			goto fail;
	for (uint64_t p = 0; p < XLATE_TABLE_PAGES; p++, at += PAGE_4K)
		if (!map_page(x, at, x->table_pa + p * PAGE_4K, false, false))
			goto fail;
	for (uint64_t p = 0; p < XLATE_CODE_PAGES; p++, at += PAGE_4K)
		if (!map_page(x, at, x->code_pa + p * PAGE_4K, false, true))
			goto fail;
	return true;
fail:
	unmap(x);
	return false;
}

void ss_xlate_reset(struct ss_state *s)
{
	s->xl_active = false;
	for (unsigned cpl = 0; cpl <= 3; cpl += 3) {
		struct xl_cpu *x = xl_here(cpl);
		unmap(x);
		x->stale = true; /* kept for the next run, checked before it enters them */
		x->link_run = 0;
		x->step_at = 0;
	}
}

static bool still_valid(const struct xl_cpu *x);

/* Whether every block translated still stands for the code there: its bytes as they were, on
 * read-only pages (a run may load other code there, a system call change its mappings). */
void xl_ring0_checked(struct ss_state *s, struct xl_cpu *x)
{
	if (x->cpl == 0 && !still_valid(x)) {
		s->xl.changed++;
		xl_forget(x);
	}
}

static bool still_valid(const struct xl_cpu *x)
{
	for (uint32_t i = 0; i < x->nblocks; i++) {
		const struct xl_block *b = &x->blocks[i];
		if (b->type != XB_STUBS && b->type != XB_SITE)
			continue; /* none: stepped however its bytes are; stubs: of a block */
		uint64_t last = b->start + b->orig_len - 1;
		if (!ss_code_readonly(b->start) || !ss_code_readonly(last) ||
		    !ss_code_readable(b->start) || !ss_code_readable(last))
			return false;
		const uint8_t *now = (const uint8_t *)b->start, *then = x->orig + b->orig;
		for (unsigned k = 0; k < b->orig_len; k++)
			if (now[k] != then[k])
				return false;
	}
	return true;
}

static unsigned hash_of(uint64_t start)
{
	return (unsigned)((start ^ (start >> 13)) * 0x9e3779b1u) & (XLATE_HASH - 1);
}

struct xl_block *xl_find(struct xl_cpu *x, uint64_t start)
{
	for (unsigned h = hash_of(start), i = 0; i < XLATE_HASH;
	     i++, h = (h + 1) & (XLATE_HASH - 1)) {
		uint32_t k = x->hash[h];
		if (!k)
			return NULL;
		if (x->blocks[k - 1].start == start)
			return &x->blocks[k - 1];
	}
	return NULL;
}

void xl_insert(struct xl_cpu *x, uint32_t index)
{
	unsigned h = hash_of(x->blocks[index].start);
	while (x->hash[h])
		h = (h + 1) & (XLATE_HASH - 1);
	x->hash[h] = index + 1;
}

/* How many runs the log may take at the entry: the hooks take them with nothing to ask, and
 * one more (the run a full log hands back unlogged, or the part of a run a cut adds). */
static uint32_t room(const struct ss_state *s)
{
	uint64_t k = XLATE_LOG_CAP;
	for (; k >= XLATE_LOG_MIN; k /= 2)
		if (s->hooks.runs_room(s->hooks.ctx, s->prev_cpl, (k + 1) * (XLATE_BLOCK_MAX + 1),
				       k + 1))
			return (uint32_t)k;
	return 0;
}

bool ss_xlate_enter(struct ss_state *s, struct trap_frame *f, const struct x86_decoded *d)
{
	if (!xlate_on || (s->prev_cpl != 3 && s->prev_cpl != 0) || (f->cs & 3) != s->prev_cpl ||
	    !s->hooks.runs_room || !s->hooks.runs_feed || s->hooks.plain == ss_plain_nothing ||
	    s->vtf || ss_skip_every || s->npre || s->blk_armed)
		return false;
	struct xl_cpu *x = xl_here(s->prev_cpl);
	if (!xl_may_translate(x, f->rip))
		return false;
	if (f->rip == x->step_at) { /* an indirect branch that missed: stepped */
		x->step_at = 0;
		return false;
	}
	uint32_t cap = room(s);
	if (!cap || !prepare(x))
		return false;
	if (!x->va && !map_near(x, f->rip, this_cpu()->index))
		return false;
	uint32_t gen = __atomic_load_n(&code_gen, __ATOMIC_RELAXED);
	if (gen != x->gen) {
		x->stale = true;
		x->gen = gen;
	}
	if (x->stale) {
		if (!still_valid(x)) {
			xl_forget(x);
			s->xl.restarts++;
		}
		x->stale = false;
	}
	if (!x->ready)
		xl_make_ready(x);
	struct xl_block *b = xl_find(x, f->rip);
	if (!b && !(b = xl_translate(s, x, f->rip, d)))
		return false;
	if (b->type == XB_NONE)
		return false; /* no translation starts here */
	if (x->link_run) {
		const struct xl_run *w = &x->runs[x->link_run - 1];
		if (w->to == b->start)
			x86_xlate_stub_link(x->code + w->stub, xl_code_va(x) + w->stub,
					    xl_code_va(x) + b->cc);
		x->link_run = 0;
	}
	__builtin_memcpy(x->data + XLATE_D_LEFT, &(uint64_t){cap}, sizeof(uint64_t));
	x->cap = cap;
	ss_block_idle(s);
	f->rflags &= ~RFLAGS_TF;
	f->rip = xl_code_va(x) + b->cc;
	s->xl_active = true;
	s->xl.entries++;
	return true;
}
