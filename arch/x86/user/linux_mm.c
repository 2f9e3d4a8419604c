/* SPDX-License-Identifier: MIT */
/*
 * A Linux program's memory calls, with real effect on its page tables (docs/programs.md "Trace your
 * own program"). Every page they may name was mapped before the run (the segments, the stack, brk's
 * heap, the mmap arena: kernel/program_linux.c), so a call never allocates: it edits the 4 KiB
 * leaf entries (SDM Vol. 3A 4.5, Table 4-19) through the kernel's direct map and invalidates
 * the page (INVLPG). munmap clears P and marks the entry PTE_GONE (bit 9, ignored by the
 * processor: SDM Table 4-19 "Ignored"), keeping the frame for a later MAP_FIXED and for the
 * reset before the next run; PROT_NONE clears P alone. As on Linux a mapping may be writable
 * and executable at once (a JIT's code buffer) until the program asks for W^X (prctl
 * PR_SET_MDWE: then PROT_WRITE|PROT_EXEC, and mprotect giving execution to pages that lacked
 * it, are -EACCES: mm/mmap.c, map_deny_write_exec). The kernel's own memory stays W^X; the
 * single-step engine decodes the bytes as they are when they run (code that changes).
 * Like linux.c this is part of every traced run: .text.workload, nothing called outside it.
 */
#include "arch/x86/user/linux_mm.h"
#include "arch/x86/cpu/cpu.h"
#include "arch/x86/user/linux_abi.h"
#include "arch/x86/user/linux_files.h"
#include "arch/x86/cpu/pagetable.h"
#include "arch/x86/cpu/paging.h"
#include "kernel/arch_workloads.h"
#include "kernel/boot_info.h"

#define ERR(e)	 ((uint64_t) - (int64_t)(e))
#define PTE_GONE BIT(9) /* munmap'ed: P clear, the frame kept (an ignored bit) */
#define PAGE	 LNX_PAGE
#define PT_SHIFT 12
#define PT_BITS	 9
#define LEVEL_HI 39 /* PML4's index: bits 47:39 */
#define HALF_END 0x0000800000000000ull
#define PROT_RWX (LNX_PROT_READ | LNX_PROT_WRITE | LNX_PROT_EXEC)

enum region { R_NONE, R_SEGMENT, R_STACK, R_HEAP, R_ARENA };

WORKLOAD_SECTION static uint64_t *table_at(uint64_t phys)
{
	return (uint64_t *)(KERNEL_DIRECT_BASE + (phys & PTE_ADDR));
}

/* The page table (512 leaf entries) that maps va, or NULL. */
WORKLOAD_SECTION static uint64_t *table_of(uint64_t va)
{
	uint64_t cr3;
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	uint64_t t = cr3;
	for (unsigned shift = LEVEL_HI; shift > PT_SHIFT; shift -= PT_BITS) {
		uint64_t e = table_at(t)[(va >> shift) & (PT_ENTRIES - 1)];
		if (!(e & PTE_P) || (e & PTE_PS))
			return 0;
		t = e;
	}
	return table_at(t);
}

/* The 4 KiB leaf entry of a user page that has a frame (present or not), or NULL. */
WORKLOAD_SECTION static uint64_t *pte_of(uint64_t va)
{
	uint64_t *t = table_of(va);
	uint64_t *pte = t ? t + ((va >> PT_SHIFT) & (PT_ENTRIES - 1)) : 0;
	return pte && (*pte & PTE_ADDR) && (*pte & PTE_US) ? pte : 0;
}

