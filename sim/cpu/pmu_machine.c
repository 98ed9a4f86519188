/*
 * pmu_machine.c - per-block accounting of executed guest code into the
 * simulated perf core (pmu_machine.h), exact overflow, the branch
 * predictor and LBR models, syscall kernel cost, RDPMC, and sample filling.
 *
 * Accounting happens at block entry (UC_HOOK_BLOCK runs before the block):
 * the block's statically known counts are reported at once; what depends on
 * the path (the previous block's conditional branch: taken or not, predicted
 * or not) is resolved from this block's address and reported with it. A
 * sampling counter that would cross its period inside the block gets the
 * block split at the exact instruction (the per-instruction decode says
 * which), so the overflow's sample carries that instruction's IP. An
 * overflow whose sample reads the guest's registers, stack or callchain,
 * or whose event signals the guest, waits for the engine's state after
 * that instruction (exact stops, pmu_machine.h).
 */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include <unicorn/unicorn.h>
#include "sim/core/sample_data.h"
#include "sim/cpu/block_decode.h"
#include "sim/cpu/cache_model.h"
#include "sim/cpu/cg_machine.h"
#include "sim/cpu/cg_model.h"
#include "sim/cpu/frontend_model.h"
#include "sim/cpu/jit_count.h"
#include "sim/cpu/kernel_symbols.h"
#include "sim/cpu/pmu_machine.h"
#include "sim/cpu/cpu_arch.h"
#include "sim/cpu/vcpu.h"

typedef uint64_t u64;
typedef int64_t s64;

/* ---- acquiring the simulated CPU --------------------------------------- */

static void flush(struct pmu_vcpu *pv);
static void flush_counts(struct pmu_vcpu *pv, bool drain_log);
static void mem_to_acc(struct pmu_vcpu *pv);
static void log_drain(struct pmu_vcpu *pv);
static void log_advance(struct pmu_vcpu *pv);

void pmu_vcpu_acquire(struct pmu_vcpu *pv)
{
	if (!pv->locked) {
		perf_cpu_lock(pv->cpu);
		pv->locked = true;
		pv->lim_valid = false;
	}
	/* perf_event_task_sched_in(): another task ran on this CPU meanwhile */
	if (perf_cpu_task(pv->cpu) != pv->task)
		perf_cpu_switch_to(pv->cpu, pv->task);
}

void pmu_vcpu_release(struct pmu_vcpu *pv)
{
	flush(pv);
	pv->lim_valid = false;
	/* unlocked, blocks may not count inline: the next one acquires */
	if (pv->jit)
		jit_count_arm(pv->jit, 0, false, false, false);
	if (pv->locked) {
		perf_cpu_unlock_all(pv->cpu);
		pv->locked = false;
	}
}

bool pmu_source_needs_mem(unsigned src)
{
	switch (src) {
	case SIM_SRC_L1D_ACCESS: case SIM_SRC_L1D_MISS:
	case SIM_SRC_LLC_ACCESS: case SIM_SRC_LLC_MISS:
	case SIM_SRC_MEM_LOADS: case SIM_SRC_MEM_STORES:
	case SIM_SRC_LOAD_L1_HIT: case SIM_SRC_LOAD_L1_MISS:
	case SIM_SRC_LOAD_L2_HIT: case SIM_SRC_LOAD_L2_MISS:
	case SIM_SRC_LOAD_L3_HIT: case SIM_SRC_LOAD_L3_MISS:
	case SIM_SRC_STORE_L2_MISS: case SIM_SRC_STORE_L3_MISS:
	case SIM_SRC_L2_ACCESS: case SIM_SRC_L2_MISS:
	case SIM_SRC_L1I_ACCESS: case SIM_SRC_L1I_MISS:
	case SIM_SRC_DTLB_ACCESS: case SIM_SRC_DTLB_MISS: case SIM_SRC_DTLB_L1_MISS:
	case SIM_SRC_DTLB_L2_HIT: case SIM_SRC_DTLB_WALK_CYCLES:
	case SIM_SRC_ITLB_ACCESS: case SIM_SRC_ITLB_MISS: case SIM_SRC_ITLB_L1_MISS:
	case SIM_SRC_ITLB_L2_HIT: case SIM_SRC_ITLB_WALK_CYCLES:
	case SIM_SRC_MEM_REQ_OCCUPANCY: case SIM_SRC_MEM_READ_OCCUPANCY:
	case SIM_SRC_L1D_PENDING: case SIM_SRC_STORE_L1_MISS: case SIM_SRC_STORE_L2_HIT:
	case SIM_SRC_OFFCORE_RD_PENDING: case SIM_SRC_OFFCORE_RFO_PENDING:
	case SIM_SRC_ICACHE_DATA_STALL: case SIM_SRC_ICACHE_TAG_STALL:
		return true;
	default:
		return false;
	}
}

/* Whether one of the sources (a SIM_SRC_BIT mask) is a memory source. */
static bool sources_need_mem(sim_src_mask sources)
{
	for (unsigned src = 0; src < SIM_SRC_NR; src++)
		if ((sources >> src & 1) && pmu_source_needs_mem(src))
			return true;
	return false;
}

/* The decoded and execution sources: inline counting does not count them
 * (while one is scheduled, every block takes the slow path), and the
 * blocks add them only while an enabled event counts one (decoded_wanted).
 * They run in sim_source.h as their totals do in block_decode.h
 * (SRC_BDT): the per-instruction ones, then the block-level execution
 * ones (EXEC_BLOCK_SOURCES). */
#define DECODED_SOURCES SIM_SRC_RANGE(SIM_SRC_FP_SCALAR_DOUBLE, SIM_SRC_EXEC_CYCLES_EQ2)
#define EXEC_BLOCK_SOURCES SIM_SRC_RANGE(SIM_SRC_EXEC_STALLS, SIM_SRC_EXEC_CYCLES_EQ2)
#define SRC_BDT(src) (BDT_FP_SD + ((src) - SIM_SRC_FP_SCALAR_DOUBLE))
_Static_assert(SRC_BDT(SIM_SRC_SWPF_NTA) == BDT_PF_NTA && SRC_BDT(SIM_SRC_SWPF_ANY) == BDT_PF_ANY &&
	       SRC_BDT(SIM_SRC_FAR_BRANCHES) == BDT_FAR &&
	       SRC_BDT(SIM_SRC_LOCK_LOADS) == BDT_LOCK_LOADS &&
	       SRC_BDT(SIM_SRC_UOPS_EXECUTED) == BDT_UOPS_EXEC &&
	       SRC_BDT(SIM_SRC_UOPS_EXECUTED_X87) == BDT_UOPS_X87 &&
	       SRC_BDT(SIM_SRC_EXEC_CYCLES_GE1) == BDT_EXEC_GE1 &&
	       SRC_BDT(SIM_SRC_EXEC_CYCLES_GE4) == BDT_EXEC_GE4 &&
	       SRC_BDT(SIM_SRC_EXEC_STALLS) == BDT_X_STALL &&
	       SRC_BDT(SIM_SRC_EXEC_CYCLES_EQ2) == BDT_X_EQ2,
	       "the decoded sources in the order of their block totals");

/* Whether src is a per-instruction decoded source (its total in a
 * block's t and an instruction's, SRC_BDT). */
static bool is_insn_decoded(unsigned src)
{
	return src >= SIM_SRC_FP_SCALAR_DOUBLE && src <= SIM_SRC_EXEC_CYCLES_GE4;
}

/* The front-end model's sources (frontend_model.h), and the mispredicts'
 * resteer cycles, DSB_UOPS .. CLEAR_RESTEER_CYCLES in sim_source.h: while
 * an enabled event counts one, every block takes the slow path, which
 * feeds the model (fe_on); their counts are in a block's extra counts (x). */
#define FE_FIRST SIM_SRC_DSB_UOPS
#define FE_LAST SIM_SRC_CLEAR_RESTEER_CYCLES
#define FRONTEND_SOURCES SIM_SRC_RANGE(FE_FIRST, FE_LAST)

/* Whether src is one of the front-end model's. */
static bool is_fe_source(unsigned src)
{
	return src >= FE_FIRST && src <= FE_LAST;
}

/* The front-end model on while an enabled event counts one of its
 * sources (scheduled or multiplexed out: its state follows every block
 * then, so its counts do not depend on the other events open). */
static void frontend_decide(struct pmu_vcpu *pv, sim_src_mask sources)
{
	const struct pmu_model *m = pv->c->model;

	pv->fe_on = false;
	if (!m || !m->frontend || !(sources & FRONTEND_SOURCES))
		return;
	if (!pv->fe)
		pv->fe = fe_model_new(m->frontend);
	pv->fe_on = pv->fe != NULL;      /* no memory: not counted */
}

static void decoded_wanted(struct pmu_vcpu *pv, sim_src_mask sources);

/*
 * What the hooks should be (pay only for what is counted): the block hook
 * once any event is scheduled on the CPU (it then stays); the memory hook
 * while an enabled event of the task's or the CPU's context counts a
 * memory source (scheduled or multiplexed out). Returns whether something
 * is to change.
 */
static bool hooks_decide(struct pmu_vcpu *pv)
{
	struct perf_cpu *cpu = pv->cpu;
	struct vcpu *c = pv->c;
	bool change = false;

	sim_src_mask sources = perf_cpu_schedulable_hw_sources(cpu);
	struct perf_breakpoint bp[PERF_HBP_NUM];
	unsigned bp_mask = perf_cpu_breakpoints(cpu, bp);

	/* pay only for what is counted: the blocks add their decoded and
	 * execution totals while an enabled event counts one */
	decoded_wanted(pv, sources);

	/* the debug registers' hooks follow what is installed on the CPU */
	if (bp_mask != c->bp_want_mask || memcmp(bp, c->bp_want, sizeof(bp))) {
		memcpy(c->bp_want, bp, sizeof(bp));
		c->bp_want_mask = bp_mask;
		c->bp_pending = true;
		change = true;
	}

	if (!c->blocks_on && !c->want_blocks_pending && (perf_cpu_has_active(cpu) || pv->cg)) {
		c->want_blocks_pending = true;
		change = true;
	}
	/* inline counting adds what the contexts' events count; more means
	 * translating again (vcpu_want_blocks drops them all the first time) */
	frontend_decide(pv, sources);
	if (pv->jit && jit_count_want(pv->jit, sources) &&
	    c->blocks_on) {
		c->jit_retranslate = true;
		change = true;
	}
	if (pv->cg) {
		/* the cachegrind-compatible configuration sees every block and
		 * access from the first instruction, as cachegrind does */
		c->mem_want = true;
		c->mem_log_want = false;
		c->mem_toggle_pending = !c->mem_on;
		return change || c->mem_toggle_pending;
	}
	if (!pv->c->model || !pv->c->model->caches)
		return change;      /* no cache model: the memory sources count 0 */
	/* counting only: the access log (inline counting). A hardware event
	 * that samples needs the memory hook: a memory source's overflow is
	 * at the access itself, and an exact stop's prefix run (any source)
	 * runs without the log's inline ops */
	c->mem_want = sources_need_mem(sources);
	c->mem_log_want = c->mem_want && pv->jit && c->arch->access_log &&
			  !perf_cpu_schedulable_sampled_sources(cpu);
	c->mem_toggle_pending = c->mem_on != c->mem_want ||
				(c->mem_on && c->mem_log != c->mem_log_want);
	if (c->mem_toggle_pending && c->mem_log)
		log_drain(pv);      /* the model's next user may be the memory hook */
	if (c->mem_toggle_pending && !pv->cm) {
		pv->cm = cache_model_new(c->model->caches);
		pv->replay = pv->cm ? access_replay_new(pv->cm, c->model->caches) : NULL;
		if (!pv->replay) {
			cache_model_free(pv->cm);
			pv->cm = NULL;
			c->mem_toggle_pending = false;   /* no memory: not counted */
		} else {
			access_replay_start(pv->replay);
			if (pv->jit)   /* before the access log's blocks are translated */
				jit_count_fetch_sync(pv->jit, pv->cm);
		}
	}
	return change || c->mem_toggle_pending;
}

void pmu_vcpu_forked(struct pmu_vcpu *pv)
{
	if (pv->replay)
		access_replay_start(pv->replay);
}

void pmu_vcpu_hooks_pending(struct pmu_vcpu *pv)
{
	(void)hooks_decide(pv);
}

void pmu_vcpu_migrate(struct pmu_vcpu *pv, unsigned cpu)
{
	struct perf_cpu *to = perf_core_cpu(pv->core, cpu);
	bool locked = pv->locked;

	if (!to || to == pv->cpu)
		return;
	pmu_vcpu_release(pv);       /* what ran so far counts on the old CPU */
	perf_core_lock(pv->core);
	/* __schedule() on the old CPU: the task leaves it (move_queued_task) */
	if (pv->task && perf_cpu_task(pv->cpu) == pv->task)
		perf_cpu_switch_to(pv->cpu, NULL);
	pv->cpu = to;
	perf_core_unlock(pv->core);
	pmu_vcpu_acquire(pv);       /* and comes in on the new one */
	pmu_vcpu_check_hooks(pv);
	if (!locked)
		pmu_vcpu_release(pv);
}

void pmu_vcpu_check_hooks(struct pmu_vcpu *pv)
{
	/* applied at the next vcpu_run(): the engine stops after this
	 * syscall's block so no block runs unaccounted */
	if (hooks_decide(pv))
		vcpu_stop(pv->c);
}

/* ---- predictor and LBR models ------------------------------------------ */

