/*
 * cache_model.c - set-associative LRU caches and TLBs (cache_model.h).
 *
 * Each set keeps its tags in recency order, most recent first: a hit moves
 * the tag to the front, a miss drops the last (least recently used) one and
 * puts the new one in front. A tag is the line (or page) number + 1 (0: an
 * empty way). A TLB is the same structure with 4 KiB "lines".
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "sim/cpu/cache_model.h"

#define PAGE_SHIFT 12

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int lru_sets_init(struct lru_sets *a, uint64_t sets, unsigned ways)
{
	if (!ways || !pow2(sets))
		return -1;
	a->tags = calloc(sets * ways, sizeof(*a->tags));
	if (!a->tags)
		return -1;
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
	return cm;
err:
	cache_model_free(cm);
	return NULL;
}

void lru_sets_free(struct lru_sets *a)
{
	free(a->tags);
	a->tags = NULL;
}

/* lru_sets_touch_slow() of a set of a way count known where it is inlined
 * (a constant): the loops unroll into compares and selects, without a
 * branch per way or a variable-length move. The way that holds tag (or the
 * last, least recently used one, on a miss) is found; the ways before it
 * each take their predecessor's tag and tag goes in front. */
static inline __attribute__((always_inline)) bool set_touch_fixed(uint64_t *set, uint64_t tag,
								   unsigned ways)
{
	uint64_t prev = tag;
	unsigned w = ways - 1;

#pragma GCC unroll 16
	for (unsigned i = ways - 1; i-- > 0;)
		w = set[i] == tag ? i : w;
	bool hit = set[w] == tag;
#pragma GCC unroll 16
	for (unsigned i = 0; i < ways; i++) {
		uint64_t cur = set[i];

		set[i] = i <= w ? prev : cur;
		prev = cur;
	}
	return hit;
}

/* Any way count: the way found by a scan, the ones before it moved back.
 * Only touch() calls it, which has found set[0] != tag. */
static bool set_touch_any(uint64_t *set, uint64_t tag, unsigned ways)
{
	unsigned w;

	if (ways <= 64) {
		/* the way that holds it, found without a branch per way */
		uint64_t m = 0;

		for (w = 1; w < ways; w++)
			m |= (uint64_t)(set[w] == tag) << w;
		w = m ? (unsigned)__builtin_ctzll(m) : ways - 1;
	} else {
		for (w = 1; w < ways && set[w] != tag; w++)
			;
		if (w == ways)
			w = ways - 1;        /* miss: the LRU way makes room */
	}
	bool hit = set[w] == tag;
	memmove(set + 1, set, w * sizeof(*set));
	set[0] = tag;
	return hit;
}

