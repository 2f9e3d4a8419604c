/* A Linux program as any user writes it (tests/qemu/linux.t builds it with musl-gcc -static,
 * gcc -static and gcc -static-pie): its arguments and environment, the heap (brk and mmap),
 * stdio to stdout and stderr, floating point, and an exit status of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv, char **envp)
{
	printf("argc=%d\n", argc);
	for (int i = 0; i < argc; i++)
		printf("argv[%d]=%s\n", i, argv[i]);
	for (char **e = envp; *e; e++)
		printf("env %s\n", *e);
	char *small = malloc(100000), *big = malloc(1 << 20); /* brk, then mmap */
	if (!small || !big)
		return 99;
	memset(small, 'x', 99999);
	small[99999] = 0;
	strcpy(big, small);
	fprintf(stderr, "to stderr\n");
	printf("len=%zu %.3f %s\n", strlen(big), 3.14159 * argc, getenv("B") ? getenv("B") : "-");
	free(small);
	free(big);
	return 3;
}