/*
 * Branch predictor model: a bimodal predictor of 4096 two-bit saturating
 * counters indexed by the branch address bits [11:0], starting weakly
 * not-taken; indirect jumps and calls predict the last target seen at
 * their index (1024 entries); returns use a 16-entry return stack. The
 * indexes are page offsets, which address randomisation leaves alone, so a
 * program predicts the same way on every run. Returns whether it missed.
 */
static bool bimodal_predict(struct pmu_vcpu *pv, uint64_t ip, bool taken)
{
	uint8_t *ctr = &pv->bimodal[ip & 4095];
	bool pred = *ctr >= 2 * PMU_BIMODAL_STEP;

	if (taken && *ctr < 3 * PMU_BIMODAL_STEP)
		*ctr += PMU_BIMODAL_STEP;
	else if (!taken && *ctr > 0)
		*ctr -= PMU_BIMODAL_STEP;
	return pred != taken;
}

static bool btb_predict(struct pmu_vcpu *pv, uint64_t ip, uint64_t target)
{
	uint64_t *e = &pv->btb[ip & (PMU_BTB_ENTRIES - 1)];
	bool miss = *e != target;

	*e = target;
	return miss;
}

static void lbr_record(struct pmu_vcpu *pv, uint64_t from, uint64_t to, bool mispred, uint8_t type)
{
	struct pmu_lbr_entry *e = &pv->lbr[pv->lbr_pos];

	e->from = from;
	e->to = to;
	e->mispred = mispred;
	e->type = type;
	pv->lbr_pos = (pv->lbr_pos + 1) % PMU_LBR_DEPTH;
	if (pv->lbr_nr < PMU_LBR_DEPTH)
		pv->lbr_nr++;
}

/* ---- per-instruction values for splitting a block ----------------------- */

/* Block totals t (one instruction's, or a whole block's) of the decoded
 * sources enabled events count (pv->dec_src) into d. */
static void add_decoded(const struct pmu_vcpu *pv, const uint32_t *t, struct sim_delta *d)
{
	for (unsigned i = 0; i < pv->nr_dec; i++)
		d->v[pv->dec_src[i]] += t[SRC_BDT(pv->dec_src[i])];
}

/* Whether sources (a SIM_SRC_BIT mask) hold a block-level execution one,
 * and the per-instruction decoded ones among them into pv->dec_src. */
static void decoded_wanted(struct pmu_vcpu *pv, sim_src_mask sources)
{
	pv->want_exec_block = (sources & EXEC_BLOCK_SOURCES) != 0;
	pv->nr_dec = 0;
	for (unsigned src = SIM_SRC_FP_SCALAR_DOUBLE; is_insn_decoded(src); src++)
		if (sources & SIM_SRC_BIT(src))
			pv->dec_src[pv->nr_dec++] = (uint8_t)src;
}
_Static_assert(SIM_SRC_EXEC_CYCLES_GE4 - SIM_SRC_FP_SCALAR_DOUBLE <
	       sizeof(((struct pmu_vcpu *)0)->dec_src), "pmu_vcpu.dec_src");
_Static_assert(SIM_SRC_NR <= 256, "pmu_vcpu.dec_src holds a source in a byte");

/* Each further iteration of a REP string instruction executes a full
 * issue width of microcode uops in its one cycle (block_decode.h). */
static void rep_cont_executed(const struct pmu_vcpu *pv, uint32_t *t)
{
	unsigned w = pv->pipe->issue_width;

	t[BDT_UOPS_EXEC] = BD_CYC_REP * w;
	for (unsigned n = 0; n < 4; n++)
		t[BDT_EXEC_GE1 + n] = w > n ? BD_CYC_REP : 0;
}

/* The decoded sources' totals of instruction in (REP continuation:
 * rep_cont_executed's) into t[BDT_NR], zeroed first. */
static void insn_decoded(const struct pmu_vcpu *pv, const struct bd_insn *in, bool counts_insn,
			 uint32_t *t)
{
	memset(t, 0, BDT_NR * sizeof(*t));
	if (counts_insn)
		bd_insn_decoded(t, in);
	else
		rep_cont_executed(pv, t);
}

static unsigned insn_value(const struct pmu_vcpu *pv, const struct bd_insn *in, unsigned src,
			   bool counts_insn)
{
	switch (src) {
	case SIM_SRC_INSTRUCTIONS: return counts_insn;
	case SIM_SRC_BRANCHES:     return counts_insn && (in->cls & BD_BRANCH);
	case SIM_SRC_COND_BRANCHES: return counts_insn && (in->cls & BD_COND);
	case SIM_SRC_TAKEN_BRANCHES:
		return counts_insn && (in->cls & BD_BRANCH) && !(in->cls & BD_COND);
	case SIM_SRC_CALLS:        return counts_insn && (in->cls & BD_CALL);
	case SIM_SRC_RETURNS:      return counts_insn && (in->cls & BD_RET);
	case SIM_SRC_LOADS:        return counts_insn && (in->cls & BD_LOAD);
	case SIM_SRC_STORES:       return counts_insn && (in->cls & BD_STORE);
	case SIM_SRC_CYCLES:       return counts_insn ? in->cycles : BD_CYC_REP;
	case SIM_SRC_UOPS_RETIRED: case SIM_SRC_UOPS_ISSUED:
		return counts_insn ? in->uops : BD_CYC_REP * pv->pipe->issue_width;
	default: {
		uint32_t t[BDT_NR];

		if (!is_insn_decoded(src))
			return 0;
		insn_decoded(pv, in, counts_insn, t);
		return t[SRC_BDT(src)];
	}
	}
}

/* The sources the per-block delta and the memory hook (pmu_on_mem) fill:
 * the hardware ones, FILLED_FIRST .. SIM_SRC_HW_LAST. */
#define FILLED_FIRST SIM_SRC_INSTRUCTIONS
#define FILLED_BYTES ((SIM_SRC_HW_LAST - FILLED_FIRST + 1) * sizeof(((struct sim_delta *)0)->v[0]))

/* c core cycles (at freq_hz) as a clock at hz, with *rem carried over. */
static uint64_t rescale(uint64_t c, uint64_t hz, uint64_t freq_hz, uint64_t *rem)
{
	uint64_t x = c * hz + *rem;

	*rem = x % freq_hz;
	return x / freq_hz;
}

/* Reference and bus cycles from core cycles: the TSC rate and a 100 MHz
 * bus clock, remainders carried so long runs are exact. 64-bit: a report's
 * cycles times a rate stays far below 2^64. */
static void derived_clocks(struct pmu_vcpu *pv, struct sim_delta *d)
{
	uint64_t c = d->v[SIM_SRC_CYCLES];

	if (pv->tsc_hz == pv->freq_hz)
		d->v[SIM_SRC_REF_CYCLES] = c;
	else
		d->v[SIM_SRC_REF_CYCLES] = rescale(c, pv->tsc_hz, pv->freq_hz, &pv->ref_rem);
	d->v[SIM_SRC_BUS_CYCLES] = rescale(c, 100000000ull, pv->freq_hz, &pv->bus_rem);
}

/* Reports d at user mode with the overflow IP set. */
static void account(struct pmu_vcpu *pv, struct sim_delta *d, uint64_t ip)
{
	derived_clocks(pv, d);
	pv->sample_ip = ip;
	perf_cpu_account(pv->cpu, SIM_MODE_USER, d);
}

/* Sources a block adds to as a whole (the previous branch's resolution,
 * the block's issue and stall slots), split at block granularity: an
 * overflow of them is at the block's last instruction. */
static bool block_granular(unsigned src)
{
	switch (src) {
	case SIM_SRC_BRANCH_MISSES: case SIM_SRC_FE_BUBBLES: case SIM_SRC_RECOVERY_CYCLES:
	case SIM_SRC_STALLED_FRONTEND: case SIM_SRC_STALLED_BACKEND: case SIM_SRC_COND_NOT_TAKEN:
	case SIM_SRC_EXEC_STALLS: case SIM_SRC_EXEC_MEM_STALLS: case SIM_SRC_EXEC_MEM_CYCLES:
	case SIM_SRC_EXEC_CYCLES_EQ1: case SIM_SRC_EXEC_CYCLES_EQ2:
		return true;
	default:
		return is_fe_source(src);
	}
}

/*
 * The earliest instruction index in [from, n) at which a sampling slot's
 * count reaches its overflow point, given extra counts (resolved branch of
 * the previous block) landing on the first instruction; n if none.
 * *exact: a slot that overflows there needs the guest's state after it.
 */
static unsigned first_crossing(struct pmu_vcpu *pv, const struct bdesc *b, unsigned from,
			       const struct sim_delta *extra, bool rep_cont, bool *exact)
{
	struct perf_overflow_point pts[PERF_CPU_MAX_SLOTS];
	unsigned best = b->n, n = perf_cpu_overflow_points(pv->cpu, pts, PERF_CPU_MAX_SLOTS);

	*exact = false;
	for (unsigned s = 0; s < n; s++) {
		const struct perf_overflow_point *sl = &pts[s];
		s64 left;
		u64 acc;

		if (!sl->sampling || !sl->user)
			continue;
		left = sl->left;
		if (left <= 0) {
			*exact = sl->needs_state;
			return from;
		}
		acc = extra ? extra->v[sl->source] : 0;
		if (sl->source == SIM_SRC_REF_CYCLES || sl->source == SIM_SRC_BUS_CYCLES ||
		    block_granular(sl->source))
			continue;   /* resolved at block granularity: see below */
		for (unsigned i = from; i < b->n && i <= best; i++) {
			acc += insn_value(pv, &b->ins[i], sl->source, !rep_cont);
			if (acc >= (u64)left) {
				/* a later slot crossing at the same instruction
				 * may need the state too */
				*exact = (i == best && *exact) || sl->needs_state;
				best = i;
				break;
			}
		}
	}
	return best;
}

/*
 * Whether report d of a whole block brings a counter that is split at block
 * granularity (reference and bus cycles, branch misses: see first_crossing)
 * to an overflow that needs the guest's state: then it waits for the state
 * after the block's last instruction, its IP.
 */
static bool granular_exact(struct pmu_vcpu *pv, const struct sim_delta *d)
{
	struct perf_overflow_point pts[PERF_CPU_MAX_SLOTS];
	unsigned n = perf_cpu_overflow_points(pv->cpu, pts, PERF_CPU_MAX_SLOTS);
	uint64_t c = d->v[SIM_SRC_CYCLES];

	for (unsigned s = 0; s < n; s++) {
		const struct perf_overflow_point *sl = &pts[s];
		uint64_t rem, v;
		s64 left;

		if (!sl->sampling || !sl->user || !sl->needs_state)
			continue;
		if (block_granular(sl->source)) {
			v = d->v[sl->source];
		} else if (sl->source == SIM_SRC_REF_CYCLES) {
			rem = pv->ref_rem;
			v = pv->tsc_hz == pv->freq_hz ? c : rescale(c, pv->tsc_hz, pv->freq_hz, &rem);
		} else if (sl->source == SIM_SRC_BUS_CYCLES) {
			rem = pv->bus_rem;
			v = rescale(c, 100000000ull, pv->freq_hz, &rem);
		} else {
			continue;
		}
		left = sl->left;
		if (left <= 0 || v >= (u64)left)
			return true;
	}
	return false;
}

/* Block-level execution totals x (BDT_X_* order) into d. */
static void add_exec_block(const uint32_t *x, struct sim_delta *d)
{
	for (unsigned k = 0; k < BD_NR_XBLOCK; k++)
		d->v[SIM_SRC_EXEC_STALLS + k] += x[k];
}

/* The block's static issue and stall counts (with its last instruction).
 * A cut block holds them: the next block either continues its run and
 * counts the whole run's (continue_run), or gets them with the previous
 * block's resolution. */
static void add_block_stalls(struct pmu_vcpu *pv, const struct bdesc *b, struct sim_delta *d)
{
	if (bd_cut(b)) {
		pv->held_fe = b->t[BDT_FE_BUBBLES];
		pv->held_be = b->t[BDT_BE_STALL];
		memcpy(pv->held_x, &b->t[BDT_X_STALL], sizeof(pv->held_x));
		return;
	}
	d->v[SIM_SRC_FE_BUBBLES] += b->t[BDT_FE_BUBBLES];
	d->v[SIM_SRC_STALLED_BACKEND] += b->t[BDT_BE_STALL];
	if (pv->want_exec_block)
		add_exec_block(&b->t[BDT_X_STALL], d);
}

/* The held counts of a cut block whose run does not go on, into d. */
static void release_held(struct pmu_vcpu *pv, struct sim_delta *d)
{
	d->v[SIM_SRC_FE_BUBBLES] += pv->held_fe;
	d->v[SIM_SRC_STALLED_BACKEND] += pv->held_be;
	if (pv->want_exec_block)
		add_exec_block(pv->held_x, d);
	pv->held_fe = pv->held_be = 0;
	memset(pv->held_x, 0, sizeof(pv->held_x));
}

/* Sum of [from, to) into d (only the sources per-instruction values give,
 * and the block's stalls with its last instruction). */
