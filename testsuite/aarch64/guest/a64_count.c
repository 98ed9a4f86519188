/*
 * a64_count.c - guest program: PMUv3 counts of hand-written A64 loops,
 * each event opened on the program itself with exclude_kernel and enabled
 * and disabled by SVCs written in the same asm block, so the counted code
 * is exactly what the block says:
 *   after ENABLE's svc: mov x9, #N; then N x (subs; b.ne) [+ one ldr and
 *   one str per iteration in the memory loop]; then mov x8, mov x0,
 *   mov x1, mov x2 and DISABLE's svc (it retires at EL0 before the
 *   kernel's disable).
 * Prints one line per event: name, count, and the arithmetic expectation;
 * exits 1 when one differs. argv[1]: the model (pmuv3 or pmuv3p5).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "a64_perf.h"

#define N 50000

static int open_event(uint32_t type, uint64_t config)
{
	return a64_open(type, config, 0, 0, 1, -1);
}

/* ALU loop: 1 + 2N + 5 user instructions, N branches */
static void alu_loop(long fd)
{
	register long x0 __asm__("x0") = fd;

	__asm__ volatile(
		A64_SVC_ENABLE(0)
		"mov x9, #%[n]\n"
		"1:\tsubs x9, x9, #1\n\t"
		"b.ne 1b\n\t"
		A64_SVC_DISABLE(0)
		: "+r"(x0) : [n] "i"(N) : "x1", "x2", "x8", "x9", "x10", "memory", "cc");
}

/* memory loop: 1 + 4N + 5 user instructions, N branches, N loads, N stores */
static void mem_loop(long fd, uint64_t *buf)
{
	register long x0 __asm__("x0") = fd;

	__asm__ volatile(
		A64_SVC_ENABLE(0)
		"mov x9, #%[n]\n"
		"1:\tldr x11, [%[b]]\n\t"
		"str x11, [%[b], #8]\n\t"
		"subs x9, x9, #1\n\t"
		"b.ne 1b\n\t"
		A64_SVC_DISABLE(0)
		: "+r"(x0) : [n] "i"(N), [b] "r"(buf)
		: "x1", "x2", "x8", "x9", "x10", "x11", "memory", "cc");
}

static int bad;

static void report(const char *name, int fd, uint64_t expect)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v)) {
		printf("%-16s cannot count\n", name);
		bad = 1;
		return;
	}
	bad |= v != expect;
	printf("%-16s %8llu expected %8llu %s\n", name, (unsigned long long)v,
	       (unsigned long long)expect, v == expect ? "ok" : "WRONG");
	close(fd);
}

/* the ALU loop under raw event ev, reported against expect */
static void alu(const char *name, uint64_t ev, uint64_t expect)
{
	int fd = open_event(PERF_TYPE_RAW, ev);

	if (fd >= 0)
		alu_loop(fd);
	report(name, fd, expect);
}

static void mem(const char *name, uint64_t ev, uint64_t expect)
{
	static uint64_t buf[2];
	int fd = open_event(PERF_TYPE_RAW, ev);

	if (fd >= 0)
		mem_loop(fd, buf);
	report(name, fd, expect);
}

int main(int argc, char **argv)
{
	/* pmuv3p5 implements BR_RETIRED (PMCEID1), so the generic branch
	 * event maps to it (__armv8_pmuv3_map_event_id()); pmuv3 (A72) has
	 * none: ENOENT, its branches are BR_PRED */
	int v3p5 = argc > 1 && !strcmp(argv[1], "pmuv3p5");
	int fd;

	fd = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	alu_loop(fd);
	report("instructions", fd, 1 + 2ull * N + 5);
	alu("inst_retired", 0x08, 1 + 2ull * N + 5);
	mem("inst_retired mem", 0x08, 1 + 4ull * N + 5);
	fd = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	if (v3p5) {
		alu_loop(fd);
		report("branches", fd, N);
		alu("br_retired", 0x21, N);
	} else {
		printf("%-16s %s\n", "branches", fd < 0 && errno == ENOENT ? "ENOENT" : "WRONG");
		bad |= fd >= 0 || errno != ENOENT;
		alu("br_pred", 0x12, N);
	}
	mem("br_pred mem", 0x12, N);
	/* MEM_ACCESS: the loop's ldr and str, nothing else touches data */
	mem("mem_access", 0x13, 2ull * N);
	/* the pipeline model (docs/machine-counting.md, docs/machine-aarch64.md)
	 * with the model's table: issue width W (A72 3, N2 5), a mispredict
	 * M cycles (A72 15, N2 11), every instruction here one uop of latency
	 * 1. QEMU's blocks of the counted code: the ENABLE svc ends one, so
	 *   A = mov x9; subs x9; b.ne  (the loop's first iteration)
	 *     mov issues in cycle 0, ready 1; subs waits for x9: 1, ready 2;
	 *     b.ne waits for NZCV: 2, ready 3: 3 cycles on both models;
	 *   L = subs; b.ne, N - 1 times: subs 0 -> 1, b.ne waits for NZCV:
	 *     1 -> 2: 2 cycles;
	 *   T = mov x8; mov x0, x10; mov x1; mov x2; svc: no dependencies, 5
	 *     uops: W = 3 issues them in cycles 0, 0, 0, 1, 1, the last ready
	 *     at 2: 2 cycles; W = 5 all in cycle 0: 1 cycle;
	 * plus the exit's mispredict (the bimodal predictor's counter of the
	 * b.ne, warm from the runs above, mispredicts once per run). Total
	 * 3 + 2 (N - 1) + T + M: A72 2N + 18, N2 2N + 13. */
	alu("br_mis_pred", 0x10, 1);
	alu("cpu_cycles", 0x11, 2ull * N + (v3p5 ? 1 + 1 + 11 : 1 + 2 + 15));
	fd = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	alu_loop(fd);
	report("cycles", fd, 2ull * N + (v3p5 ? 1 + 1 + 11 : 1 + 2 + 15));
	return bad;
}
