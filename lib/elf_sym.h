/* SPDX-License-Identifier: MIT */
/*
 * The function an address lies in, from an ELF64 file's symbol table (.symtab, SHT_SYMTAB):
 * used to name the RIP of a user program's fault. Every offset and size is checked against the
 * file: a stripped, truncated or corrupt file gives "not found", never a read outside it.
 */
#ifndef LIB_ELF_SYM_H
#define LIB_ELF_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_sym_hit {
	const char *name; /* in the file's string table, name_len bytes (not NUL-terminated) */
	size_t name_len;
	uint64_t offset; /* addr - the symbol's value */
};

/* The symbol addr falls in: a function or object whose [value, value + size) holds it, else
 * the nearest untyped or sized-0 symbol at or below it (assembly labels such as _start), in a
 * defined section. false when there is none or the file has no usable symbol table. */
bool elf_symbolize(const void *data, uint64_t size, uint64_t addr, struct elf_sym_hit *hit);

/* The function (STT_FUNC, defined) named `name`: its value and size. false when there is none
 * or the file has no usable symbol table (stripped). */
bool elf_find_function(const void *data, uint64_t size, const char *name, uint64_t *value,
		       uint64_t *fn_size);

#endif
