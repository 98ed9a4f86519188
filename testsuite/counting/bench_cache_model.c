/*
 * bench_cache_model.c - the cost of the access log's replay through the
 * cache model, per record (a benchmark, not a test; scripts/bench runs
 * it): address streams written as the access log's records
 * (sim/cpu/jit_count.h: a data access as its record, a block's fetch as a
 * range record) and replayed by the replay itself (access_replay_now, in
 * this thread). The translated code records a block's fetch only when it
 * is not all the most recent lines and pages of its sets, so the fetch
 * stream is what the replay sees of a loop that jumps around.
 * For each stream and model it prints the nanoseconds per record (the
 * best of 5 rounds on a fresh model), the data and fetch records, and a
 * checksum of the memory counts: a change of the replay's or the model's
 * code that keeps their semantics keeps every checksum.
 * Streams (fixed seeds):
 *   store   scripts/bench_cache_events' store loop (bench_store.c): 8-byte
 *           stores one line apart over 256 KiB, a load every 8th;
 *   rand1m  8-byte accesses at random over 1 MiB (L1D misses, L2 and LLC);
 *   rand256m  the same over 256 MiB (misses everywhere, TLB walks);
 *   mixed   sizes 1, 2, 4 or 8 at any alignment (split lines and pages), 80% in
 *           a hot 16 KiB, the rest over 8 MiB;
 *   fetch   code blocks of 4 to 64 bytes, mostly next to the previous one,
 *           sometimes a jump within 512 KiB;
 *   trace   with -t FILE, the first N records of a recorded stream (see
 *           read_trace()): data accesses and fetches in program order
 *           (docs/machine-counting.md: how CPython's was recorded).
 * Usage: bench_cache_model [-t FILE] [N [STREAM [MODEL]]] (default
 * 4,000,000 records, every stream on skylake, zen and pmuv3)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/access_replay.h"
#include "sim/cpu/cache_model.h"
#include "sim/cpu/jit_count.h"

struct access {
	uint64_t addr;
	uint32_t size;
	uint32_t write;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* splitmix64 */
static uint64_t next_random(void)
{
	uint64_t z = rng += 0x9e3779b97f4a7c15ull;

	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ z >> 27) * 0x94d049bb133111ebull;
	return z ^ z >> 31;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* A guest-like base address: the streams sit where a heap would. */
#define BASE 0x7f3a5c000000ull

static void gen_store(struct access *a, size_t n)
{
	size_t k = 0;

	for (uint64_t r = 0; k < n; r++) {
		a[k++] = (struct access){ BASE + ((r * 8) & 32767) * 8, 8, 1 };
		if (!(r & 7) && k < n)
			a[k++] = (struct access){ BASE + ((r * 3) & 32767) * 8, 8, 0 };
	}
}

static void gen_random(struct access *a, size_t n, uint64_t span)
{
	for (size_t k = 0; k < n; k++) {
		uint64_t v = next_random();

		a[k] = (struct access){ BASE + ((v >> 8) % span & ~7ull), 8, (uint32_t)(v & 1) };
	}
}

static void gen_mixed(struct access *a, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint64_t v = next_random();
		uint64_t off = (v & 0xff) < 205 ? (v >> 16) % (16 << 10) : (v >> 16) % (8 << 20);

		a[k] = (struct access){ BASE + off, 1u << ((v >> 8) & 3), (uint32_t)((v >> 10) & 1) };
	}
}

static void gen_fetch(struct access *a, size_t n)
{
	uint64_t pc = 0x401000;

	for (size_t k = 0; k < n; k++) {
		uint64_t v = next_random();
		uint32_t size = 4 + (uint32_t)(v & 63) % 61;

		if ((v >> 8 & 7) == 0)
			pc = 0x401000 + (v >> 16) % (512 << 10);
		a[k] = (struct access){ pc, size, 2 };
		pc += size;
		if (pc > 0x401000 + (512 << 10))
			pc = 0x401000;
	}
}

/* Reads up to n records of a trace file (pairs of 64-bit words: the
 * address, then the kind << 32 | the size; kind 0 a read, 1 a write, 2 a
 * block's fetch); returns how many. */
static size_t read_trace(const char *path, struct access *a, size_t n)
{
	FILE *f = fopen(path, "rb");
	uint64_t r[2];
	size_t k = 0;

	if (!f) {
		perror(path);
		exit(1);
	}
	while (k < n && fread(r, sizeof(r), 1, f) == 1)
		a[k++] = (struct access){ r[0], (uint32_t)r[1], (uint32_t)(r[1] >> 32) };
	fclose(f);
	return k;
}

/* The stream as the access log holds it (sim/cpu/jit_count.h): a data
 * access as its record, a fetch as a range record (its address and
 * size). Exits on an access the log cannot hold. */
