/* A program whose output is the test (tests/qemu/output.t, tests/long/output.t): BLOCKS blocks
 * (argv[1], default 300) of 4093 to 4099 bytes to stdout, every byte value 0-255 in each, and
 * between them, every 16th block, a piece of 1 to 100 bytes to stderr (binary too), with
 * write(2) as it comes: nothing buffered, the interleaving is the program's own. */
#include <stdlib.h>
#include <unistd.h>

#define BLOCK 4099

static unsigned char buf[BLOCK + 256];

/* write(2) until all n bytes are written (a pipe may take fewer at a time). */
static void put(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			exit(3);
		p += w;
		n -= (size_t)w;
	}
}

int main(int argc, char **argv)
{
	int blocks = argc > 1 ? atoi(argv[1]) : 300;
	for (int j = 0; j < BLOCK + 256; j++)
		buf[j] = (unsigned char)(j * 7 + j / 256);
	for (int i = 0; i < blocks; i++) {
		put(1, buf + i % 256, BLOCK - i % 7);
		if (i % 16 == 0)
			put(2, buf + (i * 13) % 256, 1 + i % 100);
	}
	return 0;
}
