/*
 * perf_self.c - linked into copies of the exec benchmark for scripts/bench:
 * a constructor opens perf events on the process itself before main runs,
 * a destructor prints what they counted on stderr (stdout stays the
 * program's). -DPERF_SELF_SAMPLE: instructions sampled every 10,000 into a
 * ring buffer that the destructor drains; -DPERF_SELF_CACHE: instructions,
 * L1D read misses and LLC misses as one group (the cache model and the
 * memory hook on); otherwise counting instructions, branches and cycles as
 * one group.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fds[3] = { -1, -1, -1 };
static struct perf_event_mmap_page *ring;

static int open_one(unsigned type, unsigned long long config, int group,
		    unsigned long long period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

__attribute__((constructor)) static void perf_self_start(void)
{
#ifdef PERF_SELF_SAMPLE
	fds[0] = open_one(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 10000);
	ring = mmap(NULL, 129 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (ring == MAP_FAILED)
		ring = NULL;
#elif defined(PERF_SELF_CACHE)
	fds[0] = open_one(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 0);
	fds[1] = open_one(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D |
			  (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
			  fds[0], 0);
	fds[2] = open_one(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, fds[0], 0);
#else
	fds[0] = open_one(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 0);
	fds[1] = open_one(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, fds[0], 0);
	fds[2] = open_one(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, fds[0], 0);
#endif
}

/* Consumes the ring as perf record would: data_tail follows data_head. */
static unsigned long long drain(void)
{
	unsigned long long head, tail, n = 0;
	const unsigned char *data;

	if (!ring)
		return 0;
	data = (const unsigned char *)ring + ring->data_offset;
	head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
	for (tail = ring->data_tail; tail < head;) {
		const struct perf_event_header *h = (const void *)(data + tail % ring->data_size);

		n += h->type == PERF_RECORD_SAMPLE;
		tail += h->size;
	}
	__atomic_store_n(&ring->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

__attribute__((destructor)) static void perf_self_end(void)
{
	unsigned long long v[3] = { 0, 0, 0 };

	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0 && read(fds[i], &v[i], sizeof(v[i])) != sizeof(v[i]))
			v[i] = 0;
#ifdef PERF_SELF_SAMPLE
	fprintf(stderr, "perf_self: instructions %llu, samples in the ring %llu\n", v[0], drain());
#elif defined(PERF_SELF_CACHE)
	fprintf(stderr, "perf_self: instructions %llu L1D read misses %llu LLC misses %llu\n",
		v[0], v[1], v[2]);
#else
	fprintf(stderr, "perf_self: instructions %llu branches %llu cycles %llu\n", v[0], v[1], v[2]);
#endif
}