static void sum_range(struct pmu_vcpu *pv, const struct bdesc *b, unsigned from,
		      unsigned to, bool rep_cont, struct sim_delta *d)
{
	for (unsigned i = from; i < to; i++) {
		const struct bd_insn *in = &b->ins[i];
		/* retired and issued alike: a mispredict's wrong path is in
		 * the resolution (pmu_mispredict) */
		unsigned uops = insn_value(pv, in, SIM_SRC_UOPS_RETIRED, !rep_cont);
		uint32_t t[BDT_NR];

		d->v[SIM_SRC_UOPS_RETIRED] += uops;
		d->v[SIM_SRC_UOPS_ISSUED] += uops;
		if (pv->nr_dec) {
			insn_decoded(pv, in, !rep_cont, t);
			add_decoded(pv, t, d);
		}
		if (rep_cont) {
			d->v[SIM_SRC_CYCLES] += BD_CYC_REP;
			continue;
		}
		if (i + 1 == b->n)
			add_block_stalls(pv, b, d);
		d->v[SIM_SRC_INSTRUCTIONS]++;
		d->v[SIM_SRC_CYCLES] += in->cycles;
		if (in->cls & BD_BRANCH) {
			d->v[SIM_SRC_BRANCHES]++;
			if (in->cls & BD_COND)
				d->v[SIM_SRC_COND_BRANCHES]++;
			else
				d->v[SIM_SRC_TAKEN_BRANCHES]++;
		}
		d->v[SIM_SRC_CALLS] += !!(in->cls & BD_CALL);
		d->v[SIM_SRC_RETURNS] += !!(in->cls & BD_RET);
		d->v[SIM_SRC_LOADS] += !!(in->cls & BD_LOAD);
		d->v[SIM_SRC_STORES] += !!(in->cls & BD_STORE);
	}
}

static void clear_filled(struct sim_delta *d)
{
	memset(&d->v[FILLED_FIRST], 0, FILLED_BYTES);
}

/*
 * A mispredict (struct pmu_pipeline): its cycles; in the first
 * wrong_path_cycles the wrong path issues a full width of uops that never
 * retire, the next recovery_cycles recover, and in those and the rest the
 * front end delivers nothing (empty issue slots, cycles without uops).
 */
void pmu_mispredict(const struct pmu_vcpu *pv, struct sim_delta *d)
{
	const struct pmu_pipeline *p = pv->pipe;
	unsigned idle = p->mispredict_cycles - p->wrong_path_cycles;

	d->v[SIM_SRC_BRANCH_MISSES]++;
	d->v[SIM_SRC_CYCLES] += p->mispredict_cycles;
	d->v[SIM_SRC_UOPS_ISSUED] += (uint64_t)p->issue_width * p->wrong_path_cycles;
	d->v[SIM_SRC_RECOVERY_CYCLES] += p->recovery_cycles;
	d->v[SIM_SRC_FE_BUBBLES] += (uint64_t)p->issue_width * (idle - p->recovery_cycles);
	d->v[SIM_SRC_STALLED_FRONTEND] += idle;
	if (pv->want_exec_block)   /* the wrong path executes nothing */
		d->v[SIM_SRC_EXEC_STALLS] += p->mispredict_cycles;
	/* INT_MISC.CLEAR_RESTEER_CYCLES: the cycles after the recovery, in
	 * which the front end fetches the right path again */
	if (pv->fe_on)
		d->v[SIM_SRC_CLEAR_RESTEER_CYCLES] += idle - p->recovery_cycles;
}

/* What resolve_prev() writes into the extra counts. */
static const unsigned resolved[] = {
	SIM_SRC_TAKEN_BRANCHES, SIM_SRC_COND_NOT_TAKEN, SIM_SRC_BRANCH_MISSES, SIM_SRC_CYCLES,
	SIM_SRC_UOPS_ISSUED, SIM_SRC_RECOVERY_CYCLES, SIM_SRC_FE_BUBBLES, SIM_SRC_STALLED_FRONTEND,
	SIM_SRC_STALLED_BACKEND,
};
/* and, while want_exec_block, a mispredict's execution stalls and a cut run's
 * released block-level execution totals (EXEC_BLOCK_SOURCES) */
#define NR_RESOLVED (sizeof(resolved) / sizeof(resolved[0]))

/* Block b's static counts, and the previous branch's resolution x, into d. */
static void add_block(struct pmu_vcpu *pv, const struct bdesc *b, const struct sim_delta *x,
		      struct sim_delta *d)
{
	d->v[SIM_SRC_INSTRUCTIONS] += b->t[BDT_INSNS];
	d->v[SIM_SRC_BRANCHES] += b->t[BDT_BRANCHES];
	d->v[SIM_SRC_COND_BRANCHES] += b->t[BDT_COND];
	d->v[SIM_SRC_TAKEN_BRANCHES] += b->t[BDT_UNCOND_TAKEN];
	d->v[SIM_SRC_CALLS] += b->t[BDT_CALLS];
	d->v[SIM_SRC_RETURNS] += b->t[BDT_RETS];
	d->v[SIM_SRC_LOADS] += b->t[BDT_LOADS];
	d->v[SIM_SRC_STORES] += b->t[BDT_STORES];
	d->v[SIM_SRC_CYCLES] += b->t[BDT_CYCLES];
	d->v[SIM_SRC_UOPS_RETIRED] += b->t[BDT_UOPS];
	d->v[SIM_SRC_UOPS_ISSUED] += b->t[BDT_UOPS];
	add_block_stalls(pv, b, d);
	for (unsigned i = 0; i < NR_RESOLVED; i++)
		d->v[resolved[i]] += x->v[resolved[i]];
	if (pv->fe_on)
		for (unsigned src = FE_FIRST; src <= FE_LAST; src++)
			d->v[src] += x->v[src];
	add_decoded(pv, b->t, d);
	for (unsigned k = 0; pv->want_exec_block && k < BD_NR_XBLOCK; k++)
		d->v[SIM_SRC_EXEC_STALLS + k] += x->v[SIM_SRC_EXEC_STALLS + k];
}

/*
 * The previous block ended in a branch: this block's address says where it
 * went. Taken conditional branches, mispredicts and their penalty cycles,
 * and the LBR entry are added to extra.
 */
static void resolve_prev(struct pmu_vcpu *pv, uint64_t addr, struct sim_delta *extra)
{
	const struct bdesc *p = pv->prev;
	uint8_t cls = p->last_cls;
	uint64_t from = p->addr + p->last_off, fall = p->addr + p->size;
	bool miss = false, taken;
	uint8_t type;

	if (cls & BD_COND) {
		taken = addr != fall;
		miss = pv->cg ? cg_cond_branch(pv->cg, from, taken) : bimodal_predict(pv, from, taken);
		extra->v[SIM_SRC_TAKEN_BRANCHES] += taken;
		extra->v[SIM_SRC_COND_NOT_TAKEN] += !taken;
		type = PERF_BR_COND;
	} else {
		taken = true;
		if (cls & BD_RET) {
			pv->ras_top = (pv->ras_top - 8) & (PMU_RAS_DEPTH * 8 - 1);
			/* cachegrind models no return prediction: never a miss */
			miss = !pv->cg && pv->ras[pv->ras_top / 8] != addr;
			type = PERF_BR_RET;
		} else if (cls & BD_INDIRECT) {
			miss = pv->cg ? cg_ind_branch(pv->cg, from, addr) : btb_predict(pv, from, addr);
			type = (cls & BD_CALL) ? PERF_BR_IND_CALL : PERF_BR_IND;
		} else {
			type = (cls & BD_CALL) ? PERF_BR_CALL : PERF_BR_UNCOND;
		}
		if (cls & BD_CALL) {
			pv->ras[pv->ras_top / 8] = fall;
			pv->ras_top = (pv->ras_top + 8) & (PMU_RAS_DEPTH * 8 - 1);
		}
	}
	if (miss)
		pmu_mispredict(pv, extra);
	/* BACLEARS: the decoders resteer to a direct branch's target */
	if (pv->fe_on && taken && !(cls & (BD_RET | BD_INDIRECT)))
		fe_model_taken(pv->fe, from, extra);
	if (taken && pv->want_lbr)
		lbr_record(pv, from, addr, miss, type);
}

/*
 * Batching: blocks add to pv->acc, which reaches the core only when it must
 * (the core cannot tell): before a block that would bring a sampling
 * counter to its overflow point or the clock to its next timer, and before
 * anything else looks at the core (syscalls, RDPMC, RDTSC, a yield). Every
 * counter and timer then sees exactly what per-block reports would give:
 * the report that reaches a limit is the same single block.
 */
static void flush(struct pmu_vcpu *pv)
{
	flush_counts(pv, true);
}

/* flush(), with the access log drained first only if drain_log: a report
 * that neither reads a memory source's count nor changes which events
 * count it may leave the log running, and the memory counts it has not
 * seen reach the same events at the next drain. */
static void flush_counts(struct pmu_vcpu *pv, bool drain_log)
{
	struct sim_delta *a = &pv->acc;

	if (pv->c->mem_log && drain_log)
		log_drain(pv);
	if (pv->jit && jit_count_sync(pv->jit, a)) {
		/* blocks that counted inline: reported where the guest is */
		pv->acc_dirty = true;
		pv->acc_ip = vcpu_pc(pv->c);
		/* new limits: the next block takes the slow path, which arms */
		jit_count_arm(pv->jit, 0, false, false, false);
	}
	if (pv->mem_dirty)
		mem_to_acc(pv);
	if (!pv->acc_dirty)
		return;
	pv->acc_dirty = false;
	pv->lim_valid = false;
	account(pv, a, pv->acc_ip);
	clear_filled(a);
}

/* The value a block (plus the previous branch's resolution) adds to src,
 * or ~0 for a source the batch cannot bound. */
static uint64_t block_value(const struct bdesc *b, const struct sim_delta *x, unsigned src)
{
	switch (src) {
	case SIM_SRC_INSTRUCTIONS: return b->t[BDT_INSNS];
	case SIM_SRC_BRANCHES: return b->t[BDT_BRANCHES];
	case SIM_SRC_COND_BRANCHES: return b->t[BDT_COND];
	case SIM_SRC_TAKEN_BRANCHES: return b->t[BDT_UNCOND_TAKEN] + x->v[src];
	case SIM_SRC_CALLS: return b->t[BDT_CALLS];
	case SIM_SRC_RETURNS: return b->t[BDT_RETS];
	case SIM_SRC_LOADS: return b->t[BDT_LOADS];
	case SIM_SRC_STORES: return b->t[BDT_STORES];
	case SIM_SRC_CYCLES: return b->t[BDT_CYCLES] + x->v[src];
	case SIM_SRC_UOPS_RETIRED: return b->t[BDT_UOPS];
	case SIM_SRC_UOPS_ISSUED: return b->t[BDT_UOPS] + x->v[src];
	case SIM_SRC_FE_BUBBLES: return (bd_cut(b) ? 0 : b->t[BDT_FE_BUBBLES]) + x->v[src];
	case SIM_SRC_STALLED_BACKEND: return (bd_cut(b) ? 0 : b->t[BDT_BE_STALL]) + x->v[src];
	case SIM_SRC_EXEC_STALLS: case SIM_SRC_EXEC_MEM_STALLS: case SIM_SRC_EXEC_MEM_CYCLES:
	case SIM_SRC_EXEC_CYCLES_EQ1: case SIM_SRC_EXEC_CYCLES_EQ2:
		return (bd_cut(b) ? 0 : b->t[SRC_BDT(src)]) + x->v[src];
	case SIM_SRC_BRANCH_MISSES: case SIM_SRC_RECOVERY_CYCLES: case SIM_SRC_STALLED_FRONTEND:
	case SIM_SRC_COND_NOT_TAKEN:
		return x->v[src];
	default:
		if (is_fe_source(src))
			return x->v[src];     /* the front end's, in x */
		return is_insn_decoded(src) ? b->t[SRC_BDT(src)] : 0;  /* 0: not fed here */
	}
}

/* What the accumulated blocks may reach before a report is due: each
 * user-mode sampling slot's overflow point, and the next timer in cycles.
 * Derived clocks (ref/bus cycles) are bounded through cycles, which they
 * never exceed. */
static void compute_limits(struct pmu_vcpu *pv)
{
	struct perf_overflow_point pts[PERF_CPU_MAX_SLOTS];
	unsigned nr = perf_cpu_overflow_points(pv->cpu, pts, PERF_CPU_MAX_SLOTS);
	uint64_t cycles = perf_cpu_cycles(pv->cpu), timer = perf_cpu_next_timer_cycles(pv->cpu);
	unsigned n = 0;

	pv->lim[n].src = SIM_SRC_CYCLES;
	pv->lim[n++].left = timer > cycles ? timer - cycles : 0;
	pv->no_batch = false;
	pv->want_lbr = false;
	pv->mem_sampling = false;
	for (unsigned s = 0; s < nr; s++) {
		const struct perf_overflow_point *sl = &pts[s];
		s64 left;

		if (sl->branch_stack)
			pv->want_lbr = true;

		if (!sl->sampling || !sl->user)
			continue;
		if (pmu_source_needs_mem(sl->source))
			pv->mem_sampling = true;
		left = sl->left;
		if (n == PMU_MAX_LIMITS) {
			pv->no_batch = true;
			break;
		}
		pv->lim[n].src = sl->source == SIM_SRC_REF_CYCLES || sl->source == SIM_SRC_BUS_CYCLES ?
				 SIM_SRC_CYCLES : sl->source;
		pv->lim[n++].left = left > 0 ? (u64)left : 0;
	}
	pv->nlim = n;
	pv->lim_valid = true;
}

/* The decode of a block: a direct-mapped front cache, then the table. */
static const struct bdesc *block_of(struct pmu_vcpu *pv, uint64_t addr, uint32_t size)
{
	const struct bdesc **slot = &pv->front[(addr ^ (addr >> 12)) & (PMU_FRONT_CACHE - 1)];
	const struct bdesc *b = *slot;

	if (b && b->addr == addr && b->size == size)
		return b;
	b = bd_get(pv->bc, addr, size);
	*slot = b;
	return b;
}

/* The decode of a translated block, cached in its slot while the decode
 * cache keeps its generation (pmu_code_changed() moves it on). */
