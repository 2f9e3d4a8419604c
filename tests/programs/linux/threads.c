/* SPDX-License-Identifier: MIT */
/*
 * A threaded static Linux program (glibc's pthreads): WORKERS threads (argv[1], default 3),
 * each on a CPU of its own under baretrace. What it prints depends on nothing but its source:
 *   - each worker adds the squares of its own range of 1..RANGE to a total under a mutex:
 *     "squares: " the sum of k^2 for k = 1..WORKERS*RANGE, n(n+1)(2n+1)/6;
 *   - a barrier of WORKERS + 1 (the main thread too) then, through a bounded queue of QUEUE
 *     slots guarded by a mutex and two condition variables, the main thread hands out 1..ITEMS
 *     and the workers sum what they take: "items: " ITEMS(ITEMS+1)/2;
 *   - each worker's gettid() differs from the others' and from getpid(): "tids: distinct";
 *   - pthread_join gives back each worker's own number: "joined: " 0 + 1 + ... + (WORKERS-1);
 *   - a new thread inherits the floating-point environment of the thread that made it (POSIX
 *     pthread_create): main rounds upward before making them, each worker reads its rounding
 *     mode: "fenv: inherited".
 * Link with -lm (fesetround).
 */
#include <fenv.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WORKERS_MAX 16
#define RANGE	    50
#define ITEMS	    120
#define QUEUE	    4
#define DONE	    (-1)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER, nonfull = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;
static int queue[QUEUE], head, count;
static long squares, items;
static long tid_of[WORKERS_MAX];
static int round_of[WORKERS_MAX];

static int take(void)
{
	pthread_mutex_lock(&lock);
	while (count == 0)
		pthread_cond_wait(&nonempty, &lock);
	int v = queue[head];
	head = (head + 1) % QUEUE;
	count--;
	pthread_cond_signal(&nonfull);
	pthread_mutex_unlock(&lock);
	return v;
}

static void put(int v)
{
	pthread_mutex_lock(&lock);
	while (count == QUEUE)
		pthread_cond_wait(&nonfull, &lock);
	queue[(head + count) % QUEUE] = v;
	count++;
	pthread_cond_signal(&nonempty);
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	long id = (long)arg, sum = 0;
	tid_of[id] = syscall(SYS_gettid);
	round_of[id] = fegetround();
	for (long k = id * RANGE + 1; k <= (id + 1) * RANGE; k++)
		sum += k * k;
	pthread_mutex_lock(&lock);
	squares += sum;
	pthread_mutex_unlock(&lock);
	pthread_barrier_wait(&barrier);
	long got = 0;
	for (int v; (v = take()) != DONE;)
		got += v;
	pthread_mutex_lock(&lock);
	items += got;
	pthread_mutex_unlock(&lock);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	if (n < 1 || n > WORKERS_MAX) {
		fprintf(stderr, "threads: 1 to %d workers\n", WORKERS_MAX);
		return 2;
	}
	pthread_t t[WORKERS_MAX];
	pthread_barrier_init(&barrier, NULL, (unsigned)n + 1);
	fesetround(FE_UPWARD);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i)) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 3;
		}
	pthread_barrier_wait(&barrier);
	for (int v = 1; v <= ITEMS; v++)
		put(v);
	for (int i = 0; i < n; i++)
		put(DONE);
	long joined = 0;
	for (int i = 0; i < n; i++) {
		void *r;
		pthread_join(t[i], &r);
		joined += (long)r;
	}
	fesetround(FE_TONEAREST);
	int inherited = 1;
	for (int i = 0; i < n; i++)
		inherited &= round_of[i] == FE_UPWARD;
	int distinct = 1;
	for (int i = 0; i < n; i++) {
		distinct &= tid_of[i] != getpid();
		for (int j = 0; j < i; j++)
			distinct &= tid_of[i] != tid_of[j];
	}
	long m = (long)n * RANGE;
	printf("workers: %d\n", n);
	printf("squares: %ld (want %ld)\n", squares, m * (m + 1) * (2 * m + 1) / 6);
	printf("items: %ld (want %d)\n", items, ITEMS * (ITEMS + 1) / 2);
	printf("tids: %s\n", distinct ? "distinct" : "NOT distinct");
	printf("joined: %ld (want %d)\n", joined, n * (n - 1) / 2);
	printf("fenv: %s\n", inherited ? "inherited" : "NOT inherited");
	return 0;
}
