/*
 * block_decode.h - what one translated block retires, decoded once with
 * the architecture's decoder (cpu_arch.h: x86-64 Zydis, AArch64 capstone):
 * per instruction its length, class (branch kinds, loads, stores,
 * REP string), uops and the cycles it adds to the block's schedule; per
 * block the totals that become a struct sim_delta. A cache keyed by
 * (address, size) keeps the decodes; code changes drop the entries of the
 * changed range.
 *
 * The schedule (the pipeline model, docs/machine-counting.md): the block's
 * uops issue in order, issue_width a cycle (struct pmu_pipeline of the PMU
 * model); an instruction executes once it has issued and the registers it
 * reads are ready, and its result is ready its latency later (1, the L1D
 * load-to-use latency for a load, plus the operation's for a load-op, MUL
 * and DIV from the table); the block takes until its last result is
 * ready, and the next block issues after it. The stack pointer (a stack
 * engine), memory and the instruction pointer carry no dependencies.
 *
 * The execution schedule: an instruction's unfused uops execute in the
 * cycle it starts, a load is in flight from then for the L1D latency;
 * per instruction whether it added a cycle with at least 1..4 uops
 * executing, per block the cycles with none, with exactly 1 or 2, with a
 * load in flight (UOPS_EXECUTED, CYCLE_ACTIVITY, EXE_ACTIVITY). The
 * decoded events (FP arithmetic, prefetches, far branches, locked loads,
 * x87) come from the architecture's insn_ext.
 *
 * What is the architecture's comes from its ops table (cpu_arch.h): the
 * classes of an instruction (x86-64: what Intel's architectural events
 * count, SDM vol. 3, 20.2.1 and 19.x: INST_RETIRED counts a REP-prefixed
 * string instruction once however many iterations it runs; loads/stores
 * include the implicit stack access of PUSH/POP/CALL/RET/LEAVE; AArch64:
 * the PMUv3 common events), the registers it reads and writes as the
 * schedule's keys, its uops and latency.
 */
#ifndef PMUSIM_BLOCK_DECODE_H
#define PMUSIM_BLOCK_DECODE_H

#include <stdbool.h>
#include <stdint.h>

enum bd_class {
	BD_BRANCH   = 1 << 0,     /* any control transfer */
	BD_COND     = 1 << 1,     /* Jcc, LOOPcc, JrCXZ */
	BD_CALL     = 1 << 2,
	BD_RET      = 1 << 3,
	BD_INDIRECT = 1 << 4,     /* target from a register or memory */
	BD_LOAD     = 1 << 5,
	BD_STORE    = 1 << 6,
	BD_REP      = 1 << 7,     /* REP/REPcc string instruction */
};

struct bd_insn {
	uint16_t off;             /* from the block start */
	uint8_t len;
	uint8_t cls;              /* enum bd_class bits */
	uint8_t cycles;           /* how much later the block's schedule ends
				   * with it than without it (0 or more; the
				   * block's add up to its cycles) */
	uint8_t uops;             /* fused-domain uops (retirement slots), >= 1 */
	uint8_t xcls;             /* enum bd_xclass: what the decoded events count */
	uint8_t xuops;            /* unfused-domain uops executed */
	uint8_t ge;               /* bit n-1: the cycles with at least n uops
				   * executing grew by one with it (n = 1..4);
				   * BD_GE_X87, BD_GE_LOCK_LOAD, BD_GE_LCP */
};

/*
 * What an instruction adds to the decoded events (an architecture's
 * classify_ext, cpu_arch.h): SSE/AVX arithmetic by precision and width
 * (Intel's FP_ARITH_INST_RETIRED; BD_FP_TWICE for FMA and DPP, which count
 * twice), software prefetches by kind (SW_PREFETCH_ACCESS), far branches,
 * x87 instructions.
 */
enum bd_xclass {
	BD_FP_MASK = 7,            /* enum bd_fp */
	BD_FP_TWICE = 1 << 3,
	BD_PF_SHIFT = 4,           /* enum bd_pf << BD_PF_SHIFT */
	BD_PF_MASK = 7 << 4,
	BD_FAR = 1 << 7,
};
enum bd_fp { BD_FP_NONE, BD_FP_SD, BD_FP_SS, BD_FP_128D, BD_FP_128S, BD_FP_256D, BD_FP_256S };
enum bd_pf { BD_PF_NONE, BD_PF_NTA, BD_PF_T0, BD_PF_T1_T2, BD_PF_W };
/* ge's bit for an x87 instruction (its uops are UOPS_EXECUTED.X87) */
#define BD_GE_X87 (1 << 4)
/* and for a locked load (LOCK prefix, XCHG with memory:
 * MEM_INST_RETIRED.LOCK_LOADS) */
#define BD_GE_LOCK_LOAD (1 << 5)
/* and for a length-changing prefix (x86: ILD_STALL.LCP, frontend_model.c) */
#define BD_GE_LCP (1 << 6)
/* the block-level execution totals, BDT_X_STALL .. BDT_X_EQ2 */
#define BD_NR_XBLOCK (BDT_X_EQ2 - BDT_X_STALL + 1)

