/* SPDX-License-Identifier: MIT */
/*
 * btdecode's symbols, from elfutils (libdwfl: elfutils' libdwfl.h): the kernel's ELF and user
 * programs' ELFs as offline modules, each address named by its ELF's symbol table (function
 * and offset) and line table (file:line), and each branch's kind decoded from the ELF's own
 * code bytes (lib/x86_decode.c, the kernel's decoder, which tests/unit checks against objdump).
 *
 * A capture's HEADER names the kernel by build id (build-id=) and the program by build id and
 * load bias (program-build-id=, program-bias=): an ELF whose build id is not the capture's is
 * not used (an explicit --elf is said so on stderr), since its symbols would lie.
 */
#include <dirent.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/bt_dwarf.h"
#include "tools/btdecode.h"

#define MAX_MODULES  8
#define BUILD_ID_HEX 41	  /* 20 bytes of SHA-1, the GNU linker's default */
#define CACHE_SIZE   4096 /* direct-mapped, by address */

struct module {
	char *path;
	bool is_kernel, must, has_bias, reported, refused;
	uint64_t bias;
	char build_id[2 * 64 + 1]; /* the ELF's, in hex */
	Dwfl_Module *mod;
	Elf *elf;
	const uint8_t *raw;
	size_t raw_size;
	uint64_t dwbias; /* what libdwfl adds to the ELF's addresses */
};

static struct module modules[MAX_MODULES];

/* The executable segments of the modules in use, for the walks of PATH frames. */
#define MAX_RANGES 32
static struct code_range {
	uint64_t lo, len; /* the segment's file bytes, at their run address */
	const uint8_t *bytes;
	const char *path; /* its ELF's */
	const struct module *m;
	uint64_t memsz, pgoff, bias; /* for perf's mmap events */
} ranges[MAX_RANGES];
static unsigned n_ranges;
static unsigned n_modules;
static Dwfl *dwfl;
static bool reported;
static char header_kernel_id[BUILD_ID_HEX * 2], header_program_id[BUILD_ID_HEX * 2];
static uint64_t header_program_bias;
static bool header_has_bias;
static unsigned generation; /* counts the changes of the code in use */

struct cache_entry {
	uint64_t addr;
	bool valid;
	struct bt_sym sym;
	int kind;
};
static struct cache_entry *cache;

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* The GNU build id of an ELF file, in hex ("" if it has none): read with libelf. */
static void read_build_id(const char *path, char *hex, size_t size)
{
	hex[0] = 0;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph = 0;
	if (e && elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph && !hex[0]; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			Elf_Data *d =
			    elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
			GElf_Nhdr nh;
			size_t off = 0, name_off, desc_off;
			while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
				if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
				    memcmp((char *)d->d_buf + name_off, "GNU", 4))
					continue;
				const uint8_t *id = (const uint8_t *)d->d_buf + desc_off;
				for (size_t k = 0; k < nh.n_descsz && 2 * k + 2 < size; k++)
					snprintf(hex + 2 * k, 3, "%02x", id[k]);
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
}