static const struct bdesc *slot_block(struct pmu_vcpu *pv, const struct jit_slot *cs)
{
	struct jit_slot *s = (struct jit_slot *)cs;  /* the cache fields are ours */

	if (!s->decoded || s->decoded_gen != pv->decode_gen) {
		s->decoded = block_of(pv, s->pc, s->size);
		s->decoded_gen = pv->decode_gen;
	}
	return s->decoded;
}

static void on_decoded_block(struct pmu_vcpu *pv, uint64_t addr, const struct bdesc *b);

/* ---- exact stops (pmu_machine.h) ----------------------------------------- */

/*
 * An overflow at instruction k of block b whose report d needs the guest's
 * state after k (needs_guest_state): the report waits. In the middle of the
 * block, the engine stops before the block runs (a stop asked for in the
 * block hook leaves before the block's first instruction, as a kick does)
 * and vcpu_run() runs the block up to k (pmu_exact_prefix); at its last
 * instruction, the block runs and the state after it is that at the next
 * block, syscall or stop. The rest of the block after k is a block of its
 * own when the run resumes there, counted by its own hook as the rest of
 * b. begin: where the engine entered b (its start, or the start of a rest
 * of it).
 */
static void exact_defer(struct pmu_vcpu *pv, const struct bdesc *b, unsigned k,
			const struct sim_delta *d, uint64_t begin)
{
	struct pmu_exact *ex = &pv->ex;

	assert(k < b->n);
	/* one at a REP string instruction waits over its iterations, where
	 * another (cycles) can fall: the first is reported in this state */
	if (ex->state != PMU_EXACT_NONE)
		pmu_exact_done(pv);
	ex->ip = b->addr + b->ins[k].off;
	ex->d = *d;
	if (k + 1 < b->n) {
		ex->state = PMU_EXACT_PREFIX;
		ex->begin = begin;
		ex->until = b->addr + b->ins[k + 1].off;
		ex->blk = b;
		ex->rest = k + 1;
		uc_emu_stop(pv->c->uc);
	} else {
		ex->state = PMU_EXACT_NEXT;
		ex->rep = b->last_cls & BD_REP;
	}
}

void pmu_exact_block(struct pmu_vcpu *pv, uint64_t addr)
{
	if (pv->ex.state == PMU_EXACT_NEXT && pv->ex.rep && addr == pv->ex.ip)
		return;     /* QEMU runs each REP iteration as a block of its own */
	pmu_exact_done(pv);
}

bool pmu_exact_prefix(struct pmu_vcpu *pv, uint64_t *begin, uint64_t *until)
{
	if (pv->ex.state != PMU_EXACT_PREFIX)
		return false;
	*begin = pv->ex.begin;
	*until = pv->ex.until;
	return true;
}

/*
 * The overflow reported with the engine's state as that after its
 * instruction: the sample's registers, callchain and stack are read from
 * it (pmu_fill_sample), and an overflow signal is queued now, so the run
 * loop delivers it with that state (the PMI returning to user mode after
 * the instruction). The core charges the PMI's kernel work around the
 * overflow, as for every hardware overflow (perf_cpu_interrupt).
 */
void pmu_exact_done(struct pmu_vcpu *pv)
{
	struct pmu_exact *ex = &pv->ex;

	if (ex->state == PMU_EXACT_NONE)
		return;
	if (ex->state == PMU_EXACT_PREFIX) {
		/* the rest of the block is a new block: no branch to resolve;
		 * it counts as the rest of this one (on_decoded_block) */
		pv->prev = NULL;
		pv->cur = NULL;
		pv->rest_of = ex->blk;
		pv->rest_idx = ex->rest;
	}
	ex->state = PMU_EXACT_NONE;
	pmu_vcpu_acquire(pv);
	pv->lim_valid = false;
	account(pv, &ex->d, ex->ip);     /* with the PMI (perf_cpu_interrupt) */
	/* new limits: the next block arms inline counting again */
	if (pv->jit)
		jit_count_force_next(pv->jit);
}

/* Another thread waits for this CPU (the core lock, or a task that runs on
 * the same CPU): it gets it now. */
static void maybe_yield(struct pmu_vcpu *pv)
{
	if (!perf_cpu_should_yield(pv->cpu))
		return;
	flush(pv);
	perf_cpu_yield(pv->cpu);
	pv->lim_valid = false;
	pmu_vcpu_acquire(pv);
}

/*
 * One executed block: resolve the previous branch, then report this
 * block, split at every instruction where a sampling counter overflows.
 */
void pmu_on_block(struct pmu_vcpu *pv, uint64_t addr, uint32_t size)
{
	/* while this thread holds the lock no one else switches its CPU */
	if (!pv->locked)
		pmu_vcpu_acquire(pv);
	on_decoded_block(pv, addr, block_of(pv, addr, size));
}

/* The code of block b through the instruction side of the cache model (an
 * event counts a memory source, so every block comes here): its lines
 * through L1I, L2 and the LLC, its pages through the ITLB side, into the
 * fetch sources of the batch. Each execution of a block fetches its lines
 * once; a REP string instruction's further iterations fetch nothing. */
static void fetch_block(struct pmu_vcpu *pv, const struct bdesc *b)
{
	struct fetch_tally f = { 0 };

	cache_model_fetch_tally(pv->cm, b->addr, b->size, &f);
	mem_counts_fetch(&pv->mc, pv->c->model->caches, &f);
	pv->mem_dirty = true;
	pv->acc_dirty = true;
}

/*
 * A block that goes on with the straight run of the previous block p,
 * which QEMU cut at b's start without a control transfer (its limits on a
 * block's size or span, which depend on how many TCG ops the block has,
 * so on inline counting and the events open): b as scheduled in the
 * whole run from its start (bd_get_in_run), so that where QEMU cuts
 * changes no count; the run's held issue and stall counts give way to
 * the whole run's. Otherwise (a new run) they come with b, in x.
 */
static const struct bdesc *continue_run(struct pmu_vcpu *pv, const struct bdesc *p,
					const struct bdesc *b, struct sim_delta *x)
{
	uint64_t start;
	const struct bdesc *w;

	if (!p || !p->n || !bd_cut(p) || p->addr + p->size != b->addr)
		goto fresh;
	/* p goes on with a run itself: its decode says so, or inline (p is
	 * the slot's own decode) the run p's exit named (pmu_on_jit_block:
	 * p may have run inline as a continuation) */
	start = p->run_start;
	if (pv->run_end == b->addr && pv->run_start < start)
		start = pv->run_start;
	w = bd_get_in_run(pv->bc, start, b->addr, b->size);
	if (w) {
		pv->held_fe = pv->held_be = 0;
		memset(pv->held_x, 0, sizeof(pv->held_x));
		return w;
	}
fresh:
	release_held(pv, x);
	return b;
}

/*
 * Whether block b (after the batch pv->acc) reaches no limit but the
 * timer's (lim[0]), and the timers due are ticks alone
 * (perf_cpu_timers_tick_only): perf_event_task_tick() reads no counting
 * event's count and moves no event, so the access log runs on through it
 * (flush_counts). A rotation, a clock event's sample (it may read its
 * group's counts) or an overflow drains the log first.
 */
static bool only_tick_reached(struct pmu_vcpu *pv, const struct bdesc *b, const struct sim_delta *xp)
{
	if (pv->no_batch || !perf_cpu_timers_tick_only(pv->cpu))
		return false;
	assert(pv->nlim > 0 && pv->lim[0].src == SIM_SRC_CYCLES);
	for (unsigned i = 1; i < pv->nlim; i++)
		if (pv->acc.v[pv->lim[i].src] + block_value(b, xp, pv->lim[i].src) >= pv->lim[i].left)
			return false;
	return true;
}

/* pmu_on_block() of the decode b of the block at addr (NULL: undecodable),
 * with the CPU's lock held. */
static void on_decoded_block(struct pmu_vcpu *pv, uint64_t addr, const struct bdesc *b)
{
	struct sim_delta *dp = &pv->d, *xp = &pv->extra;
	const struct bdesc *p;
	unsigned from = 0, k;
	bool rep_cont = false, rest = false, keep_log;
	uint64_t entered = addr;

	if (!(++pv->blocks & 63))
		maybe_yield(pv);
	p = pv->prev;
	if (pv->cg)
		cg_machine_block(pv, b);
	if (pv->rest_of) {
		/* the rest of a block after an exact prefix run: its
		 * instructions as they were scheduled in the whole block, so
		 * that the split changes no count (cycles, uops, stalls) */
		const struct bdesc *w = pv->rest_of;

		pv->rest_of = NULL;
		if (b && w->addr + w->ins[pv->rest_idx].off == addr &&
		    w->addr + w->size == b->addr + b->size) {
			b = w;
			pv->skip_addr = w->addr;
			pv->skip_n = pv->rest_idx;
			addr = w->addr;
			rest = true;      /* its lines were fetched at its start */
		}
	}
	if (!b || !b->n)
		return;
	for (unsigned i = 0; i < NR_RESOLVED; i++)
		xp->v[resolved[i]] = 0;
	if (pv->fe_on)
		for (unsigned src = FE_FIRST; src <= FE_LAST; src++)
			xp->v[src] = 0;
	for (unsigned k = 0; pv->want_exec_block && k < BD_NR_XBLOCK; k++)
		xp->v[SIM_SRC_EXEC_STALLS + k] = 0;
	if (p && p->n) {
		/* QEMU runs each iteration of a REP string instruction as a block
		 * that starts at the instruction again: only the first retires it */
		if ((p->last_cls & BD_REP) && p->addr + p->last_off == addr)
			rep_cont = true;
		else if (p->last_cls & BD_BRANCH)
			resolve_prev(pv, addr, xp);
	}
	if (pv->fe_on && rep_cont)
		fe_model_rep(pv->fe, BD_CYC_REP * pv->pipe->issue_width, xp);
	else if (pv->fe_on && !rest)
		fe_model_block(pv->fe, b, pv->decode_gen, xp);   /* the block's own instructions */
	if (!rest && !rep_cont)
		b = continue_run(pv, p, b, xp);
	if (bd_cut(b)) {
		pv->run_start = b->run_start;
		pv->run_end = b->addr + b->size;
	} else {
		pv->run_end = 0;
	}
	pv->prev = b;
	pv->cur = b;
	if (pv->cm && pv->c->mem_on && !pv->c->mem_log && !pv->cg && !rep_cont && !rest)
		fetch_block(pv, b);
	if (pv->skip_addr == addr) {   /* resumed after RDPMC mid-block */
		from = pv->skip_n < b->n ? pv->skip_n : b->n;
		pv->skip_addr = 0;
	}
	if (!rep_cont && !from) {
		struct sim_delta *a = &pv->acc;
		bool fits = true;

		if (!pv->lim_valid)
			compute_limits(pv);
		for (unsigned i = 0; i < pv->nlim && fits; i++)
			fits = a->v[pv->lim[i].src] + block_value(b, xp, pv->lim[i].src) < pv->lim[i].left;
		if (fits && !pv->no_batch) {
			/* the common case: the whole block into the batch */
			add_block(pv, b, xp, a);
			pv->acc_ip = addr + b->last_off;
			pv->acc_dirty = true;
			return;
		}
	}
	/* a block that reaches a tick alone leaves the access log running */
	keep_log = pv->c->mem_log && !rep_cont && !from && only_tick_reached(pv, b, xp);
	flush_counts(pv, !keep_log);
	pv->lim_valid = false;
	if (!rep_cont && !from && !perf_cpu_samples_user(pv->cpu)) {
		/* the whole block at once from its totals */
		clear_filled(dp);
		add_block(pv, b, xp, dp);
		account(pv, dp, addr + b->ins[b->n - 1].off);
		return;
	}
	for (;;) {
		bool exact;

		k = first_crossing(pv, b, from, xp, rep_cont, &exact);
		memcpy(&dp->v[FILLED_FIRST], &xp->v[FILLED_FIRST], FILLED_BYTES);
		clear_filled(xp);
		if (k >= b->n) {
			sum_range(pv, b, from, b->n, rep_cont, dp);
			if (granular_exact(pv, dp))
				exact_defer(pv, b, b->n - 1, dp, entered);
			else
				account(pv, dp, addr + b->ins[b->n ? b->n - 1 : 0].off);
			return;
		}
		/* counts up to and including instruction k: its overflow */
		sum_range(pv, b, from, k + 1, rep_cont, dp);
		if (exact) {
			exact_defer(pv, b, k, dp, entered);
			return;
		}
		account(pv, dp, addr + b->ins[k].off);
		from = k + 1;
		if (from >= b->n)
			return;
	}
}

/* ---- inline counting's slow path ------------------------------------------- */

/*
 * At a block start (block_start) or after a report: inline counting is on
 * while no LBR or memory event needs every block, and every scheduled
 * source is counted inline. The head is the cycles that may run inline:
 * the least, over the limits (the next timer, each user-mode sampling
 * slot's overflow point), of what is left (pmu_on_block's fits test:
 * acc + block < left). A limit on another source than cycles bounds
 * through cycles, which every inline source never exceeds (each counted
 * instruction, branch, load, store or mispredict costs at least a cycle):
 * the slow path comes at or before the block that crosses, finds where
 * (first_crossing), or arms again with what is left. Those sources grow
 * by at most issue_width a cycle (a block's cycles are at least its uops
 * over the issue width, an instruction at least a uop), so their head is
 * what is left over the width. A block's exit adds its branch's
 * resolution after the test (a mispredict's cycles, a miss, a taken
 * branch), which pmu_on_block counts with the next block's first
 * instruction: the head leaves room for one (mispredict_cycles, or 1), so
 * that the inline counts never reach a limit and the slow path of the
 * next block finds the same crossing instruction as pmu_on_block; with
 * less room than that, inline counting is off (the block's exit too). At
 * most a slice (jit_count_arm).
 */
