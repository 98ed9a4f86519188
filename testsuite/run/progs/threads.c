/*
 * threads.c - the workload of the threads test: two threads each run spin(),
 * a dec/jnz loop of 3000000 iterations (6000001 instructions: one sample
 * each 100000, 60 per thread), while main only waits for them.
 */
#include <pthread.h>

__attribute__((noinline)) void spin(void)
{
	__asm__ volatile("mov $3000000, %%ecx\n1: dec %%ecx\njnz 1b" ::: "ecx", "cc");
}

static void *run(void *arg)
{
	(void)arg;
	spin();
	return 0;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], 0, run, 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	return 0;
}