static struct module *add_module(const char *path)
{
	if (n_modules == MAX_MODULES) {
		fprintf(stderr, "btdecode: more than %d ELF files\n", MAX_MODULES);
		return NULL;
	}
	if (access(path, R_OK)) {
		fprintf(stderr, "btdecode: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	struct module *m = &modules[n_modules++];
	char *full = realpath(path, NULL); /* perf and the others open it from elsewhere */
	*m = (struct module){.path = full ? full : strdup(path)};
	read_build_id(path, m->build_id, sizeof(m->build_id));
	return m;
}

int bt_sym_kernel(const char *path, bool must)
{
	for (unsigned i = 0; i < n_modules; i++)
		if (modules[i].is_kernel)
			modules[i].refused = true; /* a later --elf wins */
	struct module *m = add_module(path);
	if (!m)
		return -1;
	m->is_kernel = true;
	m->must = must;
	return 0;
}

int bt_sym_program(const char *path, bool has_bias, uint64_t bias)
{
	struct module *m = add_module(path);
	if (!m)
		return -1;
	m->has_bias = has_bias;
	m->bias = bias;
	m->must = true;
	return 0;
}

/* ---- a program's ELF found by its build id (no --program) ------------------------------- */

static const char *search_dirs[2]; /* the log's folder, --debug-dir */

void bt_sym_search(const char *log_dir, const char *debug_dir)
{
	search_dirs[0] = log_dir;
	search_dirs[1] = debug_dir;
}

static bool has_build_id(const char *path, const char *want)
{
	char id[2 * 64 + 1];
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	read_build_id(path, id, sizeof(id));
	return !strcmp(id, want);
}

/* The ELF with build id `want` in dir: debuginfod's layout first (dir/.build-id/ab/cdef...
 * with or without ".debug", as gdb and elfutils look it up), then every file of dir itself. */
static bool find_in(const char *dir, const char *want, char *out, size_t size)
{
	static const char *const suffix[] = {"", ".debug"};
	for (unsigned i = 0; i < 2; i++) {
		snprintf(out, size, "%s/.build-id/%.2s/%s%s", dir, want, want + 2, suffix[i]);
		if (has_build_id(out, want))
			return true;
	}
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;
	while (d && !found && (e = readdir(d)) != NULL) {
		snprintf(out, size, "%s/%s", dir, e->d_name);
		found = e->d_name[0] != '.' && has_build_id(out, want);
	}
	if (d)
		closedir(d);
	return found;
}

static bool have_program(void)
{
	for (unsigned i = 0; i < n_modules; i++)
		if (!modules[i].is_kernel && !modules[i].refused)
			return true;
	return false;
}

/* The capture names the program by build id and none was given: look for it, or say once
 * which ELF is needed. */
static void find_program(void)
{
	static char said[BUILD_ID_HEX * 2];
	if (!header_program_id[0] || have_program())
		return;
	char path[4096];
	for (unsigned i = 0; i < 2; i++)
		if (search_dirs[i] &&
		    find_in(search_dirs[i], header_program_id, path, sizeof(path))) {
			struct module *m = add_module(path);
			if (m) {
				m->must = false;
				bt_text_symbols(true); /* as with --program */
			}
			return;
		}
	if (!strcmp(said, header_program_id))
		return;
	snprintf(said, sizeof(said), "%s", header_program_id);
	fprintf(stderr,
		"btdecode: the capture's program has build id %s: no ELF with it beside the "
		"capture%s%s%s; name it with --program FILE or --debug-dir DIR (a folder of ELFs "
		"or a .build-id/ tree)\n",
		header_program_id, search_dirs[1] ? " or in " : "",
		search_dirs[1] ? search_dirs[1] : "", search_dirs[1] ? "" : "");
}

/* Takes a header's value: true if it is not the one held (the modules are checked again). */
static bool copy_value(char *to, size_t size, const char *value)
{
	if (!strncmp(to, value, size - 1))
		return false;
	snprintf(to, size, "%s", value);
	return true;
}

void bt_sym_header_pair(const char *pair)
{
	bool changed = false;
	if (!strncmp(pair, "build-id=", 9)) {
		changed = copy_value(header_kernel_id, sizeof(header_kernel_id), pair + 9);
	} else if (!strncmp(pair, "program-build-id=", 17)) {
		changed = copy_value(header_program_id, sizeof(header_program_id), pair + 17);
	} else if (!strncmp(pair, "program-bias=", 13)) {
		uint64_t bias = strtoull(pair + 13, NULL, 16);
		changed = !header_has_bias || bias != header_program_bias;
		header_program_bias = bias;
		header_has_bias = true;
	}
	if (changed) {
		reported = false; /* another boot, other ELFs: the modules are checked again */
		generation++;
		find_program();
	}
}

unsigned bt_sym_generation(void)
{
	return generation;
}

/* Whether the module's ELF is the one the capture names (nothing named: trusted). */
static bool matches(struct module *m)
{
	const char *want = m->is_kernel ? header_kernel_id : header_program_id;
	if (!*want || !strcmp(want, m->build_id))
		return true;
	if (m->must)
		fprintf(stderr,
			"btdecode: %s: its build id %s is not the capture's %s: its symbols are "
			"not used\n",
			m->path, *m->build_id ? m->build_id : "(none)", want);
	return false;
}

static void report_all(void)
{
	reported = true;
	/* afresh each time (a capture's next boot may name other ELFs): libdwfl refuses a module
	 * reported again over itself */
	if (dwfl)
		dwfl_end(dwfl);
	elf_version(EV_CURRENT);
	dwfl = dwfl_begin(&callbacks);
	n_ranges = 0;
	if (!dwfl)
		return;
	dwfl_report_begin(dwfl);
	for (unsigned i = 0; i < n_modules; i++) {
		struct module *m = &modules[i];
		m->mod = NULL;
		if (m->refused || !matches(m))
			continue;
		uint64_t base = m->has_bias ? m->bias : (header_has_bias ? header_program_bias : 0);
		if (m->is_kernel)
			base = 0;
		m->mod = dwfl_report_elf(dwfl, m->path, m->path, -1, base, false);
		if (!m->mod) {
			fprintf(stderr, "btdecode: %s: %s\n", m->path, dwfl_errmsg(-1));
			continue;
		}
		GElf_Addr b = 0;
		m->elf = dwfl_module_getelf(m->mod, &b);
		m->dwbias = b;
		m->raw = m->elf ? (const uint8_t *)elf_rawfile(m->elf, &m->raw_size) : NULL;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	for (unsigned i = 0; i < n_modules; i++) {
		struct module *m = &modules[i];
		size_t nph = 0;
		if (!m->mod || !m->elf || !m->raw || elf_getphdrnum(m->elf, &nph))
			continue;
		for (size_t k = 0; k < nph && n_ranges < MAX_RANGES; k++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(m->elf, (int)k, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X) || ph.p_offset > m->raw_size ||
			    ph.p_filesz > m->raw_size - ph.p_offset)
				continue;
			ranges[n_ranges++] = (struct code_range){.lo = ph.p_vaddr + m->dwbias,
								 .len = ph.p_filesz,
								 .bytes = m->raw + ph.p_offset,
								 .path = m->path,
								 .m = m,
								 .memsz = ph.p_memsz,
								 .pgoff = ph.p_offset,
								 .bias = m->dwbias};
		}
	}
	if (!cache)
		cache = calloc(CACHE_SIZE, sizeof(*cache));
	else
		memset(cache, 0, CACHE_SIZE * sizeof(*cache));
}

/* libstdc++'s demangler (the Itanium C++ ABI's __cxa_demangle, as perf and gdb use a
 * demangler of the same ABI): a C++ name as people read it. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

#define DEMANGLED_MAX 8192
static struct {
	const char *mangled; /* the symbol table's string: its address is the key */
	char *name;
} demangled[DEMANGLED_MAX];

const char *bt_sym_demangle(const char *name)
{
	if (!name || strncmp(name, "_Z", 2))
		return name;
	size_t h = ((uintptr_t)name >> 3) % DEMANGLED_MAX;
	for (size_t k = 0; k < DEMANGLED_MAX; k++, h = (h + 1) % DEMANGLED_MAX) {
		if (demangled[h].mangled == name)
			return demangled[h].name;
		if (demangled[h].mangled)
			continue;
		int status = -1;
		char *d = __cxa_demangle(name, NULL, NULL, &status);
		demangled[h].mangled = name;
		demangled[h].name = status == 0 && d ? d : (char *)name;
		return demangled[h].name;
	}
	return name; /* the table is full: the mangled name */
}

/* Whether addr lies in one of the module's PT_LOAD segments (at its run address): a symbol
 * found for an address outside them is only the nearest one below, not where it is (and inside
 * them, symbol_holds says whether it is). */
static bool in_module(const struct module *m, uint64_t addr)
{
	size_t nph = 0;
	if (!m->elf || elf_getphdrnum(m->elf, &nph))
		return false;
	for (size_t k = 0; k < nph; k++) {
		GElf_Phdr ph;
		if (gelf_getphdr(m->elf, (int)k, &ph) && ph.p_type == PT_LOAD &&
		    addr - (ph.p_vaddr + m->dwbias) < ph.p_memsz)
			return true;
	}
	return false;
}

/* Whether a symbol libdwfl found for addr (off past its value) is where addr is: the symbol
 * holds it (its st_size), or its section does (an address past a sized symbol, or past a
 * sizeless label, in the same section). libdwfl gives the closest symbol below an address even
 * from another section, or an absolute one (SHN_ABS: in no section), whatever the distance;
 * ELF's gABI ("Symbol Table": st_shndx, st_size; "Sections": sh_addr, sh_size, SHF_ALLOC). */
static bool symbol_holds(uint64_t addr, GElf_Off off, const GElf_Sym *sym, GElf_Word shndx,
			 Elf *elf, GElf_Addr bias)
{
	if (sym->st_size && off < sym->st_size)
		return true;
	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE || !elf)
		return false;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return false;
	return addr - (sh.sh_addr + bias) < sh.sh_size;
}