/* Whole-block totals, indexed like enum bd_total. */
enum bd_total {
	BDT_INSNS, BDT_BRANCHES, BDT_COND, BDT_UNCOND_TAKEN, BDT_CALLS, BDT_RETS,
	BDT_LOADS, BDT_STORES, BDT_CYCLES,
	BDT_UOPS,                 /* uops retired */
	BDT_FE_BUBBLES,           /* issue slots after the block's last uop in its
				   * last issue cycle: the front end delivers
				   * nothing past the block's end */
	BDT_BE_STALL,             /* cycles after the last issue cycle: waiting
				   * for results */
	/* the decoded events (enum bd_xclass) and the execution schedule:
	 * an instruction's unfused uops all execute in the cycle it starts
	 * (BDT_FP_SD .. BDT_X_EQ2 in the order of their sources in
	 * sim_source.h, SIM_SRC_FP_SCALAR_DOUBLE .. SIM_SRC_EXEC_CYCLES_EQ2) */
	BDT_FP_SD, BDT_FP_SS, BDT_FP_128D, BDT_FP_128S, BDT_FP_256D, BDT_FP_256S,
	BDT_PF_NTA, BDT_PF_T0, BDT_PF_T1_T2, BDT_PF_W, BDT_PF_ANY,
	BDT_FAR, BDT_LOCK_LOADS,
	BDT_UOPS_EXEC, BDT_UOPS_X87,
	BDT_EXEC_GE1, BDT_EXEC_GE2, BDT_EXEC_GE3, BDT_EXEC_GE4,
	/* the block's execution schedule as a whole (like BDT_FE_BUBBLES
	 * and BDT_BE_STALL, a straight run's in its last block): cycles with
	 * no uop executing, those with a load in flight (from its start for
	 * the L1D latency), the cycles with a load in flight, the cycles with
	 * exactly 1 and 2 uops executing */
	BDT_X_STALL, BDT_X_MEM_STALL, BDT_X_MEM_CYCLES, BDT_X_EQ1, BDT_X_EQ2,
	BDT_NR
};

/* The registers the schedule tracks, as keys an architecture gives them
 * (cpu_arch.h): 1 .. BD_REG_KEYS - 1, one per architectural register
 * (sub-registers as their full register, the flags as one); 0 carries no
 * dependency (the stack pointer, the zero register). */
#define BD_REG_KEYS 72

struct bdesc {
	uint64_t addr;
	uint64_t run_start;       /* addr, or for bd_get_in_run's the run's start */
	uint32_t size;
	uint16_t n;               /* instructions */
	uint8_t last_cls;         /* class of the last instruction */
	bool last_ends_run;       /* it ends the block by itself (cpu_arch.h
				   * ends_run), or the block ends at a
				   * block_bound */
	uint32_t last_off;        /* its offset */
	uint64_t cond_target;     /* last insn a direct Jcc: its target, else 0 */
	uint32_t t[BDT_NR];
	struct bd_insn ins[];     /* n entries */
};

/* Adds instruction in's decoded events and execution (BDT_FP_SD ..
 * BDT_EXEC_GE4) to totals t: a block's are its instructions' sum. */
void bd_insn_decoded(uint32_t *t, const struct bd_insn *in);

/* Each further iteration of a REP string instruction (QEMU runs it as a
 * block of its own): one cycle, a full issue width of microcode uops. */
#define BD_CYC_REP     1

struct bd_cache;
struct cpu_arch;
struct pmu_pipeline;

/* A decode cache for the architecture's instructions (NULL: x86-64's),
 * scheduling with pipeline p (NULL: the default model's) and a load
 * latency of load_latency cycles (0: the default model's L1D's). */
struct bd_cache *bd_cache_new(const struct cpu_arch *arch, const struct pmu_pipeline *p,
			      unsigned load_latency);
/* The uops the pipeline table p gives an instruction of class cls: CALL,
 * RET, one that loads and stores memory; otherwise uops (an architecture's
 * insn_cost, cpu_arch.h). */
unsigned bd_class_uops(const struct pmu_pipeline *p, uint8_t cls, unsigned uops);
/* The issue width the cache schedules with. */
unsigned bd_issue_width(const struct bd_cache *bc);
/* The architecture a cache decodes. */
const struct cpu_arch *bd_cache_arch(const struct bd_cache *bc);
void bd_cache_free(struct bd_cache *bc);
/* The decode of [addr, addr+size) (host readable), cached; NULL on
 * allocation failure. */
const struct bdesc *bd_get(struct bd_cache *bc, uint64_t addr, uint32_t size);
/* The decode of the block at addr whose last instruction starts at last
 * (host readable: a translated block), cached as bd_get's under the size
 * it ends with; NULL when the instructions from addr do not decode up to
 * last exactly (or on allocation failure). */
const struct bdesc *bd_get_through(struct bd_cache *bc, uint64_t addr, uint64_t last);
/* The block [addr, addr+size) as the end of the straight run from
 * run_start (< addr) that QEMU cut at addr: its instructions as scheduled
 * in the whole run (bd_get(run_start, addr + size - run_start)'s), its
 * fe-bubbles and back-end stall the whole run's; cached. NULL when the
 * run's instructions do not decode up to addr exactly (or on allocation
 * failure). */
const struct bdesc *bd_get_in_run(struct bd_cache *bc, uint64_t run_start, uint64_t addr,
				  uint32_t size);
/* Whether QEMU cut a straight run at block b's end (its limits on a
 * block's size, a page): b ends without a control transfer or an
 * instruction that ends a run (cpu_arch.h ends_run: SYSCALL, SVC, ISB),
 * and not at a boundary no block crosses (block_bound). */
static inline bool bd_cut(const struct bdesc *b)
{
	return !(b->last_cls & (BD_BRANCH | BD_REP)) && !b->last_ends_run;
}
/* Decodes without the cache's table (tests); free() the result. */
struct bdesc *bd_decode(struct bd_cache *bc, uint64_t addr, uint32_t size);
/* The class bits of the single instruction at addr (host readable; a
 * translated instruction), 0 when it does not decode; *len its length
 * (0 then). */
uint8_t bd_class_at(struct bd_cache *bc, uint64_t addr, unsigned *len);
/* Drops cached blocks that overlap [start, end). */
void bd_invalidate(struct bd_cache *bc, uint64_t start, uint64_t end);

#endif