/* The pipeline model's sources, which inline counting does not count:
 * while one is scheduled, every block takes the slow path. */
#define PIPELINE_SOURCES \
	(SIM_SRC_BIT(SIM_SRC_UOPS_ISSUED) | SIM_SRC_BIT(SIM_SRC_UOPS_RETIRED) | \
	 SIM_SRC_BIT(SIM_SRC_FE_BUBBLES) | SIM_SRC_BIT(SIM_SRC_RECOVERY_CYCLES) | \
	 SIM_SRC_BIT(SIM_SRC_COND_NOT_TAKEN) | SIM_SRC_BIT(SIM_SRC_STALLED_FRONTEND) | \
	 SIM_SRC_BIT(SIM_SRC_STALLED_BACKEND))

static void jit_rearm(struct pmu_vcpu *pv, bool block_start)
{
	struct perf_cpu *cpu = pv->cpu;
	sim_src_mask need = 0;
	uint64_t head = INT32_MAX;
	bool on, cycles_only = true;

	if (!pv->lim_valid)
		compute_limits(pv);
	need = perf_cpu_active_sources(cpu);
	on = pv->locked && !pv->no_batch && !pv->want_lbr && !pv->fe_on &&
	     (!pv->c->mem_on || pv->c->mem_log) &&
	     !(need & (PIPELINE_SOURCES | DECODED_SOURCES)) && jit_count_covers(pv->jit, need);
	if (pv->c->mem_log)     /* the access log must not fill up */
		head = JIT_LOG_HEAD;
	for (unsigned i = 0; i < pv->nlim && on; i++) {
		uint64_t acc = pv->acc.v[pv->lim[i].src], left = pv->lim[i].left;

		bool cycles = pv->lim[i].src == SIM_SRC_CYCLES;
		uint64_t exit = cycles ? pv->pipe->mispredict_cycles : 1;

		/* no room for the exit: it resolves in C, with the next block */
		on = left > acc + exit &&
		     (cycles || jit_count_covers(pv->jit, SIM_SRC_BIT(pv->lim[i].src)));
		left = on ? (left - acc - 1 - exit) / (cycles ? 1 : pv->pipe->issue_width) : 0;
		head = left < head ? left : head;
		cycles_only &= cycles;
	}
	jit_count_arm(pv->jit, on ? (int64_t)head : 0, on, block_start, cycles_only);
}

void pmu_on_jit_fetch(struct pmu_vcpu *pv, struct jit_slot *s)
{
	if (s->cold_head && jit_count_cold_head(pv->jit, s)) {
		pmu_on_jit_block(pv, s);
		if (jit_count_aborting(pv->jit))
			return;      /* it leaves before it runs: no start */
	}
	if (!jit_count_cold_fetch(pv->jit, s))
		return;
	vcpu_retranslate(pv->c, s->pc);
	/* a block that jumps to itself keeps its chained jump to its old
	 * translation (QEMU 5's do_tb_phys_invalidate takes the block's own
	 * jumps off their targets' lists before it resets the jumps into
	 * it): the next block start leaves through the slow path */
	pv->leave_chain = true;
	jit_count_force_next(pv->jit);
}

void pmu_on_jit_block(struct pmu_vcpu *pv, const struct jit_slot *s)
{
	bool was_on;
	const struct jit_slot *p;

	if (jit_count_check_pending(pv->jit, s))
		return;
	p = jit_count_enter(pv->jit, s, &was_on);
	if (jit_count_sampled(pv->jit, s))
		vcpu_retranslate(pv->c, s->pc);

	if (!pv->locked)
		pmu_vcpu_acquire(pv);
	if (pv->c->mem_log)       /* what ran inline, in order, before this block */
		log_advance(pv);
	/* the batch: what ran inline since the last report, up to here */
	if (jit_count_sync(pv->jit, &pv->acc)) {
		pv->acc_dirty = true;
		pv->acc_ip = s->pc;
	}
	/* an overflow at the previous block's last instruction: reported in
	 * the state before this block */
	if (pv->ex.state)
		pmu_exact_block(pv, s->pc);
	if (atomic_load(&pv->c->kick)) {
		/* a kick (a signal, perhaps that overflow's) or a stop deferred
		 * to this block start: the block runs when the run resumes, as
		 * at the kick test in hook_block */
		uc_emu_stop(pv->c->uc);
		jit_count_abort_block(pv->jit, p);
		return;
	}
	if (pv->leave_chain) {
		/* as a kick, but the run goes on: the block leaves before it
		 * runs and starts again from a lookup, in the translation
		 * made since */
		pv->leave_chain = false;
		jit_count_abort_block(pv->jit, p);
		return;
	}
	if (was_on) {
		/* the previous block left with the inline tables on: its
		 * branch is resolved unless it left it to this block, and a
		 * straight run it cut is the one its exit names (it may have
		 * run inline as a continuation) */
		pv->prev = p ? slot_block(pv, p) : NULL;
		if (p) {
			pv->run_start = jit_count_run_of(pv->jit, p);
			pv->run_end = p->pc + p->size;
		}
		maybe_yield(pv);
	}
	on_decoded_block(pv, s->pc, slot_block(pv, s));
	/* the run that goes on at this block's end, and the block as a
	 * continuation for its slot to count inline next time */
	jit_count_ran(pv->jit, (struct jit_slot *)s,
		      pv->run_end == s->pc + s->size ? pv->run_start : 0, pv->cur);
	if (pv->ex.state == PMU_EXACT_PREFIX)
		/* exact_defer stopped the engine: the block runs up to the
		 * overflow in run_exact_prefix() instead */
		jit_count_abort_block(pv->jit, NULL);
	else if (pv->ex.state == PMU_EXACT_NEXT)
		/* reported at the next block start, which must come here */
		jit_count_force_next(pv->jit);
	jit_rearm(pv, true);
}

/* ---- data accesses -------------------------------------------------------- */

/*
 * One guest data access, in program order, while the memory hook is on
 * (some event counts a memory source). The cache model says which level
 * served it; its outcome goes into the batch like a block's counts:
 *  - per line: L1D.REPLACEMENT (lines filled into L1D), L2 requests and
 *    misses, LLC references and misses (LONGEST_LAT_CACHE: lines that
 *    missed L2, loads and stores alike);
 *  - per access: loads and stores seen, MEM_LOAD_RETIRED.* by the level
 *    that served the load, RFOs that reached the LLC or memory.
 * A sampling counter of one of these sources that reaches its overflow
 * point here overflows at this access: the batch is reported with the
 * accessing instruction as IP and the access kept for the sample (ADDR,
 * WEIGHT, DATA_SRC), as a PEBS record describes the access that
 * overflowed. The cache outcome costs no cycles: `cycles` stays the same
 * whichever events are open (docs/machine-counting.md).
 */
_Static_assert(CACHE_NR_LEVELS == 4 && CACHE_MEM == 3, "pmu_vcpu.mem_n/mem_miss sizes");

/* The cycles a request spends past the LLC: the memory's load-to-use
 * latency less the LLC's. */
static uint64_t mem_request_cycles(const struct pmu_vcpu *pv)
{
	const struct pmu_cache_geometry *g = pv->c->model ? pv->c->model->caches : NULL;

	return g && g->mem_latency > g->llc.latency ? g->mem_latency - g->llc.latency : 0;
}

/* The value of memory source src in the access counts not yet in acc. */
static uint64_t mem_value(const struct pmu_vcpu *pv, unsigned src)
{
	const uint64_t *ld = pv->mc.mem_n[0], *st = pv->mc.mem_n[1];

	switch (src) {
	case SIM_SRC_L1D_ACCESS:
		return ld[0] + ld[1] + ld[2] + ld[3] + st[0] + st[1] + st[2] + st[3];
	case SIM_SRC_L1D_MISS: case SIM_SRC_L2_ACCESS: return pv->mc.mem_miss[CACHE_L1];
	case SIM_SRC_L2_MISS: case SIM_SRC_LLC_ACCESS: return pv->mc.mem_miss[CACHE_L2];
	case SIM_SRC_LLC_MISS: return pv->mc.mem_miss[CACHE_L3];
	case SIM_SRC_MEM_STORES: return st[0] + st[1] + st[2] + st[3];
	case SIM_SRC_STORE_L2_MISS: return st[CACHE_L3] + st[CACHE_MEM];
	case SIM_SRC_STORE_L3_MISS: return st[CACHE_MEM];
	case SIM_SRC_MEM_LOADS: return ld[0] + ld[1] + ld[2] + ld[3];
	case SIM_SRC_LOAD_L1_HIT: return ld[CACHE_L1];
	case SIM_SRC_LOAD_L1_MISS: return ld[CACHE_L2] + ld[CACHE_L3] + ld[CACHE_MEM];
	case SIM_SRC_LOAD_L2_HIT: return ld[CACHE_L2];
	case SIM_SRC_LOAD_L2_MISS: return ld[CACHE_L3] + ld[CACHE_MEM];
	case SIM_SRC_LOAD_L3_HIT: return ld[CACHE_L3];
	case SIM_SRC_LOAD_L3_MISS: return ld[CACHE_MEM];
	case SIM_SRC_L1I_ACCESS: return pv->mc.fetch_n[0];
	case SIM_SRC_L1I_MISS: return pv->mc.fetch_n[1];
	case SIM_SRC_ICACHE_DATA_STALL: return pv->mc.fetch_n[2];
	case SIM_SRC_ICACHE_TAG_STALL: {
		/* ICACHE_64B.IFTAG_STALL: code pages the STLB serves, and walks */
		const struct pmu_model *m = pv->c->model;
		const uint64_t *t = pv->mc.tlb_n[0];

		return m && m->caches && m->frontend ?
		       (t[1] - t[2]) * m->frontend->stlb_hit_cycles + t[2] * m->caches->walk_cycles : 0;
	}
	case SIM_SRC_ITLB_ACCESS: case SIM_SRC_DTLB_ACCESS:
		return pv->mc.tlb_n[src == SIM_SRC_DTLB_ACCESS][0];
	case SIM_SRC_ITLB_L1_MISS: case SIM_SRC_DTLB_L1_MISS:
		return pv->mc.tlb_n[src == SIM_SRC_DTLB_L1_MISS][1];
	case SIM_SRC_ITLB_L2_HIT: case SIM_SRC_DTLB_L2_HIT: {
		const uint64_t *t = pv->mc.tlb_n[src == SIM_SRC_DTLB_L2_HIT];

		return t[1] - t[2];
	}
	case SIM_SRC_ITLB_MISS: case SIM_SRC_DTLB_MISS:
		return pv->mc.tlb_n[src == SIM_SRC_DTLB_MISS][2];
	case SIM_SRC_ITLB_WALK_CYCLES: case SIM_SRC_DTLB_WALK_CYCLES:
		return pv->c->model && pv->c->model->caches ?
		       pv->mc.tlb_n[src == SIM_SRC_DTLB_WALK_CYCLES][2] * pv->c->model->caches->walk_cycles : 0;
	/* the uncore arb box's tracker: each request the LLC sends to
	 * memory holds an entry from the miss to the fill, the memory
	 * latency less the LLC's own (docs/models.md) */
	case SIM_SRC_MEM_REQ_OCCUPANCY:
		return pv->mc.mem_miss[CACHE_L3] * mem_request_cycles(pv);
	case SIM_SRC_MEM_READ_OCCUPANCY:
		return ld[CACHE_MEM] * mem_request_cycles(pv);
	case SIM_SRC_L1D_PENDING: case SIM_SRC_OFFCORE_RD_PENDING:
	case SIM_SRC_OFFCORE_RFO_PENDING: {
		const struct pmu_cache_geometry *g = pv->c->model ? pv->c->model->caches : NULL;
		const uint64_t *a = src == SIM_SRC_OFFCORE_RFO_PENDING ? st : ld;

		if (!g)
			return 0;
		return (src == SIM_SRC_L1D_PENDING ? a[CACHE_L2] * g->l2.latency : 0) +
		       a[CACHE_L3] * g->llc.latency + a[CACHE_MEM] * g->mem_latency;
	}
	case SIM_SRC_STORE_L1_MISS: return st[CACHE_L2] + st[CACHE_L3] + st[CACHE_MEM];
	case SIM_SRC_STORE_L2_HIT: return st[CACHE_L2];
	default: return 0;
	}
}

/* Moves the access counts into the batch's memory sources. */
static void mem_to_acc(struct pmu_vcpu *pv)
{
	for (unsigned src = FILLED_FIRST; src <= SIM_SRC_HW_LAST; src++)
		if (pmu_source_needs_mem(src))
			pv->acc.v[src] += mem_value(pv, src);
	memset(&pv->mc, 0, sizeof(pv->mc));
	pv->mem_dirty = false;
}

/*
 * One guest data access, in program order, while the memory hook is on
 * (some event counts a memory source). The cache model says which level
 * served it; the access is counted by its kind and that level, and the
 * lines that missed each level, which reach the memory sources of the
 * batch at its flush (mem_value):
 *  - per line: L1D.REPLACEMENT (lines filled into L1D), L2 requests and
 *    misses, LLC references and misses (LONGEST_LAT_CACHE: lines that
 *    missed L2, loads and stores alike);
 *  - per access: loads and stores seen, MEM_LOAD_RETIRED.* by the level
 *    that served the load, RFOs that reached the LLC or memory.
 * A sampling counter of one of these sources that reaches its overflow
 * point here overflows at this access: the batch is reported with the
 * accessing instruction as IP and the access kept for the sample (ADDR,
 * WEIGHT, DATA_SRC), as a PEBS record describes the access that
 * overflowed. The cache outcome costs no cycles: `cycles` stays the same
 * whichever events are open (docs/machine-counting.md).
 */