static void make_log(const struct access *a, size_t n, uint64_t *log)
{
	for (size_t k = 0; k < n; k++) {
		unsigned log2 = (unsigned)__builtin_ctz(a[k].size | 16);

		if (a[k].write == 2 && a[k].size && a[k].size <= JIT_LOG_RANGE_SIZE_MASK &&
		    !(a[k].addr >> JIT_LOG_RANGE_SHIFT)) {
			log[k] = JIT_LOG_FETCH | JIT_LOG_RANGE |
				 (uint64_t)a[k].size << JIT_LOG_RANGE_SHIFT | a[k].addr;
		} else if (a[k].write < 2 && a[k].size == 1u << log2 && log2 <= 3) {
			log[k] = JIT_LOG_DATA | (uint64_t)log2 << JIT_LOG_SIZE_SHIFT |
				 (a[k].write ? JIT_LOG_WRITE : 0) | (a[k].addr & JIT_LOG_ADDR_MASK);
		} else {
			fprintf(stderr, "bench_cache_model: record %zu (%#llx, %u bytes) is "
				"not one the access log holds\n", k, (unsigned long long)a[k].addr,
				a[k].size);
			exit(1);
		}
	}
}

/* The log through a fresh model by the access log's replay, in this
 * thread (access_replay_now); work is overwritten (a replay leaves what
 * it read 0). Returns the checksum of the memory counts. */
static uint64_t run(const struct pmu_cache_geometry *g, const uint64_t *log, uint64_t *work,
		    size_t n, double *ns)
{
	struct cache_model *cm = cache_model_new(g);
	struct access_replay *r = cm ? access_replay_new(cm, g) : NULL;
	struct mem_counts m = { 0 };
	const uint64_t *w = (const uint64_t *)&m;
	uint64_t sum = 0;
	double t0;

	if (!r)
		exit(1);
	memcpy(work, log, n * sizeof(*log));
	t0 = now_ns();
	access_replay_now(r, work, work + n);
	*ns = now_ns() - t0;
	access_replay_collect(r, &m);
	access_replay_free(r);
	cache_model_free(cm);
	for (size_t k = 0; k < sizeof(m) / sizeof(*w); k++)
		sum = sum * 1000003 + w[k];
	return sum;
}

int main(int argc, char **argv)
{
	const char *trace = NULL;
	size_t n;
	static const char *const models[] = { "skylake", "zen", "pmuv3" };
	struct access *a;
	uint64_t *log, *work;
	struct {
		const char *name;
		void (*gen)(struct access *a, size_t n);
		uint64_t span;
	} streams[] = {
		{ "store", gen_store, 0 },
		{ "rand1m", NULL, 1 << 20 },
		{ "rand256m", NULL, 256ull << 20 },
		{ "mixed", gen_mixed, 0 },
		{ "fetch", gen_fetch, 0 },
		{ "trace", NULL, 0 },
	};

	if (argc > 2 && !strcmp(argv[1], "-t")) {
		trace = argv[2];
		argc -= 2;
		argv += 2;
	}
	n = argc > 1 ? strtoul(argv[1], NULL, 0) : 4000000;
	a = malloc(n * sizeof(*a));
	log = malloc(n * sizeof(*log));
	work = malloc(n * sizeof(*work));
	if (!a || !log || !work || !n)
		return 1;
	printf("%-8s %-9s %10s %12s %12s %18s\n", "model", "stream", "ns/record", "data",
	       "fetches", "checksum");
	for (size_t s = 0; s < sizeof(streams) / sizeof(streams[0]); s++) {
		size_t len = n, fetches;

		if (argc > 2 && strcmp(argv[2], streams[s].name))
			continue;
		rng = 0x9e3779b97f4a7c15ull + s;
		if (streams[s].gen)
			streams[s].gen(a, n);
		else if (streams[s].span)
			gen_random(a, n, streams[s].span);
		else if (trace)
			len = read_trace(trace, a, n);
		else
			continue;
		make_log(a, len, log);
		for (size_t k = fetches = 0; k < len; k++)
			fetches += a[k].write == 2;
		for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
			const struct pmu_model *pm = pmu_model_find(models[m]);
			double best = 0;
			uint64_t sum = 0;

			if (argc > 3 && strcmp(argv[3], models[m]))
				continue;
			if (!pm || !pm->caches)
				return 1;
			for (int round = 0; round < 5; round++) {
				double ns;

				sum = run(pm->caches, log, work, len, &ns);
				if (!round || ns < best)
					best = ns;
			}
			printf("%-8s %-9s %10.2f %12zu %12zu %18llx\n", models[m], streams[s].name,
			       best / (double)len, len - fetches, fetches, (unsigned long long)sum);
		}
	}
	free(work);
	free(log);
	free(a);
	return 0;
}
