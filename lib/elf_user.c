/* SPDX-License-Identifier: MIT */
#include "lib/elf_user.h"
#include "lib/fmt.h"

#define PAGE_DOWN(x) ((x) & ~(ELF_USER_PAGE - 1))
#define PAGE_UP(x)   PAGE_DOWN((x) + ELF_USER_PAGE - 1)

__attribute__((format(printf, 3, 4))) static bool refuse(char *why, size_t n, const char *f, ...)
{
	if (why && n) {
		va_list ap;
		va_start(ap, f);
		fmt_vsnprintf(why, n, f, ap);
		va_end(ap);
	}
	return false;
}

/* The general checks of lib/elf.c, said for a user program. */
static bool elf_refusal(enum elf_status st, int bad_phdr, uint64_t lo, char *why, size_t n)
{
	switch (st) {
	case ELF_ERR_TYPE:
		return refuse(why, n,
			      "not an executable (e_type is neither ET_EXEC nor ET_DYN): link with "
			      "-static -no-pie at the user window %#lx, or -static-pie",
			      (unsigned long)lo);
	case ELF_ERR_SEG_BELOW_BASE:
		return refuse(why, n,
			      "program header %d: a PT_LOAD segment lies below the user window "
			      "(%#lx): link the program there (the example's linker script does)",
			      bad_phdr, (unsigned long)lo);
	default:
		if (bad_phdr >= 0)
			return refuse(why, n, "program header %d: %s", bad_phdr, elf_strerror(st));
		return refuse(why, n, "%s", elf_strerror(st));
	}
}

/* Dynamic section tags and the one relocation a static PIE needs (System V ABI "Dynamic
 * Section"; x86-64 psABI, Table "Relocation Types": R_X86_64_RELATIVE, B + A). */
#define DT_NULL		  0
#define DT_NEEDED	  1
#define DT_PLTRELSZ	  2
#define DT_RELA		  7
#define DT_RELASZ	  8
#define DT_RELAENT	  9
#define DT_REL		  17
#define DT_JMPREL	  23
#define R_X86_64_NONE	  0
#define R_X86_64_RELATIVE 8
#define ELF_DYN_SIZE	  16 /* Elf64_Dyn: d_tag, d_val */

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

/* The file offset of [vaddr, vaddr + len) of a PT_LOAD segment's file bytes, or false. */
static bool file_offset_of(const struct elf_user_image *img, uint64_t vaddr, uint64_t len,
			   uint64_t *off)
{
	for (unsigned i = 0; i < img->n; i++) {
		const struct elf_user_segment *s = &img->seg[i];
		uint64_t lo = s->vaddr - img->bias;
		if (vaddr >= lo && vaddr - lo <= s->filesz && len <= s->filesz - (vaddr - lo)) {
			*off = s->offset + (vaddr - lo);
			return true;
		}
	}
	return false;
}

/* [a, a + 8) (a link-time address) inside one segment's memory. */
static bool in_segment(const struct elf_user_image *img, uint64_t a)
{
	for (unsigned i = 0; i < img->n; i++) {
		const struct elf_user_segment *s = &img->seg[i];
		uint64_t lo = s->vaddr - img->bias;
		if (a >= lo && a - lo < s->memsz && s->memsz - (a - lo) >= sizeof(uint64_t))
			return true;
	}
	return false;
}

/* A position-independent program's dynamic section: relocations R_X86_64_RELATIVE only (what a
 * static PIE has), every one inside the program's own memory. */
static bool dyn_relocations(struct elf_user_image *out, uint64_t dyn_off, uint64_t dyn_size,
			    char *why, size_t n)
{
	const uint8_t *d = out->elf.data;
	uint64_t rela = 0, relasz = 0, relaent = sizeof(struct elf_user_rela), pltrelsz = 0;
	bool have_rela = false;
	for (uint64_t at = dyn_off; at + ELF_DYN_SIZE <= dyn_off + dyn_size; at += ELF_DYN_SIZE) {
		uint64_t tag = u64_at(d + at), val = u64_at(d + at + 8);
		if (tag == DT_NULL)
			break;
		if (tag == DT_NEEDED)
			return refuse(why, n,
				      "the program needs shared libraries (DT_NEEDED); accepted: "
				      "statically linked (-static or -static-pie)");
		if (tag == DT_REL)
			return refuse(why, n, "DT_REL relocations; accepted: DT_RELA (x86-64)");
		if (tag == DT_RELA) {
			rela = val;
			have_rela = true;
		} else if (tag == DT_RELASZ) {
			relasz = val;
		} else if (tag == DT_RELAENT) {
			relaent = val;
		} else if (tag == DT_PLTRELSZ) {
			pltrelsz = val;
		} else if (tag == DT_JMPREL && pltrelsz) {
			return refuse(why, n,
				      "PLT relocations (DT_JMPREL): the program is "
				      "dynamically linked; accepted: -static-pie");
		}
	}
	if (!have_rela || !relasz)
		return true; /* nothing to relocate */
	if (relaent != sizeof(struct elf_user_rela) || relasz % relaent)
		return refuse(why, n, "DT_RELAENT %lu or DT_RELASZ %lu: accepted: 24-byte entries",
			      (unsigned long)relaent, (unsigned long)relasz);
	if (!file_offset_of(out, rela, relasz, &out->rela_off))
		return refuse(why, n,
			      "the relocations (DT_RELA %#lx, %lu bytes) are not in the file",
			      (unsigned long)rela, (unsigned long)relasz);
	out->rela_count = relasz / relaent;
	for (uint64_t k = 0; k < out->rela_count; k++) {
		struct elf_user_rela r;
		__builtin_memcpy(&r, d + out->rela_off + k * sizeof(r), sizeof(r));
		uint32_t type = (uint32_t)r.info;
		if (type != R_X86_64_RELATIVE && type != R_X86_64_NONE)
			return refuse(
			    why, n,
			    "relocation %lu has type %u; accepted: R_X86_64_RELATIVE (8), "
			    "what a static PIE has",
			    (unsigned long)k, type);
		if (type == R_X86_64_RELATIVE && !in_segment(out, r.offset))
			return refuse(why, n,
				      "relocation %lu writes at %#lx, outside the program's "
				      "segments",
				      (unsigned long)k, (unsigned long)r.offset);
	}
	return true;
}