WORKLOAD_SECTION static void set_pte(uint64_t *pte, uint64_t va, uint64_t flags)
{
	*pte = (*pte & PTE_ADDR) | PTE_US | flags;
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

WORKLOAD_SECTION bool linux_pages_ok(uint64_t p, uint64_t n, bool write)
{
	if (n == 0)
		return true;
	if (p >= HALF_END || n > HALF_END - p)
		return false;
	for (uint64_t va = p & ~(PAGE - 1); va < p + n; va += PAGE) {
		const uint64_t *pte = pte_of(va);
		if (!pte || !(*pte & PTE_P) || (write && !(*pte & PTE_RW)))
			return false;
	}
	return true;
}

WORKLOAD_SECTION static bool in(uint64_t va, uint64_t lo, uint64_t hi)
{
	return va >= lo && va < hi;
}

/* Which of the program's areas page va lies in; *seg: the segment's index. */
WORKLOAD_SECTION static enum region region_of(const struct user_run *u, uint64_t va, int *seg)
{
	const struct elf_user_image *img = u->img;
	for (unsigned i = 0; img && i < img->n; i++)
		if (in(va, img->seg[i].vaddr & ~(PAGE - 1),
		       img->seg[i].vaddr + img->seg[i].memsz)) {
			*seg = (int)i;
			return R_SEGMENT;
		}
	if (in(va, u->stack_lo, u->stack_hi))
		return R_STACK;
	if (in(va, u->brk_lo, u->brk_hi))
		return R_HEAP;
	return in(va, u->mmap_lo, u->mmap_hi) ? R_ARENA : R_NONE;
}

/* Whether the program has page va mapped, as Linux would see it: a segment or stack page not
 * unmapped; a heap page below the break, an arena page below the next free byte. */
WORKLOAD_SECTION static bool mapped(const struct user_run *u, uint64_t va, const uint64_t *pte)
{
	int seg;
	enum region r = region_of(u, va, &seg);
	if (!pte || (*pte & PTE_GONE) || r == R_NONE)
		return false;
	return r == R_HEAP ? va < u->brk : r == R_ARENA ? va < u->mmap_next : true;
}

enum span_need { SPAN_FRAME, SPAN_MAPPED, SPAN_FREE };

/* Every page of [lo, lo + len) in the program's areas with a frame (SPAN_FRAME), mapped
 * (SPAN_MAPPED), or none of them mapped (SPAN_FREE). */
WORKLOAD_SECTION static bool span(const struct user_run *u, uint64_t lo, uint64_t len,
				  enum span_need need)
{
	int seg;
	for (uint64_t va = lo; va < lo + len; va += PAGE) {
		const uint64_t *pte = pte_of(va);
		bool m = mapped(u, va, pte);
		if (need == SPAN_FREE
			? m
			: !pte || region_of(u, va, &seg) == R_NONE || (need == SPAN_MAPPED && !m))
			return false;
	}
	return true;
}

/* Area k's bounds (USER_MM_AREAS: the segments' span, the stack, the heap's room, the arena). */
WORKLOAD_SECTION static void area(const struct user_run *u, unsigned k, uint64_t *lo, uint64_t *hi)
{
	const uint64_t b[USER_MM_AREAS][2] = {{u->img ? u->img->lo : 0, u->img ? u->img->hi : 0},
					      {u->stack_lo, u->stack_hi},
					      {u->brk_lo, u->brk_hi},
					      {u->mmap_lo, u->mmap_hi}};
	*lo = b[k][0];
	*hi = b[k][1];
}

/* [lo, hi) changed: the part in each area widens that area's range (put back before the next
 * run: kept per area, the span between them is terabytes). */
WORKLOAD_SECTION static void touched(struct user_run *u, uint64_t lo, uint64_t hi)
{
	for (unsigned k = 0; k < USER_MM_AREAS; k++) {
		uint64_t a, b;
		area(u, k, &a, &b);
		a = lo > a ? lo : a;
		b = hi < b ? hi : b;
		if (a >= b)
			continue;
		if (!u->end.mm_hi[k] || a < u->end.mm_lo[k])
			u->end.mm_lo[k] = a;
		if (b > u->end.mm_hi[k])
			u->end.mm_hi[k] = b;
	}
}

WORKLOAD_SECTION static uint64_t prot_flags(uint64_t prot, uint64_t nx)
{
	return (prot ? PTE_P : 0) | (prot & LNX_PROT_WRITE ? PTE_RW : 0) |
	       (prot & LNX_PROT_EXEC ? 0 : nx);
}

WORKLOAD_SECTION static void protect(struct user_run *u, uint64_t lo, uint64_t len, uint64_t flags)
{
	for (uint64_t va = lo; va < lo + len; va += PAGE) {
		uint64_t *pte = pte_of(va);
		if (pte)
			set_pte(pte, va, flags);
	}
	touched(u, lo, lo + len);
}

/* The page's bytes as the kernel mapped it: a segment's from the file (zero past its file
 * size), any other zero; through the direct map (the page may be read-only to the program). */
WORKLOAD_SECTION static void refill(const struct elf_user_image *img, uint64_t va, uint64_t pte)
{
	uint64_t dst = KERNEL_DIRECT_BASE + (pte & PTE_ADDR), n = PAGE;
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(0) : "memory");
	for (unsigned i = 0; img && i < img->n; i++) {
		const struct elf_user_segment *s = &img->seg[i];
		uint64_t lo = va > s->vaddr ? va : s->vaddr, file_hi = s->vaddr + s->filesz;
		uint64_t hi = va + PAGE < file_hi ? va + PAGE : file_hi;
		if (lo >= hi)
			continue;
		const uint8_t *src = img->elf.data + s->offset + (lo - s->vaddr);
		dst = KERNEL_DIRECT_BASE + (pte & PTE_ADDR) + (lo - va);
		n = hi - lo;
		__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	}
}

