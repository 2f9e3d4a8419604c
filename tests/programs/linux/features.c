/* A Linux program that uses what a benchmark or a tool uses beyond stdio (tests/qemu/linux.t
 * builds it with gcc -static: glibc): descriptors (dup, dup2, dup3, a shared
 * offset, stdin from a file), directories (opendir/readdir on data/), stat and statx, mmap with
 * MAP_FIXED and MAP_FIXED_NOREPLACE (anonymous and of a file), mprotect, munmap and madvise
 * with their real effect, the auxiliary vector's AT_MINSIGSTKSZ, nanosleep against the clock,
 * and a function with nested and recursive calls for program.roi=function:roi_target. Every
 * line it prints is the same natively under Linux (run with stdin from data/words.txt) and
 * under baretrace (program.stdin=/data/words.txt): what differs between machines (inode
 * numbers, permissions, times, sizes of the signal frame) is printed as a comparison only. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#define PR_SET_MDWE		 65 /* include/uapi/linux/prctl.h (Linux 6.3) */
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#define PR_GET_MDWE		 66
#define RT_SIGFRAME		 440 /* sizeof(struct rt_sigframe), x86-64 */
#define PAGE			 4096

static const char *err(long r)
{
	return r < 0 ? strerror(errno) : "ok";
}

/* Nested and recursive: program.roi=function:roi_target captures from its entry to its
 * outermost return, roi_leaf's calls inside it included. */
__attribute__((noipa)) unsigned roi_leaf(unsigned x)
{
	return x * 2654435761u >> 7;
}

