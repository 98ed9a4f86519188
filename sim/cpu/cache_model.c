/*
 * cache_model.c - set-associative LRU caches and TLBs (cache_model.h).
 *
 * A tag is the line (or page) number + 1 (0: an empty way). A TLB is the
 * same structure with 4 KiB "lines". Way 0 of a set holds its most recent
 * tag, so that the most-recent test is one compare. Ways 1 .. ways - 1
 * are a ring in recency order: from the set's head (its second most
 * recent tag) onwards, wrapping from the last way to way 1, to the least
 * recently used just before the head. A touch of the most recent tag
 * changes nothing; of the head's, the two swap; a miss, or a hit of the
 * least recent, puts way 0's tag into that way, which becomes the head
 * (no tag moves along the ring); a hit further in moves the ring's tags
 * from the head to it one way on. The ways are compared with the tag 8 at
 * a time in SSE2 registers where the compiler has them (every x86-64).
 * This is true LRU: the same hits and evictions as a set kept in recency
 * order.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "sim/cpu/cache_model.h"

#define PAGE_SHIFT 12

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int lru_sets_init(struct lru_sets *a, uint64_t sets, unsigned ways)
{
	void *tags;

	*a = (struct lru_sets){ 0 };
	if (!ways || !pow2(sets) || sets * ways / ways != sets)
		return -1;
	/* 64-byte aligned: ways_holding() loads whole sets */
	if (posix_memalign(&tags, 64, sets * ways * sizeof(*a->tags)))
		return -1;
	a->tags = memset(tags, 0, sets * ways * sizeof(*a->tags));
	a->heads = malloc(sets * sizeof(*a->heads));
	if (!a->heads) {
		lru_sets_free(a);
		return -1;
	}
	/* cold: every way empty, the ring's most recent at way 1 */
	for (uint64_t s = 0; s < sets; s++)
		a->heads[s] = 1;
	a->set_mask = sets - 1;
	a->ways = ways;
	return 0;
}

static int level_init(struct lru_sets *a, const struct pmu_cache_level *l)
{
	if (!l->ways || !l->line || l->size % (l->ways * l->line) || !pow2(l->line))
		return -1;
	return lru_sets_init(a, l->size / l->ways / l->line, l->ways);
}

static int tlb_init(struct lru_sets *a, const struct pmu_tlb_level *t)
{
	if (!t->ways || t->entries % t->ways)
		return -1;
	return lru_sets_init(a, t->entries / t->ways, t->ways);
}

void cache_model_free(struct cache_model *cm)
{
	if (!cm)
		return;
	lru_sets_free(&cm->l1i);
	for (unsigned i = 0; i < CACHE_MEM; i++)
		lru_sets_free(&cm->lvl[i]);
	for (unsigned i = 0; i < CACHE_TLB_NR; i++)
		lru_sets_free(&cm->tlb[i]);
	free(cm);
}

static cache_tally_fn *access_tally_of(const struct cache_model *cm);
static cache_run_fn *data_run_of(const struct cache_model *cm);
static cache_fetch_fn *fetch_tally_of(const struct cache_model *cm);

struct cache_model *cache_model_new(const struct pmu_cache_geometry *g)
{
	const struct pmu_cache_level *lv[CACHE_MEM] = { &g->l1d, &g->l2, &g->llc };
	struct cache_model *cm = calloc(1, sizeof(*cm));
	unsigned i;

