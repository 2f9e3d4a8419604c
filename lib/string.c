/* SPDX-License-Identifier: MIT */
/*
 * mem* and str* for the kernel (see lib/string.h). Plain loops; the copies and fills move
 * 8-byte words once source and destination are equally aligned, bytes otherwise.
 */
#include "lib/string.h"
#include <stdint.h>

/*
 * gcc can recognise copy, fill and length loops and replace them with calls to memcpy, memset
 * or strlen (-ftree-loop-distribute-patterns, on at -O2): inside those very functions that is
 * endless recursion. gcc 12 does it in a hosted build of this file and refrains with
 * -ffreestanding -fno-builtin, but nothing documents the latter, so the transformation is
 * switched off for every function here that contains such a loop.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define NO_LOOP_TO_CALL __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define NO_LOOP_TO_CALL
#endif

/* A word that may alias any object, so word accesses are valid on any buffer. */
typedef uint64_t __attribute__((may_alias)) word_t;
#define WORD	    sizeof(word_t)
#define MISALIGN(p) ((uintptr_t)(p) & (WORD - 1))

/* Forward copy, lowest byte first. Also correct for overlapping areas with dst < src. */
NO_LOOP_TO_CALL static void copy_forward(unsigned char *d, const unsigned char *s, size_t n)
{
	if (MISALIGN(d) == MISALIGN(s)) {
		while (n > 0 && MISALIGN(d) != 0) {
			*d++ = *s++;
			n--;
		}
		/*
		 * Both aligned now. With dst < src, the word written never covers source bytes
		 * not yet read: they differ by a nonzero multiple of WORD.
		 */
		for (; n >= WORD; n -= WORD, d += WORD, s += WORD)
			*(word_t *)d = *(const word_t *)s;
	}
	while (n-- > 0)
		*d++ = *s++;
}

/* Backward copy, highest byte first: for overlapping areas with dst > src. */
NO_LOOP_TO_CALL static void copy_backward(unsigned char *d, const unsigned char *s, size_t n)
{
	d += n;
	s += n;
	if (MISALIGN(d) == MISALIGN(s)) {
		while (n > 0 && MISALIGN(d) != 0) {
			*--d = *--s;
			n--;
		}
		for (; n >= WORD; n -= WORD) {
			d -= WORD;
			s -= WORD;
			*(word_t *)d = *(const word_t *)s;
		}
	}
	while (n-- > 0)
		*--d = *--s;
}

NO_LOOP_TO_CALL void *LIB_NAME(memcpy)(void *restrict dst, const void *restrict src, size_t n)
{
	copy_forward(dst, src, n);
	return dst;
}

NO_LOOP_TO_CALL void *LIB_NAME(memmove)(void *dst, const void *src, size_t n)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;

	/* Only a destination starting inside the source must be copied from the end. */
	if (d > s && d - s < n)
		copy_backward(dst, src, n);
	else if (d != s)
		copy_forward(dst, src, n);
	return dst;
}

NO_LOOP_TO_CALL void *LIB_NAME(memset)(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned char b = (unsigned char)c;

	while (n > 0 && MISALIGN(d) != 0) {
		*d++ = b;
		n--;
	}
	if (n >= WORD) {
		word_t w = b * UINT64_C(0x0101010101010101); /* b in every byte */
		for (; n >= WORD; n -= WORD, d += WORD)
			*(word_t *)d = w;
	}
	while (n-- > 0)
		*d++ = b;
	return dst;
}

int LIB_NAME(memcmp)(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++) {
		if (x[i] != y[i])
			return x[i] - y[i];
	}
	return 0;
}

NO_LOOP_TO_CALL size_t LIB_NAME(strlen)(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

NO_LOOP_TO_CALL size_t LIB_NAME(strnlen)(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n] != '\0')
		n++;
	return n;
}

int LIB_NAME(strcmp)(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	while (*x != '\0' && *x == *y) {
		x++;
		y++;
	}
	return *x - *y;
}

int LIB_NAME(strncmp)(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	for (size_t i = 0; i < n; i++) {
		if (x[i] != y[i] || x[i] == '\0')
			return x[i] - y[i];
	}
	return 0;
}

char *LIB_NAME(strchr)(const char *s, int c)
{
	char ch = (char)c;

	for (;; s++) {
		if (*s == ch)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}
