/*
 * jit_count.h - counting inside the translated code (inline counting).
 *
 * A call from every translated block into pmu_on_block() costs more than
 * the block itself (bench_compute: ~8 ns of guest code per block). While
 * the scheduled events only count (no user-mode sampling, no LBR, no
 * memory events), each block instead adds its statically known counts to
 * per-vCPU accumulators with a few inline TCG ops (tcg_emit.h), and the
 * conditional branch that ends it updates the bimodal predictor and the
 * mispredict penalty inline on each of its two exits; a call pushes the
 * return stack, a return or an indirect branch reads its prediction and
 * is checked against its target inline: at its exit where the translator
 * has the target (x86-64), else at the next block's start (AArch64). The
 * call into C (the
 * "slow path", pmu_on_jit_block) happens only when
 *  - the cycles left before the next timer or the end of a slice run out
 *    (head < 0): the accumulators then become one batch report, exactly
 *    as pmu_on_block's batching would have made it;
 *  - the block must be seen by C: it follows a block whose branch needs
 *    the next address (returns, indirect jumps and calls, direct calls for
 *    the return stack, LOOP/JrCXZ, a jump to another page), it continues a
 *    REP string instruction, it holds RDPMC, or C asked (jit_force_next);
 *    or it continues a straight run QEMU cut at its start, and its slot
 *    does not know that run yet (struct jit_slot's cont_start);
 *  - inline counting is off (every block then takes the slow path, which
 *    runs pmu_on_block as the block hook did).
 *
 * Invariants:
 *  - between two syncs, the counts of the blocks run inline are
 *    v[] and head0 - head - (pending bias), nothing else;
 *  - a block's inline ops run after its exit-request test, so a block is
 *    counted iff it runs;
 *  - the predictor tables the exits read change only at a block start (the
 *    slow path), so each branch is resolved exactly once: inline when the
 *    tables were on at its exit, else by pmu_on_block through pv->prev.
 */
#ifndef PMUSIM_JIT_COUNT_H
#define PMUSIM_JIT_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pmu_models/sim_source.h"

/* The size argument of the block hook call that marks the slow path; the
 * address argument is then the block's struct jit_slot. */
#define JIT_SLOW_MARK 0xffffffffu
/* The size argument of the block hook call that starts a cold block while
 * logging (jit_count_cold_fetch); the address argument is its slot. */
#define JIT_FETCH_MARK 0xfffffffeu

/* The static per-block sources, in enum bd_total order (INSNS..STORES),
 * then branch misses: what blocks and exits may count inline. */
#define JIT_NR_STATIC 8
#define JIT_NR_SRC    (JIT_NR_STATIC + 1)

struct jit_count;
struct bd_cache;
struct bdesc;

/* One translated block, filled when its translation completes. k[] are
 * what its inline ops subtract from (k[0]) and add to (k[1], k[2]) the
 * packed accumulators (jit_count.c); the slow path takes them back. */
struct jit_slot {
	int64_t k[3];
	uint64_t pc;
	uint32_t size;
	bool done;                   /* its translation completed */
	/* what a record of its start fetches (access_replay.c; set with pc
	 * and size, before it runs, and never changed): nothing (no decode),
	 * or its code, and its last instruction is a REP string instruction
	 * at pc + rep_end_off - 1 (0: it is not) */
	bool fetch_none;
	uint32_t rep_end_off;
	/* while logging: the tag of its one line that its start compares
	 * with the line's L1I shadow on the straight path, or one no shadow
	 * holds (jit_count.c, emit_fetch_inline; set at translation) */
	uint64_t fetch_expect;
	/* while logging, a cold block's start (jit_count_cold_fetch): how it
	 * goes into the log (jit_count.c's enum fetch_kind, set at
	 * translation) and how often it ran */
	uint8_t fetch_kind;
	uint32_t cold_runs;
	/* a cold block whose head has no branch to a slow path of its own:
	 * its start's call takes the slow path when the head is negative
	 * (jit_count_cold_head), and it starts with a REP instruction */
	bool cold_head, rep_start;
	/* the slow path's cache of the block's decode (pmu_machine.c), valid
	 * while its generation is the decode cache's */
	uint32_t decoded_gen;
	const void *decoded;
	/* the block as the continuation of a straight run QEMU cut at its
	 * start (pmu_machine.c, continue_run): while the run the previous
	 * block's exit names starts at cont_start, the block's head takes
	 * cont_adj to w[0] after k[0] (its cycles as scheduled in the whole
	 * run instead of alone, and the cut exit's bias back) and runs on
	 * inline; the slow path fills them (jit_count_ran), ~0: none */
	uint64_t cont_start;
	int64_t cont_adj;
	uint64_t cont_need;          /* 1: its counts exceed issue width x its
				      * cycles there (jit_count_ran) */
	/* whether its translation ran TCG's optimizer; while not, how often
	 * the slow path saw it (jit_count_sampled) */
	bool optimized;
	uint8_t samples;
};