/* One access through the cache model (or cachegrind's), into the counts
 * not yet in acc; its outcome in *o. */
static void mem_count(struct pmu_vcpu *pv, bool write, uint64_t addr, unsigned size,
		      struct cache_outcome *o)
{
	if (pv->cg)
		cg_machine_data(pv, write, addr, size, o);
	else
		cache_model_access(pv->cm, addr, size, o);
	pv->mc.mem_n[write][o->level]++;
	pv->mc.tlb_n[1][0]++;
	pv->mc.tlb_n[1][1] += o->tlb_miss;
	pv->mc.tlb_n[1][2] += o->tlb_walk;
	pv->mc.mem_miss[CACHE_L1] += o->miss[CACHE_L1];
	pv->mc.mem_miss[CACHE_L2] += o->miss[CACHE_L2];
	pv->mc.mem_miss[CACHE_L3] += o->miss[CACHE_L3];
	pv->mem_dirty = true;
	pv->acc_dirty = true;
}

/* The block starts counted inline since the last take (their lines and
 * pages the most recent of their sets in the shadows, jit_count.h). */
static void take_inline_fetches(struct pmu_vcpu *pv)
{
	uint64_t lines, pages;

	jit_count_fetch_take(pv->jit, &lines, &pages);
	pv->mc.fetch_n[0] += lines;
	pv->mc.tlb_n[0][0] += pages;
}

/* The idle replayer's counts into the batch's; after a replay of block
 * starts the shadows take the model's most recent tags (everything taken
 * is replayed, so the model is as the shadows predict, and it also knows
 * the sets whose shadows were forgotten). */
static void log_collect(struct pmu_vcpu *pv)
{
	struct mem_counts n = { 0 };

	if (access_replay_collect(pv->replay, &n))
		jit_count_fetch_sync(pv->jit, pv->cm);
	for (unsigned l = 0; l < CACHE_NR_LEVELS; l++) {
		pv->c->mem_reads += n.mem_n[0][l];
		pv->c->mem_writes += n.mem_n[1][l];
	}
	mem_counts_add(&pv->mc, &n);
	pv->mem_dirty = pv->acc_dirty = true;
}

/* Below this many records a hand-over to the replay thread costs more
 * than it saves: they wait for the next slow path. */
#define LOG_GIVE_MIN ((size_t)1 << 14)
/* A half that reports (log_drain) have taken this far goes back to its
 * start when the thread is idle, so that the log stays in the pages it
 * has (each new one is a page the kernel must zero). */
#define LOG_REWIND ((size_t)1 << 17)

/*
 * At a slow path, while logging: the records since the last take go to
 * the replay thread when it is idle and they are enough (LOG_GIVE_MIN),
 * and the log goes on in its other half; a busy thread is waited for only
 * when the log's half is full (JIT_LOG_KEEP). Without a thread they are
 * replayed here. Only
 * counting events count memory sources while logging (hooks_decide), so
 * no overflow falls between two records, and the counts need to be exact
 * only when the batch is reported (log_drain).
 */
static void log_advance(struct pmu_vcpu *pv)
{
	size_t fill = jit_count_log_fill(pv->jit), used = jit_count_log_used(pv->jit);
	struct log_span t;

	take_inline_fetches(pv);
	if (!pv->replay || (fill < LOG_GIVE_MIN && used < LOG_REWIND))
		return;
	if (access_replay_busy(pv->replay)) {
		if (used < JIT_LOG_KEEP)
			return;
		access_replay_wait(pv->replay);
	}
	t = jit_count_log_take(pv->jit, true);
	if (t.begin != t.end && !access_replay_give(pv->replay, t.begin, t.end)) {
		access_replay_now(pv->replay, t.begin, t.end);
		log_collect(pv);
	}
}

/* Before a report: every record so far replayed (the thread's batch, then
 * the rest here) and counted into the batch. A report may come in the
 * middle of a block (a page fault): the log goes on in the same half. */
static void log_drain(struct pmu_vcpu *pv)
{
	/* one block, not an early return: GCC 12 at -O3 inlines the return's
	 * test alone and then warns of a dangling pointer to t */
	if (pv->replay && pv->jit) {
		struct log_span t;

		access_replay_wait(pv->replay);
		t = jit_count_log_take(pv->jit, false);
		if (t.end)
			access_replay_now(pv->replay, t.begin, t.end);
		log_collect(pv);
		take_inline_fetches(pv);
	}
}

void pmu_on_mem(struct pmu_vcpu *pv, bool write, uint64_t addr, unsigned size)
{
	struct cache_outcome o;
	uint64_t rip = 0;
	bool over = false;

	if ((!pv->cm && !pv->cg) || !size)
		return;
	if (!pv->locked)
		pmu_vcpu_acquire(pv);
	mem_count(pv, write, addr, size, &o);
	if (!pv->lim_valid)
		compute_limits(pv);
	if (!pv->mem_sampling)
		return;
	for (unsigned i = 0; i < pv->nlim && !over; i++)
		over = pmu_source_needs_mem(pv->lim[i].src) &&
		       pv->acc.v[pv->lim[i].src] + mem_value(pv, pv->lim[i].src) >= pv->lim[i].left;
	if (!over)
		return;
	rip = vcpu_pc(pv->c);
	pv->ma = (struct pmu_mem_access){ .valid = true, .write = write, .level = (uint8_t)o.level,
					  .latency = o.latency, .addr = addr,
					  .stlb_miss = o.tlb_walk > 0 };
	pv->acc_ip = rip;
	flush(pv);
	pv->ma.valid = false;
}

/* ---- breakpoints ---------------------------------------------------------- */

/*
 * A debug register hit (perf_bp_event from hw_breakpoint_handler): one
 * count of each matching register's source, after what ran before. An X
 * breakpoint is a fault, reported at its instruction with the state
 * before it; a data breakpoint is a trap, reported with the next
 * instruction as IP (the registers are those before the access). One
 * instruction that reads and then writes the watched bytes raises one
 * trap.
 */
/* The hits of the registers in hit, reported at ip after what ran. */
static void report_bp_hits(struct pmu_vcpu *pv, unsigned hit, uint64_t ip)
{
	struct sim_delta d;

	memset(&d, 0, sizeof(d));
	for (unsigned i = 0; i < PERF_HBP_NUM; i++)
		d.v[SIM_SRC_BP0 + i] = hit >> i & 1;
	flush(pv);
	pv->lim_valid = false;
	account(pv, &d, ip);
}

/* The run ends before the instruction at addr, in the middle of the
 * block (vcpu.c): the rest of the block from addr runs as a new block,
 * whose first instructions were reported already (as after RDPMC). */
static void bp_stop_before(struct pmu_vcpu *pv, uint64_t addr)
{
	unsigned idx;

	for (idx = 0; pv->cur && idx < pv->cur->n && pv->cur->addr + pv->cur->ins[idx].off != addr;
	     idx++)
		;
	if (pv->cur && idx < pv->cur->n) {
		pv->skip_addr = addr;
		pv->skip_n = pv->cur->n - idx;
	}
	pv->prev = NULL;
	if (pv->jit)
		jit_count_force_next(pv->jit);
}

bool pmu_on_breakpoint(struct pmu_vcpu *pv, bool exec, bool write, uint64_t addr,
		       unsigned size)
{
	struct perf_breakpoint regs[PERF_HBP_NUM];
	unsigned mask, hit = 0, len = 0;
	bool needs_state = false;
	uint64_t rip;

	for (unsigned i = 0; exec && i < PERF_HBP_NUM; i++)
		if (pv->bp_rf[i] == addr) {
			/* resumed at the instruction whose fault was reported:
			 * the kernel returns there with EFLAGS.RF
			 * (hw_breakpoint_handler), which lets it run once */
			pv->bp_rf[i] = 0;
			return false;
		}
	if (!pv->locked)
		pmu_vcpu_acquire(pv);
	mask = perf_cpu_breakpoints(pv->cpu, regs);
	for (unsigned i = 0; i < PERF_HBP_NUM; i++) {
		const struct perf_breakpoint *b = &regs[i];

		if (!(mask >> i & 1))
			continue;
		if (exec ? b->type == HW_BREAKPOINT_X && b->addr == addr
			 : (b->type & (write ? HW_BREAKPOINT_W : HW_BREAKPOINT_R)) &&
			   addr < b->addr + b->len && b->addr < addr + size)
			hit |= 1u << i;
	}
	for (unsigned i = 0; i < PERF_HBP_NUM; i++)
		needs_state |= (hit >> i & 1) && regs[i].needs_state;
	rip = exec ? addr : vcpu_pc(pv->c);
	if (!exec && write && rip == pv->bp_read_rip)
		hit &= ~pv->bp_read_mask;       /* the write of a read-modify-write */
	pv->bp_read_rip = !exec && !write && hit ? rip : 0;
	pv->bp_read_mask = !exec && !write ? hit : 0;
	if (!hit)
		return false;
	if (exec) {
		report_bp_hits(pv, hit, addr);
		if (needs_state) {      /* a fault: the state before addr */
			bp_stop_before(pv, addr);
			memmove(&pv->bp_rf[1], &pv->bp_rf[0], sizeof(pv->bp_rf) - sizeof(pv->bp_rf[0]));
			pv->bp_rf[0] = addr;
		}
		return needs_state;
	}
	if (needs_state) {      /* the step hook reports it after the instruction */
		pv->bp_trap_mask |= hit;
		return false;
	}
	(void)bd_class_at(pv->bc, rip, &len);
	report_bp_hits(pv, hit, rip + len);
	return false;
}

bool pmu_on_breakpoint_step(struct pmu_vcpu *pv, uint64_t addr)
{
	unsigned hit = pv->bp_trap_mask;

	if (!hit)
		return false;
	pv->bp_trap_mask = 0;
	if (!pv->locked)
		pmu_vcpu_acquire(pv);
	report_bp_hits(pv, hit, addr);
	bp_stop_before(pv, addr);       /* a trap: the state after the access */
	return true;
}

/* ---- syscalls, clock, code changes -------------------------------------- */

/* One kernel path of the cost table (docs/machine-counting.md). */
/* far: the far branches it retires (BR_INST_RETIRED.FAR_BRANCH): the
 * return to user mode (SYSRET, IRET) of an exit path */
struct kernel_path { unsigned insns, branches, calls, rets, far; };

static const struct kernel_path syscall_entry = {
	PMU_SYSCALL_ENTRY_INSNS, PMU_SYSCALL_ENTRY_BRANCHES,
	PMU_SYSCALL_ENTRY_INSNS / 12, PMU_SYSCALL_ENTRY_INSNS / 12, 0 };
static const struct kernel_path syscall_exit = {
	PMU_SYSCALL_EXIT_INSNS, PMU_SYSCALL_EXIT_BRANCHES,
	PMU_SYSCALL_EXIT_INSNS / 12, PMU_SYSCALL_EXIT_INSNS / 12, 1 };
static const struct kernel_path pmi_entry = {
	PMU_PMI_ENTRY_INSNS, PMU_PMI_ENTRY_BRANCHES, PMU_PMI_ENTRY_CALLS, PMU_PMI_ENTRY_RETS, 0 };
static const struct kernel_path pmi_exit = {
	PMU_PMI_EXIT_INSNS, PMU_PMI_EXIT_BRANCHES, PMU_PMI_EXIT_CALLS, PMU_PMI_EXIT_RETS, 1 };

/*
 * The delta of kernel path k (at SIM_MODE_KERNEL): its instructions,
 * branches, calls and returns; the other branches are conditional and
 * half of them taken (calls and returns are taken); loads 30% and stores
 * 15% of the instructions; CPI 1.5; one uop an instruction, no mispredict,
 * the cycles after the uops' issue stalled in the back end.
 */
static void kernel_delta(struct pmu_vcpu *pv, const struct kernel_path *k, struct sim_delta *d)
{
	assert(k->branches >= k->calls + k->rets);
	memset(d, 0, sizeof(*d));
	d->v[SIM_SRC_INSTRUCTIONS] = k->insns;
	d->v[SIM_SRC_BRANCHES] = k->branches;
	d->v[SIM_SRC_CALLS] = k->calls;
	d->v[SIM_SRC_RETURNS] = k->rets;
	d->v[SIM_SRC_FAR_BRANCHES] = k->far;
	d->v[SIM_SRC_COND_BRANCHES] = k->branches - k->calls - k->rets;
	d->v[SIM_SRC_TAKEN_BRANCHES] = k->calls + k->rets + d->v[SIM_SRC_COND_BRANCHES] / 2;
	d->v[SIM_SRC_LOADS] = k->insns * 3 / 10;
	d->v[SIM_SRC_STORES] = k->insns * 15 / 100;
	d->v[SIM_SRC_CYCLES] = (uint64_t)k->insns * PMU_SYSCALL_CPI_MILLI / 1000;
	d->v[SIM_SRC_UOPS_ISSUED] = d->v[SIM_SRC_UOPS_RETIRED] = k->insns;
	d->v[SIM_SRC_STALLED_BACKEND] = d->v[SIM_SRC_CYCLES] -
		(k->insns + pv->pipe->issue_width - 1) / pv->pipe->issue_width;
	derived_clocks(pv, d);
}

/* Reports the modelled work of kernel path k; an overflow there samples
 * the kernel IP. */
