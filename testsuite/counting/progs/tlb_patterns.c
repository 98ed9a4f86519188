/*
 * tlb_patterns.c - instruction-cache and TLB patterns whose outcomes follow
 * by arithmetic (test_tlb.c works them out per model), counted by the
 * program itself with one group of raw events.
 *
 * Usage: tlb_patterns data NPAGES PASSES CONFIG...
 *        tlb_patterns lines NLINES PASSES CONFIG...
 *        tlb_patterns code NPAGES PASSES CONFIG...
 *        tlb_patterns mix 0 PASSES CONFIG... [hook]
 * data: loads from NPAGES consecutive pages of an untouched buffer; lines:
 * from NLINES consecutive 64-byte lines of it; code:
 * runs NPAGES pages of code_area (tlb_code_area.S); mix: runs fetch_mix
 * there. CONFIG: up to six raw event encodings (hex), the first the group
 * leader; "hook" last: a user-mode instructions sampler that never
 * overflows beside them, so that the machine sees the fetches with the
 * memory hook instead of the access log. Prints "ev0=N" ...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "region.h"

#define AREA_PAGES 256

long tlb_data(long fd, char *base, long n, long passes, long stride);
long tlb_code(long fd, void *entry, long passes);
extern char code_area[], fetch_mix[];

static char buf[2048 * 4096] __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
	uint64_t v[1 + 6];
	long npages, passes;
	int fd[6], n = 0;

	if (argc < 5 || argc > 11)
		return 2;
	if (!strcmp(argv[argc - 1], "hook")) {
		struct perf_event_attr a;

		sampler_attr(&a, 1ull << 40);
		if (peo(&a, -1) < 0) {
			perror("sampler");
			return 1;
		}
		argc--;
	}
	if (argc - 4 > 6)
		return 2;
	npages = atol(argv[2]);
	passes = atol(argv[3]);
	for (int i = 4; i < argc; i++, n++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_RAW;
		a.config = strtoull(argv[i], NULL, 16);
		a.disabled = n == 0;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_GROUP;
		fd[n] = (int)syscall(SYS_perf_event_open, &a, 0, -1, n ? fd[0] : -1, 0);
		if (fd[n] < 0) {
			perror("perf_event_open");
			return 1;
		}
	}
	if (!strcmp(argv[1], "data") && npages <= 2048)
		tlb_data(fd[0], buf, npages, passes, 4096);
	else if (!strcmp(argv[1], "lines") && npages <= 2048 * 64)
		tlb_data(fd[0], buf, npages, passes, 64);
	else if (!strcmp(argv[1], "code") && npages <= AREA_PAGES)
		tlb_code(fd[0], code_area + (AREA_PAGES - npages) * 4096, passes);
	else if (!strcmp(argv[1], "mix"))
		tlb_code(fd[0], fetch_mix, passes);
	else
		return 2;
	if (read(fd[0], v, sizeof(v)) != (ssize_t)((1 + n) * sizeof(uint64_t)))
		return 1;
	for (int i = 0; i < n; i++)
		printf("ev%d=%llu\n", i, (unsigned long long)v[1 + i]);
	return 0;
}
