/*
 * threads_spin.c - guest program: threads that wait for each other by spinning
 * on shared flags, without a syscall (a user spinlock, a ready flag). The
 * scheduler tick preempts a spinning thread; under the emulator lock the
 * waiting thread must likewise get its turn, or the program never ends.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int ready, lock_word;
static long counter;

static void spin_lock(void)
{
	int expect = 0;

	while (!atomic_compare_exchange_weak(&lock_word, &expect, 1))
		expect = 0;
}

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&ready))
		;                       /* spins until main says go */
	for (int i = 0; i < 100000; i++) {
		spin_lock();
		counter++;
		atomic_store(&lock_word, 0);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (volatile long k = 0; k < 1000000; k++)
		;                       /* the workers spin meanwhile */
	atomic_store(&ready, 1);
	for (int i = 0; i < 100000; i++) {
		spin_lock();
		counter++;
		atomic_store(&lock_word, 0);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("counter %ld\n", counter);
	return 0;
}
