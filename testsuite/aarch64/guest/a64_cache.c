/*
 * a64_cache.c - guest program: PMUv3 cache and TLB events of a
 * hand-written A64 loop, counted through the cache model (on an AArch64
 * engine the memory hook feeds it: the access log is x86-64's, see
 * docs/machine-aarch64.md). One group, enabled and disabled with
 * PERF_IOC_FLAG_GROUP by SVCs in the same asm block, so the counted code
 * is exactly the loop: 2 passes over a 128 KiB buffer, page-aligned and
 * untouched before, one 8-byte load per 64-byte line (2048 lines).
 *
 * By arithmetic on the models' geometry (docs/machine-counting.md):
 * - L1D_CACHE, MEM_ACCESS: one access per load, 2 x 2048 = 4096;
 * - L1D_CACHE_REFILL: the first pass misses every line (cold); the
 *   buffer is 4x the A72's 32 KiB L1D and 2x the N2's 64 KiB one, so each
 *   set sees its 8 lines (A72: 256 sets x 2 ways; N2: 256 sets x 4 ways)
 *   in the same cyclic order and LRU evicts each before its reuse: the
 *   second pass misses every line too, 4096;
 * - L1D_TLB_REFILL: the first pass misses each of the 32 pages once; the
 *   first-level DTLB (32 entries on the A72, 48 on the N2, fully
 *   associative LRU) then holds all 32 and no other data page is touched
 *   in between: 32.
 * Exits 1 when a count differs.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "a64_perf.h"

#define LINES 2048
#define PASSES 2

static char buf[LINES * 64] __attribute__((aligned(4096)));

static int open_event(uint64_t config, int group)
{
	return a64_open(PERF_TYPE_RAW, config, 0, 0, 1, group);
}

/* PASSES x (LINES loads a line apart) between the group's ENABLE and
 * DISABLE */
static void line_loop(long leader)
{
	register long x0 __asm__("x0") = leader;

	__asm__ volatile(
		A64_SVC_ENABLE(1)
		"mov x12, #%[passes]\n"
		"2:\tmov x11, %[b]\n\t"
		"mov x9, #%[lines]\n"
		"1:\tldr x13, [x11], #64\n\t"
		"subs x9, x9, #1\n\t"
		"b.ne 1b\n\t"
		"subs x12, x12, #1\n\t"
		"b.ne 2b\n\t"
		A64_SVC_DISABLE(1)
		: "+r"(x0) : [passes] "i"(PASSES), [lines] "i"(LINES), [b] "r"(buf)
		: "x1", "x2", "x8", "x9", "x10", "x11", "x12", "x13", "memory", "cc");
}

int main(void)
{
	static const struct { const char *name; uint64_t config, expect; } ev[] = {
		{ "l1d_cache", 0x04, PASSES * LINES },
		{ "l1d_cache_refill", 0x03, PASSES * LINES },
		{ "mem_access", 0x13, PASSES * LINES },
		{ "l1d_tlb_refill", 0x05, LINES * 64 / 4096 },
	};
	int fd[4], bad = 0;

	for (unsigned i = 0; i < 4; i++) {
		fd[i] = open_event(ev[i].config, i ? fd[0] : -1);
		if (fd[i] < 0) {
			printf("%-18s cannot open\n", ev[i].name);
			return 1;
		}
	}
	line_loop(fd[0]);
	for (unsigned i = 0; i < 4; i++) {
		uint64_t v = 0;

		if (read(fd[i], &v, sizeof(v)) != sizeof(v))
			v = ~0ull;
		bad |= v != ev[i].expect;
		printf("%-18s %8llu expected %8llu %s\n", ev[i].name, (unsigned long long)v,
		       (unsigned long long)ev[i].expect, v == ev[i].expect ? "ok" : "WRONG");
	}
	return bad;
}
