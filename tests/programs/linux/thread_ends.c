/* SPDX-License-Identifier: MIT */
/*
 * How a threaded process ends, one way per argv[1]:
 *   exit      a worker calls exit(7) (exit_group) while the main thread waits in pthread_join:
 *             the process's status is 7, and "main: joined" is never printed;
 *   segv      a worker writes through a null pointer: the process ends by the page fault;
 *   deadlock  the main thread joins a worker that waits on a condition variable nobody
 *             signals: every thread waits (Linux would wait for ever; baretrace says so);
 *   detached  main returns while a detached worker loops for ever: exit_group ends it, status 0.
 * Each mode first prints "start MODE" from the main thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile int go;

static void *worker(void *arg)
{
	const char *mode = arg;
	while (!go)
		; /* until the main thread is in pthread_join (or, detached, returned) */
	if (!strcmp(mode, "exit"))
		exit(7);
	if (!strcmp(mode, "segv"))
		*(volatile int *)0 = 1;
	if (!strcmp(mode, "deadlock")) {
		pthread_mutex_lock(&m);
		for (;;)
			pthread_cond_wait(&never, &m);
	}
	for (volatile unsigned long i = 0;; i++)
		; /* detached: never ends by itself */
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit";
	printf("start %s\n", mode);
	fflush(stdout);
	pthread_t t;
	if (pthread_create(&t, NULL, worker, (void *)mode))
		return 3;
	if (!strcmp(mode, "detached")) {
		pthread_detach(t);
		go = 1;
		return 0;
	}
	go = 1;
	pthread_join(t, NULL);
	printf("main: joined\n");
	return 0;
}
