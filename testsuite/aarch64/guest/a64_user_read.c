/*
 * a64_user_read.c - guest program, run with perf_user_access at 1: a
 * self-monitoring task reads its counters from EL0 as libperf's
 * perf_evsel__read() does on arm64 (tools/lib/perf/mmap.c: the user page's
 * sequence lock, index, offset and pmc_width; the counter through
 * PMSELR_EL0 = index - 1 and PMXEVCNTR_EL0). INST_RETIRED (32-bit,
 * config1:1) and CPU_CYCLES (64-bit on the cycle counter, config1:0|1)
 * around a hand-written loop: between the two reads the counted
 * instructions are the first read's mrs, mov x9 and 2N of subs/b.ne
 * (2N + 2); cycles from the pipeline model (see main()) with the loop's
 * exit mispredict (the predictor warm from a first run). The page's index:
 * hw.idx for an event counter, 32 for the cycle counter
 * (armv8pmu_user_event_idx()); pmc_width 32 and 64. Exits 1 on a
 * difference. argv[1]: the model (pmuv3 or pmuv3p5).
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "a64_perf.h"

#define N 30000

static int open_user(uint64_t config, uint64_t config1)
{
	return a64_open(PERF_TYPE_RAW, config, config1, 0, 0, -1);
}

/* the loop between two reads of the counter PMSELR_EL0 selects */
static void measure(uint64_t sel, uint64_t *before, uint64_t *after)
{
	uint64_t b, a;

	__asm__ volatile(
		"msr pmselr_el0, %[sel]\n\t"
		"isb\n\t"
		"mrs %[b], pmxevcntr_el0\n\t"
		"mov x9, #%[n]\n"
		"1:\tsubs x9, x9, #1\n\t"
		"b.ne 1b\n\t"
		"mrs %[a], pmxevcntr_el0\n\t"
		: [b] "=&r"(b), [a] "=&r"(a) : [sel] "r"(sel), [n] "i"(N) : "x9", "cc");
	*before = b;
	*after = a;
}

static int check(const char *name, int fd, unsigned want_width, uint64_t want_delta,
		 int cycle_counter)
{
	struct perf_event_mmap_page *pg;
	uint64_t b, a, delta, mask;
	uint32_t seq, idx;
	unsigned width;
	int ok;

	pg = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (fd < 0 || pg == MAP_FAILED) {
		printf("%-14s cannot open or map\n", name);
		return 0;
	}
	do {                               /* perf_evsel__read()'s loop */
		seq = pg->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		idx = pg->index;
		width = pg->pmc_width;
		measure(idx - 1, &b, &b);  /* warm the predictor and the code */
		measure(idx - 1, &b, &a);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq);
	mask = width >= 64 ? ~0ull : (1ull << width) - 1;
	delta = (a - b) & mask;
	ok = idx == (cycle_counter ? 32u : idx) && idx != 0 && width == want_width &&
	     delta == want_delta && pg->cap_user_rdpmc;
	printf("%-14s index %s width %u delta %llu expected %llu %s\n", name,
	       cycle_counter ? (idx == 32 ? "32" : "WRONG") : (idx >= 1 && idx <= 31 ? "counter" : "WRONG"),
	       width, (unsigned long long)delta, (unsigned long long)want_delta, ok ? "ok" : "WRONG");
	return ok;
}

int main(int argc, char **argv)
{
	int v3p5 = argc > 1 && !strcmp(argv[1], "pmuv3p5");
	int ok = 1;

	ok &= check("inst_retired", open_user(0x08, 0x2), 32, 2ull * N + 2, 0);
	/* Each read is the counter before its mrs retires, and each mrs
	 * starts a block (the isb and the loop's b.ne end the ones before),
	 * so the delta is whole blocks: B = mrs; mov x9; subs; b.ne (mrs and
	 * mov issue in cycle 0, ready 1; subs waits for x9: 1, ready 2; b.ne
	 * for NZCV: 2, ready 3, on both issue widths: 3 cycles), N - 1 loop
	 * blocks of subs; b.ne (2 cycles each) and the exit's mispredict
	 * (A72 15, N2 11 cycles): 3 + 2 (N - 1) + M, A72 2N + 16, N2 2N + 12. */
	ok &= check("cpu_cycles", open_user(0x11, 0x3), 64, 2ull * N + 1 + (v3p5 ? 11 : 15), 1);
	return !ok;
}