WORKLOAD_SECTION static uint64_t page_up(uint64_t n)
{
	return (n + PAGE - 1) & ~(PAGE - 1);
}

/* MAP_FIXED's pages made fresh: writable for the copy, zeroed, no longer unmapped. */
WORKLOAD_SECTION static void fresh(struct user_run *u, uint64_t lo, uint64_t len)
{
	for (uint64_t va = lo; va < lo + len; va += PAGE) {
		uint64_t *pte = pte_of(va);
		set_pte(pte, va, PTE_P | PTE_RW | u->nx);
		refill(0, va, *pte);
	}
	touched(u, lo, lo + len);
}

/* Where a MAP_FIXED mapping goes: addr, or -errno. Only where the kernel mapped memory before
 * the run (the arena, the heap's room, the segments, the stack): elsewhere -ENOMEM, counted
 * for the report after the run. */
WORKLOAD_SECTION static uint64_t fixed_at(struct user_run *u, uint64_t addr, uint64_t len,
					  uint64_t flags)
{
	if (addr & (PAGE - 1))
		return ERR(LNX_EINVAL);
	if (addr >= HALF_END || len > HALF_END - addr || !span(u, addr, len, SPAN_FRAME)) {
		if (!u->end.fixed_refused++)
			u->end.fixed_refused_at = addr;
		return ERR(LNX_ENOMEM);
	}
	if ((flags & LNX_MAP_FIXED_NOREPLACE) && !span(u, addr, len, SPAN_FREE))
		return ERR(LNX_EEXIST);
	fresh(u, addr, len);
	if (in(addr, u->mmap_lo, u->mmap_hi) && addr + len > u->mmap_next)
		u->mmap_next = addr + len; /* the arena's next mappings go above it */
	return addr;
}

/* Under PR_SET_MDWE (u->mdwe): a mapping both writable and executable. */
WORKLOAD_SECTION static bool denied_write_exec(const struct user_run *u, uint64_t prot)
{
	return u->mdwe && (prot & LNX_PROT_WRITE) && (prot & LNX_PROT_EXEC);
}

/* Under PR_SET_MDWE: mprotect giving execution to a page that lacked it (Linux decides per
 * VMA; here per page, from its entry's NX bit, or P clear for PROT_NONE). */
WORKLOAD_SECTION static bool denied_exec_gain(const struct user_run *u, uint64_t lo, uint64_t len,
					      uint64_t prot)
{
	if (!u->mdwe || !(prot & LNX_PROT_EXEC))
		return false;
	for (uint64_t va = lo; va < lo + len; va += PAGE) {
		const uint64_t *pte = pte_of(va);
		if (pte && (!(*pte & PTE_P) || (u->nx && (*pte & PTE_NX))))
			return true;
	}
	return false;
}

/* Anonymous memory and private copies of files (read into it, then the protection asked for).
 * Without MAP_FIXED from the arena, never reused: fresh pages are zero, as Linux's are. */
WORKLOAD_SECTION uint64_t linux_mmap(struct user_run *u, const uint64_t *a)
{
	uint64_t len = page_up(a[1]), prot = a[2], flags = a[3];
	if (!len || len < a[1])
		return ERR(LNX_EINVAL);
	if (denied_write_exec(u, prot))
		return ERR(LNX_EACCES);
	bool fixed = flags & (LNX_MAP_FIXED | LNX_MAP_FIXED_NOREPLACE);
	uint64_t at;
	if (fixed) {
		at = fixed_at(u, a[0], len, flags);
		if ((int64_t)at < 0)
			return at;
	} else {
		if (len > u->mmap_hi - u->mmap_next)
			return ERR(LNX_ENOMEM);
		at = u->mmap_next;
		u->mmap_next += len;
	}
	if (!(flags & LNX_MAP_ANONYMOUS)) {
		uint64_t r = linux_map_file(u, at, a[1], a[4], a[5]);
		if ((int64_t)r < 0) {
			if (!fixed)
				u->mmap_next -= len;
			return r;
		}
	}
	if ((prot & PROT_RWX) != (LNX_PROT_READ | LNX_PROT_WRITE))
		protect(u, at, len, prot_flags(prot, u->nx));
	return at;
}

