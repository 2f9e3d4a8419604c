/* A Linux program as any user writes it (tests/qemu/linux.t builds it with musl-gcc -static,
 * gcc -static and gcc -static-pie): its arguments and environment, the heap (brk and mmap),
 * stdio to stdout and stderr, floating point, and an exit status of its own. One call of
 * marked() lies between Intel SDE's SSC marks (MOV EBX, 0x111 / 0x222, then the no-op
 * 64 67 90): with program.roi=marks only it is captured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SSC_MARK(tag) __asm__ volatile("mov %0, %%ebx; .byte 0x64, 0x67, 0x90" : : "i"(tag) : "rbx")

__attribute__((noipa)) unsigned marked(unsigned n)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s += i * i;
	return s;
}

int main(int argc, char **argv, char **envp)
{
	SSC_MARK(0x111);
	unsigned sq = marked(10 + argc);
	SSC_MARK(0x222);
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
	return sq ? 3 : 4;
}