/* Whether inline counting can be used at all (probe; off by option). */
bool jit_count_init(bool disable, const char **why);
bool jit_count_enabled(void);
/* Whether it serves an engine of the architecture (its translator's copy
 * interposed and probed, cpu_arch.h). */
struct cpu_arch;
bool jit_count_serves(const struct cpu_arch *arch);
/* Blocks translated with inline counting, slow-path calls, blocks found
 * hot (jit_count_sampled), and blocks whose start became hot while
 * logging (jit_count_cold_fetch), so far (this process, all vCPUs). */
void jit_count_stats(unsigned long long *translated, unsigned long long *slow,
		     unsigned long long *hot, unsigned long long *fetch_hot);

/*
 * The branch predictors' state (pmu_machine.c's resolve_prev) that the
 * inline exits update too, in the same layout: the bimodal table (4096
 * two-bit counters, stored x PMU_BIMODAL_STEP, by branch address [11:0]),
 * the return stack (PMU_RAS_DEPTH entries, its top in bytes) and the BTB
 * (PMU_BTB_ENTRIES last targets, by branch address); and the cycles a
 * mispredict costs.
 */
struct jit_predictors {
	uint8_t *bimodal;
	uint64_t *ras, *ras_top;
	uint64_t *btb;
	unsigned mispredict_cycles;
};

/*
 * A vCPU's inline counting: its accumulators and the slots of the blocks
 * translated for it; p the predictors (copied); bc decodes; engine_user
 * is the block hook's user data (the struct vcpu).
 */
struct jit_count *jit_count_new(const struct jit_predictors *p, struct bd_cache *bc,
				void *engine_user);
void jit_count_free(struct jit_count *j);

/* Translation happens on the calling thread for this vCPU from now on
 * (around uc_emu_start); _end stops observing. */
void jit_count_begin(struct jit_count *j);
void jit_count_end(struct jit_count *j);
/* After jit_count_end, when the run stopped at a data access to unmapped
 * or non-canonical memory at addr: that access reaches no cache (the
 * memory hook never sees one either), so its record, the log's last, goes.
 * Nothing if the last record is not a data access at addr. */
void jit_count_log_unrecord(struct jit_count *j, uint64_t addr);

/* Sources blocks should add inline from the next translation on (a
 * SIM_SRC_* mask); returns whether that grows the set. Blocks translated
 * before then take the slow path until they are translated again (drop
 * them for speed). */
bool jit_count_want(struct jit_count *j, uint64_t src_mask);
/* Whether every source in src_mask is counted inline. */
bool jit_count_covers(const struct jit_count *j, sim_src_mask src_mask);

/* Before anything else at the slow path of block s: a return's or
 * indirect branch's prediction check the previous block left to it
 * (emit_slow_call does the hits inline) resolved, as inline. Returns true
 * when the block then has nothing to do in C (the head is not negative):
 * the slow path returns at once, it was never taken. */
bool jit_count_check_pending(struct jit_count *j, const struct jit_slot *s);
/* The slow path's first step for block s: takes back what its inline ops
 * added. Returns the block whose branch is still to be resolved (its
 * slot), or NULL, and whether the inline tables were on (the previous
 * block's exit ran with them). */
const struct jit_slot *jit_count_enter(struct jit_count *j, const struct jit_slot *s,
				       bool *was_on);
