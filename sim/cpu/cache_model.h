/*
 * cache_model.h - the machine's cache model: L1I and L1D in front of a
 * unified L2 and the LLC, set-associative with true LRU replacement, and
 * the first- and second-level TLBs, with the modelled CPU's geometry
 * (struct pmu_cache_geometry in the model tables), fed by the guest's
 * instruction fetches and data accesses in program order. For each access
 * it says which level served it, the load-to-use latency of that level, and
 * what the TLBs did.
 *
 * Policy (documented in docs/machine-counting.md):
 *  - physical = virtual addresses; set index = (address / line) mod sets;
 *  - a miss at a level looks up the next one; the line is then filled into
 *    every level it missed (write-allocate, no write-back traffic, no
 *    back-invalidation: non-inclusive, as valgrind's cache simulator);
 *  - an access that spans lines touches each line in address order; it is
 *    served by the slowest of them;
 *  - TLBs hold 4 KiB pages; an access looks up each page it touches in its
 *    first-level TLB (ITLB for fetches, DTLB for data), a miss there in the
 *    second level (one shared STLB, or one per side), and a miss there is a
 *    page walk; every level is LRU and is filled on a miss;
 *  - no prefetchers, no randomness: the same address stream gives the same
 *    outcomes.
 * This is the plug-in point for a better model: the machine only calls
 * cache_model_access() / cache_model_fetch() and reads struct
 * cache_outcome; the access log's replay takes the same outcomes in bulk
 * (cache_model_access_tally, cache_model_data_run,
 * cache_model_fetch_tally: code specialised to the registered models' way
 * counts).
 */
#ifndef PMUSIM_CACHE_MODEL_H
#define PMUSIM_CACHE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
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
	unsigned miss[CACHE_MEM];  /* lines that missed L1 (L1D or L1I), L2, LLC */
	unsigned tlb_miss;         /* pages that missed the first-level TLB */
	unsigned tlb_walk;         /* pages that missed the second level too: walks */
};

/* One set-associative LRU array of line (or page) numbers: a cache level
 * or a TLB; set = line mod sets. A set's way 0 holds its most recent tag,
 * its other ways a ring in recency order from its head (cache_model.c). */
struct lru_sets {
	uint64_t *tags;            /* sets x ways, each set's most recent first */
	uint32_t *heads;           /* per set: the way of the ring's most recent */
	uint64_t set_mask;         /* sets - 1 */
	unsigned ways;
};

/* An empty array of sets (a power of two) x ways; -1 on a bad geometry or
 * no memory. */
int lru_sets_init(struct lru_sets *a, uint64_t sets, unsigned ways);
void lru_sets_free(struct lru_sets *a);
/* Looks line up; returns whether it hit. Either way the line ends up most
 * recently used (a miss evicts the least recently used way). */
bool lru_sets_touch_slow(struct lru_sets *a, uint64_t line);
/* Whether line is the most recently used of its set (a touch would hit
 * and move nothing). */
static inline bool lru_sets_mru(const struct lru_sets *a, uint64_t line)
{
	return a->tags[(line & a->set_mask) * a->ways] == line + 1;
}
/* out[s] = the most recent tag (line + 1, 0: an empty set) of each set s. */
void lru_sets_mru_tags(const struct lru_sets *a, uint64_t *out);
static inline bool lru_sets_touch(struct lru_sets *a, uint64_t line)
{
	return lru_sets_mru(a, line) || lru_sets_touch_slow(a, line);
}

/* The TLB levels: first-level ITLB and DTLB, second-level ITLB and DTLB
 * (the same array when the model has one unified STLB). */
enum { CACHE_TLB_I1, CACHE_TLB_D1, CACHE_TLB_I2, CACHE_TLB_D2, CACHE_TLB_NR };

struct cache_tally;
struct cache_model;
/* cache_model_access_tally() for one model's geometry */
typedef void cache_tally_fn(struct cache_model *cm, bool write, uint64_t addr, unsigned size,
			    struct cache_tally *t);
/* cache_model_data_run() for one model's geometry */
typedef void cache_run_fn(struct cache_model *cm, const uint64_t *acc, size_t n,
			  struct cache_tally *t);
struct fetch_tally;
/* cache_model_fetch_tally() for one model's geometry */
typedef void cache_fetch_fn(struct cache_model *cm, uint64_t addr, unsigned size,
			    struct fetch_tally *f);

/* In the header so that a caller can inline cache_model_data_mru() and
 * cache_model_access_tally(); only cache_model.c changes it. */