	if (!cm)
		return NULL;
	if (g->l1i.line != g->l1d.line || level_init(&cm->l1i, &g->l1i))
		goto err;
	for (i = 0; i < CACHE_MEM; i++) {
		if (lv[i]->line != g->l1d.line || level_init(&cm->lvl[i], lv[i]))
			goto err;
		cm->latency[i] = lv[i]->latency;
	}
	if (tlb_init(&cm->tlb[CACHE_TLB_I1], &g->itlb) || tlb_init(&cm->tlb[CACHE_TLB_D1], &g->dtlb) ||
	    tlb_init(&cm->tlb[CACHE_TLB_D2], &g->dtlb2) ||
	    (!g->l2tlb_unified && tlb_init(&cm->tlb[CACHE_TLB_I2], &g->itlb2)))
		goto err;
	cm->tlb2[0] = g->l2tlb_unified ? &cm->tlb[CACHE_TLB_D2] : &cm->tlb[CACHE_TLB_I2];
	cm->tlb2[1] = &cm->tlb[CACHE_TLB_D2];
	cm->latency[CACHE_MEM] = g->mem_latency;
	cm->line_shift = (unsigned)__builtin_ctz(g->l1d.line);
	cm->tally = access_tally_of(cm);
	cm->data_run = data_run_of(cm);
	cm->fetch_tally = fetch_tally_of(cm);
	return cm;
err:
	cache_model_free(cm);
	return NULL;
}

void lru_sets_free(struct lru_sets *a)
{
	free(a->tags);
	free(a->heads);
	a->tags = NULL;
	a->heads = NULL;
}

/* Bit 2 i set for each way i of set (ways a constant) that holds tag.
 * With SSE2 and ways a multiple of 4 up to 16 (a 64-byte aligned array),
 * 8 ways are compared at once: the 32-bit halves, the results packed to
 * two bits per way, both set for a 64-bit match; else one compare a way
 * (way 0 left out: touch() has compared it). */
static inline __attribute__((always_inline)) uint32_t ways_holding(const uint64_t *set,
								    uint64_t tag, unsigned ways)
{
	uint32_t m = 0;

#if defined(__SSE2__)
	if (ways % 4 == 0 && ways <= 16) {
		__m128i t = _mm_set1_epi64x((long long)tag);

#pragma GCC unroll 2
		for (unsigned g = 0; g < ways; g += 8) {
			const __m128i *v = (const __m128i *)(set + g);
			__m128i lo = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v), t),
						     _mm_cmpeq_epi32(_mm_load_si128(v + 1), t));
			__m128i hi = ways - g >= 8 ?
				     _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v + 2), t),
						     _mm_cmpeq_epi32(_mm_load_si128(v + 3), t)) :
				     _mm_setzero_si128();

			m |= (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(lo, hi)) << (g * 2);
		}
		return m & m >> 1 & 0x55555555u;
	}
#endif
#pragma GCC unroll 16
	for (unsigned i = 1; i < ways; i++)
		m |= (uint32_t)(set[i] == tag) << (2 * i);
	return m;
}

/*
 * The touch of tag in a set of ways ways (2 or more; a constant where it
 * is inlined with one: the compares unroll) whose way 0 does not hold it,
 * its ring head at *head. Way w that holds tag is the head, the least
 * recent (the way before the head) or else found by ways_holding() (a
 * scan past 16 ways); a miss takes the least recent. Way 0's tag becomes
 * the ring's most recent:
 *  - from the head: the two swap;
 *  - from the least recent (a miss, or a hit there): it takes that way,
 *    which becomes the head;
 *  - from way w further on: the ring's ways from the head to the one
 *    before w move one on (w's tag leaves), and it takes the head way.
 * Tag goes into way 0. Returns whether it hit.
 */
static inline __attribute__((always_inline)) bool set_touch_ring(uint64_t *set, uint32_t *head,
								  uint64_t tag, unsigned ways)
{
	unsigned h = *head, ring = ways - 1, w;
	unsigned lru = h == 1 ? ring : h - 1;
	bool hit;

	if (set[h] == tag) {
		/* the second most recent: the two swap (the commonest touch
		 * after the most recent, which touch() has handled) */
		set[h] = set[0];
		set[0] = tag;
		return true;
	}
	if (set[lru] == tag) {
		/* the least recent (a loop over more lines than the set
		 * holds): no compare of the other ways */
		set[lru] = set[0];
		*head = lru;
		set[0] = tag;
		return true;
	}
	if (ways <= 16) {
		uint32_t m = ways_holding(set, tag, ways);

		hit = m != 0;
		w = hit ? (unsigned)__builtin_ctz(m) / 2 : lru;
	} else {
		for (w = 1; w < ways && set[w] != tag; w++)
			;
		hit = w < ways;
		w = hit ? w : lru;
	}
	if (w == lru) {
		set[w] = set[0];
		*head = w;
	} else {
		for (; w != h; w = w == 1 ? ring : w - 1)
			set[w] = set[w == 1 ? ring : w - 1];
		set[h] = set[0];
	}
	set[0] = tag;
	return hit;
}