static struct module *module_of(Dwfl_Module *dm)
{
	for (unsigned i = 0; i < n_modules; i++)
		if (modules[i].mod == dm)
			return &modules[i];
	return NULL;
}

static struct cache_entry *lookup(uint64_t addr)
{
	if (!reported)
		report_all();
	if (!dwfl || !cache)
		return NULL;
	struct cache_entry *c = &cache[(addr ^ addr >> 12) % CACHE_SIZE];
	if (c->valid && c->addr == addr)
		return c;
	*c = (struct cache_entry){.addr = addr, .valid = true, .kind = -1};
	Dwfl_Module *dm = dwfl_addrmodule(dwfl, addr);
	struct module *m = dm ? module_of(dm) : NULL;
	if (!m || !in_module(m, addr))
		return c; /* outside every ELF in use: no name */
	c->sym.module = m->path;
	GElf_Off off = 0;
	GElf_Sym sym;
	GElf_Word shndx = SHN_UNDEF;
	Elf *symelf = NULL;
	GElf_Addr symbias = 0;
	const char *name = dwfl_module_addrinfo(dm, addr, &off, &sym, &shndx, &symelf, &symbias);
	if (name && symbol_holds(addr, off, &sym, shndx, symelf, symbias)) {
		c->sym.func = bt_sym_demangle(name);
		c->sym.offset = off;
	}
	Dwfl_Line *l = dwfl_module_getsrc(dm, addr);
	if (l)
		c->sym.file = dwfl_lineinfo(l, NULL, &c->sym.line, NULL, NULL, NULL);
	uint8_t bytes[X86_MAX_INSN_LENGTH];
	size_t n = bt_sym_code(NULL, addr, bytes);
	struct x86_insn insn;
	/* 64-bit code: the stream carries no code-segment mode, and an ELF's code is 64-bit here
	 * (32-bit code runs only from pages no ELF describes, docs/engine.md "The software
	 * PMU"). */
	if (n && x86_decode(bytes, n, &insn) == 0)
		c->kind = (int)insn.branch;
	return c;
}

