/*
 * tlb_patterns.c - instruction-cache and TLB patterns whose outcomes follow
 * by arithmetic (test_tlb.c works them out per model), counted by the
 * program itself with one group of raw events.
 *
 * Usage: tlb_patterns data NPAGES PASSES CONFIG...
 *        tlb_patterns lines NLINES PASSES CONFIG...
 *        tlb_patterns code NPAGES PASSES CONFIG...
 *        tlb_patterns mix 0 PASSES CONFIG... [hook|none]
 *        tlb_patterns segv N 1 CONFIG... [hook|none]
 *        tlb_patterns helper N 1 CONFIG... [hook|none]
 *        tlb_patterns hole N 1 CONFIG... [hook|none]
 *        tlb_patterns noncanon N 1 CONFIG... [hook|none]
 * data: loads from NPAGES consecutive pages of an untouched buffer; lines:
 * from NLINES consecutive 64-byte lines of it; code: runs NPAGES pages of
 * code_area (tlb_code_area.S); mix: runs fetch_mix there; segv: N times,
 * stores to four new lines of the buffer and a load from an inaccessible
 * page in one block, whose SIGSEGV handler jumps back (the stores before
 * the fault count); hole: the same with the load from an unmapped page;
 * noncanon: from non-canonical addresses (bits 56-63 set in turn); helper: N
 * times, in one block, a store, an FXSAVE
 * (the engine's helper writes the state) and a store, each to new lines
 * of the buffer. CONFIG: up to six raw event encodings (hex), the first
 * the group leader; "hook" last: a user-mode instructions sampler that
 * never overflows beside them, so that the machine sees the accesses with
 * the memory hook instead of the access log ("none": no sampler, and the
 * stack where it is with "hook"). Prints "ev0=N" ...
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "region.h"

#define AREA_PAGES 256

long tlb_data(long fd, char *base, long n, long passes, long stride);
long tlb_code(long fd, void *entry, long passes);
extern char code_area[], fetch_mix[];

static char buf[2048 * 4096] __attribute__((aligned(4096)));
static sigjmp_buf segv_back;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(segv_back, 1);
}

/* Four stores and the faulting load, one straight run of code. */
static __attribute__((noinline)) void store_then_fault(volatile char *p, volatile char *bad)
{
	p[0] = 1;
	p[64] = 2;
	p[128] = 3;
	p[192] = 4;
	(void)*bad;
}

static int helper_pattern(int fd, long n)
{
	if (n > (long)sizeof(buf) / 1024)
		return -1;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	for (long i = 0; i < n; i++) {
		char *p = buf + i * 1024;

		__asm__ volatile("movq %%rax, (%0)\n\t"
				 "fxsave 64(%0)\n\t"
				 "movq %%rax, 640(%0)"
				 : : "r"(p) : "memory");
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	return 0;
}

enum fault_kind { FAULT_PROT, FAULT_HOLE, FAULT_NONCANON };

static int segv_pattern(int fd, long n, enum fault_kind kind)
{
	volatile char *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa;
	volatile long i;

	if (bad == MAP_FAILED || n > (long)sizeof(buf) / 256 ||
	    (kind == FAULT_HOLE && munmap((void *)bad, 4096)))
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	for (i = 0; i < n; i++)
		if (!sigsetjmp(segv_back, 1))
			store_then_fault(buf + i * 256,
					 kind != FAULT_NONCANON ? bad : (volatile char *)(uintptr_t)
						((uint64_t)(1 + i % 255) << 56 | 0x1000));
	ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	return 0;
}

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
	} else if (!strcmp(argv[argc - 1], "none")) {
		argc--;
	}
	if (argc - 4 > 6)
		return 2;
	npages = atol(argv[2]);
	passes = atol(argv[3]);
	for (int i = 4; i < argc; i++, n++) {
		struct perf_event_attr a;

		raw_attr(&a, argv[i]);
		a.disabled = n == 0;
		a.read_format = PERF_FORMAT_GROUP;
		fd[n] = peo(&a, n ? fd[0] : -1);
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
	else if (!strcmp(argv[1], "segv") && !segv_pattern(fd[0], npages, FAULT_PROT))
		;
	else if (!strcmp(argv[1], "hole") && !segv_pattern(fd[0], npages, FAULT_HOLE))
		;
	else if (!strcmp(argv[1], "noncanon") && !segv_pattern(fd[0], npages, FAULT_NONCANON))
		;
	else if (!strcmp(argv[1], "helper") && !helper_pattern(fd[0], npages))
		;
	else
		return 2;
	if (read(fd[0], v, sizeof(v)) != (ssize_t)((1 + n) * sizeof(uint64_t)))
		return 1;
	for (int i = 0; i < n; i++)
		printf("ev%d=%llu\n", i, (unsigned long long)v[1 + i]);
	return 0;
}
