/*
 * test_cache_model.c - the cache model (sim/cpu/cache_model.h) against a
 * plain true-LRU oracle written here another way: every way of a set
 * carries the time of its last use; a lookup hits a way holding the line
 * and stamps it, a miss replaces the way used longest ago (an empty way,
 * stamped 0, first). The same address streams, fixed seeds, go through
 * both:
 *  - lru_sets alone, for sets of 1 to 200 ways (the model keeps sets of
 *    up to 16 ways unrolled, larger ones apart), lines drawn from a small
 *    pool per set so that every recency rank hits;
 *  - whole models (the registered geometries and odd ones: 1, 2, 3, 6
 *    ways, a split second-level TLB), data accesses through
 *    cache_model_access_tally(), cache_model_access() and runs of
 *    cache_model_data_run() (1 to 40 accesses) and fetches through
 *    cache_model_fetch() and cache_model_fetch_tally(), of every size and
 *    alignment (accesses spanning lines and pages), against the oracle's
 *    levels and TLBs by
 *    the rules of cache_model.h: each page through the first-level TLB,
 *    a miss through the second (a miss there a walk), each line through
 *    L1, L2, LLC until a level holds it, filled into each that missed,
 *    the access served by its slowest line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/cache_model.h"

/* ---- the oracle: time-stamped ways ---------------------------------------- */

struct oracle_sets {
	uint64_t *line;       /* sets x ways: line + 1, 0 empty */
	uint64_t *stamp;      /* last use */
	uint64_t sets, clock;
	unsigned ways;
};

static void oracle_init(struct oracle_sets *o, uint64_t sets, unsigned ways)
{
	o->line = calloc(sets * ways, sizeof(*o->line));
	o->stamp = calloc(sets * ways, sizeof(*o->stamp));
	assert_non_null(o->line);
	assert_non_null(o->stamp);
	o->sets = sets;
	o->ways = ways;
	o->clock = 0;
}

static void oracle_free(struct oracle_sets *o)
{
	free(o->line);
	free(o->stamp);
}

/* Whether line was in its set, and whether it was the most recent
 * there (*mru); either way it is now the most recent. */
static bool oracle_touch(struct oracle_sets *o, uint64_t line, bool *mru)
{
	uint64_t base = (line % o->sets) * o->ways, newest = 0;
	unsigned victim = 0, at = o->ways;
	bool hit;

	for (unsigned w = 0; w < o->ways; w++) {
		if (o->line[base + w] == line + 1)
			at = w;
		if (o->stamp[base + w] > newest)
			newest = o->stamp[base + w];
		if (o->stamp[base + w] < o->stamp[base + victim])
			victim = w;
	}
	hit = at < o->ways;
	*mru = hit && o->stamp[base + at] == newest;
	if (!hit) {
		o->line[base + victim] = line + 1;
		at = victim;
	}
	o->stamp[base + at] = ++o->clock;
	return hit;
}

static uint64_t rng_state;

static uint64_t next_random(void)
{
	uint64_t z = rng_state += 0x9e3779b97f4a7c15ull;

	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ z >> 27) * 0x94d049bb133111ebull;
	return z ^ z >> 31;
}

/* ---- lru_sets ---------------------------------------------------------------- */

static void test_lru_sets(void **state)
{
	static const unsigned ways[] = { 1, 2, 3, 4, 5, 6, 8, 12, 16, 17, 32, 48, 64, 128, 200 };

	(void)state;
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		uint64_t sets = ways[i] > 32 ? 2 : 8;
		struct lru_sets a;
		struct oracle_sets o;

		rng_state = ways[i];
		assert_int_equal(lru_sets_init(&a, sets, ways[i]), 0);
		oracle_init(&o, sets, ways[i]);
		for (int k = 0; k < 200000; k++) {
			/* a pool of 1.5 x ways lines per set: hits at every rank */
			uint64_t v = next_random();
			uint64_t line = (v >> 8) % (ways[i] + ways[i] / 2 + 1) * sets + v % sets;
			bool mru, want = oracle_touch(&o, line, &mru);

			assert_int_equal(lru_sets_mru(&a, line), mru);
			assert_int_equal(lru_sets_touch(&a, line), want);
			assert_true(lru_sets_mru(&a, line));
		}
		lru_sets_free(&a);
		oracle_free(&o);
	}
}

/* ---- whole models ------------------------------------------------------------- */

struct oracle_model {
	struct oracle_sets l1i, lvl[CACHE_MEM], itlb, dtlb, tlb2[2];
	bool unified;
	unsigned line_shift;
};