WORKLOAD_SECTION uint64_t linux_munmap(struct user_run *u, uint64_t addr, uint64_t len)
{
	if ((addr & (PAGE - 1)) || !len || addr >= HALF_END || page_up(len) > HALF_END - addr)
		return ERR(LNX_EINVAL);
	len = page_up(len);
	/* Only where the program has memory; a table's entries in one tight loop: a free() of a
	 * large block runs here with interrupts off, its branches filling the BTS buffer. */
	for (unsigned k = 0; k < USER_MM_AREAS; k++) {
		uint64_t a, b;
		area(u, k, &a, &b);
		uint64_t va = addr > (a & ~(PAGE - 1)) ? addr : (a & ~(PAGE - 1));
		uint64_t end = addr + len < b ? addr + len : b;
		while (va < end) {
			uint64_t *t = table_of(va);
			unsigned i = (va >> PT_SHIFT) & (PT_ENTRIES - 1);
			for (; t && va < end && i < PT_ENTRIES; i++, va += PAGE)
				if ((t[i] & PTE_ADDR) && (t[i] & PTE_US)) {
					t[i] = (t[i] & PTE_ADDR) | PTE_US | PTE_GONE;
					__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
				}
			if (!t)
				va =
				    (va | (PAGE * PT_ENTRIES - 1)) + 1; /* no table: the next one */
		}
	}
	touched(u, addr, addr + len);
	return 0; /* unmapping what is not mapped is no error (Linux's munmap) */
}

WORKLOAD_SECTION uint64_t linux_mprotect(struct user_run *u, uint64_t addr, uint64_t len,
					 uint64_t prot)
{
	if ((addr & (PAGE - 1)) || (prot & ~(PROT_RWX | LNX_PROT_GROWS)))
		return ERR(LNX_EINVAL);
	len = page_up(len);
	if (denied_write_exec(u, prot))
		return ERR(LNX_EACCES);
	if (addr >= HALF_END || len > HALF_END - addr || !span(u, addr, len, SPAN_MAPPED))
		return ERR(LNX_ENOMEM);
	if (denied_exec_gain(u, addr, len, prot))
		return ERR(LNX_EACCES);
	protect(u, addr, len, prot_flags(prot & PROT_RWX, u->nx));
	return 0;
}

/* MADV_DONTNEED: the pages as a fresh mapping has them (anonymous ones zero, a segment's the
 * file's bytes again); every other advice is accepted and changes nothing. */
WORKLOAD_SECTION uint64_t linux_madvise(struct user_run *u, uint64_t addr, uint64_t len,
					uint64_t advice)
{
	if (addr & (PAGE - 1))
		return ERR(LNX_EINVAL);
	len = page_up(len);
	if (advice != LNX_MADV_DONTNEED || !len)
		return 0;
	if (addr >= HALF_END || len > HALF_END - addr || !span(u, addr, len, SPAN_MAPPED))
		return ERR(LNX_ENOMEM);
	int seg;
	for (uint64_t va = addr; va < addr + len; va += PAGE)
		refill(region_of(u, va, &seg) == R_SEGMENT ? u->img : 0, va, *pte_of(va));
	touched(u, addr, addr + len);
	return 0;
}

/* Not traced (before a run): the pages the last run's calls changed, as program_map left them. */
void arch_user_linux_mm_restore(const struct elf_user_image *img, uint64_t lo, uint64_t hi)
{
	uint64_t nx = paging_nx_enabled() ? PTE_NX : 0;
	for (uint64_t va = lo & ~(PAGE - 1); va < hi; va += PAGE) {
		uint64_t *pte = pte_of(va), flags = PTE_P | PTE_RW | nx;
		if (!pte)
			continue;
		for (unsigned i = 0; i < img->n; i++)
			if (in(va, img->seg[i].vaddr & ~(PAGE - 1),
			       img->seg[i].vaddr + img->seg[i].memsz))
				flags = PTE_P | (img->seg[i].write ? PTE_RW : 0) |
					(img->seg[i].exec ? 0 : nx);
		set_pte(pte, va, flags);
		refill(img, va, *pte);
	}
	tlb_flush_nonglobal(); /* a run on another CPU may have left this one's entries stale */
}