/* Any way count, out of line (a set of 1 way has no ring): only touch()
 * calls it, which has found set[0] != tag. */
static bool set_touch_any(uint64_t *set, uint32_t *head, uint64_t tag, unsigned ways)
{
	if (ways == 1) {
		set[0] = tag;
		return false;
	}
	return set_touch_ring(set, head, tag, ways);
}

/* lru_sets_touch() of a of ways ways (a constant where it is inlined, or
 * 0: a->ways, the common counts unrolled) */
static inline __attribute__((always_inline)) bool touch_ways(struct lru_sets *a, uint64_t line,
							      unsigned ways)
{
	uint64_t s = line & a->set_mask;
	uint64_t *set = &a->tags[s * (ways ? ways : a->ways)];
	uint64_t tag = line + 1;

	if (set[0] == tag)
		return true;         /* already the most recent */
	if (ways)
		return set_touch_ring(set, &a->heads[s], tag, ways);
	/* the way counts of the models' caches and of most TLBs */
	switch (a->ways) {
	case 4: return set_touch_ring(set, &a->heads[s], tag, 4);
	case 8: return set_touch_ring(set, &a->heads[s], tag, 8);
	case 16: return set_touch_ring(set, &a->heads[s], tag, 16);
	default: return set_touch_any(set, &a->heads[s], tag, a->ways);
	}
}

/* lru_sets_touch(), inlined where it is used here */
static inline __attribute__((always_inline)) bool touch(struct lru_sets *a, uint64_t line)
{
	return touch_ways(a, line, 0);
}

bool lru_sets_touch_slow(struct lru_sets *a, uint64_t line)
{
	return touch(a, line);
}

void lru_sets_mru_tags(const struct lru_sets *a, uint64_t *out)
{
	for (uint64_t s = 0; s <= a->set_mask; s++)
		out[s] = a->tags[s * a->ways];
}

/*
 * An access or a fetch of [addr, addr+size) through l1 (L1D or L1I), L2
 * and the LLC, and its pages through the first-level TLB tlb1 and the
 * second level tlb2, counted into *f: the pages in address order, each
 * looked up in tlb2 when it missed tlb1; then the lines in address order,
 * each looked up at a level only when the ones before it missed, and
 * filled into each level that missed. The ways of tlb1, l1, L2 and the
 * LLC are constants where it is inlined, or 0 (read from the sets), the
 * line size 1 << ls.
 */
static inline __attribute__((always_inline)) void
walk(struct cache_model *cm, struct lru_sets *l1, struct lru_sets *tlb1, struct lru_sets *tlb2,
     uint64_t addr, unsigned size, struct fetch_tally *f, unsigned ls, unsigned tlb1_ways,
     unsigned l1_ways, unsigned l2_ways, unsigned llc_ways)
{
	uint64_t end = addr + size - 1;

	for (uint64_t page = addr >> PAGE_SHIFT; page <= end >> PAGE_SHIFT; page++) {
		f->pages++;
		if (touch_ways(tlb1, page, tlb1_ways))
			continue;
		f->tlb_miss++;
		f->tlb_walk += !touch(tlb2, page);
	}
	for (uint64_t line = addr >> ls; line <= end >> ls; line++) {
		f->lines++;
		if (touch_ways(l1, line, l1_ways))
			continue;
		f->miss[CACHE_L1]++;
		if (touch_ways(&cm->lvl[CACHE_L2], line, l2_ways))
			continue;
		f->miss[CACHE_L2]++;
		if (!touch_ways(&cm->lvl[CACHE_L3], line, llc_ways))
			f->miss[CACHE_L3]++;
	}
}

/* walk() into *out: the access is served by its slowest line, the level
 * after the deepest that one of its lines missed. */
