/* Which stream each byte reaches (tests/qemu/linux.t builds it with gcc -static: glibc's dup3
 * and fcntl are the system calls): a descriptor names an open file description, and stdout and
 * stderr are two of them (dup(2): the new descriptor "refers to the same open file description";
 * close(2) drops one name of it). dup, dup2, dup3, fcntl F_DUPFD and F_DUPFD_CLOEXEC give another
 * name of the same one, with its own FD_CLOEXEC (fcntl(2) F_GETFD); a name closed leaves the others
 * working. Every line goes out with write(2) or writev(2) on the descriptor it talks about, so the
 * test can see, stream by stream, where the bytes went: natively under Linux and traced. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define LINE_MAX_BYTES 256
#define TOP_FD	       31 /* below every RLIMIT_NOFILE: Linux's default 1024, baretrace's 32 */

/* A line to descriptor fd; write's result. */
static long say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static long say(int fd, const char *fmt, ...)
{
	char b[LINE_MAX_BYTES];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	return write(fd, b, (size_t)n);
}

/* A call's result: the number, or the error's name. */
static const char *res(long r)
{
	static char b[4][32];
	static unsigned k;
	char *p = b[k++ % 4];
	if (r >= 0)
		snprintf(p, sizeof(b[0]), "%ld", r);
	else
		snprintf(p, sizeof(b[0]), "%s",
			 errno == EBADF	   ? "EBADF"
			 : errno == EINVAL ? "EINVAL"
					   : "other");
	return p;
}

int main(int argc, char **argv)
{
	say(1, "stdout: %d arguments\n", argc);
	for (int i = 0; i < argc; i++)
		say(1, "argv[%d]=[%s]\n", i, argv[i]);
	say(2, "stderr: its own stream\n");

	int saved = dup(1);
	say(1, "dup(1) = %s: stdout\n", res(saved));
	say(1, "dup2(2, 1) = %s: fd 1 names stderr now\n", res(dup2(2, 1)));
	say(1, "dup2(%d, 1) = %s: fd 1 names stdout again\n", saved, res(dup2(saved, 1)));
	close(1);
	say(1, "close(1); dup(2) = %s: stderr\n", res(dup(2)));
	say(1, "dup3(%d, 1, 0) = %s: stdout\n", saved, res(dup3(saved, 1, 0)));

	int e = fcntl(2, F_DUPFD, 10);
	say(e, "fcntl(2, F_DUPFD, 10) = %s: stderr, FD_CLOEXEC %d\n", res(e), fcntl(e, F_GETFD));
	int c = fcntl(1, F_DUPFD_CLOEXEC, 0);
	say(c, "fcntl(1, F_DUPFD_CLOEXEC, 0) = %s: stdout, FD_CLOEXEC %d\n", res(c),
	    fcntl(c, F_GETFD));
	int d = dup3(2, 20, O_CLOEXEC);
	say(d, "dup3(2, 20, O_CLOEXEC) = %s: stderr, FD_CLOEXEC %d\n", res(d), fcntl(d, F_GETFD));
	const char *set = res(fcntl(d, F_SETFD, 0));
	say(d, "F_SETFD 0 = %s: FD_CLOEXEC %d\n", set, fcntl(d, F_GETFD));
	int t = dup2(1, TOP_FD);
	say(t, "dup2(1, %d) = %s: stdout\n", TOP_FD, res(t));
	say(1, "dup2(1, 1) = %s\n", res(dup2(1, 1)));
	say(1, "dup3(1, 1, 0) = %s\n", res(dup3(1, 1, 0)));
	say(1, "dup3(1, 5, 4) = %s\n", res(dup3(1, 5, 4)));
	say(1, "dup2(9, 1) = %s\n", res(dup2(9, 1)));

	struct iovec iov[2] = {{"writev: ", 8}, {"stderr\n", 7}};
	say(1, "writev(%d) = %s\n", e, res(writev(e, iov, 2)));
	close(2);
	long w = say(2, "never seen\n");
	say(1, "close(2); write(2) = %s\n", res(w));
	say(e, "fd %d still names stderr\n", e);
	close(e);
	close(d);
	say(1, "stderr has no name left; dup2(1, 2) = %s\n", res(dup2(1, 2)));
	say(2, "fd 2 names stdout now\n");
	return 0;
}
