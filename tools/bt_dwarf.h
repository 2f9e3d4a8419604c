/* SPDX-License-Identifier: MIT */
/*
 * What bt_symbols.c (libdwfl's modules) gives bt_dwarf.c (the DWARF views of an address:
 * inline frames, AutoFDO's source stacks): libdw's types, so only these two include it.
 */
#ifndef TOOLS_BT_DWARF_H
#define TOOLS_BT_DWARF_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdint.h>

/* The scopes at addr, innermost first (*scopes, freed by the caller), and its CU: how many. */
int bt_sym_scopes(uint64_t addr, Dwarf_Die **scopes, Dwarf_Die **cu);
/* The line table's row for addr, NULL when none. */
Dwfl_Line *bt_sym_line(uint64_t addr);
/* A C++ name as people read it (the name itself when it is not mangled). */
const char *bt_sym_demangle(const char *name);

#endif
