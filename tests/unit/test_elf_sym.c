// UNIT-SOURCES: lib/elf_sym.c
/*
 * lib/elf_sym.c: the function an address lies in, from a file's .symtab. The files are built
 * here with the host's <elf.h> (an independent definition of the layouts: Elf64_Shdr,
 * Elf64_Sym, ELF64_ST_INFO); what each address must name follows from the symbols placed:
 * inside a sized function or object its own name, past the end of a sized one nothing unless
 * a bare label (size 0, as assembly's _start) lies at or below it; undefined and absolute
 * symbols never. A stripped, truncated or corrupt file names nothing and reads nothing outside
 * itself (the host build runs under ASan).
 */
#define _GNU_SOURCE /* memmem */
#include "tests/unit/unit.h"
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/elf_sym.h"

#define SYMTAB_OFF 0x100
#define STRTAB_OFF 0x300
#define SHDR_OFF   0x400
#define FILE_SIZE  (SHDR_OFF + 3 * sizeof(Elf64_Shdr))

static uint8_t file[FILE_SIZE];
static char strtab[256];
static size_t strtab_len;
static unsigned nsyms;

static void add(const char *name, unsigned type, uint16_t shndx, uint64_t value, uint64_t size)
{
	Elf64_Sym s = {.st_info = ELF64_ST_INFO(STB_GLOBAL, type),
		       .st_shndx = shndx,
		       .st_value = value,
		       .st_size = size};
	s.st_name = (uint32_t)strtab_len;
	strcpy(strtab + strtab_len, name);
	strtab_len += strlen(name) + 1;
	memcpy(file + SYMTAB_OFF + nsyms++ * sizeof(s), &s, sizeof(s));
}

/* Sections: 0 null, 1 .symtab (linked to 2), 2 .strtab. Section index 5 stands for the text. */
static void make(void)
{
	memset(file, 0, sizeof(file));
	memset(strtab, 0, sizeof(strtab));
	strtab_len = 1; /* offset 0: the empty name */
	nsyms = 1;	/* symbol 0: the null symbol */
	add("alpha", STT_FUNC, 5, 0x1000, 0x20);
	add("beta", STT_FUNC, 5, 0x1020, 0x10);
	add("_start", STT_NOTYPE, 5, 0x1040, 0);
	add("table", STT_OBJECT, 6, 0x2000, 8);
	add("undefined", STT_FUNC, SHN_UNDEF, 0x1000, 0x100);
	add("absolute", STT_NOTYPE, SHN_ABS, 0x1800, 0);
	add("section", STT_SECTION, 5, 0x1000, 0);
	memcpy(file + STRTAB_OFF, strtab, strtab_len);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_shoff = SHDR_OFF;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 3;
	Elf64_Shdr *sh = (Elf64_Shdr *)(file + SHDR_OFF);
	sh[1] = (Elf64_Shdr){.sh_type = SHT_SYMTAB,
			     .sh_offset = SYMTAB_OFF,
			     .sh_size = nsyms * sizeof(Elf64_Sym),
			     .sh_link = 2,
			     .sh_entsize = sizeof(Elf64_Sym)};
	sh[2] = (Elf64_Shdr){.sh_type = SHT_STRTAB, .sh_offset = STRTAB_OFF, .sh_size = strtab_len};
}

/* The name and offset elf_symbolize gives addr, "-" for none. */
static const char *named(const void *data, uint64_t size, uint64_t addr)
{
	static char out[64];
	struct elf_sym_hit hit;
	if (!elf_symbolize(data, size, addr, &hit))
		return "-";
	snprintf(out, sizeof(out), "%.*s+%#llx", (int)hit.name_len, hit.name,
		 (unsigned long long)hit.offset);
	return out;
}

