/*
 * sleeper.c - sleeps 300 ms with nanosleep and 200 ms with a relative
 * clock_nanosleep, and prints the CLOCK_MONOTONIC nanoseconds that passed
 * across both (at least 500,000,000 on any kernel), then the
 * CLOCK_PROCESS_CPUTIME_ID ones (a sleep is no CPU time: a few µs).
 */
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec a, b, ca, cb, s1 = { 0, 300000000 }, s2 = { 0, 200000000 };

	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	if (nanosleep(&s1, NULL) || clock_nanosleep(CLOCK_MONOTONIC, 0, &s2, NULL))
		return 1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec));
	printf("%lld\n", (long long)(cb.tv_sec - ca.tv_sec) * 1000000000 + (cb.tv_nsec - ca.tv_nsec));
	return 0;
}
