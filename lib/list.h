/* SPDX-License-Identifier: MIT */
/* Comma-separated option lists ("a,b,c"), walked without copying. Pure. */
#ifndef LIB_LIST_H
#define LIB_LIST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Take the next item of the list at *cursor: its start and length; *cursor moves past it (to
 * NULL after the last). Returns false when there is no item left. Start with *cursor = list.
 *   for (const char *c = list, *item; list_next(&c, &item, &len);) ...
 */
bool list_next(const char **cursor, const char **item, size_t *len);
/* Whether `name` is one of the items (exactly, not as a prefix). */
bool list_contains(const char *list, const char *name);

#endif
