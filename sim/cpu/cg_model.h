/*
 * cg_model.h - the cachegrind-compatible configuration (`--cache-model=
 * cachegrind`): the caches and branch predictor of valgrind's cachegrind
 * (3.19: cachegrind/cg_sim.c, cg_branchpred.c, cg_arch.c, cg_main.c),
 * reimplemented from its documented rules so that valgrind is an
 * independent oracle for pmusim's counts:
 *  - three caches, I1, D1 and LL (shared by instructions and data), no L2;
 *    true LRU, set = line number mod sets, write-allocate; LL is looked up
 *    only when I1 or D1 missed;
 *  - every executed instruction is one I1 access of its length, every data
 *    access one D1 access of its size (clamped to the smaller L1 line);
 *    an access that straddles two lines is one access, a miss if either
 *    line misses (both lines are looked up); a write to the address and
 *    size the same instruction just read is a modify: counted once, as
 *    the read;
 *  - conditional branches: 2^14 two-bit counters starting at 0, indexed by
 *    the last 7 outcomes (global history, the high 7 bits) and the branch
 *    address bits [6:0] (the low 7 bits), predicting taken at 2 or more;
 *  - indirect jumps and calls (not returns): the last target seen at
 *    address bits [8:0] of a 512-entry table, starting at 0.
 * One instance per process, shared by its threads (which run one at a
 * time under the core lock); made by cg_model_start() before the program
 * runs. Its totals are cachegrind's summary counters.
 */
#ifndef PMUSIM_CG_MODEL_H
#define PMUSIM_CG_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A cache as valgrind's --I1/--D1/--LL=size,assoc,line take it. */
struct cg_cache_spec {
	unsigned size, assoc, line;
};

struct cg_config {
	struct cg_cache_spec i1, d1, ll;
};

/* cachegrind's summary counters (its events Ir I1mr ILmr Dr D1mr DLmr Dw
 * D1mw DLmw Bc Bcm Bi Bim). */
struct cg_counts {
	uint64_t ir, i1mr, ilmr;
	uint64_t dr, d1mr, dlmr;
	uint64_t dw, d1mw, dlmw;
	uint64_t bc, bcm, bi, bim;
};

/* What one data access did: whether it missed D1 and LL. */
struct cg_data_outcome {
	bool d1_miss, ll_miss;
	bool merged;               /* the write half of a modify: not an access */
};

struct cg_model;

/* Parses "size,assoc,line" (decimal) into *out. Returns 0, or -1 with a
 * reason in why. */
int cg_parse_spec(const char *text, struct cg_cache_spec *out, char *why, size_t whylen);
/* cachegrind's check of a geometry (cg_arch.c check_cache): a power-of-two
 * set count and line size, a line of at least 16 bytes, a cache bigger
 * than a line, at most size/line ways. Returns 0, or -1 with a reason. */
int cg_check_spec(const struct cg_cache_spec *s, char *why, size_t whylen);
/* cg_arch.c maybe_tweak_LLc: an LL whose set count is 1.5 times a power of
 * two (at least 4 sets) and whose associativity is even is simulated with
 * 1.5 times the ways (the same size, a power-of-two set count). Returns
 * whether it changed *ll. */
bool cg_tweak_ll(struct cg_cache_spec *ll);

/* Makes this process's model from cfg (checked by the caller); its
 * summary goes to report_fd at exit. Returns 0 or -ENOMEM. */
int cg_model_start(const struct cg_config *cfg, int report_fd);
/* This process's model, or NULL when the configuration is not in use. */
struct cg_model *cg_model_active(void);

/* One executed instruction of len bytes at addr; returns whether it missed
 * I1. */
bool cg_instr(struct cg_model *m, uint64_t addr, unsigned len);
/* One data access; fills *out. */
void cg_data(struct cg_model *m, bool write, uint64_t addr, unsigned size,
	     struct cg_data_outcome *out);
/* A conditional branch at addr: returns whether it was mispredicted. */
bool cg_cond_branch(struct cg_model *m, uint64_t addr, bool taken);
/* An indirect jump or call at addr to target: returns whether it was
 * mispredicted. */
bool cg_ind_branch(struct cg_model *m, uint64_t addr, uint64_t target);

/* Writes cachegrind's summary of the active model, one line prefixed
 * "==PID== " as valgrind prefixes its messages, to the report fd. No-op
 * without an active model. */
void cg_model_report(void);

#endif