struct cache_model {
	struct lru_sets l1i;
	struct lru_sets lvl[CACHE_MEM];   /* L1D, L2, LLC */
	struct lru_sets tlb[CACHE_TLB_NR];
	struct lru_sets *tlb2[2];         /* second level of [fetch, data] */
	unsigned latency[CACHE_NR_LEVELS];
	unsigned line_shift;
	cache_tally_fn *tally;            /* cache_model_access_tally() of this geometry */
	cache_run_fn *data_run;           /* cache_model_data_run() of this geometry */
	cache_fetch_fn *fetch_tally;      /* cache_model_fetch_tally() of this geometry */
};

/* A cold model of geometry g (every level's sets and ways powers of two,
 * a common line size). NULL on allocation failure or a bad geometry. */
struct cache_model *cache_model_new(const struct pmu_cache_geometry *g);
void cache_model_free(struct cache_model *cm);

/* One data access of size bytes (> 0) at addr: updates the LRU state of
 * the data side (L1D, L2, LLC, DTLB and its second level) and fills *out. */
void cache_model_access(struct cache_model *cm, uint64_t addr, unsigned size,
			struct cache_outcome *out);
/* Whether a data access of size bytes at addr lies in one line and one
 * page that are the most recent of their L1D and first-level DTLB sets: an
 * L1D and DTLB hit that changes no state, which cache_model_access() would
 * report as level CACHE_L1, one line, no TLB miss. */
static inline bool cache_model_data_mru(const struct cache_model *cm, uint64_t addr,
					unsigned size)
{
	uint64_t end = addr + size - 1;

	return !((addr ^ end) >> cm->line_shift) && !((addr ^ end) >> 12) &&
	       lru_sets_mru(&cm->lvl[CACHE_L1], addr >> cm->line_shift) &&
	       lru_sets_mru(&cm->tlb[CACHE_TLB_D1], addr >> 12);
}
/* Data accesses counted in bulk: by kind and the level that served them,
 * the lines that missed each level, and the pages that missed the
 * first-level DTLB and those walked (struct cache_outcome's sums). */
struct cache_tally {
	uint64_t served[2][CACHE_NR_LEVELS];  /* accesses [write][level that served] */
	uint64_t miss[CACHE_MEM];             /* lines that missed L1D, L2, LLC */
	uint64_t tlb_miss, tlb_walk;
};
/* cache_model_access() of a write or read, its outcome added to *t: a
 * call of the code specialised to the model's way counts. */
static inline void cache_model_access_tally(struct cache_model *cm, bool write, uint64_t addr,
					    unsigned size, struct cache_tally *t)
{
	cm->tally(cm, write, addr, size, t);
}
/* A data access as one word, for cache_model_data_run(): the address's
 * low 56 bits, log2 of its size (1 to 8 bytes) in the two bits above
 * them, and CACHE_ACC_WRITE for a store; the bits above are not read. */
#define CACHE_ACC_SIZE_SHIFT 56
#define CACHE_ACC_ADDR_MASK  ((UINT64_C(1) << CACHE_ACC_SIZE_SHIFT) - 1)
#define CACHE_ACC_WRITE      (UINT64_C(1) << 58)
/* The n data accesses acc[] (CACHE_ACC words) in order, each as
 * cache_model_data_mru() (then only counted, at L1) or else
 * cache_model_access_tally() would take it, tallied into *t: one call,
 * specialised to the model's way counts, for a run of accesses. */
static inline void cache_model_data_run(struct cache_model *cm, const uint64_t *acc, size_t n,
					struct cache_tally *t)
{
	cm->data_run(cm, acc, n, t);
}
/* One instruction fetch of size bytes (> 0) at addr (a block's code): the
 * same through L1I, L2, LLC and the ITLB side. */
void cache_model_fetch(struct cache_model *cm, uint64_t addr, unsigned size,
		       struct cache_outcome *out);
/* Fetches counted in bulk: the lines fetched and those that missed L1I,
 * L2 and the LLC; the pages looked up, those that missed the first-level
 * ITLB and those walked (struct cache_outcome's sums). */
struct fetch_tally {
	uint64_t lines, miss[CACHE_MEM];
	uint64_t pages, tlb_miss, tlb_walk;
};
/* cache_model_fetch() of size bytes at addr, its outcome added to *f: a
 * call of the code specialised to the model's way counts. */
static inline void cache_model_fetch_tally(struct cache_model *cm, uint64_t addr, unsigned size,
					   struct fetch_tally *f)
{
	cm->fetch_tally(cm, addr, size, f);
}

#endif