static void kernel_work(struct pmu_vcpu *pv, const struct kernel_path *k)
{
	struct sim_delta d;

	kernel_delta(pv, k, &d);
	pv->sample_ip = 0;
	perf_cpu_account(pv->cpu, SIM_MODE_KERNEL, &d);
}

/*
 * The cost of one part of the counter interrupt (perf_cpu_interrupt in
 * the core): the NMI entry up to __intel_pmu_disable_all and the exit from
 * __intel_pmu_enable_all are counted; the masked body between only takes
 * its cycles. The sample keeps the interrupted IP.
 */
void pmu_pmi_cost(struct pmu_vcpu *pv, enum perf_pmi_part part, struct sim_delta *d)
{
	switch (part) {
	case PERF_PMI_ENTRY:
		kernel_delta(pv, &pmi_entry, d);
		break;
	case PERF_PMI_EXIT:
		kernel_delta(pv, &pmi_exit, d);
		break;
	default:
		memset(d, 0, sizeof(*d));
		d->v[SIM_SRC_CYCLES] = (uint64_t)PMU_PMI_MASKED_INSNS * PMU_SYSCALL_CPI_MILLI / 1000;
		break;
	}
}

/*
 * Syscalls that put the task to sleep: the task leaves its CPU (a voluntary
 * context switch: context-switches counts, SWITCH records, its events
 * stop) and comes back when the syscall returns. A documented, deterministic
 * rule instead of the host's actual sleeping: sleeps, waits, pause,
 * sigsuspend, sched_yield, FUTEX_WAIT(_BITSET), and poll/select/epoll
 * waits with a timeout other than 0 (the architecture's numbers:
 * cpu_arch.h syscall_sleeps). *sleep_ns: the span of a valid relative
 * sleep (nanosleep, clock_nanosleep without TIMER_ABSTIME), else 0.
 */
static bool syscall_blocks(struct pmu_vcpu *pv, uint64_t *sleep_ns)
{
	uint64_t tp = 0;
	const uint64_t *p;

	*sleep_ns = 0;
	switch (pv->c->arch->syscall_sleeps(pv->c, &tp)) {
	case CPU_SLEEPS:
		return true;
	case CPU_SLEEPS_FOR:
		/* the span a full sleep takes (hrtimer_nanosleep), when the
		 * request is one the call accepts (timespec64_valid) */
		p = (const uint64_t *)(uintptr_t)tp;
		if (pv->access_ok && pv->access_ok(pv->access_arg, tp, 16) &&
		    (int64_t)p[0] >= 0 && p[1] < 1000000000u &&
		    p[0] < UINT64_MAX / 2000000000u)
			*sleep_ns = p[0] * 1000000000u + p[1];
		return true;
	case CPU_SLEEPS_TIMEOUT:
		/* a NULL timeout waits; a zero one does not (only the
		 * emulated program's own memory is read, as the syscall will) */
		p = (const uint64_t *)(uintptr_t)tp;
		if (tp && (!pv->access_ok || !pv->access_ok(pv->access_arg, tp, 16)))
			return false;     /* the syscall will fail with EFAULT */
		return !tp || p[0] || p[1];
	default:
		return false;
	}
}

void pmu_syscall_enter(struct pmu_vcpu *pv)
{
	uint64_t sleep_ns;

	pmu_exact_done(pv);         /* an overflow at this SYSCALL */
	pmu_vcpu_acquire(pv);
	if (pv->cg)
		cg_machine_finish(pv);  /* the fetches up to this SYSCALL */
	flush(pv);
	pv->syscall_entry = true;
	kernel_work(pv, &syscall_entry);
	pv->syscall_entry = false;
	pv->prev = NULL;            /* SYSCALL ends the block; no branch to resolve */
	/* syscall_trace_enter(): trace_sys_enter() */
	pv->syscall_nr = (long)vcpu_reg(pv->c, pv->c->arch->reg_sysno);
	if (perf_cpu_traces(pv->cpu)) {
		const int *r = pv->c->arch->reg_sysarg;
		const uint64_t args[6] = {
			vcpu_reg(pv->c, r[0]), vcpu_reg(pv->c, r[1]), vcpu_reg(pv->c, r[2]),
			vcpu_reg(pv->c, r[3]), vcpu_reg(pv->c, r[4]), vcpu_reg(pv->c, r[5]),
		};

		perf_tp_sys_enter(pv->cpu, pv->syscall_nr, args);
	}
	if (pv->task && syscall_blocks(pv, &sleep_ns)) {
		/* schedule(): off the CPU until the syscall returns (acquire) */
		perf_task_set_runnable(pv->task, false);
		perf_cpu_switch_to(pv->cpu, NULL);
		pv->wake_ns = sleep_ns ? perf_cpu_time_ns(pv->cpu) + sleep_ns : 0;
	}
	pmu_vcpu_release(pv);
}

/*
 * A relative sleep that ran its full span (the call returned 0) kept the
 * CPU idle that long in simulated time: its clock runs on to the wake-up
 * and the mux timer rotates meanwhile, as the kernel's hrtimers do on an
 * idle CPU. The span is the request, not the host's time, so the same run
 * gives the same counts; an interrupted sleep (EINTR) lets no time pass.
 */
static void wake_from_sleep(struct pmu_vcpu *pv)
{
	uint64_t until = pv->wake_ns;

	pv->wake_ns = 0;
	if (!until || vcpu_reg(pv->c, pv->c->arch->reg_sysret) != 0)
		return;
	uint64_t before;

	if (!pv->locked) {
		perf_cpu_lock(pv->cpu);
		pv->locked = true;
		pv->lim_valid = false;
	}
	before = perf_cpu_time_ns(pv->cpu);
	perf_cpu_idle_until(pv->cpu, until);
	pv->slept_ns += perf_cpu_time_ns(pv->cpu) - before;
}

uint64_t pmu_slept_ns(const struct pmu_vcpu *pv)
{
	return pv->slept_ns;
}

void pmu_syscall_exit(struct pmu_vcpu *pv)
{
	wake_from_sleep(pv);
	pmu_vcpu_acquire(pv);
	/* syscall_exit_work(): trace_sys_exit() with the return value; exit
	 * and exit_group never return (do_exit), so never trace it */
	if (perf_cpu_traces(pv->cpu) && pv->syscall_nr != pv->c->arch->sysno_exit &&
	    pv->syscall_nr != pv->c->arch->sysno_exit_group)
		perf_tp_sys_exit(pv->cpu, pv->syscall_nr,
				 (long)vcpu_reg(pv->c, pv->c->arch->reg_sysret));
	kernel_work(pv, &syscall_exit);
	pmu_vcpu_check_hooks(pv);
	pmu_vcpu_release(pv);
}

/*
 * The core CPU's cycles, what RDTSC and the virtual clocks read. Without
 * block accounting a RDTSC adds its own cost, so the clock still moves
 * between two reads.
 */
uint64_t pmu_cycles(struct pmu_vcpu *pv, bool rdtsc)
{
	uint64_t v;
	bool had = pv->locked;

	pmu_vcpu_acquire(pv);
	flush(pv);
	if (rdtsc && !pv->c->blocks_on) {
		struct sim_delta d;

		memset(&d, 0, sizeof(d));
		d.v[SIM_SRC_CYCLES] = PMU_RDTSC_CYCLES;
		derived_clocks(pv, &d);
		perf_cpu_account(pv->cpu, SIM_MODE_USER, &d);
	}
	v = perf_cpu_cycles(pv->cpu);
	if (!had)
		pmu_vcpu_release(pv);
	return v;
}

void pmu_code_changed(struct pmu_vcpu *pv, uint64_t start, uint64_t end)
{
	memset(pv->front, 0, sizeof(pv->front));
	bd_invalidate(pv->bc, start, end);
	pv->decode_gen++;         /* the slots' cached decodes may be freed */
	if (pv->jit)              /* and what they know of straight runs */
		jit_count_code_changed(pv->jit);
	pv->prev = NULL;
	pv->cur = NULL;
	pv->rest_of = NULL;
}

/*
 * Page faults reach the counters at once, after what the batch holds, as
 * the kernel counts them: perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS, 1, regs,
 * address) in do_user_addr_fault(), then PAGE_FAULTS_MIN in
 * mm_account_fault() for a handled one. Like perf_sw_event(), which tests
 * a static key first, a fault no event counts costs nothing: the batch
 * and the access log go on (a fault in every new page would otherwise
 * replay the log each time).
 */
static void page_fault(struct pmu_vcpu *pv, uint64_t addr, uintptr_t retaddr, bool minor)
{
	struct sim_delta d;
	bool had = pv->locked;

	if (!perf_core_counts_faults(pv->core))
		return;
	pmu_vcpu_acquire(pv);
	if (perf_cpu_counts_reports(pv->cpu)) {
		flush(pv);
		pv->lim_valid = false;
		memset(&d, 0, sizeof(d));
		d.v[SIM_SRC_PAGE_FAULTS] = 1;
		d.v[SIM_SRC_PAGE_FAULTS_MIN] = minor;
		pv->sample_ip = minor ? vcpu_access_ip(pv->c, addr, retaddr) :
				vcpu_pc(pv->c);
		pv->sample_addr = addr;
		perf_cpu_account(pv->cpu, SIM_MODE_USER, &d);
		pv->sample_addr = 0;
	}
	if (!had)
		pmu_vcpu_release(pv);
}

void pmu_page_fault(struct pmu_vcpu *pv, uint64_t addr, uintptr_t retaddr)
{
	page_fault(pv, addr, retaddr, true);
}

void pmu_page_fault_bad(struct pmu_vcpu *pv, uint64_t addr)
{
	page_fault(pv, addr, 0, false);
}

/* ---- RDPMC ---------------------------------------------------------------- */

/* Counts of source src (user mode) in the part of the current block from
 * the instruction at ip on: reported at block entry, not yet retired (RDPMC
 * reads the counter before it retires itself). */
static u64 not_yet_run(struct pmu_vcpu *pv, uint64_t ip, unsigned src, unsigned *idx)
{
	const struct bdesc *b = pv->cur;
	u64 v = 0;
	unsigned i;

	*idx = 0;
	if (!b || ip < b->addr || ip >= b->addr + b->size)
		return 0;
	for (i = 0; i < b->n && b->addr + b->ins[i].off != ip; i++)
		;
	*idx = i;
	for (; i < b->n; i++)
		v += insn_value(pv, &b->ins[i], src, true);
	return v;
}

/*
 * UC_HOOK_INSN_INVALID: RDPMC (0f 33) reads the counter ECX names
 * (x86_pmu_event_idx: the mmap page's index - 1; bit 30 selects the fixed
 * counters). With no event on that counter, or RDPMC not allowed for this
 * task (no mapped event: CR4.PCE clear), the kernel's #GP gives SIGSEGV.
 */
static bool hook_invalid(uc_engine *uc, void *user)
{
	struct pmu_vcpu *pv = user;
	uint64_t rip = 0, rcx = 0, v, val = 0;
	const uint8_t *p;
	struct perf_rdpmc rd;
	unsigned idx;

	uc_reg_read(uc, UC_X86_REG_RIP, &rip);
	p = (const uint8_t *)(uintptr_t)rip;
	if (!pv->access_ok || !pv->access_ok(pv->access_arg, rip, 2) || p[0] != 0x0f || p[1] != 0x33)
		return false;
	uc_reg_read(uc, UC_X86_REG_RCX, &rcx);
	pmu_exact_done(pv);         /* an overflow at this RDPMC: before it reads */
	pmu_vcpu_acquire(pv);
	flush(pv);
	pv->lim_valid = false;
	{
		unsigned counter = (unsigned)(rcx & 0x3fffffff);
		bool fixed = rcx & (1u << 30);
		int hwidx = fixed ? PMU_IDX_FIXED + (int)counter : (int)counter;

		/* x86_pmu_event_idx(): bit 30 selects the fixed counters (INTEL_PMC_IDX_FIXED) */
		if (perf_cpu_rdpmc(pv->cpu, hwidx, &rd)) {
			/* #GP: the run loop's VCPU_EXIT_OTHER is SIGSEGV, SI_KERNEL */
			pv->c->exit = VCPU_EXIT_OTHER;
			return false;
		}
	}
	val = rd.value;
	if (rd.user)
		val -= not_yet_run(pv, rip, rd.source, &idx);
	val = perf_rdpmc_register(&rd, val);
	/* the rest of the block runs as a new block from rip+2: its first
	 * instructions were reported already */
	(void)not_yet_run(pv, rip, SIM_SRC_INSTRUCTIONS, &idx);
	if (pv->cur) {
		pv->skip_addr = rip + 2;
		pv->skip_n = pv->cur->n - idx - 1;
		if (!pv->skip_n)
			pv->skip_addr = 0;
	}
	pv->prev = NULL;
	if (pv->jit)   /* the block from rip+2 is seen by pmu_on_block */
		jit_count_force_next(pv->jit);
	v = (uint32_t)val;
	uc_reg_write(uc, UC_X86_REG_RAX, &v);
	v = (uint32_t)(val >> 32);
	uc_reg_write(uc, UC_X86_REG_RDX, &v);
	rip += 2;
	uc_reg_write(uc, UC_X86_REG_RIP, &rip);
	return true;
}

