/*
 * access_replay.h - the access log (jit_count.h) through the cache model:
 * its records, in program order, replayed either in the engine's thread
 * or, while the engine runs on, by a replay thread of the vCPU's own on
 * another host core; and the memory counts both ways produce.
 *
 * Ownership: the cache model belongs to the replay thread from
 * access_replay_give() until access_replay_wait() returns; the caller
 * touches it (or replays in its own thread) only when the replayer is
 * idle. Records are replayed in the order given, so the outcomes, and so
 * the counts, are the same with or without the thread.
 */
#ifndef PMUSIM_ACCESS_REPLAY_H
#define PMUSIM_ACCESS_REPLAY_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include "sim/cpu/cache_model.h"

/* What the memory side counted, not yet moved into the batch. */
struct mem_counts {
	uint64_t mem_n[2][CACHE_NR_LEVELS];  /* accesses [write][level that served] */
	uint64_t mem_miss[CACHE_MEM];        /* lines that missed L1D, L2, LLC */
	uint64_t fetch_n[3];                 /* fetched lines, those that missed
					      * L1I, and the cycles fetch waited
					      * for them */
	uint64_t tlb_n[2][3];                /* [fetch, data]: pages looked up,
					      * first-level misses, walks */
};

/* to += from */
void mem_counts_add(struct mem_counts *to, const struct mem_counts *from);
/* Fetches f (cache_model_fetch_tally) into m: their lines, L1I misses,
 * the cycles fetch waited for them (ICACHE_16B.IFDATA_STALL: each missed
 * line the latency of the level that served it, from g) and their pages. */
void mem_counts_fetch(struct mem_counts *m, const struct pmu_cache_geometry *g,
		      const struct fetch_tally *f);

struct access_replay;

/* Whether replayers may start threads (default yes; pmusim exec
 * --no-replay-thread turns it off for comparison), and the host CPUs
 * they run on (NULL: the affinity they inherit). Before the first
 * replayer. */
void access_replay_threads(bool on, const cpu_set_t *cpus);

/* A replayer of logs through cm (whose geometry is g), idle and without
 * a thread. NULL on allocation failure. */
struct access_replay *access_replay_new(struct cache_model *cm,
					const struct pmu_cache_geometry *g);
/* Starts r's thread (threads on, none yet: after access_replay_new, and in
 * a forked child, which has none). The caller picks a point that depends
 * on the guest's execution only: the thread's stack is a host mapping,
 * and guest mappings share the host's address space (sim/linux/mm.h), so
 * a start that moved with the log's fill would move the guest's later
 * mmap addresses, and with them its cache counts. */
void access_replay_start(struct access_replay *r);
/* Waits for it and frees it (not cm). */
void access_replay_free(struct access_replay *r);

/* Hands the records [begin, end) to the replay thread, which must be idle
 * (access_replay_busy); they must stay as they are until it is again. A
 * replay leaves the records it read 0 (jit_count.h: the log past its end
 * is 0).
 * Returns false, having done nothing, when there is no thread (threads
 * off, not started, or one could not be made): the caller replays them
 * itself. */
bool access_replay_give(struct access_replay *r, uint64_t *begin, uint64_t *end);
/* Whether the replay thread is still at what it was given. */
bool access_replay_busy(struct access_replay *r);
/* Returns once the replay thread is idle (at once if there is none). */
void access_replay_wait(struct access_replay *r);

/* Replays [begin, end) in the calling thread (leaving them 0); the
 * replayer must be idle. */
void access_replay_now(struct access_replay *r, uint64_t *begin, uint64_t *end);

/* Idle replayer: adds what it counted since the last collect to *into, and
 * returns whether it replayed any block start since then (the caller then
 * resyncs the fetch side's shadows from the model, jit_count.h). */
bool access_replay_collect(struct access_replay *r, struct mem_counts *into);

#endif