static void lookup(struct cache_model *cm, struct lru_sets *l1, struct lru_sets *tlb1,
		   struct lru_sets *tlb2, uint64_t addr, unsigned size, struct cache_outcome *out)
{
	struct fetch_tally w = { 0 };

	assert(size > 0);
	walk(cm, l1, tlb1, tlb2, addr, size, &w, cm->line_shift, 0, 0, 0, 0);
	out->lines = (unsigned)w.lines;
	for (unsigned i = 0; i < CACHE_MEM; i++)
		out->miss[i] = (unsigned)w.miss[i];
	out->tlb_miss = (unsigned)w.tlb_miss;
	out->tlb_walk = (unsigned)w.tlb_walk;
	out->level = w.miss[CACHE_L3] ? CACHE_MEM : w.miss[CACHE_L2] ? CACHE_L3 :
		     w.miss[CACHE_L1] ? CACHE_L2 : CACHE_L1;
	out->latency = cm->latency[out->level];
}

void cache_model_access(struct cache_model *cm, uint64_t addr, unsigned size,
			struct cache_outcome *out)
{
	lookup(cm, &cm->lvl[CACHE_L1], &cm->tlb[CACHE_TLB_D1], cm->tlb2[1], addr, size, out);
}

/* An access spanning lines or pages: cache_model_access()'s outcome
 * added to *t. */
static void access_tally_span(struct cache_model *cm, bool write, uint64_t addr, unsigned size,
			      struct cache_tally *t)
{
	struct cache_outcome o;

	cache_model_access(cm, addr, size, &o);
	t->served[write][o.level]++;
	for (unsigned i = 0; i < CACHE_MEM; i++)
		t->miss[i] += o.miss[i];
	t->tlb_miss += o.tlb_miss;
	t->tlb_walk += o.tlb_walk;
}

/* The tally of an access of one line and one page (line, page) of a
 * model whose DTLB, L1D, L2 and LLC have tlb_ways, l1_ways, l2_ways and
 * llc_ways (constants where it is inlined, or 0: read from the model):
 * walk() of that line and page, kept apart for the tally's hot path (no
 * loops, no counts of lines and pages), with the level that served it. */
static inline __attribute__((always_inline)) void
tally_line(struct cache_model *cm, bool write, uint64_t line, uint64_t page, struct cache_tally *t,
	   unsigned tlb_ways, unsigned l1_ways, unsigned l2_ways, unsigned llc_ways)
{
	enum cache_level served;

	if (!touch_ways(&cm->tlb[CACHE_TLB_D1], page, tlb_ways)) {
		t->tlb_miss++;
		t->tlb_walk += !touch(cm->tlb2[1], page);
	}
	if (touch_ways(&cm->lvl[CACHE_L1], line, l1_ways))
		served = CACHE_L1;
	else if (t->miss[CACHE_L1]++, touch_ways(&cm->lvl[CACHE_L2], line, l2_ways))
		served = CACHE_L2;
	else if (t->miss[CACHE_L2]++, touch_ways(&cm->lvl[CACHE_L3], line, llc_ways))
		served = CACHE_L3;
	else
		t->miss[CACHE_L3]++, served = CACHE_MEM;
	t->served[write][served]++;
}

/* cache_model_access_tally() of a model whose lines are 1 << line_shift
 * bytes (0: read from the model) and whose ways are tally_line()'s. */
static inline __attribute__((always_inline)) void
access_tally_ways(struct cache_model *cm, bool write, uint64_t addr, unsigned size,
		  struct cache_tally *t, unsigned line_shift, unsigned tlb_ways, unsigned l1_ways,
		  unsigned l2_ways, unsigned llc_ways)
{
	unsigned ls = line_shift ? line_shift : cm->line_shift;
	uint64_t end = addr + size - 1;

	if (__builtin_expect(((addr ^ end) >> ls) | ((addr ^ end) >> PAGE_SHIFT), 0))
		access_tally_span(cm, write, addr, size, t);
	else
		tally_line(cm, write, addr >> ls, addr >> PAGE_SHIFT, t, tlb_ways, l1_ways, l2_ways,
			   llc_ways);
}