int pmu_user_read(struct pmu_vcpu *pv, int hwidx, uint64_t pc, uint64_t *val, uint64_t *gen)
{
	struct perf_rdpmc rd;
	unsigned idx;
	int r;

	pmu_exact_done(pv);         /* an overflow at this instruction: before it reads */
	pmu_vcpu_acquire(pv);
	flush(pv);
	pv->lim_valid = false;
	r = perf_cpu_user_read(pv->cpu, hwidx, &rd);
	if (!r) {
		/* the block was reported at its entry: its instructions from
		 * this one on have not retired yet */
		*val = perf_rdpmc_register(&rd, rd.user ? rd.value - not_yet_run(pv, pc, rd.source, &idx) :
							  rd.value);
		*gen = rd.userpage_gen;
	}
	pmu_vcpu_release(pv);
	return r;
}

/* ---- samples -------------------------------------------------------------- */

/* The sample's registers: the architecture's perf_regs (cpu_arch.h). */
static void read_regs(struct pmu_vcpu *pv, struct perf_sample_regs *r, uint64_t ip, bool exact)
{
	pv->c->arch->perf_regs(pv->c, r, ip, exact);
}

/*
 * get_perf_callchain(): for a kernel-mode sample the kernel part
 * (PERF_CONTEXT_KERNEL, the modelled path's IP: it has no frames of its
 * own) unless exclude_callchain_kernel; then the user part from the
 * task's user registers (PERF_CONTEXT_USER, the user IP, the
 * frame-pointer chain: perf_callchain_user()) unless
 * exclude_callchain_user. max bounds the entries, not the context marks
 * (perf_callchain_store()). Returns the number of words in pv->cc.
 */
static unsigned sample_callchain(struct pmu_vcpu *pv, const struct perf_event *event, uint64_t kip,
				 uint64_t ip, uint64_t fp, unsigned max)
{
	unsigned n = 0, entries = 0;

	const struct perf_event_attr *attr = perf_event_attr(event);

	if (kip && !attr->exclude_callchain_kernel) {
		pv->cc[n++] = PERF_CONTEXT_KERNEL;
		if (entries < max) {
			pv->cc[n++] = kip;
			entries++;
		}
	}
	if (attr->exclude_callchain_user)
		return n;
	pv->cc[n++] = PERF_CONTEXT_USER;
	if (entries < max) {
		pv->cc[n++] = ip;
		entries++;
	}
	while (entries < max && n < 255) {
		uint64_t frame[2];

		if (fp & 7 || !pv->access_ok || !pv->access_ok(pv->access_arg, fp, 16))
			break;
		memcpy(frame, (const void *)(uintptr_t)fp, 16);
		if (!frame[1])
			break;
		pv->cc[n++] = frame[1];
		entries++;
		if (frame[0] <= fp)      /* the stack grows down: frames go up */
			break;
		fp = frame[0];
	}
	return n;
}

#define MEM_S(a, s) ((u64)PERF_MEM_S(a, s))
#define MEM_OP_LH (MEM_S(OP, LOAD) | MEM_S(LVL, HIT))
/* include/linux/perf_event.h PERF_MEM_NA */
#define MEM_NA (MEM_S(OP, NA) | MEM_S(LVL, NA) | MEM_S(SNOOP, NA) | MEM_S(LOCK, NA) | \
		MEM_S(TLB, NA) | MEM_S(LVLNUM, NA))

/*
 * intel/ds.c pebs_data_source[] entries (with intel_pmu_pebs_data_source_skl)
 * for the level that served a load, as load_latency_data() gives them
 * for an access that did not miss the STLB: 0x01 L1, 0x03 L2, 0x04 L3,
 * 0x0a L3 miss served by local DRAM.
 */
static const u64 ldlat_data_src[CACHE_NR_LEVELS] = {
	[CACHE_L1] = MEM_OP_LH | MEM_S(LVL, L1) | MEM_S(LVLNUM, L1) | MEM_S(SNOOP, NONE),
	[CACHE_L2] = MEM_OP_LH | MEM_S(LVL, L2) | MEM_S(LVLNUM, L2) | MEM_S(SNOOP, NONE),
	[CACHE_L3] = MEM_OP_LH | MEM_S(LVL, L3) | MEM_S(LVLNUM, L3) | MEM_S(SNOOP, NONE),
	[CACHE_MEM] = MEM_OP_LH | MEM_S(LVL, LOC_RAM) | MEM_S(LVLNUM, RAM) | MEM_S(SNOOP, HIT),
};

/*
 * The PEBS fields of a sample taken at a data access
 * (setup_pebs_fixed_sample_data with a Skylake record): ADDR and
 * PHYS_ADDR the data address (physical = virtual here); for the load
 * latency event (MEM_TRANS_RETIRED.LOAD_LATENCY, PERF_X86_EVENT_PEBS_LDLAT)
 * WEIGHT the latency and DATA_SRC load_latency_data(); for the other PEBS
 * memory events precise_datala_hsw(): stores (PEBS_ST_HSW) say L1 hit or
 * miss, loads (PEBS_LD_HSW) only that they are loads, and no weight.
 */
static void fill_mem_sample(struct pmu_vcpu *pv, const struct perf_event *event,
			    struct perf_sample_data *data)
{
	const struct pmu_mem_access *ma = &pv->ma;
	bool ldlat = perf_event_hw_flags(event) & PMU_EVENT_FLAG_PEBS_LDLAT;
	union perf_mem_data_src dse = { .val = 0 };

	data->addr = ma->addr;
	data->phys_addr = ma->addr;
	if (ldlat) {
		data->weight.full = ma->latency;
		dse.val = ldlat_data_src[ma->level];
		/* bit 4 of the status, "missed 2nd level TLB": the access
		 * walked (load_latency_data()) */
		dse.val |= ma->stlb_miss ? MEM_S(TLB, MISS) | MEM_S(TLB, L2) :
					   MEM_S(TLB, HIT) | MEM_S(TLB, L1) | MEM_S(TLB, L2);
	} else {
		dse.val = MEM_NA;
		dse.mem_op = ma->write ? PERF_MEM_OP_STORE : PERF_MEM_OP_LOAD;
		if (ma->write)
			dse.mem_lvl = PERF_MEM_LVL_L1 |
				      (ma->level == CACHE_L1 ? PERF_MEM_LVL_HIT : PERF_MEM_LVL_MISS);
	}
	data->data_src = dse.val;
}

void pmu_fill_sample(struct pmu_vcpu *pv, struct perf_event *event, struct perf_sample_data *data)
{
	const struct perf_event_attr *attr = perf_event_attr(event);
	u64 st = attr->sample_type;
	bool kernel = pv->sample_ip == 0, exact;
	uint64_t ip = pv->sample_ip;

	if (kernel)  /* kernel-mode work of a syscall: the user IP is its return */
		ip = vcpu_syscall_rip(pv->c);
	/* the modelled syscall path: entry_SYSCALL_64 (kernel_symbols.c) */
	data->ip = kernel ? kernel_syscall_ip() : ip;
	data->cpumode = kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	data->exact_ip = !kernel && attr->precise_ip > 0;
	/* perf_sw_event()'s addr: the page fault's address */
	if (perf_event_is_software(event))
		data->addr = pv->sample_addr;
	if (pv->task) {
		data->pid = (uint32_t)perf_task_pid(pv->task);
		data->tid = (uint32_t)perf_task_tid(pv->task);
	}
	exact = !kernel && !perf_event_is_software(event) && attr->precise_ip > 1;
	if (st & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN)) {
		read_regs(pv, &data->regs_user, ip, exact);
		if (kernel)     /* the pt_regs of the syscall's entry */
			pv->c->arch->perf_regs_syscall(&data->regs_user, ip, pv->syscall_entry);
	}
	if (st & PERF_SAMPLE_REGS_INTR) {
		read_regs(pv, &data->regs_intr, ip, exact);
		/* the interrupted kernel regs: the kernel IP, __KERNEL_CS and
		 * __KERNEL_DS; the modelled path has no register values of its
		 * own, so the other GPRs stay the task's */
		if (kernel)
			pv->c->arch->perf_regs_kernel(&data->regs_intr, data->ip);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		unsigned max = attr->sample_max_stack ? attr->sample_max_stack : 127;

		data->callchain_nr = sample_callchain(pv, event, kernel ? data->ip : 0, ip,
						      data->regs_user.regs[pv->c->arch->perf_reg_fp], max);
		data->callchain = pv->cc;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t sp = data->regs_user.regs[pv->c->arch->perf_reg_sp], n = 0;
		uint64_t want = attr->sample_stack_user;

		while (n < want && pv->access_ok &&
		       pv->access_ok(pv->access_arg, sp + n, ((sp + n) | 4095) + 1 - (sp + n)))
			n = ((sp + n) | 4095) + 1 - sp;
		data->stack_user = (const void *)(uintptr_t)sp;
		data->stack_user_size = n < want ? n : want;
	}
	if (pv->ma.valid && pmu_source_needs_mem(perf_event_source(event)))
		fill_mem_sample(pv, event, data);
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		u64 bst = attr->branch_sample_type;
		unsigned n = 0;

		for (unsigned i = 0; i < pv->lbr_nr; i++) {
			const struct pmu_lbr_entry *e =
				&pv->lbr[(pv->lbr_pos + PMU_LBR_DEPTH - 1 - i) % PMU_LBR_DEPTH];
			bool ok = (bst & PERF_SAMPLE_BRANCH_ANY) ||
				  ((bst & PERF_SAMPLE_BRANCH_ANY_CALL) &&
				   (e->type == PERF_BR_CALL || e->type == PERF_BR_IND_CALL)) ||
				  ((bst & PERF_SAMPLE_BRANCH_ANY_RETURN) && e->type == PERF_BR_RET) ||
				  ((bst & PERF_SAMPLE_BRANCH_IND_CALL) && e->type == PERF_BR_IND_CALL) ||
				  ((bst & PERF_SAMPLE_BRANCH_COND) && e->type == PERF_BR_COND) ||
				  ((bst & PERF_SAMPLE_BRANCH_CALL) && e->type == PERF_BR_CALL) ||
				  ((bst & PERF_SAMPLE_BRANCH_IND_JUMP) && e->type == PERF_BR_IND);

			if (!(bst & PERF_SAMPLE_BRANCH_USER) && !(bst & PERF_SAMPLE_BRANCH_PLM_ALL))
				ok = ok && true;
			if ((bst & PERF_SAMPLE_BRANCH_PLM_ALL) && !(bst & PERF_SAMPLE_BRANCH_USER))
				ok = false;   /* only kernel branches asked: none recorded */
			if (!ok)
				continue;
			memset(&pv->br[n], 0, sizeof(pv->br[n]));
			pv->br[n].from = e->from;
			pv->br[n].to = e->to;
			pv->br[n].mispred = e->mispred;
			pv->br[n].predicted = !e->mispred;
			if (bst & PERF_SAMPLE_BRANCH_TYPE_SAVE)
				pv->br[n].type = e->type;
			n++;
		}
		data->branches = pv->br;
		data->branches_nr = n;
		data->branches_hw_idx = ~0ull;
	}
}

/* ---- life cycle ------------------------------------------------------------ */

struct pmu_vcpu *pmu_vcpu_new(struct vcpu *c, struct perf_core *core, unsigned cpu,
			      struct perf_task *task)
{
	struct pmu_vcpu *pv = calloc(1, sizeof(*pv));
	uc_hook h;

	if (!pv)
		return NULL;
	pv->pipe = c->model && c->model->pipeline ? c->model->pipeline : pmu_model_default()->pipeline;
	pv->bc = bd_cache_new(c->arch, pv->pipe,
			      c->model && c->model->caches ? c->model->caches->l1d.latency : 0);
	if (!pv->bc)
		goto err_free;
	pv->c = c;
	pv->core = core;
	pv->cpu = perf_core_cpu(core, cpu);
	pv->task = task;
	pv->cg = cg_model_active();
	/* pay only for what is counted: the core's model names what its
	 * events count, and the log counts L1I and ITLB accesses for those */
	c->mem_log_fetches = pmu_model_counts_source(perf_core_model(core), SIM_SRC_L1I_ACCESS) ||
			     pmu_model_counts_source(perf_core_model(core), SIM_SRC_ITLB_ACCESS);
	memset(pv->bimodal, PMU_BIMODAL_STEP, sizeof(pv->bimodal));   /* weakly not taken */
	pv->freq_hz = c->model && c->model->freq_hz ? c->model->freq_hz : 3000000000ull;
	pv->tsc_hz = c->model && c->model->tsc_hz ? c->model->tsc_hz : pv->freq_hz;
	if (jit_count_serves(c->arch)) {
		pv->jit = jit_count_new(&(struct jit_predictors){ pv->bimodal, pv->ras, &pv->ras_top, pv->btb,
								  pv->pipe->mispredict_cycles },
					pv->bc, c);
		if (!pv->jit)
			goto err_bc;
	}
	if (c->arch->rdpmc_insn) {
		if (uc_hook_add(c->uc, &h, UC_HOOK_INSN_INVALID, hook_invalid, pv, 1, 0) != UC_ERR_OK)
			goto err_jit;
		pv->h_invalid = h;
	}
	c->pmu = pv;
	return pv;
err_jit:
	jit_count_free(pv->jit);
err_bc:
	bd_cache_free(pv->bc);
err_free:
	free(pv);
	return NULL;
}

void pmu_vcpu_free(struct pmu_vcpu *pv)
{
	if (!pv)
		return;
	pmu_vcpu_release(pv);
	if (pv->c) {
		if (pv->h_invalid)
			uc_hook_del(pv->c->uc, (uc_hook)pv->h_invalid);
		pv->c->pmu = NULL;
	}
	/* first: its thread may still read the log and the slots (jit) */
	access_replay_free(pv->replay);
	jit_count_free(pv->jit);
	bd_cache_free(pv->bc);
	cache_model_free(pv->cm);
	fe_model_free(pv->fe);
	free(pv);
}