static void oracle_model_init(struct oracle_model *m, const struct pmu_cache_geometry *g)
{
	const struct pmu_cache_level *lv[CACHE_MEM] = { &g->l1d, &g->l2, &g->llc };

	oracle_init(&m->l1i, g->l1i.size / g->l1i.ways / g->l1i.line, g->l1i.ways);
	for (unsigned i = 0; i < CACHE_MEM; i++)
		oracle_init(&m->lvl[i], lv[i]->size / lv[i]->ways / lv[i]->line, lv[i]->ways);
	oracle_init(&m->itlb, g->itlb.entries / g->itlb.ways, g->itlb.ways);
	oracle_init(&m->dtlb, g->dtlb.entries / g->dtlb.ways, g->dtlb.ways);
	oracle_init(&m->tlb2[1], g->dtlb2.entries / g->dtlb2.ways, g->dtlb2.ways);
	m->unified = g->l2tlb_unified;
	if (!m->unified)
		oracle_init(&m->tlb2[0], g->itlb2.entries / g->itlb2.ways, g->itlb2.ways);
	m->line_shift = (unsigned)__builtin_ctz(g->l1d.line);
}

static void oracle_model_free(struct oracle_model *m)
{
	oracle_free(&m->l1i);
	for (unsigned i = 0; i < CACHE_MEM; i++)
		oracle_free(&m->lvl[i]);
	oracle_free(&m->itlb);
	oracle_free(&m->dtlb);
	oracle_free(&m->tlb2[1]);
	if (!m->unified)
		oracle_free(&m->tlb2[0]);
}

/* A lookup that fills: whether it hit. */
static bool oracle_lookup(struct oracle_sets *o, uint64_t line)
{
	bool mru;

	return oracle_touch(o, line, &mru);
}

static void oracle_access(struct oracle_model *m, bool fetch, uint64_t addr, unsigned size,
			  struct cache_outcome *out)
{
	uint64_t end = addr + size - 1;
	struct oracle_sets *tlb1 = fetch ? &m->itlb : &m->dtlb;
	struct oracle_sets *tlb2 = fetch && !m->unified ? &m->tlb2[0] : &m->tlb2[1];
	struct oracle_sets *l1 = fetch ? &m->l1i : &m->lvl[CACHE_L1];

	memset(out, 0, sizeof(*out));
	for (uint64_t p = addr >> 12; p <= end >> 12; p++) {
		if (oracle_lookup(tlb1, p))
			continue;
		out->tlb_miss++;
		out->tlb_walk += !oracle_lookup(tlb2, p);
	}
	for (uint64_t l = addr >> m->line_shift; l <= end >> m->line_shift; l++) {
		enum cache_level served = CACHE_L1;

		if (!oracle_lookup(l1, l)) {
			out->miss[CACHE_L1]++;
			for (served = CACHE_L2; served < CACHE_MEM; served++) {
				if (oracle_lookup(&m->lvl[served], l))
					break;
				out->miss[served]++;
			}
		}
		if (served > out->level)
			out->level = served;
		out->lines++;
	}
}

/* An address: mostly near the previous one (every rank of the small
 * levels hits), sometimes anywhere in span (misses everywhere). */
static uint64_t next_address(uint64_t *prev, uint64_t span)
{
	uint64_t v = next_random();

	if ((v & 15) < 12)
		*prev += (int64_t)((v >> 8) % 16384) - 8192;
	else
		*prev = 0x7f0000000000ull + (v >> 8) % span;
	return *prev;
}

/* The accesses of a run so far through cache_model_data_run(): the
 * tally then the oracle's (which took each as it came). */
#define RUN_CAP 40
static void flush_run(struct cache_model *cm, const uint64_t *run, size_t *n,
		      struct cache_tally *t, const struct cache_tally *want)
{
	if (!*n)
		return;
	cache_model_data_run(cm, run, *n, t);
	*n = 0;
	assert_memory_equal(t, want, sizeof(*t));
}

