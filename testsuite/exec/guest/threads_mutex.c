/*
 * threads_mutex.c - guest program: 4 pthreads taking turns under a mutex and a
 * condition variable (deterministic output), a futex-heavy counter, and
 * pthread_join (clear_child_tid wake-ups).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define ROUNDS 5
#define INCS 20000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;
static long counter;
static __thread int tls_id = -1;

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	tls_id = id;
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&mu);
		while (turn != id)
			pthread_cond_wait(&cv, &mu);
		printf("thread %d round %d tls %d\n", id, r, tls_id);
		fflush(stdout);
		turn = (turn + 1) % NT;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	for (int i = 0; i < INCS; i++) {
		pthread_mutex_lock(&mu);
		counter++;
		pthread_mutex_unlock(&mu);
	}
	return (void *)(long)(id * 10);
}

int main(void)
{
	pthread_t th[NT];
	long sum = 0;

	tls_id = 99;
	for (long i = 0; i < NT; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < NT; i++) {
		void *ret;

		pthread_join(th[i], &ret);
		sum += (long)ret;
	}
	printf("counter %ld (expect %d) sum %ld main tls %d\n", counter, NT * INCS, sum, tls_id);
	return counter == NT * INCS ? 0 : 1;
}