__attribute__((noipa)) unsigned roi_target(unsigned depth)
{
	unsigned (*volatile self)(unsigned) = roi_target; /* no loop made of the recursion */
	unsigned s = roi_leaf(depth);
	if (depth)
		s += self(depth - 1);
	return s;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void descriptors(void)
{
	int d = dup(1);
	dprintf(d, "dup(1) = %d\n", d);
	int r = dup2(1, 9);
	printf("dup2(1, 9) = %d\n", r);
	fflush(stdout);
	dprintf(9, "written through 9\n");
	printf("dup3(9, 9, 0): %s\n", err(dup3(9, 9, 0)));
	r = close(9);
	printf("close(9) = %d, then write(9): %s\n", r, err(write(9, "x", 1)));
	int f = open("data/words.txt", O_RDONLY), g = dup(f);
	char a[8] = {0}, b[8] = {0};
	long n = read(f, a, 5);
	long m = read(g, b, 3); /* one description: g goes on from 5 */
	printf("open %d, dup %d, read %ld '%.4s', then %ld '%.3s' (shared offset)\n", f, g, n, a, m,
	       b);
	char line[64] = {0};
	long k = read(0, line, sizeof(line) - 1);
	printf("stdin: %ld bytes, first line '%.*s'\n", k, (int)strcspn(line, "\n"), line);
	lseek(f, 0, SEEK_SET);
	r = dup2(f, 0);
	k = read(0, line, 3);
	printf("dup2(f, 0) = %d; stdin now reads %ld '%.3s'\n", r, k, line);
	int dir = open("data", O_RDONLY | O_DIRECTORY);
	printf("read(open(data, O_DIRECTORY)): %s\n", err(read(dir, line, 1)));
	close(dir);
	close(f);
	close(g);
}

static void directories(void)
{
	DIR *dir = opendir("data");
	char *names[32];
	unsigned n = 0;
	struct dirent *e;
	while (dir && n < 32 && (e = readdir(dir)))
		if (asprintf(&names[n], "%s%s", e->d_name, e->d_type == DT_DIR ? "/" : "") > 0)
			n++;
	qsort(names, n, sizeof(names[0]), by_name);
	printf("data/ has %u entries:", n);
	for (unsigned i = 0; i < n; i++)
		printf(" %s", names[i]);
	DIR *file = opendir("data/words.txt");
	printf("\nopendir(data/words.txt): %s\n", file ? "ok" : strerror(errno));
	if (dir)
		closedir(dir);
	struct stat st;
	const char *how = err(stat("data/input.dat", &st));
	printf("stat(data/input.dat): %s, regular %d, size %lld\n", how, S_ISREG(st.st_mode),
	       (long long)st.st_size);
	int isdir = stat("data", &st) == 0 && S_ISDIR(st.st_mode);
	printf("stat(data): dir %d; stat(data/none): %s\n", isdir, err(stat("data/none", &st)));
	struct statx sx;
	how = err(syscall(SYS_statx, AT_FDCWD, "data/words.txt", 0, STATX_BASIC_STATS, &sx));
	printf("statx(data/words.txt): %s, regular %d, size %llu, basic %d\n", how,
	       S_ISREG(sx.stx_mode), (unsigned long long)sx.stx_size,
	       (sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS);
	int f = open("data/words.txt", O_RDONLY);
	memset(&sx, 0, sizeof(sx));
	how = err(syscall(SYS_statx, f, "", AT_EMPTY_PATH, STATX_SIZE, &sx));
	printf("statx(fd, AT_EMPTY_PATH): %s, size %llu\n", how, (unsigned long long)sx.stx_size);
	close(f);
}

/* A JIT's two ways (PCRE2's, LuaJIT's): code written into a mapping that is writable and
 * executable at once, and into a writable one later made executable (mprotect); each run, then
 * changed and run again. x86-64 bytes: B8 imm32 (MOV EAX, imm32), C3 (RET). */
static int run_code(uint8_t *code, uint32_t value)
{
	code[0] = 0xb8;
	memcpy(code + 1, &value, sizeof(value));
	code[5] = 0xc3;
	return ((int (*)(void))(void *)code)();
}

static void jit(void)
{
	uint8_t *rwx =
	    mmap(0, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rwx == MAP_FAILED) {
		printf("JIT: mmap(RWX): %s\n", strerror(errno));
		return;
	}
	int a = run_code(rwx, 1234);
	int b = run_code(rwx, 5678);
	printf("JIT: mmap(RWX): code ran: %d, rewritten: %d\n", a, b);
	uint8_t *rw = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(rw, rwx, 6);
	rw[1] = 42;
	const char *how = err(mprotect(rw, PAGE, PROT_READ | PROT_EXEC));
	printf("JIT: mprotect(RX) of written code: %s, ran: %d\n", how,
	       ((int (*)(void))(void *)rw)());
	munmap(rwx, PAGE);
	munmap(rw, PAGE);
}

static void memory(void)
{
	fflush(stdout);
	uint8_t *p = mmap(0, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(p, 'A', 4 * PAGE);
	uint8_t *q = mmap(p + PAGE, PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	printf("MAP_FIXED over page 1: %s, reads %#x, page 0 still %#x\n",
	       q == p + PAGE ? "same address" : "moved", q[10], p[10]);
	void *r = mmap(p + PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		       -1, 0);
	printf("MAP_FIXED_NOREPLACE over it: %s\n", r == MAP_FAILED ? strerror(errno) : "mapped");
	int f = open("data/input.dat", O_RDONLY);
	char *m = mmap(p + 2 * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 0);
	char head[16];
	pread(f, head, sizeof(head), 0);
	printf("MAP_FIXED of a file: %s, bytes %s the file's\n",
	       (uint8_t *)m == p + 2 * PAGE ? "same address" : "moved",
	       memcmp(m, head, sizeof(head)) ? "differ from" : "equal");
	close(f);
	const char *how = err(mprotect(p, PAGE, PROT_READ));
	printf("mprotect(page 0, PROT_READ): %s; ", how);
	fflush(stdout);
	long w = write(1, p, 3);
	f = open("data/words.txt", O_RDONLY);
	printf(" written from it: %ld; read into it: %s\n", w, err(read(f, p, 4)));
	close(f);
	how = err(madvise(p + 3 * PAGE, PAGE, MADV_DONTNEED));
	printf("madvise(page 3, MADV_DONTNEED): %s, reads %#x\n", how, p[3 * PAGE + 5]);
	how = err(munmap(p + 3 * PAGE, PAGE));
	printf("munmap(page 3): %s; write from it: %s\n", how, err(write(1, p + 3 * PAGE, 1)));
	printf("mprotect(unmapped page 3): %s\n", err(mprotect(p + 3 * PAGE, PAGE, PROT_READ)));
	jit();
	/* W^X: under Linux with PR_SET_MDWE (6.3) */
	printf("PR_GET_MDWE before: %d\n", prctl(PR_GET_MDWE, 0, 0, 0, 0));
	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) == 0) {
		void *wx = mmap(0, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		how = wx == MAP_FAILED ? strerror(errno) : "mapped";
		printf("W^X: mmap(RWX): %s; mprotect(RWX): %s\n", how,
		       err(mprotect(p + PAGE, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC)));
		printf("W^X: mprotect(RX) of a page that was not executable: %s\n",
		       err(mprotect(p + PAGE, PAGE, PROT_READ | PROT_EXEC)));
		printf("W^X: PR_GET_MDWE %d; clearing it: %s\n", prctl(PR_GET_MDWE, 0, 0, 0, 0),
		       err(prctl(PR_SET_MDWE, 0, 0, 0, 0)));
	} else {
		printf("W^X: no PR_SET_MDWE here (%s)\n", strerror(errno));
	}
}

static void process(void)
{
	unsigned long min = getauxval(AT_MINSIGSTKSZ);
	unsigned a, b, c, d;
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(0));
	printf("AT_MINSIGSTKSZ: given %d, holds a signal frame and the XSAVE area %d\n", min != 0,
	       min >= RT_SIGFRAME + b);
	struct timespec t0, t1, nap = {0, 50 * 1000 * 1000};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int s = nanosleep(&nap, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long long ns = (t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec);
	printf("nanosleep(50 ms) = %d; the clock moved on at least 50 ms: %d\n", s, ns >= 50000000);
	printf("roi_target(5) = %u\n", roi_target(5));
}

int main(int argc, char **argv)
{
	printf("argc=%d argv[0]=%s\n", argc, argv[0]);
	fflush(stdout);
	descriptors();
	directories();
	memory();
	process();
	return 7;
}