static void check_model(const struct pmu_cache_geometry *g, uint64_t seed)
{
	struct cache_model *cm = cache_model_new(g);
	struct oracle_model m;
	struct cache_tally t = { 0 }, want = { 0 };
	uint64_t prev = 0x7f0000000000ull, pc = 0x400000;
	uint64_t run[RUN_CAP];
	size_t nrun = 0, run_len = 0;
	struct fetch_tally f = { 0 }, want_f = { 0 };

	assert_non_null(cm);
	oracle_model_init(&m, g);
	rng_state = seed;
	for (int k = 0; k < 300000; k++) {
		uint64_t v = next_random();
		struct cache_outcome o, w;

		if ((v & 7) == 0) {
			/* a block's fetch: mostly straight on, sometimes a jump */
			unsigned size = 1 + (unsigned)(v >> 8) % 120;

			flush_run(cm, run, &nrun, &t, &want);
			pc = (v >> 16 & 7) ? pc + size : 0x400000 + (v >> 20) % (8 << 20);
			oracle_access(&m, true, pc, size, &w);
			if ((v >> 19) & 1) {
				/* in bulk: the oracle's outcomes summed */
				cache_model_fetch_tally(cm, pc, size, &f);
				want_f.lines += w.lines;
				for (unsigned i = 0; i < CACHE_MEM; i++)
					want_f.miss[i] += w.miss[i];
				want_f.pages += ((pc + size - 1) >> 12) - (pc >> 12) + 1;
				want_f.tlb_miss += w.tlb_miss;
				want_f.tlb_walk += w.tlb_walk;
				assert_memory_equal(&f, &want_f, sizeof(f));
				continue;
			}
			cache_model_fetch(cm, pc, size, &o);
			assert_int_equal(o.level, w.level);
			assert_int_equal(o.latency, cm->latency[w.level]);
		} else {
			uint64_t addr = next_address(&prev, (v & 0x100) ? 64 << 20 : 1 << 20);
			unsigned size = 1u << ((v >> 9) & 3);
			bool write = (v >> 11) & 1, in_run;

			if ((v >> 12 & 7) == 0)
				size = 1 + (unsigned)(v >> 16) % 64;     /* a string's chunk */
			in_run = (v >> 21) & 1 && size <= 8 && !(size & (size - 1));
			if (!in_run)
				flush_run(cm, run, &nrun, &t, &want);
			oracle_access(&m, false, addr, size, &w);
			want.served[write][w.level]++;
			for (unsigned i = 0; i < CACHE_MEM; i++)
				want.miss[i] += w.miss[i];
			want.tlb_miss += w.tlb_miss;
			want.tlb_walk += w.tlb_walk;
			if (in_run) {
				/* into a run for cache_model_data_run, of 1 to
				 * RUN_CAP accesses (below and above its own
				 * counts' threshold) */
				if (!nrun)
					run_len = 1 + (size_t)(v >> 24) % RUN_CAP;
				run[nrun++] = (addr & CACHE_ACC_ADDR_MASK) |
					      (uint64_t)__builtin_ctz(size) << CACHE_ACC_SIZE_SHIFT |
					      (write ? CACHE_ACC_WRITE : 0);
				if (nrun == run_len)
					flush_run(cm, run, &nrun, &t, &want);
				continue;
			}
			if ((v >> 20) & 1) {
				cache_model_access_tally(cm, write, addr, size, &t);
			} else {
				cache_model_access(cm, addr, size, &o);
				assert_int_equal(o.level, w.level);
				assert_int_equal(o.latency, cm->latency[w.level]);
				t.served[write][o.level]++;
				for (unsigned i = 0; i < CACHE_MEM; i++)
					t.miss[i] += o.miss[i];
				t.tlb_miss += o.tlb_miss;
				t.tlb_walk += o.tlb_walk;
				assert_int_equal(o.lines, w.lines);
			}
			assert_memory_equal(&t, &want, sizeof(t));
			continue;
		}
		assert_int_equal(o.lines, w.lines);
		for (unsigned i = 0; i < CACHE_MEM; i++)
			assert_int_equal(o.miss[i], w.miss[i]);
		assert_int_equal(o.tlb_miss, w.tlb_miss);
		assert_int_equal(o.tlb_walk, w.tlb_walk);
	}
	flush_run(cm, run, &nrun, &t, &want);
	oracle_model_free(&m);
	cache_model_free(cm);
}

static void test_registered_models(void **state)
{
	static const char *const names[] = { "skylake", "zen", "pmuv3", "pmuv3p5" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct pmu_model *pm = pmu_model_find(names[i]);

		assert_non_null(pm);
		assert_non_null(pm->caches);
		check_model(pm->caches, i + 1);
	}
}

/* Way counts no model has: 1, 2, 3, 6 ways, a split second-level TLB. */
static void test_odd_geometries(void **state)
{
	static const struct pmu_cache_geometry odd[] = {
		{ .l1i = { .size = 4 << 10, .ways = 1, .line = 64, .latency = 1 },
		  .l1d = { .size = 8 << 10, .ways = 2, .line = 64, .latency = 4 },
		  .l2 = { .size = 48 << 10, .ways = 3, .line = 64, .latency = 12 },
		  .llc = { .size = 384 << 10, .ways = 6, .line = 64, .latency = 40 },
		  .mem_latency = 200, .itlb = { .entries = 8, .ways = 1 },
		  .dtlb = { .entries = 6, .ways = 3 }, .itlb2 = { .entries = 64, .ways = 2 },
		  .dtlb2 = { .entries = 96, .ways = 6 }, .walk_cycles = 20 },
		{ .l1i = { .size = 16 << 10, .ways = 16, .line = 64, .latency = 1 },
		  .l1d = { .size = 16 << 10, .ways = 8, .line = 64, .latency = 4 },
		  .l2 = { .size = 64 << 10, .ways = 16, .line = 64, .latency = 12 },
		  .llc = { .size = 1 << 20, .ways = 32, .line = 64, .latency = 40 },
		  .mem_latency = 200, .itlb = { .entries = 12, .ways = 12 },
		  .dtlb = { .entries = 16, .ways = 16 }, .dtlb2 = { .entries = 128, .ways = 8 }, .l2tlb_unified = true, .walk_cycles = 20 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		check_model(&odd[i], 100 + i);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_sets),
		cmocka_unit_test(test_registered_models),
		cmocka_unit_test(test_odd_geometries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
