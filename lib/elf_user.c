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
		return refuse(
		    why, n,
		    "not a static executable (e_type is not ET_EXEC; position-independent "
		    "and shared objects are not loaded): link with -static -no-pie at "
		    "the user window %#lx",
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

bool elf_user_check(const void *data, uint64_t size, uint64_t window_lo, uint64_t window_hi,
		    uint64_t max_pages, struct elf_user_image *out, char *why, size_t why_size)
{
	*out = (struct elf_user_image){0};
	enum elf_status st = elf_validate(data, size, window_lo, &out->elf);
	if (st != ELF_OK)
		return elf_refusal(st, out->elf.bad_phdr, window_lo, why, why_size);
	out->entry = out->elf.entry;
	out->lo = UINT64_MAX;
	bool entry_exec = false;
	unsigned count = elf_segment_count(&out->elf);
	for (unsigned i = 0; i < count; i++) {
		struct elf_segment ph;
		elf_segment_at(&out->elf, i, &ph);
		if (ph.type == ELF_PT_INTERP || ph.type == ELF_PT_DYNAMIC)
			return refuse(why, why_size,
				      "program header %u: %s: the program is dynamically linked; "
				      "accepted: statically linked (-static), no interpreter",
				      i, ph.type == ELF_PT_INTERP ? "PT_INTERP" : "PT_DYNAMIC");
		if (ph.type != ELF_PT_LOAD || ph.memsz == 0)
			continue;
		if (out->n == ELF_USER_MAX_SEGMENTS)
			return refuse(why, why_size, "more than %d PT_LOAD segments",
				      ELF_USER_MAX_SEGMENTS);
		/* lib/elf.c saw vaddr >= window_lo and no wrap. */
		uint64_t end = ph.vaddr + ph.memsz;
		if (end > window_hi)
			return refuse(
			    why, why_size,
			    "program header %u: PT_LOAD segment [%#lx, %#lx) runs past the "
			    "user window's end %#lx",
			    i, (unsigned long)ph.vaddr, (unsigned long)end,
			    (unsigned long)window_hi);
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
		if (exec && out->entry >= ph.vaddr && out->entry < end)
			entry_exec = true;
	}
	if (!entry_exec)
		return refuse(why, why_size,
			      "entry point %#lx is not in an executable PT_LOAD segment (PF_X)",
			      (unsigned long)out->entry);
	if (out->pages > max_pages)
		return refuse(why, why_size,
			      "the segments need %lu pages (%lu KiB); the budget is %lu pages",
			      (unsigned long)out->pages, (unsigned long)(out->pages * 4),
			      (unsigned long)max_pages);
	return true;
}
