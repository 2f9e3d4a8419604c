/* SPDX-License-Identifier: MIT */
/*
 * The HTML view's annotated disassembly, as `perf annotate` shows a function: each instruction
 * of it (from its symbol's start to the next function), disassembled by Zydis (libzydis-dev;
 * AT&T syntax, as objdump and perf annotate print by default), its source line where it
 * changes, and beside it the session's counts: a branch's taken records and, for a conditional
 * one, the times the paths between records fell through it; how often the instruction ran on
 * those paths (shaded); the samples with it as IP. A direct branch's target is named, and
 * linked when it is in the same function. Each row carries its numbers in data- attributes
 * (data-addr, data-kind, data-taken, data-nottaken, data-exec, data-samples) for the tests.
 * A function ends where its symbol's size says (the ELF's symbol table, read with libelf), or,
 * for a symbol without a size, where the next function begins.
 */
#include <Zydis/Zydis.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>
#include "tools/bt_html.h"

#define ASM_MAX_INSNS 2000 /* a longer function is cut (and says so) */
#define NAME_LEN      512
#define HEAT_BAR_PX   40 /* the widest "ran" bar */

static ZydisDecoder decoder;
static ZydisFormatter formatter;
static bool zydis_ready;

static bool zydis_init(void)
{
	if (zydis_ready)
		return true;
	zydis_ready =
	    ZYAN_SUCCESS(
		ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) &&
	    ZYAN_SUCCESS(ZydisFormatterInit(&formatter, ZYDIS_FORMATTER_STYLE_ATT)) &&
	    ZYAN_SUCCESS(
		ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, 0)) &&
	    ZYAN_SUCCESS(ZydisFormatterSetProperty(
		&formatter, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE, ZYDIS_PADDING_DISABLED));
	return zydis_ready;
}

/* The ELF segment (in use) that holds addr: its file and load bias. */
struct segment_of {
	uint64_t addr, bias;
	const char *path;
};

static void find_segment(void *ctx, const struct bt_exec *x)
{
	struct segment_of *f = ctx;
	if (!f->path && f->addr - x->start < x->len) {
		f->path = x->path;
		f->bias = x->bias;
	}
}

/* The size of the function symbol that starts at fn (STT_FUNC, st_value + the load bias),
 * from its ELF's symbol table; 0 if none says. */