/* lru_sets_touch(), inlined where it is used here */
static inline __attribute__((always_inline)) bool touch(struct lru_sets *a, uint64_t line)
{
	uint64_t *set = &a->tags[(line & a->set_mask) * a->ways];
	uint64_t tag = line + 1;

	if (set[0] == tag)
		return true;         /* already the most recent */
	/* the way counts of the models' caches and of most TLBs */
	switch (a->ways) {
	case 4: return set_touch_fixed(set, tag, 4);
	case 8: return set_touch_fixed(set, tag, 8);
	case 16: return set_touch_fixed(set, tag, 16);
	default: return set_touch_any(set, tag, a->ways);
	}
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

/* The pages of [addr, addr+size) through the first-level TLB tlb1 and the
 * second level tlb2, into out's TLB counts. */
static void tlb_lookup(struct lru_sets *tlb1, struct lru_sets *tlb2,
		       uint64_t addr, unsigned size, struct cache_outcome *out)
{
	uint64_t last = (addr + size - 1) >> PAGE_SHIFT;

	out->tlb_miss = out->tlb_walk = 0;
	if (addr >> PAGE_SHIFT == last && lru_sets_mru(tlb1, last))
		return;              /* one page, a first-level hit */
	for (uint64_t page = addr >> PAGE_SHIFT; page <= last; page++) {
		if (lru_sets_touch(tlb1, page))
			continue;
		out->tlb_miss++;
		out->tlb_walk += !lru_sets_touch(tlb2, page);
	}
}

/* The lines of [addr, addr+size) through first (L1I or L1D), then L2 and
 * the LLC, into out's cache counts. */
static void lines_lookup(struct cache_model *cm, struct lru_sets *first,
			 uint64_t addr, unsigned size, struct cache_outcome *out)
{
	uint64_t line = addr >> cm->line_shift;
	uint64_t last = (addr + size - 1) >> cm->line_shift;
	enum cache_level worst = CACHE_L1;

	assert(size > 0);
	out->lines = 0;
	for (unsigned i = 0; i < CACHE_MEM; i++)
		out->miss[i] = 0;
	if (line == last && lru_sets_mru(first, line)) {   /* one line, an L1 hit */
		out->lines = 1;
		out->level = CACHE_L1;
		out->latency = cm->latency[CACHE_L1];
		return;
	}
	for (; line <= last; line++) {
		enum cache_level served = CACHE_L1;

		/* a level is looked up only when the ones before it missed;
		 * the line is filled into each level that missed */
		while (served < CACHE_MEM &&
		       !lru_sets_touch(served == CACHE_L1 ? first : &cm->lvl[served], line)) {
			out->miss[served]++;
			served++;
		}
		if (served > worst)
			worst = served;
		out->lines++;
	}
	out->level = worst;
	out->latency = cm->latency[worst];
}

/* An access of [addr, addr+size) whose lines are each the most recently
 * used of its L1 set and whose pages each the most recently used of its
 * set of the first-level TLB tlb1 (distinct lines and pages: an access
 * spans a few, fewer than the sets): hits of both that move nothing, so
 * nothing needs a touch. Returns whether it was, with *out filled. */
static bool mru_hit(const struct cache_model *cm, const struct lru_sets *l1,
		    const struct lru_sets *tlb1, uint64_t addr, unsigned size,
		    struct cache_outcome *out)
{
	uint64_t first = addr >> cm->line_shift, last = (addr + size - 1) >> cm->line_shift;

	if (!cache_model_span_mru(l1, tlb1, cm->line_shift, addr, size))
		return false;
	*out = (struct cache_outcome){ .level = CACHE_L1, .latency = cm->latency[CACHE_L1],
				       .lines = (unsigned)(last - first + 1), .moved = false };
	return true;
}

void cache_model_access(struct cache_model *cm, uint64_t addr, unsigned size,
			struct cache_outcome *out)
{
	if (mru_hit(cm, &cm->lvl[CACHE_L1], &cm->tlb[CACHE_TLB_D1], addr, size, out))
		return;
	tlb_lookup(&cm->tlb[CACHE_TLB_D1], cm->tlb2[1], addr, size, out);
	lines_lookup(cm, &cm->lvl[CACHE_L1], addr, size, out);
	out->moved = true;
}

void cache_model_access_tally(struct cache_model *cm, bool write, uint64_t addr,
			      unsigned size, struct cache_tally *t)
{
	uint64_t end = addr + size - 1, line = addr >> cm->line_shift, page = addr >> PAGE_SHIFT;
	enum cache_level served = CACHE_L1;
	struct cache_outcome o;

	if (((addr ^ end) >> cm->line_shift) | ((addr ^ end) >> PAGE_SHIFT)) {
		/* more than one line or page */
		cache_model_access(cm, addr, size, &o);
		t->served[write][o.level]++;
		for (unsigned i = 0; i < CACHE_MEM; i++)
			t->miss[i] += o.miss[i];
		t->tlb_miss += o.tlb_miss;
		t->tlb_walk += o.tlb_walk;
		return;
	}
	/* tlb_lookup() and lines_lookup() of one page and one line */
	if (!touch(&cm->tlb[CACHE_TLB_D1], page)) {
		t->tlb_miss++;
		t->tlb_walk += !touch(cm->tlb2[1], page);
	}
	while (served < CACHE_MEM && !touch(&cm->lvl[served], line))
		t->miss[served++]++;
	t->served[write][served]++;
}

void cache_model_fetch(struct cache_model *cm, uint64_t addr, unsigned size,
		       struct cache_outcome *out)
{
	if (mru_hit(cm, &cm->l1i, &cm->tlb[CACHE_TLB_I1], addr, size, out))
		return;
	tlb_lookup(&cm->tlb[CACHE_TLB_I1], cm->tlb2[0], addr, size, out);
	lines_lookup(cm, &cm->l1i, addr, size, out);
	out->moved = true;
}