/*
 * Straight runs QEMU cut (pmu_machine.c, continue_run). A cut exit (no
 * control transfer, nothing that ends a run) names the run its block
 * belongs to and where it goes on; the next block's head, if it starts
 * there and its slot knows that run (cont_start), counts itself inline as
 * the run's continuation. The slow path keeps the two in step:
 * jit_count_run_of answers, for the cut block p whose exit just ran, the
 * start of its run (its own start unless it ran as a continuation);
 * jit_count_ran, after the slow path ran block s: run is the start of the
 * run that goes on at s's end (0: none does, s is no cut block), in_run
 * s's decode as the continuation of the run from in_run->run_start (or
 * NULL), which s's slot keeps while its k[] are current (noting whether
 * its cycles bound its counts, insns <= width x cycles, as a head on
 * another source than cycles needs).
 */
uint64_t jit_count_run_of(const struct jit_count *j, const struct jit_slot *p);
void jit_count_ran(struct jit_count *j, struct jit_slot *s, uint64_t run,
		   const struct bdesc *in_run);
/* Code changed (decodes dropped): the slots forget their continuations. */
void jit_count_code_changed(struct jit_count *j);
/* Moves what blocks counted inline into d (adding); returns whether any. */
bool jit_count_sync(struct jit_count *j, struct sim_delta *d);
/*
 * Arms inline counting: head = cycles that may run inline before the slow
 * path; on: whether inline counting (and the exits' predictor tables) are
 * on. At a block start (the slow path) both change; elsewhere (mid-block)
 * only the head may shrink to force the next block into the slow path,
 * and tables stay as they are (see the invariants). cycles_only: the head
 * bounds no limit on another source than cycles (then continuations whose
 * counts exceed issue width x their cycles may count inline too,
 * jit_count_ran).
 */
void jit_count_arm(struct jit_count *j, int64_t head, bool on, bool block_start,
		   bool cycles_only);
bool jit_count_on(const struct jit_count *j);
/* From the slow path, with the engine stopped (uc_emu_stop): the block
 * leaves before its first instruction, its PC at its start, and its next
 * start takes the slow path again. What it counted inline is taken back
 * already (jit_count_enter); prev (what jit_count_enter returned, if not
 * resolved) is again the next block's to resolve. */
void jit_count_abort_block(struct jit_count *j, const struct jit_slot *prev);
/* The next block takes the slow path. */
void jit_count_force_next(struct jit_count *j);
/*
 * Blocks are translated without TCG's optimizer until they are hot: most
 * blocks run a few times (a program's start-up), and the optimizer is a
 * pass of every translation. The slow path, where the head ran out (a
 * sample of the blocks run, by their cycles), calls this with the block
 * about to run: true when s has now been seen JIT_HOT_SAMPLES times, and
 * its address is hot from now on; the caller then drops its translation,
 * and the next one runs the optimizer. The code does the same either way.
 */
#define JIT_HOT_SAMPLES 2
bool jit_count_sampled(struct jit_count *j, const struct jit_slot *s);

/*
 * The access log: while on, blocks translated from then on append, in
 * program order, a record of each start (after the slow path, so a block
 * that leaves before it runs has none) and of each guest data access (the
 * address, its size and whether it writes), with a few inline ops and no
 * call, and the accesses of the engine's helpers (FXSAVE, XSAVE, ...) from
 * C as they run; the cache model replays it in C (access_replay.c), from
 * the slow path on and before every report. A record is JIT_LOG_FETCH | the block's
 * slot (or JIT_LOG_RANGE and its address and size), or the address's low
 * 56 bits (JIT_LOG_ADDR_MASK) with its top byte JIT_LOG_DATA | size_log2
 * << JIT_LOG_SIZE_SHIFT | JIT_LOG_WRITE (whatever the address: a guest
 * may load from a non-canonical one). A block start that hits its lines
 * and pages in the shadows (jit_count_fetch_sync) is only counted. The
 * blocks run inline between two slow paths add at most JIT_LOG_CAP
 * records (the head, JIT_LOG_HEAD).
 */
#define JIT_LOG_FETCH      (UINT64_C(1) << 63)
#define JIT_LOG_AFTER_HITS (UINT64_C(1) << 62)   /* with FETCH: blocks counted
						  * inline ran since the record before */
/* with FETCH: a block that neither starts nor ends with a REP instruction,
 * by its address and size instead of its slot: address | size <<
 * JIT_LOG_RANGE_SHIFT (the replay needs neither the slot nor the decode) */
