/*
 * papi_overflow.c - PAPI's overflow path inside the guest: PAPI_overflow on
 * PAPI_TOT_INS with a threshold, a loop of known length, and the number of
 * handler calls. PAPI's perf_event component arms the overflow with
 * sample_period = threshold, O_ASYNC + F_SETOWN_EX + F_SETSIG, and
 * PERF_EVENT_IOC_REFRESH(1) after each signal.
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long long handled;

static void handler(int set, void *addr, long long ovec, void *ctx)
{
	(void)set; (void)addr; (void)ovec; (void)ctx;
	handled++;
}

int main(int argc, char **argv)
{
	long long threshold = argc > 1 ? atoll(argv[1]) : 100000;
	long n = argc > 2 ? atol(argv[2]) : 10000000;
	int set = PAPI_NULL, r;
	long long v = 0;

	if ((r = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT) {
		printf("init=%d\n", r);
		return 1;
	}
	if ((r = PAPI_create_eventset(&set)) != PAPI_OK ||
	    (r = PAPI_add_event(set, PAPI_TOT_INS)) != PAPI_OK ||
	    (r = PAPI_overflow(set, PAPI_TOT_INS, (int)threshold, 0, handler)) != PAPI_OK ||
	    (r = PAPI_start(set)) != PAPI_OK) {
		printf("setup=%s\n", PAPI_strerror(r));
		return 1;
	}
	asm volatile("mov %0, %%rcx\n1:\tdec %%rcx\n\tjnz 1b\n\t" :: "r"(n) : "rcx", "cc");
	if ((r = PAPI_stop(set, &v)) != PAPI_OK) {
		printf("stop=%s\n", PAPI_strerror(r));
		return 1;
	}
	printf("papi_count=%lld\npapi_overflows=%lld\npapi_expected=%lld\n", v, handled,
	       v / threshold);
	return 0;
}