/* Which ABI: the note of include/baretrace/user.h, or an ET_EXEC wholly inside its window. */
static enum elf_user_abi abi_of(const struct elf_image *elf, const struct elf_user_limits *lim)
{
	if (elf_has_note(elf, ELF_USER_NOTE_NAME, ELF_USER_NOTE_ABI))
		return ELF_USER_ABI_BARETRACE;
	if (elf->dyn)
		return ELF_USER_ABI_LINUX;
	for (unsigned i = 0, n = elf_segment_count(elf); i < n; i++) {
		struct elf_segment ph;
		elf_segment_at(elf, i, &ph);
		if (ph.type == ELF_PT_LOAD && ph.memsz &&
		    (ph.vaddr < lim->bt_lo || ph.vaddr >= lim->bt_hi))
			return ELF_USER_ABI_LINUX;
	}
	return ELF_USER_ABI_BARETRACE;
}

struct window {
	uint64_t lo, hi;
	const char *name;
};

/* One PT_LOAD segment, checked against the window and the segments before it. */
static bool add_segment(struct elf_user_image *out, unsigned i, struct elf_segment ph,
			const struct window *w, char *why, size_t why_size)
{
	if (out->elf.dyn && ph.vaddr >= w->hi - out->bias)
		return refuse(why, why_size,
			      "program header %u: PT_LOAD at offset %#lx from the base %#lx is "
			      "past %s's end %#lx",
			      i, (unsigned long)ph.vaddr, (unsigned long)out->bias, w->name,
			      (unsigned long)w->hi);
	ph.vaddr += out->bias;
	if (out->n == ELF_USER_MAX_SEGMENTS)
		return refuse(why, why_size, "more than %d PT_LOAD segments",
			      ELF_USER_MAX_SEGMENTS);
	uint64_t end = ph.vaddr + ph.memsz;
	if (ph.vaddr < w->lo || ph.vaddr >= w->hi || ph.memsz > w->hi - ph.vaddr)
		return refuse(why, why_size,
			      "program header %u: PT_LOAD segment [%#lx, %#lx) is outside %s "
			      "[%#lx, %#lx) (the kernel keeps the rest: the upper half, and the "
			      "pages of its own ring 3 workloads)",
			      i, (unsigned long)ph.vaddr, (unsigned long)end, w->name,
			      (unsigned long)w->lo, (unsigned long)w->hi);
	/* The file offset and the address agree modulo the page (mmap's rule, System V
	 * ABI "Program Loading"): the segment can be mapped page by page. */
	if ((ph.vaddr ^ ph.offset) & (ELF_USER_PAGE - 1))
		return refuse(why, why_size,
			      "program header %u: p_vaddr %#lx and p_offset %#lx differ "
			      "modulo the 4 KiB page",
			      i, (unsigned long)ph.vaddr, (unsigned long)ph.offset);
	for (unsigned j = 0; j < out->n; j++) {
		const struct elf_user_segment *o = &out->seg[j];
		if (PAGE_DOWN(ph.vaddr) < PAGE_UP(o->vaddr + o->memsz) &&
		    PAGE_DOWN(o->vaddr) < PAGE_UP(end))
			return refuse(why, why_size,
				      "program header %u: PT_LOAD segment [%#lx, %#lx) "
				      "shares a page with [%#lx, %#lx): accepted: segments "
				      "on pages of their own",
				      i, (unsigned long)ph.vaddr, (unsigned long)end,
				      (unsigned long)o->vaddr,
				      (unsigned long)(o->vaddr + o->memsz));
	}
	bool exec = ph.flags & ELF_PF_X;
	out->seg[out->n++] = (struct elf_user_segment){
	    ph.vaddr, ph.memsz, ph.offset, ph.filesz, (ph.flags & ELF_PF_W) != 0, exec};
	out->pages += (PAGE_UP(end) - PAGE_DOWN(ph.vaddr)) / ELF_USER_PAGE;
	if (PAGE_DOWN(ph.vaddr) < out->lo)
		out->lo = PAGE_DOWN(ph.vaddr);
	if (PAGE_UP(end) > out->hi)
		out->hi = PAGE_UP(end);
	return true;
}

