/* SPDX-License-Identifier: MIT */
/*
 * btdecode's DWARF views of an address (libdw, DWARF 4/5 "Inlined Subroutines" 3.3.8 and the
 * line table's discriminators 6.2.2): the inline frames the text and JSON views print, as
 * eu-addr2line -i gives them, and the source stack gcc's AutoFDO reader keys its counts by.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>
#include "tools/bt_dwarf.h"
#include "tools/btdecode.h"

/* GCC's DWARF extension for an inlined call's discriminator (binutils include/dwarf2.def:
 * DW_AT_GNU_discriminator = 0x2136); elfutils' dwarf.h does not name it. */
#define DW_AT_GNU_DISCRIMINATOR 0x2136

/* A DIE's name as eu-addr2line names it: the linkage name, else the name (demangled). */
static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *name = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a)
						? &a
						: dwarf_attr_integrate(d, DW_AT_name, &a));
	return name ? bt_sym_demangle(name) : NULL;
}

unsigned bt_sym_inlines(uint64_t addr, const char **names, unsigned max)
{
	Dwarf_Die *scopes, *cu;
	int n = bt_sym_scopes(addr, &scopes, &cu);
	unsigned got = 0;
	/* innermost first: each inlined subroutine's name (from its abstract origin) */
	for (int i = 0; i < n && got < max; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine && die_name(&scopes[i]))
			names[got++] = die_name(&scopes[i]);
	free(scopes);
	return got;
}

/* An inlined subroutine's call site (DW_AT_call_file, DW_AT_call_line) in its CU's files. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, const char **file, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word idx = 0, ln = 0;
	Dwarf_Files *files;
	size_t nfiles;
	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &ln) == 0)
		*line = (int)ln;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &idx) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && idx < nfiles)
		*file = dwarf_filesrc(files, idx, NULL, NULL);
}

unsigned bt_sym_inline_frames(uint64_t addr, struct bt_inline_frame *out, unsigned max)
{
	struct bt_sym sym;
	bt_sym_lookup(addr, &sym);
	Dwarf_Die *scopes, *cu;
	int n = max ? bt_sym_scopes(addr, &scopes, &cu) : 0;
	/* eu-addr2line -i's walk (elfutils src/addr2line.c): the innermost function at the
	 * address's line, then each caller at the call site of the one inside it */
	unsigned got = 0;
	const char *file = sym.file;
	int line = sym.line;
	bool inlined = false;
	for (int i = 0; i < n && got < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		const char *name = die_name(&scopes[i]);
		out[got++] = (struct bt_inline_frame){name ? name : "??", file, line};
		if (tag == DW_TAG_subprogram)
			break;
		inlined = true;
		call_site(cu, &scopes[i], &file, &line);
	}
	if (n > 0)
		free(scopes);
	return inlined ? got : 0;
}

/* A DIE's name as gcc's AutoFDO reader matches it (gcc/auto-profile.cc string_table::
 * get_index_by_decl: the assembler name, else the DWARF name): DW_AT_linkage_name, else
 * DW_AT_name, through DW_AT_abstract_origin and DW_AT_specification; not demangled. */
static const char *raw_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	return dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a)
				    ? &a
				    : dwarf_attr_integrate(d, DW_AT_name, &a));
}

static int udata(Dwarf_Die *d, unsigned attr, bool integrate)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;
	Dwarf_Attribute *at =
	    integrate ? dwarf_attr_integrate(d, attr, &a) : dwarf_attr(d, attr, &a);
	return at && dwarf_formudata(at, &v) == 0 ? (int)v : 0;
}

/* LLVM's base discriminator of a DWARF discriminator clang wrote (LLVM 14 DebugInfoMetadata.h
 * DILocation::getBaseDiscriminatorFromDiscriminator, getUnsignedFromPrefixEncoding: the
 * duplication factor and copy id share the word with it) */
static unsigned llvm_base(unsigned d)
{
	if (d & 1)
		return 0;
	d >>= 1;
	return (d & 0x20) ? (((d >> 1) & 0xfe0) | (d & 0x1f)) : (d & 0x1f);
}

unsigned bt_sym_source_stack(uint64_t addr, struct bt_src_frame *out, unsigned max)
{
	Dwfl_Line *l = bt_sym_line(addr);
	int line = 0;
	unsigned discr = 0;
	if (!l || !dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) || line <= 0)
		return 0;
	Dwarf_Addr lbias;
	Dwarf_Line *dl = dwfl_dwarf_line(l, &lbias);
	if (dl)
		dwarf_linediscriminator(dl, &discr);
	Dwarf_Die *scopes, *cu;
	int n = bt_sym_scopes(addr, &scopes, &cu);
	unsigned got = 0;
	bool whole = false;
	Dwarf_Attribute pa;
	const char *producer = n > 0 ? dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &pa)) : NULL;
	bool clang = producer && strstr(producer, "clang");
	/* gcc's get_inline_stack: the innermost function at the address's line, then each
	 * caller at the call site (DW_AT_call_line, DW_AT_GNU_discriminator) of the one inside */
	for (int i = 0; i < n && got < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		const char *name = raw_name(&scopes[i]);
		if (!name)
			break;
		out[got++] = (struct bt_src_frame){name, udata(&scopes[i], DW_AT_decl_line, true),
						   line, discr, clang ? llvm_base(discr) : discr};
		if (tag == DW_TAG_subprogram) {
			whole = true;
			break;
		}
		line = udata(&scopes[i], DW_AT_call_line, false);
		discr = (unsigned)udata(&scopes[i], DW_AT_GNU_DISCRIMINATOR, false);
	}
	if (n > 0)
		free(scopes);
	return whole ? got : 0;
}
