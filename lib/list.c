/* SPDX-License-Identifier: MIT */
#include "lib/list.h"
#include "lib/string.h"

bool list_next(const char **cursor, const char **item, size_t *len)
{
	const char *p = *cursor;
	if (!p)
		return false;
	const char *comma = strchr(p, ',');
	*item = p;
	*len = comma ? (size_t)(comma - p) : strlen(p);
	*cursor = comma ? comma + 1 : NULL;
	return true;
}

bool list_contains(const char *list, const char *name)
{
	size_t n = strlen(name), len;
	for (const char *c = list, *item; list_next(&c, &item, &len);)
		if (len == n && strncmp(item, name, n) == 0)
			return true;
	return false;
}
