/* SPDX-License-Identifier: MIT */
/*
 * test_x86_decode.c's reference: GNU objdump. Runs it on an ELF file or a raw byte file, reads
 * the bytes itself (host <elf.h>), decodes at every address objdump prints and compares the
 * length, the branch kind implied by objdump's mnemonic, the direct-branch target and the
 * RIP-relative address objdump computes. Header-only (static functions) because the Makefile
 * builds every tests/unit/test_*.c as a test of its own.
 *
 * objdump runs with -M intel64: in 64-bit mode it then ignores 66H on near JMP/CALL/Jcc as
 * Intel processors do (its default, amd64, takes rel16 as AMD processors do).
 */
#ifndef TESTS_UNIT_TEST_X86_DECODE_OBJDUMP_H
#define TESTS_UNIT_TEST_X86_DECODE_OBJDUMP_H

#include "tests/unit/unit.h"
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/x86_decode.h"

#define OD_MAX_REGIONS 16
#define OD_LINE_MAX    1024
#define OD_PAD_PREFIX  0x2e /* CS override: no effect in 64-bit mode */

/* Executable bytes by address: the SHF_EXECINSTR sections of an ELF file, or a raw file. */
struct od_region {
	char name[64];
	uint64_t addr;
	size_t size;
	const uint8_t *data;
};
struct od_image {
	uint8_t *file;
	size_t file_size;
	unsigned nregions;
	struct od_region regions[OD_MAX_REGIONS];
};

/* What a comparison saw. */
struct od_stats {
	unsigned insns;			   /* instructions compared */
	unsigned kinds[X86_BR_KIND_COUNT]; /* of them, by branch kind */
	unsigned targets;		   /* direct-branch targets compared */
	unsigned rip_relative;		   /* RIP-relative addresses compared */
	unsigned bad;			   /* objdump "(bad)" lines, skipped */
	unsigned merged;		   /* prefix-only objdump lines merged into the next */
	unsigned bad_agreed;		   /* of them, x86_decode() rejects too */
	unsigned stricter; /* objdump decodes, the SDM says #UD: od_sdm_stricter() */
	unsigned split;	   /* objdump split prefixes off at a non-final REX */
	unsigned failures; /* mismatches (each printed) */
};

static uint8_t *od_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	if (n < 0 || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/* The executable sections of an x86-64 ELF file. */
static bool od_load_elf(const char *path, struct od_image *img)
{
	memset(img, 0, sizeof(*img));
	img->file = od_read_file(path, &img->file_size);
	if (!img->file || img->file_size < sizeof(Elf64_Ehdr))
		return false;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img->file;
	assert_memory_equal(eh->e_ident, ELFMAG, SELFMAG);
	assert_int_equal(eh->e_ident[EI_CLASS], ELFCLASS64);
	assert_int_equal(eh->e_machine, EM_X86_64);
	assert_true(eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= img->file_size);
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(img->file + eh->e_shoff);
	const char *names = (const char *)img->file + sh[eh->e_shstrndx].sh_offset;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (!(sh[i].sh_flags & SHF_EXECINSTR) || sh[i].sh_type != SHT_PROGBITS)
			continue;
		assert_true(img->nregions < OD_MAX_REGIONS);
		assert_true(sh[i].sh_offset + sh[i].sh_size <= img->file_size);
		struct od_region *r = &img->regions[img->nregions++];
		snprintf(r->name, sizeof(r->name), "%s", names + sh[i].sh_name);
		r->addr = sh[i].sh_addr;
		r->size = sh[i].sh_size;
		r->data = img->file + sh[i].sh_offset;
	}
	return img->nregions > 0;
}

/* A raw file, as `objdump -b binary` shows it: section .data at address 0. */
static void od_load_raw(const char *path, struct od_image *img)
{
	memset(img, 0, sizeof(*img));
	img->file = od_read_file(path, &img->file_size);
	assert_non_null(img->file);
	img->nregions = 1;
	snprintf(img->regions[0].name, sizeof(img->regions[0].name), ".data");
	img->regions[0].size = img->file_size;
	img->regions[0].data = img->file;
}

static void od_free(struct od_image *img)
{
	free(img->file);
	img->file = NULL;
}

/* objdump's prefix words: printed before the mnemonic, or alone on a line of their own when
 * objdump does not attach them to the next instruction (e.g. a REX before a legacy prefix). */
static bool od_is_prefix_word(const char *w, size_t n)
{
	static const char *const words[] = {
	    "data16", "addr32", "cs",	 "ds",	 "es",	  "ss",	 "fs",	    "gs",	"lock",
	    "rep",    "repz",	"repnz", "repe", "repne", "bnd", "notrack", "xacquire", "xrelease",
	};
	if (n >= 3 && strncmp(w, "rex", 3) == 0)
		return true; /* rex, rex.W, rex.WRXB, ... */
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && strncmp(w, words[i], n) == 0)
			return true;
	return false;
}

