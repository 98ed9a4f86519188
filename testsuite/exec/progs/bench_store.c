/* bench_store.c - a store-heavy loop for scripts/bench_cache_events: N
 * stores (default 20M) one 64-byte line apart over a 256 KiB array, and
 * a load every 8th; prints a checksum. */
#include <stdio.h>
#include <stdlib.h>

static long a[32768];

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000, s = 0;

	for (long r = 0; r < n; r++) {
		a[(r * 8) & 32767] = r;
		if (!(r & 7))
			s += a[(r * 3) & 32767];
	}
	printf("%ld\n", s);
	return 0;
}
