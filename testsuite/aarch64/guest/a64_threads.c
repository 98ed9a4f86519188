/*
 * a64_threads.c - guest program: pthreads on arm64: clone with TLS in
 * TPIDR_EL0 (each thread's __thread counter), futex-based mutex and
 * condition variable, pthread_join's CLONE_CHILD_CLEARTID wake-up.
 */
#include <pthread.h>
#include <stdio.h>

#define N 4
#define ITER 20000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long total;
static int ready;
static __thread long mine;

static void *worker(void *arg)
{
	long id = (long)arg;

	pthread_mutex_lock(&m);
	while (!ready)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < ITER; i++) {
		mine += id;
		pthread_mutex_lock(&m);
		total++;
		pthread_mutex_unlock(&m);
	}
	return (void *)mine;
}

int main(void)
{
	pthread_t t[N];
	long sum = 0;

	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < N; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("total %ld tls sum %ld main tls %ld\n", total, sum, mine);
	return 0;
}
