/*
 * hello.c - one program built static, static-PIE and dynamic (PIE and
 * non-PIE): libc formatting, malloc/free (brk and mmap), file I/O, environment
 * and argv, TLS (errno, __thread), and an exit status from the arguments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static __thread int tls_counter = 7;

int main(int argc, char **argv)
{
	size_t big = 64u << 20;
	char *small = malloc(100), *huge = malloc(big);
	FILE *f;
	long sum = 0;

	if (!small || !huge)
		return 3;
	for (size_t i = 0; i < big; i += 4096)
		huge[i] = (char)i;
	for (size_t i = 0; i < big; i += 4096)
		sum += huge[i];
	snprintf(small, 100, "argc=%d tls=%d sum=%ld", argc, ++tls_counter, sum);
	puts(small);
	for (int i = 0; i < argc; i++)
		printf("argv[%d]=%s\n", i > 0 ? i : 0, i > 0 ? argv[i] : "(name)");
	printf("HELLO_VAR=%s\n", getenv("HELLO_VAR") ? getenv("HELLO_VAR") : "(unset)");
	errno = 0;
	f = fopen("/nonexistent/file", "r");
	printf("fopen: %s errno=%d\n", f ? "ok" : "failed", errno);
	f = fopen("hello.out", "w");
	if (f) {
		fprintf(f, "%s\n", small);
		fclose(f);
		unlink("hello.out");
	}
	free(huge);
	free(small);
	fprintf(stderr, "to stderr\n");
	return argc > 1 ? atoi(argv[1]) : 0;
}