#define JIT_LOG_RANGE      (UINT64_C(1) << 61)
#define JIT_LOG_RANGE_SHIFT 47
#define JIT_LOG_RANGE_SIZE_MASK ((UINT64_C(1) << (61 - JIT_LOG_RANGE_SHIFT)) - 1)
#define JIT_LOG_DATA       (UINT64_C(1) << 59)   /* every data record: none is 0 */
#define JIT_LOG_WRITE      (UINT64_C(1) << 58)
#define JIT_LOG_SIZE_SHIFT 56
#define JIT_LOG_ADDR_MASK  ((UINT64_C(1) << JIT_LOG_SIZE_SHIFT) - 1)
#define JIT_LOG_CAP        (1u << 20)
/* Turns the log on or off for blocks translated from now on (the caller
 * drops the translations); -ENOMEM if it cannot be made. With
 * count_fetches, a block start counted inline adds its lines and pages to
 * what jit_count_fetch_take returns; without (no event of the model counts
 * L1I or ITLB accesses), it pays for no count. */
int jit_count_log(struct jit_count *j, bool on, bool count_fetches);
bool jit_count_logging(const struct jit_count *j);
/* Records of the log, [begin, end) (both NULL: no log). */
struct log_span {
	uint64_t *begin, *end;
};
/* The records since the last take; none is pending after. With swap
 * (only at a block start: a block's translated code keeps its place in
 * the log, emit_record), records go on in the log's other half, whose
 * records must all have been replayed; without, after these in the same
 * half. The ones returned stay as they are until they are replayed
 * (which leaves them 0). */
struct log_span jit_count_log_take(struct jit_count *j, bool swap);
/* The records since the last take; and in the half being written. */
size_t jit_count_log_fill(struct jit_count *j);
size_t jit_count_log_used(struct jit_count *j);
/* The most records a half holds at a slow path before it must be swapped
 * (the blocks up to the next slow path add at most JIT_LOG_CAP). */
#define JIT_LOG_KEEP (4 * (size_t)JIT_LOG_CAP)
/* After a replay of the log through cm (nothing pending): the fetch
 * side's shadows take the most recent tag of each L1I and first-level
 * ITLB set of cm, whose geometry must not change. A block start whose
 * lines and pages all hold the most recent tag of their sets in the
 * shadows is counted inline (jit_count_fetch_take) instead of recorded;
 * a recorded start updates the shadows as its replay will update the
 * model. The first call allocates them (blocks translated before, or
 * without the memory for them, record every start). */
struct cache_model;
void jit_count_fetch_sync(struct jit_count *j, const struct cache_model *cm);
/* A cold block's start while logging, with the shadows (the block hook's
 * call with JIT_FETCH_MARK, before its first instruction): what a hot
 * block's translated check and record do (counted, or recorded with the
 * shadows set), in C. A block's translation checks its start inline only
 * once the block is hot: translating that check and its record costs
 * more than calling this the first JIT_FETCH_HOT_RUNS times
 * (docs/machine-counting.md). True when s has now run that often: the
 * caller drops its translation, and the next one carries the check. */
bool jit_count_cold_fetch(struct jit_count *j, struct jit_slot *s);
/* Before jit_count_cold_fetch, for a slot with cold_head (x86-64, while
 * logging): true when the block's start must take the slow path now, as
 * its head's branch would have (the head negative), after what that
 * path's inline part does in the block's translated code (a REP's next
 * iteration, emit_rep_continue). The caller then calls it
 * (pmu_on_jit_block) and, unless jit_count_aborting, goes on with the
 * fetch. */
bool jit_count_cold_head(struct jit_count *j, const struct jit_slot *s);
/* Whether the slow path just had the block leave before it runs
 * (jit_count_abort_block). */
bool jit_count_aborting(const struct jit_count *j);
/* The sums of the starts counted inline since the last take (lines,
 * pages); zero after. */
void jit_count_fetch_take(struct jit_count *j, uint64_t *lines, uint64_t *pages);
/* The most cycles blocks may run inline between two takes: at most 64
 * records a cycle (8 uops a cycle, 8 accesses an instruction, one record
 * a block start). */
#define JIT_LOG_HEAD (JIT_LOG_CAP / 64)

#endif