static struct code_range test_code;

void bt_sym_test_code(uint64_t base, const uint8_t *bytes, size_t n)
{
	test_code = (struct code_range){.lo = base, .len = n, .bytes = bytes};
}

size_t bt_sym_code(void *ctx, uint64_t addr, uint8_t *buf)
{
	(void)ctx;
	size_t n = bt_code_copy(addr, test_code.lo, test_code.bytes, test_code.len, buf);
	if (n)
		return n;
	if (!reported)
		report_all();
	for (unsigned i = 0; i < n_ranges && !n; i++)
		n = bt_code_copy(addr, ranges[i].lo, ranges[i].bytes, ranges[i].len, buf);
	return n;
}

int bt_sym_straight(uint64_t to, uint64_t from, uint64_t *at, bool *cond, unsigned max)
{
	unsigned n = 0;
	for (uint64_t a = to; a != from; n++) {
		uint8_t b[X86_MAX_INSN_LENGTH];
		struct x86_insn in;
		size_t got = bt_sym_code(NULL, a, b);
		if (n == max || !got || x86_decode(b, got, &in))
			return -1;
		bool jcc = x86_branch_conditional(in.branch);
		if (!jcc && in.branch != X86_BR_NONE && in.branch != X86_BR_XBEGIN)
			return -1;
		at[n] = a;
		cond[n] = jcc;
		a += in.length;
	}
	return (int)n;
}

bool bt_sym_lookup(uint64_t addr, struct bt_sym *out)
{
	struct cache_entry *c = lookup(addr);
	if (!c || !c->sym.module) {
		*out = (struct bt_sym){0};
		return false;
	}
	*out = c->sym;
	return out->func != NULL;
}

const char *bt_sym_name(uint64_t addr, char *buf, size_t size)
{
	struct bt_sym s;
	if (!bt_sym_lookup(addr, &s))
		snprintf(buf, size, "%#" PRIx64, addr);
	else if (s.offset)
		snprintf(buf, size, "%s+%#" PRIx64, s.func, s.offset);
	else
		snprintf(buf, size, "%s", s.func);
	return buf;
}

int bt_sym_branch_kind(uint64_t addr)
{
	struct cache_entry *c = lookup(addr);
	return c ? c->kind : -1;
}

/* Arch LBR's LBR_INFO.BR_TYPE (SDM Vol. 3B, "Architectural Last Branch Records",
 * table "IA32_LBR_x_INFO"): 0 COND, 1 NEAR_IND_JMP, 2 NEAR_REL_JMP, 3 NEAR_IND_CALL,
 * 4 NEAR_REL_CALL, 5 NEAR_RET, 6-7 reserved, 8-15 OTHER_BRANCH. */