/* A Linux static PIE's dynamic section: no DT_NEEDED (its own start code relocates it). */
static bool linux_dynamic(const struct elf_user_image *out, uint64_t dyn_off, uint64_t dyn_size,
			  char *why, size_t n)
{
	const uint8_t *d = out->elf.data;
	for (uint64_t at = dyn_off; at + ELF_DYN_SIZE <= dyn_off + dyn_size; at += ELF_DYN_SIZE) {
		uint64_t tag = u64_at(d + at);
		if (tag == DT_NULL)
			break;
		if (tag == DT_NEEDED)
			return refuse(why, n,
				      "the program needs shared libraries (DT_NEEDED); accepted: "
				      "statically linked (-static or -static-pie)");
	}
	return true;
}

bool elf_user_check(const void *data, uint64_t size, const struct elf_user_limits *lim,
		    struct elf_user_image *out, char *why, size_t why_size)
{
	*out = (struct elf_user_image){0};
	enum elf_status st = elf_validate_type(data, size, 0, true, &out->elf);
	if (st != ELF_OK)
		return elf_refusal(st, out->elf.bad_phdr, lim->bt_lo, why, why_size);
	out->abi = abi_of(&out->elf, lim);
	bool bt = out->abi == ELF_USER_ABI_BARETRACE;
	struct window w = bt ? (struct window){lim->bt_lo, lim->bt_hi, "baretrace's user window"}
			     : (struct window){lim->linux_lo, lim->linux_hi,
					       "the lower half a Linux program gets"};
	/* A PIE goes at its ABI's base: every address moves by the bias. */
	out->bias = out->elf.dyn ? (bt ? lim->bt_lo : lim->linux_pie_base) : 0;
	out->entry = out->elf.entry + out->bias;
	out->lo = UINT64_MAX;
	bool entry_exec = false;
	uint64_t dyn_off = 0, dyn_size = 0;
	unsigned count = elf_segment_count(&out->elf);
	for (unsigned i = 0; i < count; i++) {
		struct elf_segment ph;
		elf_segment_at(&out->elf, i, &ph);
		if (ph.type == ELF_PT_INTERP || (ph.type == ELF_PT_DYNAMIC && !out->elf.dyn && bt))
			return refuse(why, why_size,
				      "program header %u: %s: the program is dynamically linked; "
				      "accepted: statically linked (-static or -static-pie), no "
				      "interpreter",
				      i, ph.type == ELF_PT_INTERP ? "PT_INTERP" : "PT_DYNAMIC");
		if (ph.type == ELF_PT_DYNAMIC) {
			if (ph.offset > size || ph.filesz > size - ph.offset)
				return refuse(why, why_size,
					      "program header %u: PT_DYNAMIC lies outside the file",
					      i);
			dyn_off = ph.offset;
			dyn_size = ph.filesz;
			continue;
		}
		if (ph.type != ELF_PT_LOAD || ph.memsz == 0)
			continue;
		if (!add_segment(out, i, ph, &w, why, why_size))
			return false;
		const struct elf_user_segment *s = &out->seg[out->n - 1];
		if (s->exec && out->entry >= s->vaddr && out->entry < s->vaddr + s->memsz)
			entry_exec = true;
	}
	if (!entry_exec)
		return refuse(why, why_size,
			      "entry point %#lx is not in an executable PT_LOAD segment (PF_X)",
			      (unsigned long)out->entry);
	if (out->pages > lim->max_pages)
		return refuse(why, why_size,
			      "the segments need %lu pages (%lu KiB); the budget is %lu pages",
			      (unsigned long)out->pages, (unsigned long)(out->pages * 4),
			      (unsigned long)lim->max_pages);
	if (!out->elf.dyn)
		return true;
	return bt ? dyn_relocations(out, dyn_off, dyn_size, why, why_size)
		  : linux_dynamic(out, dyn_off, dyn_size, why, why_size);
}

void elf_user_relocate(const struct elf_user_image *img,
		       void (*write)(void *ctx, uint64_t va, uint64_t value), void *ctx)
{
	for (uint64_t k = 0; k < img->rela_count; k++) {
		struct elf_user_rela r;
		__builtin_memcpy(&r, img->elf.data + img->rela_off + k * sizeof(r), sizeof(r));
		if ((uint32_t)r.info == R_X86_64_RELATIVE)
			write(ctx, img->bias + r.offset, img->bias + (uint64_t)r.addend);
	}
}
