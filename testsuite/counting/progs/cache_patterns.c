/*
 * cache_patterns.c - hand-written data access patterns whose cache outcomes
 * follow by arithmetic (test_cache.c works them out), counted by the
 * program itself with one group of up to four cache events.
 *
 * Usage: cache_patterns PATTERN GROUP [hook]   (GROUP 0..7, or "native": no perf
 * events, for valgrind's cache simulator with --toggle-collect=region, or
 * "ring": mem-loads with ldlat 30 sampled every 100 loads into a ring,
 * printed sample by sample with a hash of the ring's bytes, or "ticks" /
 * "mux": the first three / all seven of timed_events, each an event of
 * its own counting from its open, printed with its times enabled and
 * running: on Skylake's four counters, "mux" is multiplexed)
 *
 * A pattern reads (or writes) n addresses buf + i * stride, i < n, passes
 * times over, from cold caches. The measured region is one asm statement:
 * the group's ENABLE ioctl, the loops (registers only, no other data
 * access), the DISABLE ioctl; so the counts are the pattern's alone.
 * buf is in .bss of this static non-PIE binary: the same addresses on
 * every run, natively and emulated, whatever ASLR does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "region.h"

static char buf[1 << 20] __attribute__((aligned(4096)));

struct pattern {
	const char *name;
	long n, stride, passes;
	int store;
};

static const struct pattern patterns[] = {
	{ "l1_twice", 256, 64, 2, 0 },     /* 16 KiB: fits L1D */
	{ "l2_twice", 2048, 64, 2, 0 },    /* 128 KiB: > L1D, < L2 */
	{ "l3_twice", 8192, 64, 2, 0 },    /* 512 KiB: > L2, < LLC */
	{ "set9", 9, 4096, 10, 0 },        /* 9 lines of one L1D set: 8 ways */
	{ "set8", 8, 4096, 10, 0 },        /* 8 lines of one L1D set */
	{ "store_l2", 2048, 64, 2, 1 },    /* the l2_twice pattern as stores */
	{ "pages", 256, 4096, 2, 0 },      /* one line of each of 256 pages */
	{ "long", 4096, 64, 8000, 1 },     /* 33M stores over 256 KiB: about 22 ms */
};

struct ev { const char *name; uint32_t type; uint64_t config; };

