/* SPDX-License-Identifier: MIT */
/*
 * A small unmodified Linux program for tests/qemu/compat.t's make-test case of the oracle for
 * such programs (musl-gcc -static): a hash of its arguments (a loop, a data-dependent branch per
 * character, strlen), its exit status; a few hundred instructions after musl's start-up.
 */
#include <string.h>

int main(int argc, char **argv)
{
	unsigned h = 5381;
	for (int i = 0; i < argc; i++)
		for (const char *p = argv[i]; *p; p++)
			h = *p == ' ' ? h * 7 : h * 33 + (unsigned char)*p;
	return (int)(h % 200 + (argc > 2 ? strlen(argv[2]) % 7 : 0));
}
