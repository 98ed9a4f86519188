/*
 * bench_cache_model.c - the cache model's per-access cost (a benchmark,
 * not a test; scripts/bench runs it): address streams fed to
 * sim/cpu/cache_model.h as the access-log replay feeds it (a data access
 * that is the most recent line and page of its sets is only counted,
 * cache_model_data_mru; the others go through cache_model_access_tally;
 * a block's fetch, which the translated code records only when it is not
 * all the most recent lines and pages of its sets, through
 * cache_model_fetch).
 * For each stream and model it prints the nanoseconds per record (the
 * best of 5 rounds on a fresh model) and per record that went through
 * the model, how many did, and a checksum of the counts: a change of the
 * model's code that keeps its semantics keeps every checksum.
 * Streams (fixed seeds):
 *   store   scripts/bench_cache_events' store loop (bench_store.c): 8-byte
 *           stores one line apart over 256 KiB, a load every 8th;
 *   rand1m  8-byte accesses at random over 1 MiB (L1D misses, L2 and LLC);
 *   rand256m  the same over 256 MiB (misses everywhere, TLB walks);
 *   mixed   sizes 1 to 8 at any alignment (split lines and pages), 80% in
 *           a hot 16 KiB, the rest over 8 MiB;
 *   fetch   code blocks of 4 to 64 bytes, mostly next to the previous one,
 *           sometimes a jump within 512 KiB;
 *   trace   with -t FILE, the first N records of a recorded stream (see
 *           read_trace()): data accesses and fetches in program order.
 * Usage: bench_cache_model [-t FILE] [N [STREAM [MODEL]]] (default
 * 4,000,000 records, every stream on skylake, zen and pmuv3)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/cache_model.h"

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

/* The stream through a fresh model as log_replay() does: a data access
 * that is the most recent line and page of its sets only counted, any
 * other through cache_model_access_tally; a fetch (write 2) through
 * cache_model_fetch. The records that went
 * through the model in *slow; returns the checksum of the counts. */
static uint64_t run(const struct pmu_cache_geometry *g, const struct access *a, size_t n,
		    size_t *slow, double *ns)
{
	struct cache_model *cm = cache_model_new(g);
	struct cache_tally t = { 0 };
	uint64_t sum = 0;
	double t0;

	if (!cm)
		exit(1);
	*slow = 0;
	t0 = now_ns();
	for (size_t k = 0; k < n; k++) {
		struct cache_outcome o;

		if (a[k].write == 2) {
			cache_model_fetch(cm, a[k].addr, a[k].size, &o);
			(*slow)++;
			sum = sum * 31 + o.level + o.lines * 7 + o.miss[0] * 11 + o.miss[1] * 13 +
			      o.miss[2] * 17 + o.tlb_miss * 19 + o.tlb_walk * 23;
		} else {
			if (cache_model_data_mru(cm, a[k].addr, a[k].size)) {
				t.served[a[k].write][CACHE_L1]++;
				continue;
			}
			cache_model_access_tally(cm, a[k].write, a[k].addr, a[k].size, &t);
			(*slow)++;
		}
	}
	*ns = now_ns() - t0;
	cache_model_free(cm);
	for (unsigned w = 0; w < 2; w++)
		for (unsigned l = 0; l < CACHE_NR_LEVELS; l++)
			sum = sum * 1000003 + t.served[w][l];
	for (unsigned l = 0; l < CACHE_MEM; l++)
		sum = sum * 1000003 + t.miss[l];
	return (sum * 1000003 + t.tlb_miss) * 1000003 + t.tlb_walk;
}

int main(int argc, char **argv)
{
	const char *trace = NULL;
	size_t n;
	static const char *const models[] = { "skylake", "zen", "pmuv3" };
	struct access *a;
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
	if (!a || !n)
		return 1;
	printf("%-8s %-9s %10s %10s %12s %18s\n", "model", "stream", "ns/record", "ns/slow",
	       "slow", "checksum");
	for (size_t s = 0; s < sizeof(streams) / sizeof(streams[0]); s++) {
		size_t len = n;

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
		for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
			const struct pmu_model *pm = pmu_model_find(models[m]);
			double best = 0;
			uint64_t sum = 0;
			size_t slow = 0;

			if (argc > 3 && strcmp(argv[3], models[m]))
				continue;
			if (!pm || !pm->caches)
				return 1;
			for (int round = 0; round < 5; round++) {
				double ns;

				sum = run(pm->caches, a, len, &slow, &ns);
				if (!round || ns < best)
					best = ns;
			}
			printf("%-8s %-9s %10.2f %10.2f %12zu %18llx\n", models[m], streams[s].name,
			       best / (double)len, slow ? best / (double)slow : 0.0, slow,
			       (unsigned long long)sum);
		}
	}
	free(a);
	return 0;
}
