/* SPDX-License-Identifier: MIT */
/*
 * The kernel's <string.h> subset: mem* and str* with the standard semantics. In the kernel they
 * carry the standard names, which gcc also calls on its own (struct copies, zeroing), so they
 * must exist even with -ffreestanding -fno-builtin. Host unit tests link them next to libc, so
 * under BT_HOST every name gets a bt_ prefix (bt_memcpy, bt_strlen, ...) through LIB_NAME().
 * Comparisons order bytes as unsigned char, like the C library.
 */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stddef.h>

#ifdef BT_HOST
#define LIB_NAME(n) bt_##n
/* Code under host test that calls memcpy() etc. gets the C library's; bt_* are tested apart. */
#include <string.h>
#else
#define LIB_NAME(n) n
#endif

/* Copy n bytes; the areas must not overlap (use memmove then). Returns dst. */
void *LIB_NAME(memcpy)(void *restrict dst, const void *restrict src, size_t n);
/* Copy n bytes; the areas may overlap. Returns dst. */
void *LIB_NAME(memmove)(void *dst, const void *src, size_t n);
/* Fill n bytes with (unsigned char)c. Returns dst. */
void *LIB_NAME(memset)(void *dst, int c, size_t n);
/* <0, 0, >0 as the first differing byte of a is below, equal to, above that of b. */
int LIB_NAME(memcmp)(const void *a, const void *b, size_t n);

size_t LIB_NAME(strlen)(const char *s);
/* strlen(s), but reads at most max bytes and returns at most max. */
size_t LIB_NAME(strnlen)(const char *s, size_t max);
int LIB_NAME(strcmp)(const char *a, const char *b);
/* strcmp over at most n characters. */
int LIB_NAME(strncmp)(const char *a, const char *b, size_t n);
/* First occurrence of (char)c in s, the terminating NUL included (c == 0); NULL if none. */
char *LIB_NAME(strchr)(const char *s, int c);

#endif