/* Skylake raw encodings (pmu_models/intel_skylake.c, Intel's event list) */
static const struct ev groups[8][4] = {
	{ { "l1_hit", PERF_TYPE_RAW, 0x01d1 }, { "l1_miss", PERF_TYPE_RAW, 0x08d1 },
	  { "l2_hit", PERF_TYPE_RAW, 0x02d1 }, { "l2_miss", PERF_TYPE_RAW, 0x10d1 } },
	{ { "l3_hit", PERF_TYPE_RAW, 0x04d1 }, { "l3_miss", PERF_TYPE_RAW, 0x20d1 },
	  { "l1d_replacement", PERF_TYPE_RAW, 0x0151 },
	  { "cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES } },
	{ { "cache_references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	  { "l2_references", PERF_TYPE_RAW, 0xff24 }, { "l2_miss_lines", PERF_TYPE_RAW, 0x3f24 },
	  { "all_loads", PERF_TYPE_RAW, 0x81d0 } },
	{ { "ll_read_access", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_LL |
	    (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16) },
	  { "ll_read_miss", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_LL |
	    (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) },
	  { "ll_write_access", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_LL |
	    (PERF_COUNT_HW_CACHE_OP_WRITE << 8) | (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16) },
	  { "ll_write_miss", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_LL |
	    (PERF_COUNT_HW_CACHE_OP_WRITE << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) } },
	/* cycles with and without memory events beside them */
	{ { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	  { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	  { "l1_miss", PERF_TYPE_RAW, 0x08d1 }, { "l1_hit", PERF_TYPE_RAW, 0x01d1 } },
	{ { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	  { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	  { "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	  { "all_loads", PERF_TYPE_RAW, 0x81d0 } },
	/* L1D_PEND_MISS: the misses' latencies */
	{ { "l1d_pending", PERF_TYPE_RAW, 0x0148 }, { "l1d_pending_cycles", PERF_TYPE_RAW, 0x01000148 },
	  { "fb_full", PERF_TYPE_RAW, 0x0248 }, { "l1_miss", PERF_TYPE_RAW, 0x08d1 } },
	/* L2_RQSTS RFOs, OFFCORE_REQUESTS_OUTSTANDING cycles */
	{ { "all_rfo", PERF_TYPE_RAW, 0xe224 }, { "rfo_hit", PERF_TYPE_RAW, 0x4224 },
	  { "oro_data_rd", PERF_TYPE_RAW, 0x01000860 }, { "oro_rfo", PERF_TYPE_RAW, 0x01000460 } },
};

/* perf stat's generic cache events (tools/perf/util/evsel.c) */
#define HW_CACHE(cache, op, result) \
	((PERF_COUNT_HW_CACHE_##cache) | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
	 (PERF_COUNT_HW_CACHE_RESULT_##result << 16))
static const struct ev timed_events[7] = {
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, HW_CACHE(L1D, READ, MISS) },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE, HW_CACHE(LL, READ, MISS) },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, HW_CACHE(DTLB, READ, MISS) },
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, HW_CACHE(L1D, READ, ACCESS) },
	{ "L1-dcache-stores", PERF_TYPE_HW_CACHE, HW_CACHE(L1D, WRITE, ACCESS) },
	{ "LLC-loads", PERF_TYPE_HW_CACHE, HW_CACHE(LL, READ, ACCESS) },
	{ "dTLB-loads", PERF_TYPE_HW_CACHE, HW_CACHE(DTLB, READ, ACCESS) },
};

/* The measured region (valgrind toggles its collection on this function). */
__attribute__((noinline)) void region(long fd, char *base, long n, long stride, long passes,
				      int store)
{
	if (store)
		__asm__ volatile(
			"mov $16, %%eax\n\tmov %[fd], %%rdi\n\tmov $0x2400, %%esi\n\t"
			"mov $1, %%edx\n\tsyscall\n"          /* ioctl(fd, ENABLE, GROUP) */
			"1:\n\tmov %[base], %%r8\n\tmov %[n], %%r9\n"
			"2:\n\tmov %%r10, (%%r8)\n\tadd %[stride], %%r8\n\tdec %%r9\n\tjnz 2b\n\t"
			"dec %[passes]\n\tjnz 1b\n\t"
			"mov $16, %%eax\n\tmov %[fd], %%rdi\n\tmov $0x2401, %%esi\n\t"
			"mov $1, %%edx\n\tsyscall\n"          /* ioctl(fd, DISABLE, GROUP) */
			: [passes] "+r"(passes)
			: [fd] "r"(fd), [base] "r"(base), [n] "r"(n), [stride] "r"(stride)
			: "rax", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11", "memory", "cc");
	else
		__asm__ volatile(
			"mov $16, %%eax\n\tmov %[fd], %%rdi\n\tmov $0x2400, %%esi\n\t"
			"mov $1, %%edx\n\tsyscall\n"
			"1:\n\tmov %[base], %%r8\n\tmov %[n], %%r9\n"
			"2:\n\tmov (%%r8), %%r10\n\tadd %[stride], %%r8\n\tdec %%r9\n\tjnz 2b\n\t"
			"dec %[passes]\n\tjnz 1b\n\t"
			"mov $16, %%eax\n\tmov %[fd], %%rdi\n\tmov $0x2401, %%esi\n\t"
			"mov $1, %%edx\n\tsyscall\n"
			: [passes] "+r"(passes)
			: [fd] "r"(fd), [base] "r"(base), [n] "r"(n), [stride] "r"(stride)
			: "rax", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "r10", "r11", "memory", "cc");
}

static int open_ev(const struct ev *e, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = e->type;
	a.config = e->config;
	a.disabled = group < 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_GROUP;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

/* The first n of timed_events, each counting from its open, around the
 * pattern; prints "NAME=COUNT ENABLED RUNNING" (ns) for each. */
static int timed_run(const struct pattern *p, unsigned n)
{
	int fds[7];

	for (unsigned i = 0; i < n; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = timed_events[i].type;
		a.config = timed_events[i].config;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[i] = peo(&a, -1);
		if (fds[i] < 0) {
			perror(timed_events[i].name);
			return 1;
		}
	}
	region(-1, buf, p->n, p->stride, p->passes, p->store);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v[3];

		if (read(fds[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			return 1;
		printf("%s=%llu %llu %llu\n", timed_events[i].name, (unsigned long long)v[0],
		       (unsigned long long)v[1], (unsigned long long)v[2]);
	}
	return 0;
}

/* mem-loads:P with ldlat 30 (config1) sampled every 100 loads in the
 * region; prints "sample=ADDR WEIGHT DATA_SRC IP" per sample, "samples=N"
 * and "ring_hash=" (FNV-1a of the ring's data bytes). */
static int ring_run(const struct pattern *p)
{
	const size_t pages = 16;
	struct perf_event_attr a;
	struct perf_event_mmap_page *mp;
	const unsigned char *data;
	uint64_t head, hash = 1469598103934665603ull, n = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x01cd;
	a.config1 = 30;
	a.precise_ip = 1;
	a.sample_period = 100;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT |
			PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TIME;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return 1;
	mp = mmap(NULL, (pages + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED)
		return 1;
	region(fd, buf, p->n, p->stride, p->passes, p->store);
	data = (const unsigned char *)mp + mp->data_offset;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	if (head > mp->data_size)
		return 1;        /* wrapped: the ring is sized for the pattern */
	for (uint64_t i = 0; i < head; i++)
		hash = (hash ^ data[i]) * 1099511628211ull;
	for (uint64_t off = 0; off < head;) {
		const struct perf_event_header *h = (const void *)(data + off);
		const uint64_t *v = (const uint64_t *)(h + 1);

		/* ip, time, addr, weight, data_src (perf_output_sample order) */
		if (h->type == PERF_RECORD_SAMPLE) {
			printf("sample=%#llx %llu %#llx %#llx\n", (unsigned long long)v[2],
			       (unsigned long long)v[3], (unsigned long long)v[4],
			       (unsigned long long)v[0]);
			n++;
		}
		off += h->size;
	}
	printf("samples=%llu\nring_hash=%#llx\n", (unsigned long long)n, (unsigned long long)hash);
	return 0;
}

int main(int argc, char **argv)
{
	const struct pattern *p = NULL;
	int fds[4], g;
	uint64_t v[1 + 4];

	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "hook")))
		return 2;
	for (unsigned i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (!strcmp(argv[1], patterns[i].name))
			p = &patterns[i];
	if (!p)
		return 2;
	if (!strcmp(argv[2], "native")) {
		region(-1, buf, p->n, p->stride, p->passes, p->store);
		return 0;
	}
	if (!strcmp(argv[2], "ring"))
		return ring_run(p);
	if (!strcmp(argv[2], "ticks") || !strcmp(argv[2], "mux"))
		return timed_run(p, argv[2][0] == 't' ? 3 : 7);
	g = atoi(argv[2]);
	if (g < 0 || g > 7)
		return 2;
	if (argc == 4) {
		/* "hook": a user-mode instructions sampler that never overflows
		 * beside the group, so that the machine sees the accesses with
		 * the memory hook instead of the access log */
		struct perf_event_attr a;

		sampler_attr(&a, 1ull << 40);
		if (peo(&a, -1) < 0) {
			perror("sampler");
			return 1;
		}
	}
	for (int i = 0; i < 4; i++) {
		fds[i] = open_ev(&groups[g][i], i ? fds[0] : -1);
		if (fds[i] < 0) {
			perror(groups[g][i].name);
			return 1;
		}
	}
	region(fds[0], buf, p->n, p->stride, p->passes, p->store);
	if (read(fds[0], v, sizeof(v)) != (ssize_t)sizeof(v) || v[0] != 4)
		return 1;
	for (int i = 0; i < 4; i++)
		printf("%s=%llu\n", groups[g][i].name, (unsigned long long)v[1 + i]);
	return 0;
}
