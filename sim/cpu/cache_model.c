/*
 * cache_model.c - set-associative LRU data caches (cache_model.h).
 *
 * Each set keeps its tags in recency order, most recent first: a hit moves
 * the tag to the front, a miss drops the last (least recently used) one and
 * puts the new line in front. A tag is the line number + 1 (0: empty way).
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include "sim/cpu/cache_model.h"

struct cache_set_array {
	uint64_t *tags;            /* sets x ways, each set in recency order */
	uint64_t set_mask;         /* sets - 1 */
	unsigned ways;
};

struct cache_model {
	struct cache_set_array lvl[CACHE_MEM];
	unsigned latency[CACHE_NR_LEVELS];
	unsigned line_shift;
};

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int level_init(struct cache_set_array *a, const struct pmu_cache_level *l)
{
	uint64_t sets;

	if (!l->ways || !l->line || l->size % (l->ways * l->line))
		return -1;
	sets = l->size / l->ways / l->line;
	if (!pow2(sets) || !pow2(l->line))
		return -1;
	a->tags = calloc(sets * l->ways, sizeof(*a->tags));
	if (!a->tags)
		return -1;
	a->set_mask = sets - 1;
	a->ways = l->ways;
	return 0;
}

struct cache_model *cache_model_new(const struct pmu_cache_geometry *g)
{
	const struct pmu_cache_level *lv[CACHE_MEM] = { &g->l1d, &g->l2, &g->llc };
	struct cache_model *cm = calloc(1, sizeof(*cm));
	unsigned i;

	if (!cm)
		return NULL;
	for (i = 0; i < CACHE_MEM; i++) {
		if (lv[i]->line != g->l1d.line || level_init(&cm->lvl[i], lv[i]))
			goto err_levels;
		cm->latency[i] = lv[i]->latency;
	}
	cm->latency[CACHE_MEM] = g->mem_latency;
	cm->line_shift = (unsigned)__builtin_ctz(g->l1d.line);
	return cm;
err_levels:
	while (i--)
		free(cm->lvl[i].tags);
	free(cm);
	return NULL;
}

void cache_model_free(struct cache_model *cm)
{
	if (!cm)
		return;
	for (unsigned i = 0; i < CACHE_MEM; i++)
		free(cm->lvl[i].tags);
	free(cm);
}

/* Looks line up in a; returns whether it hit. Either way the line ends up
 * most recently used (a miss evicts the least recently used way). */
static bool level_touch(struct cache_set_array *a, uint64_t line)
{
	uint64_t *set = &a->tags[(line & a->set_mask) * a->ways];
	uint64_t tag = line + 1;
	unsigned w;

	if (set[0] == tag)
		return true;         /* already the most recent */
	for (w = 1; w < a->ways && set[w] != tag; w++)
		;
	if (w == a->ways)
		w = a->ways - 1;     /* miss: the LRU way makes room */
	bool hit = set[w] == tag;
	for (; w > 0; w--)
		set[w] = set[w - 1];
	set[0] = tag;
	return hit;
}

void cache_model_access(struct cache_model *cm, uint64_t addr, unsigned size,
			struct cache_outcome *out)
{
	uint64_t first = addr >> cm->line_shift;
	uint64_t last = (addr + (size ? size : 1) - 1) >> cm->line_shift;
	enum cache_level worst = CACHE_L1;

	assert(size > 0);
	out->lines = 0;
	for (unsigned i = 0; i < CACHE_MEM; i++)
		out->miss[i] = 0;
	for (uint64_t line = first; line <= last; line++) {
		enum cache_level served = CACHE_L1;

		/* a level is looked up only when the ones before it missed;
		 * the line is filled into each level that missed */
		while (served < CACHE_MEM && !level_touch(&cm->lvl[served], line)) {
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