static uint64_t symbol_size(uint64_t fn)
{
	struct segment_of f = {.addr = fn};
	bt_sym_for_each_segment(find_segment, &f);
	int fd = f.path ? open(f.path, O_RDONLY) : -1;
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	uint64_t size = 0;
	for (Elf_Scn *scn = NULL; e && !size && (scn = elf_nextscn(e, scn)) != NULL;) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && !size; i++) {
			GElf_Sym sym;
			if (gelf_getsym(d, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
			    sym.st_value + f.bias == fn)
				size = sym.st_size;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return size;
}

/* The source line, as a row of its own, where it changes. */
static void source_row(uint64_t a, const char **file, int *line)
{
	struct bt_sym sym;
	if (!bt_sym_lookup(a, &sym) || !sym.file ||
	    (*file && !strcmp(*file, sym.file) && *line == sym.line))
		return;
	*file = sym.file;
	*line = sym.line;
	const char *base = strrchr(sym.file, '/') ? strrchr(sym.file, '/') + 1 : sym.file;
	fputs("<tr class=\"src\"><td colspan=\"6\">", out_records);
	html_textf("%s:%d", base, sym.line);
	fputs("</td></tr>\n", out_records);
}

/* A direct branch's target: named, and a link when it is in this function. */
static void target(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, uint64_t a,
		   uint64_t fn, unsigned index)
{
	uint64_t to;
	if (!(in->attributes & ZYDIS_ATTRIB_IS_RELATIVE) || in->operand_count_visible < 1 ||
	    ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	    ZYAN_FAILED(ZydisCalcAbsoluteAddress(in, &ops[0], a, &to)))
		return;
	char name[NAME_LEN];
	bt_sym_name(to, name, sizeof(name));
	if (html_function_of(to) == fn)
		fprintf(out_records, " <a href=\"#s%u-a%" PRIx64 "\">", index, to);
	else
		fputs(" <span class=\"tgt\">", out_records);
	html_textf("<%s>", name);
	fputs(html_function_of(to) == fn ? "</a>" : "</span>", out_records);
}

static void count_cell(uint64_t n, bool shown)
{
	if (shown && n)
		fprintf(out_records, "<td class=\"n\">%" PRIu64 "</td>", n);
	else
		fputs("<td class=\"n z\"></td>", out_records);
}

/* One instruction's row. */
static void insn_row(const struct html_session *s, uint64_t a, const ZydisDecodedInstruction *in,
		     const ZydisDecodedOperand *ops, uint64_t fn, unsigned index, uint64_t max_exec)
{
	static const struct html_insn none;
	const struct html_insn *c = html_map_find(&s->insns, a, 0);
	if (!c)
		c = &none;
	int kind = bt_sym_branch_kind(a);
	bool br = kind > X86_BR_NONE, cond = br && x86_branch_conditional(kind);
	unsigned heat = max_exec ? (unsigned)(100 * c->exec / max_exec) : 0;
	fprintf(out_records, "<tr id=\"s%u-a%" PRIx64 "\" data-addr=\"%#" PRIx64 "\"", index, a, a);
	if (br)
		fprintf(out_records,
			" class=\"br\" data-kind=\"%s\" data-taken=\"%" PRIu64
			"\" data-nottaken=\"%" PRIu64 "\"",
			bt_kind_name(kind), c->taken, cond ? c->not_taken : 0);
	fprintf(out_records, " data-exec=\"%" PRIu64 "\" data-samples=\"%" PRIu64 "\">", c->exec,
		c->samples);
	count_cell(c->taken, br);
	count_cell(c->not_taken, cond);
	/* the count beside its bar, not over it */
	fputs("<td class=\"n\">", out_records);
	if (c->exec)
		fprintf(out_records, "<span class=\"hb\" style=\"width:%upx\"></span>%" PRIu64,
			(heat * HEAT_BAR_PX + 99) / 100, c->exec);
	fputs("</td>", out_records);
	count_cell(c->samples, true);
	fprintf(out_records, "<td class=\"addr\">%" PRIx64 "</td><td class=\"ins\">", a);
	char text[256];
	if (ZYAN_SUCCESS(ZydisFormatterFormatInstruction(
		&formatter, in, ops, in->operand_count_visible, text, sizeof(text), a, NULL)))
		html_text(text);
	target(in, ops, a, fn, index);
	if (!br && c->taken) /* a FROM that cannot branch: an interrupt or exception came here */
		fprintf(out_records,
			" <span class=\"irq\">&#x21af; %" PRIu64 " delivered here</span>",
			c->taken);
	fputs("</td></tr>\n", out_records);
}

/* The instructions' executions' maximum, for the shading. */
static uint64_t max_exec_of(const struct html_session *s, uint64_t fn)
{
	size_t n;
	uint64_t max = 0;
	struct html_insn **v = (struct html_insn **)html_map_values(&s->insns, &n);
	for (size_t i = 0; i < n; i++)
		if (v[i]->exec > max && html_function_of(v[i]->addr) == fn)
			max = v[i]->exec;
	free(v);
	return max;
}

bool html_asm_function(const struct html_session *s, uint64_t fn, unsigned index)
{
	struct bt_sym sym;
	uint8_t b[X86_MAX_INSN_LENGTH];
	if (!bt_sym_lookup(fn, &sym) || sym.offset || !bt_sym_code(NULL, fn, b) || !zydis_init())
		return false;
	fprintf(out_records, "<div class=\"asm\" id=\"s%u-f%" PRIx64 "\" data-fn=\"", index, fn);
	html_text(sym.func);
	fputs("\"><h4>", out_records);
	html_text(sym.func);
	fprintf(out_records, " <small>%#" PRIx64 " in ", fn);
	html_text(strrchr(sym.module, '/') ? strrchr(sym.module, '/') + 1 : sym.module);
	fputs("</small></h4>\n<table class=\"code\"><thead><tr><th>taken</th><th>not "
	      "taken</th><th>ran</th><th>samples</th><th>address</th><th>instruction</th></tr>"
	      "</thead><tbody>\n",
	      out_records);
	uint64_t max_exec = max_exec_of(s, fn), a = fn, size = symbol_size(fn);
	const char *file = NULL;
	int line = 0;
	unsigned n = 0;
	size_t got;
	for (; n < ASM_MAX_INSNS && (got = bt_sym_code(NULL, a, b)) != 0; n++) {
		if ((size && a - fn >= size) || (a != fn && html_function_of(a) != fn))
			break; /* the symbol's end, or the next function */
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		if (ZYAN_FAILED(ZydisDecoderDecodeFull(&decoder, b, got, &in, ops))) {
			fprintf(out_records,
				"<tr data-addr=\"%#" PRIx64 "\"><td colspan=\"4\"></td><td "
				"class=\"addr\">%" PRIx64 "</td><td>(bad) %02x</td></tr>\n",
				a, a, b[0]);
			a++;
			continue;
		}
		source_row(a, &file, &line);
		insn_row(s, a, &in, ops, fn, index, max_exec);
		a += in.length;
	}
	fputs("</tbody></table>", out_records);
	if (n == ASM_MAX_INSNS)
		fprintf(out_records, "<p class=\"note\">cut after %u instructions</p>", n);
	fputs("</div>\n", out_records);
	return true;
}
