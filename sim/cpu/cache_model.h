/*
 * cache_model.h - the machine's first data cache model: L1D, L2 and LLC as
 * set-associative caches with true LRU replacement and the modelled CPU's
 * geometry (struct pmu_cache_geometry in the model tables), fed by the
 * guest's data accesses in program order. For each access it says which
 * level served it and the load-to-use latency of that level.
 *
 * Policy (documented in docs/machine-counting.md):
 *  - physical = virtual addresses; set index = (address / line) mod sets;
 *  - a miss at a level looks up the next one; the line is then filled into
 *    every level it missed (write-allocate, no write-back traffic, no
 *    back-invalidation: non-inclusive, as valgrind's cache simulator);
 *  - an access that spans lines touches each line in address order; it is
 *    served by the slowest of them;
 *  - no prefetchers, no randomness: the same address stream gives the same
 *    outcomes.
 * This is the plug-in point for a better model: the machine only calls
 * cache_model_access() and reads struct cache_outcome.
 */
#ifndef PMUSIM_CACHE_MODEL_H
#define PMUSIM_CACHE_MODEL_H

#include <stdint.h>
#include "pmu_models/pmu_model.h"

enum cache_level {
	CACHE_L1 = 0,
	CACHE_L2,
	CACHE_L3,
	CACHE_MEM,                 /* no level had the line */
	CACHE_NR_LEVELS
};

struct cache_outcome {
	enum cache_level level;    /* the level that served the access (its slowest line) */
	unsigned latency;          /* load-to-use cycles of that level */
	unsigned lines;            /* lines touched (1, or 2+ for a split access) */
	unsigned miss[CACHE_MEM];  /* lines that missed L1D, L2, LLC */
};

struct cache_model;

/* A cold model of geometry g (every level's sets and ways powers of two,
 * a common line size). NULL on allocation failure or a bad geometry. */
struct cache_model *cache_model_new(const struct pmu_cache_geometry *g);
void cache_model_free(struct cache_model *cm);

/* One data access of size bytes (> 0) at addr: updates the LRU state and
 * fills *out. */
void cache_model_access(struct cache_model *cm, uint64_t addr, unsigned size,
			struct cache_outcome *out);

#endif