/* Split objdump's text "data16 cs nopw 0x0(%rax,%rax,1)" into the mnemonic ("nopw", without a
 * ",pt"/",pn" hint suffix) and the operands; false if it holds prefixes only. */
static bool od_split(const char *text, char *mnem, size_t mnem_size, const char **ops)
{
	const char *s = text;
	for (;;) {
		while (*s == ' ')
			s++;
		size_t n = strcspn(s, " ");
		if (n == 0)
			return false;
		if (!od_is_prefix_word(s, n)) {
			size_t m = strcspn(s, " ,");
			snprintf(mnem, mnem_size, "%.*s", (int)(m < n ? m : n), s);
			s += n;
			while (*s == ' ')
				s++;
			*ops = s;
			return true;
		}
		s += n;
	}
}

static bool od_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool od_is(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return true;
	return false;
}
#define OD_IS(s, ...)                                                                              \
	od_is(s, (const char *const[]){__VA_ARGS__},                                               \
	      sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* The branch kind objdump's AT&T mnemonic names (an indirect operand starts with '*'). */
static enum x86_branch_kind od_expected_kind(const char *m, const char *ops)
{
	bool ind = ops[0] == '*';
	if (OD_IS(m, "jmp", "jmpq", "jmpw"))
		return ind ? X86_BR_JMP_IND : X86_BR_JMP_REL;
	if (OD_IS(m, "call", "callq", "callw"))
		return ind ? X86_BR_CALL_IND : X86_BR_CALL_REL;
	if (OD_IS(m, "ljmp", "ljmpq", "ljmpl", "ljmpw"))
		return X86_BR_FAR_JMP;
	if (OD_IS(m, "lcall", "lcallq", "lcalll", "lcallw"))
		return X86_BR_FAR_CALL;
	if (OD_IS(m, "jrcxz", "jecxz", "loop", "loope", "loopne", "loopz", "loopnz", "loopl",
		  "loopel", "loopnel", "loopq", "loopeq", "loopneq"))
		return X86_BR_JCXZ_LOOP;
	if (m[0] == 'j') /* every other j* is a Jcc */
		return X86_BR_JCC;
	if (OD_IS(m, "ret", "retq", "retw", "retl"))
		return X86_BR_RET;
	if (OD_IS(m, "lret", "lretq", "lretw", "lretl"))
		return X86_BR_FAR_RET;
	if (OD_IS(m, "iret", "iretq", "iretw", "iretl", "uiret", "eretu", "erets"))
		return X86_BR_IRET;
	if (OD_IS(m, "int", "int3", "int1", "icebp"))
		return X86_BR_INT;
	if (OD_IS(m, "syscall"))
		return X86_BR_SYSCALL;
	if (od_starts(m, "sysret"))
		return X86_BR_SYSRET;
	if (OD_IS(m, "sysenter"))
		return X86_BR_SYSENTER;
	if (od_starts(m, "sysexit"))
		return X86_BR_SYSEXIT;
	if (od_starts(m, "xbegin"))
		return X86_BR_XBEGIN;
	return X86_BR_NONE;
}

static const struct od_region *od_region(const struct od_image *img, const char *name)
{
	for (unsigned i = 0; i < img->nregions; i++)
		if (strcmp(img->regions[i].name, name) == 0)
			return &img->regions[i];
	return NULL;
}

/*
 * Encodings the SDM makes #UD but objdump prints: a VEX/EVEX/XOP escape after 66, F2, F3, F0
 * or REX (SDM 2.3.2 to 2.3.4: objdump shows "data16 vzeroupper"), and MOV to CS (8E /1: SDM
 * MOV, "#UD if an attempt is made to load the CS register").
 */
static bool od_sdm_stricter(const uint8_t *p, size_t n)
{
	bool vex_ud = false;
	for (size_t i = 0; i < n; i++) {
		uint8_t b = p[i];
		if (b == 0x66 || b == 0xf0 || b == 0xf2 || b == 0xf3 || (b >= 0x40 && b <= 0x4f))
			vex_ud = true;
		else if (b == 0xc4 || b == 0xc5 || b == 0x62 || b == 0x8f)
			return vex_ud;
		else if (b == 0x8e)
			return i + 1 < n && ((p[i + 1] >> 3) & 7) == 1;
		else if (!(b == 0x67 || b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e ||
			   b == 0x64 || b == 0x65))
			return false;
	}
	return false;
}

static void od_fail(struct od_stats *st, uint64_t addr, const uint8_t *p, size_t avail,
		    const char *line, const char *what)
{
	char hex[3 * X86_MAX_INSN_LENGTH + 1] = "";
	for (size_t i = 0; i < avail && i < X86_MAX_INSN_LENGTH; i++)
		sprintf(hex + 3 * i, "%02x ", p[i]);
	if (st->failures++ < 20)
		print_message("# mismatch at %#llx (%s): bytes %s\n#   objdump: %s",
			      (unsigned long long)addr, what, hex, line);
}

/* Properties of any instruction of `len` bytes at p: every shorter buffer is truncated; padded
 * with 2E prefixes (no effect in 64-bit mode) to 15 bytes it decodes the same; to 16, too long. */
static void od_check_padding(const uint8_t *p, unsigned len, const struct x86_insn *in)
{
	uint8_t buf[2 * X86_MAX_INSN_LENGTH];
	struct x86_insn pad;
	for (unsigned k = 0; k < len; k++)
		assert_int_equal(x86_decode(p, k, &pad), X86_E_TRUNCATED);
	for (unsigned total = X86_MAX_INSN_LENGTH; total <= X86_MAX_INSN_LENGTH + 1; total++) {
		unsigned extra = total - len;
		memset(buf, OD_PAD_PREFIX, extra);
		memcpy(buf + extra, p, len);
		int rc = x86_decode(buf, total, &pad);
		if (total > X86_MAX_INSN_LENGTH) {
			assert_int_equal(rc, X86_E_TOO_LONG);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(pad.length, total);
		assert_int_equal(pad.branch, in->branch);
		assert_int_equal(pad.rel, in->rel);
		assert_int_equal(pad.imm, in->imm);
		assert_int_equal(pad.disp, in->disp);
	}
}

/* One instruction: objdump says `len` bytes at `addr` with text `text`. */
static void od_check(const struct od_region *r, uint64_t addr, unsigned len, const char *text,
		     const char *line, struct od_stats *st)
{
	char mnem[64];
	const char *ops;
	assert_true(addr >= r->addr && addr + len <= r->addr + r->size);
	const uint8_t *p = r->data + (addr - r->addr);
	size_t avail = r->size - (addr - r->addr);
	struct x86_insn in;
	int rc = x86_decode(p, avail, &in);
	if (rc == X86_E_INVALID && od_sdm_stricter(p, len)) {
		st->stricter++;
		return;
	}
	st->insns++;
	if (rc != 0) {
		od_fail(st, addr, p, avail, line, "decode error");
		return;
	}
	if (in.length != len) {
		char what[64];
		snprintf(what, sizeof(what), "length %u, objdump %u", in.length, len);
		od_fail(st, addr, p, avail, line, what);
		return;
	}
	assert_true(od_split(text, mnem, sizeof(mnem), &ops));
	enum x86_branch_kind want = od_expected_kind(mnem, ops);
	st->kinds[in.branch]++;
	if (in.branch != want) {
		char what[64];
		snprintf(what, sizeof(what), "kind %s, objdump %s", x86_branch_name(in.branch),
			 x86_branch_name(want));
		od_fail(st, addr, p, avail, line, what);
		return;
	}
	od_check_padding(p, len, &in);
	uint64_t target = x86_branch_target(&in, addr);
	if (in.has_rel) {
		/* objdump: "jmp ffffffff80001234 <sym+0x10>" or "jne 0x31". */
		char *end;
		uint64_t t = strtoull(ops, &end, 16);
		st->targets++;
		if (end == ops || t != target)
			od_fail(st, addr, p, avail, line, "branch target");
	} else if (target != 0) {
		od_fail(st, addr, p, avail, line, "target without rel");
	}
	/* objdump prints a RIP-relative operand as "0x10(%rip)" and its address after '#'. */
	bool od_rip = strstr(ops, "(%rip)") || strstr(ops, "(%eip)");
	if (od_rip != in.rip_relative) {
		od_fail(st, addr, p, avail, line, "rip-relative");
	} else if (in.rip_relative) {
		const char *hash = strchr(ops, '#');
		/* With 67H the processor keeps the low 32 bits (SDM Vol. 1 3.3.7); objdump
		 * prints the unwrapped sum. */
		uint64_t ea = addr + in.length + (uint64_t)(int64_t)in.disp;
		st->rip_relative++;
		if (!hash || strtoull(hash + 1, NULL, 16) != ea)
			od_fail(st, addr, p, avail, line, "rip-relative address");
	}
}

static uint8_t od_byte(const struct od_region *r, uint64_t addr)
{
	assert_true(addr >= r->addr && addr < r->addr + r->size);
	return r->data[addr - r->addr];
}

/*
 * objdump prints the prefixes up to a REX that is followed by another prefix on a line of their
 * own ("data16 rex.W"), then decodes what follows afresh, without them. In the processor the
 * legacy prefixes still apply (only the REX is ignored), so the instruction is the merged one:
 * but objdump's decoding of it then differs if they include 66, 67, F0, F2 or F3. Only segment
 * overrides and REX bytes leave the merged instruction comparable.
 */
static bool od_is_prefix_byte(uint8_t b)
{
	return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x26 ||
	       b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 ||
	       (b >= 0x40 && b <= 0x4f);
}

static bool od_split_matters(const struct od_region *r, uint64_t addr, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t b = od_byte(r, addr + i);
		if (b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3)
			return true;
	}
	return false;
}

/*
 * FWAIT (9B) is an instruction of its own (SDM FWAIT; FSTSW: "the assembler issues two separate
 * instructions"), but objdump takes it for a prefix of the x87 instruction after it, with any
 * prefixes around it ("67 9b d8 4f e7  fmuls"), or even prints it as a prefix-only line. Checks
 * each FWAIT among the prefixes of [start, end) as the instruction it is, and returns the start
 * of what follows.
 */
static uint64_t od_split_fwait(const struct od_region *r, uint64_t start, uint64_t end,
			       const char *line, struct od_stats *st)
{
	for (uint64_t a = start; a + 1 < end; a++) {
		uint8_t b = od_byte(r, a);
		if (b == 0x9b) {
			od_check(r, start, (unsigned)(a + 1 - start), "fwait", line, st);
			start = a + 1;
		} else if (!od_is_prefix_byte(b)) {
			break;
		}
	}
	return start;
}

/*
 * Run `cmd` (an objdump -w listing of `img`) and check every instruction it prints. Lines that
 * hold only prefixes are merged into the instruction that follows; "(bad)" lines are skipped
 * (with any prefixes pending), and so are lines naming a register objdump cannot ("%?"): in
 * both the SDM has #UD, and x86_decode()'s own errors are checked by the hand-made vectors.
 * Returns false if objdump printed nothing.
 */
static bool od_compare(const char *cmd, const struct od_image *img, struct od_stats *st)
{
	char line[OD_LINE_MAX], text[OD_LINE_MAX], mnem[64];
	const struct od_region *r = NULL;
	uint64_t pending_addr = 0;
	unsigned pending = 0, lines = 0;
	FILE *f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		if (sscanf(line, "Disassembly of section %63[^:]:", name) == 1) {
			r = od_region(img, name);
			pending = 0;
			continue;
		}
		/* "<hex addr>:\t<hex bytes> \t<text>" */
		char *colon = strchr(line, ':');
		char *tab1 = colon ? strchr(colon, '\t') : NULL;
		char *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
		if (!r || !colon || colon[1] != '\t' || !tab2)
			continue;
		char *after;
		uint64_t addr = strtoull(line, &after, 16);
		if (after != colon)
			continue;
		unsigned len = 0;
		for (char *b = tab1 + 1; b < tab2; b++)
			if (b[0] != ' ' && (b == tab1 + 1 || b[-1] == ' '))
				len++; /* one byte per hex pair */
		snprintf(text, sizeof(text), "%s", tab2 + 1);
		text[strcspn(text, "\n")] = '\0';
		lines++;
		const char *ops;
		if (strstr(text, "(bad)") || strstr(text, "%?")) {
			struct x86_insn in;
			uint64_t a = pending ? pending_addr : addr;
			st->bad++;
			if (x86_decode(r->data + (a - r->addr), r->size - (a - r->addr), &in) < 0)
				st->bad_agreed++;
			else if (getenv("OD_SHOW_BAD"))
				print_message("# bad-accepted %u: %s", in.length, line);
			pending = 0;
			continue;
		}
		if (!od_split(text, mnem, sizeof(mnem), &ops)) {
			if (!pending)
				pending_addr = addr;
			pending += len;
			st->merged++;
			continue;
		}
		/* The instruction runs from the first pending prefix to the end of this line. */
		uint64_t start = pending ? pending_addr : addr, end = addr + len;
		pending = 0;
		start = od_split_fwait(r, start, end, line, st);
		if (start < addr && od_split_matters(r, start, (unsigned)(addr - start)))
			st->split++; /* objdump decoded the rest without those prefixes: so do we */
		else
			addr = start;
		len = (unsigned)(end - addr);
		od_check(r, addr, len, text, line, st);
	}
	pclose(f);
	return lines > 0;
}

static void od_print_stats(const char *what, const struct od_stats *st)
{
	print_message("# %s: %u instructions, %u direct targets, %u rip-relative, %u (bad) skipped "
		      "(%u rejected here too), %u prefix lines merged, %u split at a REX, %u #UD "
		      "by the SDM\n# %s branches:",
		      what, st->insns, st->targets, st->rip_relative, st->bad, st->bad_agreed,
		      st->merged, st->split, st->stricter, what);
	for (unsigned k = 1; k < X86_BR_KIND_COUNT; k++)
		if (st->kinds[k])
			print_message(" %s=%u", x86_branch_name((enum x86_branch_kind)k),
				      st->kinds[k]);
	print_message("\n");
}

#endif
