/* SPDX-License-Identifier: MIT */
/*
 * Symbol lookup in an ELF64 file (see elf_sym.h). Layouts from the System V ABI's ELF-64 Object
 * File Format (section header, symbol table entry), read with memcpy at checked offsets.
 */
#include "lib/elf_sym.h"
#include "lib/string.h"

#define EH_SHOFF      0x28 /* e_shoff, 8 bytes */
#define EH_SHENTSIZE  0x3a /* e_shentsize, 2 bytes */
#define EH_SHNUM      0x3c /* e_shnum, 2 bytes */
#define EH_SIZE	      64
#define SHT_SYMTAB    2
#define SHN_UNDEF     0
#define SHN_LORESERVE 0xff00 /* and above: ABS, COMMON, ... not a place in the text */
#define STT_NOTYPE    0
#define STT_OBJECT    1
#define STT_FUNC      2
#define ST_TYPE(info) ((info)&0xf)

struct elf64_shdr {
	uint32_t sh_name, sh_type;
	uint64_t sh_flags, sh_addr, sh_offset, sh_size;
	uint32_t sh_link, sh_info;
	uint64_t sh_addralign, sh_entsize;
};
_Static_assert(sizeof(struct elf64_shdr) == 64, "Elf64_Shdr layout");

struct elf64_sym {
	uint32_t st_name;
	uint8_t st_info, st_other;
	uint16_t st_shndx;
	uint64_t st_value, st_size;
};
_Static_assert(sizeof(struct elf64_sym) == 24, "Elf64_Sym layout");

static bool in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static bool section(const uint8_t *d, uint64_t size, unsigned i, struct elf64_shdr *sh)
{
	uint64_t shoff;
	uint16_t entsize, num;
	memcpy(&shoff, d + EH_SHOFF, sizeof(shoff));
	memcpy(&entsize, d + EH_SHENTSIZE, sizeof(entsize));
	memcpy(&num, d + EH_SHNUM, sizeof(num));
	if (entsize != sizeof(*sh) || i >= num || !in_file(shoff, (uint64_t)num * entsize, size))
		return false;
	memcpy(sh, d + shoff + (uint64_t)i * entsize, sizeof(*sh));
	return true;
}

/* The name at `off` of string table st: its length up to the NUL, which must be in the table. */
static bool name_at(const uint8_t *d, const struct elf64_shdr *st, uint32_t off, size_t *len)
{
	if (off >= st->sh_size)
		return false;
	const uint8_t *s = d + st->sh_offset + off;
	uint64_t max = st->sh_size - off;
	for (size_t n = 0; n < max; n++)
		if (!s[n]) {
			*len = n;
			return n > 0;
		}
	return false;
}

/* The file's symbol table and its string table, both inside the file. */
static bool tables(const uint8_t *d, uint64_t size, struct elf64_shdr *symtab,
		   struct elf64_shdr *strtab)
{
	if (!d || size < EH_SIZE)
		return false;
	unsigned i = 0;
	while (section(d, size, i, symtab) && symtab->sh_type != SHT_SYMTAB)
		i++;
	return section(d, size, i, symtab) && symtab->sh_entsize == sizeof(struct elf64_sym) &&
	       in_file(symtab->sh_offset, symtab->sh_size, size) &&
	       section(d, size, symtab->sh_link, strtab) &&
	       in_file(strtab->sh_offset, strtab->sh_size, size);
}

bool elf_find_function(const void *data, uint64_t size, const char *name, uint64_t *value,
		       uint64_t *fn_size)
{
	const uint8_t *d = data;
	struct elf64_shdr symtab, strtab;
	if (!tables(d, size, &symtab, &strtab))
		return false;
	size_t want = strlen(name);
	for (uint64_t k = 0; k < symtab.sh_size / sizeof(struct elf64_sym); k++) {
		struct elf64_sym s;
		memcpy(&s, d + symtab.sh_offset + k * sizeof(s), sizeof(s));
		size_t len;
		if (ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx != SHN_UNDEF &&
		    s.st_shndx < SHN_LORESERVE && name_at(d, &strtab, s.st_name, &len) &&
		    len == want && !memcmp(d + strtab.sh_offset + s.st_name, name, len)) {
			*value = s.st_value;
			*fn_size = s.st_size;
			return true;
		}
	}
	return false;
}

bool elf_symbolize(const void *data, uint64_t size, uint64_t addr, struct elf_sym_hit *hit)
{
	const uint8_t *d = data;
	struct elf64_shdr symtab, strtab;
	if (!tables(d, size, &symtab, &strtab))
		return false;
	bool found = false, found_sized = false;
	uint64_t best = 0;
	for (uint64_t k = 0; k < symtab.sh_size / sizeof(struct elf64_sym); k++) {
		struct elf64_sym s;
		memcpy(&s, d + symtab.sh_offset + k * sizeof(s), sizeof(s));
		unsigned type = ST_TYPE(s.st_info);
		size_t len;
		if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE || s.st_value > addr ||
		    (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) ||
		    !name_at(d, &strtab, s.st_name, &len))
			continue;
		bool sized = s.st_size != 0;
		if (sized && addr - s.st_value >= s.st_size)
			continue; /* past its end */
		/* A symbol whose extent holds addr wins over a bare label; then the nearest. */
		if (found && (found_sized && !sized))
			continue;
		if (found && found_sized == sized && s.st_value <= best)
			continue;
		found = true;
		found_sized = sized;
		best = s.st_value;
		hit->name = (const char *)d + strtab.sh_offset + s.st_name;
		hit->name_len = len;
		hit->offset = addr - s.st_value;
	}
	return found;
}