/* The models' geometries: line shift, DTLB, L1D, L2, LLC, first-level
 * ITLB and L1I ways (a 0 way count: any), each X(name, ...) */
#define MODEL_GEOMETRIES(X)                  \
	X(skylake, 6, 4, 8, 4, 16, 8, 8)     \
	X(zen, 6, 0, 8, 8, 16, 0, 4)         \
	X(pmuv3, 6, 0, 2, 16, 16, 0, 0)      \
	X(pmuv3p5, 6, 0, 4, 8, 16, 0, 4)

/* cache_model_fetch_tally() of a model whose lines are 1 << line_shift
 * bytes and whose first-level ITLB, L1I, L2 and LLC have itlb_ways,
 * l1i_ways, l2_ways and llc_ways (constants where it is inlined, or 0). */
static inline __attribute__((always_inline)) void
fetch_tally_ways(struct cache_model *cm, uint64_t addr, unsigned size, struct fetch_tally *f,
		 unsigned line_shift, unsigned itlb_ways, unsigned l1i_ways, unsigned l2_ways,
		 unsigned llc_ways)
{
	walk(cm, &cm->l1i, &cm->tlb[CACHE_TLB_I1], cm->tlb2[0], addr, size, f,
	     line_shift ? line_shift : cm->line_shift, itlb_ways, l1i_ways, l2_ways, llc_ways);
}

/* The accesses acc[] of a run, the most-recent test (cache_model_data_mru)
 * and tally_line() inlined in the loop: a line's tally into *lt, the
 * other counts into *t. */
static inline __attribute__((always_inline)) void
data_run_into(struct cache_model *cm, const uint64_t *acc, size_t n, struct cache_tally *lt,
	      struct cache_tally *t, unsigned ls, unsigned tlb_ways, unsigned l1_ways,
	      unsigned l2_ways, unsigned llc_ways)
{
	uint64_t hits_read = 0, hits_write = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = acc[i], addr = v & CACHE_ACC_ADDR_MASK;
		uint64_t end = addr + (1u << ((v >> CACHE_ACC_SIZE_SHIFT) & 3)) - 1;
		bool write = v & CACHE_ACC_WRITE;

		if (__builtin_expect(((addr ^ end) >> ls) | ((addr ^ end) >> PAGE_SHIFT), 0)) {
			access_tally_span(cm, write, addr, (unsigned)(end - addr + 1), t);
		} else if (lru_sets_mru(&cm->lvl[CACHE_L1], addr >> ls) &&
			   lru_sets_mru(&cm->tlb[CACHE_TLB_D1], addr >> PAGE_SHIFT)) {
			hits_write += write;
			hits_read += !write;
		} else {
			tally_line(cm, write, addr >> ls, addr >> PAGE_SHIFT, lt, tlb_ways, l1_ways,
				   l2_ways, llc_ways);
		}
	}
	t->served[0][CACHE_L1] += hits_read;
	t->served[1][CACHE_L1] += hits_write;
}

/* Below this many accesses a run tallies into *t itself; from it on, into
 * counts of its own added to *t at its end: those live in registers
 * (*t may alias a store to the model's sets), so that the run's accesses
 * overlap instead of chaining through t. */
#define RUN_OWN_COUNTS 16

/* cache_model_data_run() with access_tally_ways()'s constants. */
static inline __attribute__((always_inline)) void
data_run_ways(struct cache_model *cm, const uint64_t *acc, size_t n, struct cache_tally *t,
	      unsigned line_shift, unsigned tlb_ways, unsigned l1_ways, unsigned l2_ways,
	      unsigned llc_ways)
{
	unsigned ls = line_shift ? line_shift : cm->line_shift;
	struct cache_tally r;

	if (n < RUN_OWN_COUNTS) {
		data_run_into(cm, acc, n, t, t, ls, tlb_ways, l1_ways, l2_ways, llc_ways);
		return;
	}
	memset(&r, 0, sizeof(r));
	data_run_into(cm, acc, n, &r, t, ls, tlb_ways, l1_ways, l2_ways, llc_ways);
	for (unsigned w = 0; w < 2; w++)
		for (unsigned l = CACHE_L1; l < CACHE_NR_LEVELS; l++)
			t->served[w][l] += r.served[w][l];
	for (unsigned l = 0; l < CACHE_MEM; l++)
		t->miss[l] += r.miss[l];
	t->tlb_miss += r.tlb_miss;
	t->tlb_walk += r.tlb_walk;
}