static void addresses_name_their_symbol(void **state)
{
	(void)state;
	make();
	static const struct {
		uint64_t addr;
		const char *want;
	} cases[] = {
	    {0xfff, "-"},	 /* below every symbol (the undefined one does not count) */
	    {0x1000, "alpha+0"}, /* not "section" nor "undefined" */
	    {0x101f, "alpha+0x1f"},
	    {0x1020, "beta+0"},
	    {0x1030, "-"}, /* past beta's end, no label below */
	    {0x103f, "-"}, /* the absolute symbol at 0x1800 is no place */
	    {0x1040, "_start+0"},
	    {0x1045, "_start+0x5"},
	    {0x2004, "table+0x4"},    /* an object holding it wins over the label below */
	    {0x2008, "_start+0xfc8"}, /* past the object: the nearest label */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(named(file, sizeof(file), cases[i].addr), cases[i].want) != 0)
			fail_msg("%#llx: got %s, want %s", (unsigned long long)cases[i].addr,
				 named(file, sizeof(file), cases[i].addr), cases[i].want);
}

static void stripped_truncated_or_corrupt_files_name_nothing(void **state)
{
	(void)state;
	make();
	/* Every prefix shorter than the section headers' end: no symbol table to be found. */
	for (uint64_t n = 0; n < FILE_SIZE; n++) {
		uint8_t *copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees any read past */
		memcpy(copy, file, n);
		assert_string_equal(named(copy, n, 0x1000), "-");
		free(copy);
	}
	/* Stripped: no SHT_SYMTAB. */
	((Elf64_Shdr *)(file + SHDR_OFF))[1].sh_type = SHT_PROGBITS;
	assert_string_equal(named(file, sizeof(file), 0x1000), "-");
	/* A string table that ends inside "table": that name has no NUL in it, so the object is
	 * not named (the label below it is). */
	make();
	const char *t = memmem(strtab, strtab_len, "table", 6);
	((Elf64_Shdr *)(file + SHDR_OFF))[2].sh_size = (uint64_t)(t - strtab) + 3;
	assert_string_equal(named(file, sizeof(file), 0x2004), "_start+0xfc4");
	/* Random bytes anywhere: any answer, but no read outside the file. */
	srand(1);
	for (int round = 0; round < 20000; round++) {
		make();
		for (int k = 0; k < 4; k++)
			file[rand() % FILE_SIZE] = (uint8_t)rand();
		uint8_t *copy = malloc(FILE_SIZE);
		memcpy(copy, file, FILE_SIZE);
		(void)named(copy, FILE_SIZE, (uint64_t)(rand() % 0x3000));
		free(copy);
	}
}

/* program.roi=function:NAME's lookup: a defined STT_FUNC of that exact name, nothing else. */
static void functions_are_found_by_exact_name(void **state)
{
	(void)state;
	make();
	uint64_t v = 0, n = 0;
	assert_true(elf_find_function(file, sizeof(file), "beta", &v, &n));
	assert_int_equal(v, 0x1020);
	assert_int_equal(n, 0x10);
	assert_true(elf_find_function(file, sizeof(file), "alpha", &v, &n) && v == 0x1000);
	assert_false(elf_find_function(file, sizeof(file), "alph", &v, &n));	 /* a prefix */
	assert_false(elf_find_function(file, sizeof(file), "alphabet", &v, &n)); /* longer */
	assert_false(elf_find_function(file, sizeof(file), "table", &v, &n));	 /* an object */
	assert_false(elf_find_function(file, sizeof(file), "_start", &v, &n));	 /* untyped */
	assert_false(elf_find_function(file, sizeof(file), "undefined", &v, &n));
	assert_false(elf_find_function(file, sizeof(file), "", &v, &n));
	for (uint64_t k = 0; k < FILE_SIZE; k++) { /* truncated: found only when whole */
		uint8_t *copy = malloc(k ? k : 1);
		memcpy(copy, file, k);
		assert_false(elf_find_function(copy, k, "beta", &v, &n));
		free(copy);
	}
	((Elf64_Shdr *)(file + SHDR_OFF))[1].sh_type = SHT_PROGBITS; /* stripped */
	assert_false(elf_find_function(file, sizeof(file), "beta", &v, &n));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(addresses_name_their_symbol),
    cmocka_unit_test(functions_are_found_by_exact_name),
    cmocka_unit_test(stripped_truncated_or_corrupt_files_name_nothing),
};

UNIT_MAIN(tests)