#define BR_TYPE_OTHER_FIRST 8
int bt_record_kind(uint64_t from, int br_type)
{
	int k = bt_sym_branch_kind(from);
	if (k >= 0)
		return k;
	static const int arch[] = {X86_BR_JCC,	    X86_BR_JMP_IND,  X86_BR_JMP_REL,
				   X86_BR_CALL_IND, X86_BR_CALL_REL, X86_BR_RET};
	if (br_type >= 0 && br_type < (int)(sizeof(arch) / sizeof(arch[0])))
		return arch[br_type];
	if (br_type >= BR_TYPE_OTHER_FIRST)
		return X86_BR_FAR_JMP; /* a far transfer of some kind */
	return -1;
}

const char *bt_kind_name(int kind)
{
	if (kind < 0)
		return "unknown";
	return kind == X86_BR_NONE ? "async" : x86_branch_name((enum x86_branch_kind)kind);
}

void bt_sym_for_each_exec(void (*fn)(const char *path, uint64_t start, uint64_t len, uint64_t pgoff,
				     uint64_t bias))
{
	if (!reported)
		report_all();
	for (unsigned i = 0; i < n_ranges; i++)
		fn(ranges[i].path, ranges[i].lo, ranges[i].memsz, ranges[i].pgoff, ranges[i].bias);
}

/* The scopes at addr, innermost first (*scopes, freed by the caller), and its CU: how many.
 * The concrete chain from the innermost scope out, as eu-addr2line -i walks it (with
 * dwarf_getscopes alone, an inlined subroutine's abstract origin takes its callers' place). */
int bt_sym_scopes(uint64_t addr, Dwarf_Die **scopes, Dwarf_Die **cu)
{
	struct cache_entry *c = lookup(addr);
	*scopes = NULL;
	*cu = NULL;
	if (!c || !c->sym.module)
		return 0;
	Dwfl_Module *dm = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr bias = 0;
	*cu = dm ? dwfl_module_addrdie(dm, addr, &bias) : NULL;
	Dwarf_Die *innermost = NULL;
	int n = *cu ? dwarf_getscopes(*cu, addr - bias, &innermost) : 0;
	n = n > 0 ? dwarf_getscopes_die(&innermost[0], scopes) : 0;
	free(innermost);
	return n;
}

Dwfl_Line *bt_sym_line(uint64_t addr)
{
	struct cache_entry *c = lookup(addr);
	Dwfl_Module *dm = c && c->sym.module ? dwfl_addrmodule(dwfl, addr) : NULL;
	return dm ? dwfl_module_getsrc(dm, addr) : NULL;
}

int bt_sym_dwarf_version(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	Dwarf *dbg = dwarf_begin(fd, DWARF_C_READ);
	Dwarf_Off next = 0;
	size_t header_size = 0;
	Dwarf_Half version = 0;
	Dwarf_Die cu;
	int got = 0;
	if (dbg &&
	    dwarf_next_unit(dbg, 0, &next, &header_size, &version, NULL, NULL, NULL, NULL, NULL) ==
		0 &&
	    dwarf_offdie(dbg, header_size, &cu)) {
		Dwarf_Lines *lines;
		size_t n = 0;
		if (dwarf_getsrclines(&cu, &lines, &n) == 0 && n)
			got = version;
	}
	if (dbg)
		dwarf_end(dbg);
	close(fd);
	return got;
}

void bt_sym_for_each_segment(void (*fn)(void *ctx, const struct bt_exec *x), void *ctx)
{
	if (!reported)
		report_all();
	for (unsigned i = 0; i < n_ranges; i++) {
		const struct code_range *r = &ranges[i];
		struct bt_exec x = {.path = r->path,
				    .build_id = r->m->build_id,
				    .is_kernel = r->m->is_kernel,
				    .start = r->lo,
				    .len = r->memsz,
				    .pgoff = r->pgoff,
				    .bias = r->bias};
		fn(ctx, &x);
	}
}

unsigned bt_sym_files(const char **paths, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < n_modules && n < max; i++)
		paths[n++] = modules[i].path;
	return n;
}

void bt_sym_reset(void)
{
	header_kernel_id[0] = header_program_id[0] = 0;
	header_has_bias = false;
	reported = false;
	generation++;
}