/* access_tally_ways() and data_run_ways() of each geometry, and of any
 * (0: every count read from the model) */
#define ACCESS_TALLY(name, line_shift, tlb, l1, l2, llc, itlb, l1i)                              \
	static void access_tally_##name(struct cache_model *cm, bool write, uint64_t addr,       \
					unsigned size, struct cache_tally *t)                    \
	{                                                                                        \
		access_tally_ways(cm, write, addr, size, t, line_shift, tlb, l1, l2, llc);       \
	}                                                                                        \
	static void data_run_##name(struct cache_model *cm, const uint64_t *acc, size_t n,       \
				    struct cache_tally *t)                                       \
	{                                                                                        \
		data_run_ways(cm, acc, n, t, line_shift, tlb, l1, l2, llc);                      \
	}                                                                                        \
	static void fetch_tally_##name(struct cache_model *cm, uint64_t addr, unsigned size,     \
				       struct fetch_tally *f)                                    \
	{                                                                                        \
		fetch_tally_ways(cm, addr, size, f, line_shift, itlb, l1i, l2, llc);             \
	}
MODEL_GEOMETRIES(ACCESS_TALLY)
ACCESS_TALLY(any, 0, 0, 0, 0, 0, 0, 0)

#define ACCESS_TALLY_ROW(name, line_shift, tlb, l1, l2, llc, itlb, l1i) \
	{ line_shift, tlb, l1, l2, llc, itlb, l1i, access_tally_##name, data_run_##name,    \
	  fetch_tally_##name },
static const struct geometry_fns {
	unsigned line_shift, tlb_ways, l1_ways, l2_ways, llc_ways, itlb_ways, l1i_ways;
	cache_tally_fn *tally;
	cache_run_fn *run;
	cache_fetch_fn *fetch;
} geometries[] = { MODEL_GEOMETRIES(ACCESS_TALLY_ROW) };

/* The row of geometries of cm's geometry, or NULL. */
static const struct geometry_fns *geometry_fns_of(const struct cache_model *cm)
{
	const struct geometry_fns *g = geometries;

	for (unsigned i = 0; i < sizeof(geometries) / sizeof(geometries[0]); i++)
		if (cm->line_shift == g[i].line_shift &&
		    (!g[i].tlb_ways || cm->tlb[CACHE_TLB_D1].ways == g[i].tlb_ways) &&
		    cm->lvl[CACHE_L1].ways == g[i].l1_ways &&
		    cm->lvl[CACHE_L2].ways == g[i].l2_ways &&
		    cm->lvl[CACHE_L3].ways == g[i].llc_ways &&
		    (!g[i].itlb_ways || cm->tlb[CACHE_TLB_I1].ways == g[i].itlb_ways) &&
		    (!g[i].l1i_ways || cm->l1i.ways == g[i].l1i_ways))
			return &g[i];
	return NULL;
}

/* The functions of cm's geometry: its row's, else the general ones. */
static cache_tally_fn *access_tally_of(const struct cache_model *cm)
{
	const struct geometry_fns *g = geometry_fns_of(cm);

	return g ? g->tally : access_tally_any;
}

static cache_run_fn *data_run_of(const struct cache_model *cm)
{
	const struct geometry_fns *g = geometry_fns_of(cm);

	return g ? g->run : data_run_any;
}

static cache_fetch_fn *fetch_tally_of(const struct cache_model *cm)
{
	const struct geometry_fns *g = geometry_fns_of(cm);

	return g ? g->fetch : fetch_tally_any;
}

void cache_model_fetch(struct cache_model *cm, uint64_t addr, unsigned size,
		       struct cache_outcome *out)
{
	lookup(cm, &cm->l1i, &cm->tlb[CACHE_TLB_I1], cm->tlb2[0], addr, size, out);
}
