/*
 * threads_leader_exit.c - guest program: the main thread leaves with pthread_exit()
 * while a worker goes on; the process ends when the worker does, with the
 * worker's exit status (the last thread's exit(), do_exit()).
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	usleep(100000);
	printf("worker still running after main left\n");
	fflush(stdout);
	return NULL;
}

int main(void)
{
	pthread_t th;

	pthread_create(&th, NULL, worker, NULL);
	printf("main leaving\n");
	fflush(stdout);
	pthread_exit(NULL);
}
