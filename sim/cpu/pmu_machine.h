/*
 * pmu_machine.h - the emulated CPU drives the simulated perf core: per-block
 * accounting (instructions, branches, calls, returns, loads, stores, the
 * first timing model, the branch predictor model, a modelled LBR), exact
 * overflow at the instruction where a sampling counter crosses its period,
 * the kernel-mode cost of each emulated syscall and counter overflow
 * interrupt, RDPMC and the core clock
 * behind RDTSC. One struct pmu_vcpu per vCPU (guest thread); it knows the
 * core task it runs and the simulated CPU it runs on.
 *
 * Locking (perf_core.h): a vCPU takes the core lock at its first accounted
 * block and keeps it while it runs guest code; at each block boundary it
 * yields when another thread waits; it drops it at each syscall. Without
 * events (no block hook) it takes the lock only for short accounting.
 */
#ifndef PMUSIM_PMU_MACHINE_H
#define PMUSIM_PMU_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "sim/core/perf_core.h"
#include "pmu_models/sim_source.h"
#include "sim/cpu/access_replay.h"
#include "sim/cpu/block_decode.h"

struct vcpu;
struct jit_count;
struct cg_model;
struct bdesc;
struct perf_core;
struct perf_cpu;
struct perf_task;
struct perf_event;
struct perf_sample_data;

/* Kernel-mode work of one syscall (docs/machine-counting.md, cost table):
 * entry path (before the handler runs) and exit path (after it). */
#define PMU_SYSCALL_ENTRY_INSNS    120
#define PMU_SYSCALL_ENTRY_BRANCHES 24
#define PMU_SYSCALL_EXIT_INSNS     80
#define PMU_SYSCALL_EXIT_BRANCHES  16
#define PMU_SYSCALL_CPI_MILLI      1500   /* kernel paths run at CPI 1.5 */
/* One counter overflow interrupt (PMI) from user mode, at the same CPI, in
 * three parts (docs/machine-counting.md, "The PMI"):
 *  - entry, counted: asm_exc_nmi, exc_nmi, irqentry_nmi_enter,
 *    default_do_nmi, nmi_handle, perf_event_nmi_handler and
 *    intel_pmu_handle_irq up to the WRMSR of __intel_pmu_disable_all;
 *  - masked, not counted (PERF_GLOBAL_CTRL is 0): reading the status, the
 *    LBR, the sample and its output, reprogramming the counter; its cycles
 *    still pass on the clock;
 *  - exit, counted: from the WRMSR of __intel_pmu_enable_all to the IRET
 *    of swapgs_restore_regs_and_return_to_usermode. */
#define PMU_PMI_ENTRY_INSNS        200
#define PMU_PMI_ENTRY_BRANCHES     40
#define PMU_PMI_ENTRY_CALLS        10
#define PMU_PMI_ENTRY_RETS         5
#define PMU_PMI_MASKED_INSNS       1000
#define PMU_PMI_EXIT_INSNS         300
#define PMU_PMI_EXIT_BRANCHES      60
#define PMU_PMI_EXIT_CALLS         12
#define PMU_PMI_EXIT_RETS          18
/* The bimodal table holds each 2-bit counter times this: the index of the
 * counter's row in inline counting's exit tables (jit_count.c). */
#define PMU_BIMODAL_STEP           16
#define PMU_RDTSC_CYCLES           25
#define PMU_LBR_DEPTH              32
#define PMU_FRONT_CACHE            1024
#define PMU_RAS_DEPTH              16
#define PMU_BTB_ENTRIES            1024
#define PMU_MAX_LIMITS             8

struct pmu_lbr_entry { uint64_t from, to; uint8_t mispred, type; };

/* The data access a memory-source counter overflowed at (its sample's
 * ADDR, WEIGHT and DATA_SRC). */
struct pmu_mem_access {
	bool valid;                  /* set only while that overflow is reported */
	bool write;
	bool stlb_miss;              /* a page of it missed the second-level TLB */
	uint8_t level;               /* enum cache_level that served it */
	unsigned latency;
	uint64_t addr;
};

/* An overflow whose sample or signal needs the guest's state right after
 * its instruction (pmu_machine.c, "exact stops"). */
enum pmu_exact_state {
	PMU_EXACT_NONE = 0,
	PMU_EXACT_PREFIX,   /* mid-block: the engine stopped before the block; run [begin, until) */
	PMU_EXACT_NEXT,     /* the block's last instruction: at the next block, syscall or stop */
};

struct pmu_exact {
	uint8_t state;               /* enum pmu_exact_state */
	bool rep;                    /* NEXT at a REP string instruction: after its last iteration */
	uint64_t begin, until;       /* PREFIX: the block, and the instruction after the overflow's */
	uint64_t ip;                 /* the overflow instruction */
	struct sim_delta d;          /* the report up to and including it, not yet made */
	const struct bdesc *blk;     /* PREFIX: the block, whose instructions from */
	unsigned rest;               /* this one on are the next block's */
};

struct pmu_vcpu {
	/* --- hot: touched by every block (kept together) --- */
	bool locked;                 /* this thread holds the core lock */
	bool acc_dirty, lim_valid, no_batch;
	bool want_lbr;               /* a scheduled event samples BRANCH_STACK */
	bool want_exec_block;        /* an enabled event counts a block-level
				      * execution source */
	uint8_t nr_dec;              /* the per-instruction decoded ones counted */
	uint8_t dec_src[24];
	unsigned nlim;
	uint64_t blocks;             /* blocks seen (yield check every 64) */
	struct perf_core *core;
	const struct bdesc *prev;    /* last block entered (branch resolution) */
	const struct bdesc *cur;     /* block being executed (accounted at entry) */
	uint64_t skip_addr;          /* RDPMC resume: block starting here ... */
	unsigned skip_n;             /* ... had its first skip_n insns accounted */
	const struct bdesc *rest_of; /* after an exact prefix run: the block ... */
	unsigned rest_idx;           /* ... whose instructions from here on run next */
	uint64_t run_start;          /* a block QEMU cut without a control transfer: */
	uint64_t run_end;            /* the start of its straight run, and its end */
	uint32_t held_fe, held_be;   /* the run's issue and stall counts so far */
	uint32_t held_x[BD_NR_XBLOCK]; /* and its execution totals (BDT_X_*) */
	uint64_t acc_ip;
	struct { uint32_t src; uint64_t left; } lim[PMU_MAX_LIMITS];
	/* the batch (see flush() in pmu_machine.c) and the previous branch's
	 * resolution: only the sources pmu_machine.c fills are ever written */
	struct sim_delta acc, extra;
	uint64_t ras[PMU_RAS_DEPTH]; /* return address stack */
	uint64_t ras_top;            /* its top, in bytes (inline code indexes it) */

	/* --- the rest --- */
	struct jit_count *jit;       /* inline counting (jit_count.h), or NULL */
	struct vcpu *c;
	struct perf_cpu *cpu;
	struct perf_task *task;
	struct bd_cache *bc;
	uint64_t sample_ip;          /* IP of the instruction an overflow is at */
	bool syscall_entry;          /* kernel work of a syscall's entry (not its exit) */
	uint64_t wake_ns;            /* a relative sleep's end on the CPU's clock, or 0 */
	uint64_t slept_ns;           /* what this thread's sleeps let pass on the clock */
	long syscall_nr;             /* the syscall in progress (its sys_exit tracepoint) */
	uint64_t sample_addr;        /* a page fault's address (software ADDR) */
	uint64_t ref_rem, bus_rem;   /* remainders of the derived clocks */
	uint64_t freq_hz, tsc_hz;    /* the model's core and TSC clocks */
	const struct pmu_pipeline *pipe; /* the pipeline model's parameters */
	struct sim_delta d;          /* a report being built (split blocks) */
	const struct bdesc *front[PMU_FRONT_CACHE]; /* decode lookup, direct mapped */
	uint32_t decode_gen;         /* moves on when decodes are freed (slot_block) */
	uint8_t bimodal[4096];       /* 2-bit counters times PMU_BIMODAL_STEP, by
				      * branch address [11:0] */
	uint64_t btb[PMU_BTB_ENTRIES]; /* last target of indirect branches */
	struct pmu_lbr_entry lbr[PMU_LBR_DEPTH];
	unsigned lbr_pos, lbr_nr;

	/* the machine layer's memory check for callchains and stacks */
	bool (*access_ok)(void *arg, uint64_t addr, uint64_t len);
	void *access_arg;
	void *owner;                 /* the guest thread */

	/* the memory hook (pmu_on_mem): the data caches, made when it first
	 * goes on, and the access being reported */
	struct cache_model *cm;
	bool mem_sampling;           /* a user-mode sampling slot counts per access */
	bool leave_chain;            /* a block became hot while logging
				      * (pmu_on_jit_fetch): the next slow path
				      * has its block leave for a lookup */
	uint64_t bp_read_rip;        /* the instruction whose read hit bp_read_mask */
	unsigned bp_read_mask;
	unsigned bp_trap_mask;       /* data hits waiting for the next instruction */
	/* X hits reported before these instructions, each of which then runs
	 * once without a new hit (EFLAGS.RF in the context the fault
	 * interrupted: a signal handler in between keeps its own) */
	uint64_t bp_rf[PERF_HBP_NUM];
	bool mem_dirty;              /* mc is not in acc yet */
	struct mem_counts mc;
	struct pmu_mem_access ma;
	/* the access log's replay through cm (with cm) */
	struct access_replay *replay;
	/* the front-end model (frontend_model.h), on while an enabled event
	 * counts one of its sources (FRONTEND_SOURCES), or NULL */
	struct fe_model *fe;
	bool fe_on;
	/* the cachegrind-compatible configuration (cg_machine.h), or NULL:
	 * its model, the block whose fetches are being made, and the next
	 * instruction to fetch */
	struct cg_model *cg;
	const struct bdesc *cg_blk;
	unsigned cg_next;
	bool cg_rep_iterated;        /* the block's last instruction accessed data */

	struct pmu_exact ex;         /* a pending exact overflow */

	uint64_t cc[256];            /* callchain of the sample being written */
	struct perf_branch_entry br[PMU_LBR_DEPTH];
	uint64_t h_invalid;          /* RDPMC hook */
};

struct pmu_vcpu *pmu_vcpu_new(struct vcpu *c, struct perf_core *core, unsigned cpu,
			      struct perf_task *task);
void pmu_vcpu_free(struct pmu_vcpu *pv);

/* Called by vcpu.c: */
void pmu_on_block(struct pmu_vcpu *pv, uint64_t addr, uint32_t size);
/* Inline counting's slow path for the block of slot s (jit_count.h): the
 * block start of a block that must be seen here, or when the inline
 * accumulators must become a report. */
struct jit_slot;
void pmu_on_jit_block(struct pmu_vcpu *pv, const struct jit_slot *s);
/* A cold block's start while logging (the block hook's call with
 * JIT_FETCH_MARK): for a slot with cold_head the slow path first when
 * jit_count_cold_head says so (a block it has leave has no start), then
 * jit_count_cold_fetch, and the block translated again once it is hot. */
void pmu_on_jit_fetch(struct pmu_vcpu *pv, struct jit_slot *s);
void pmu_syscall_enter(struct pmu_vcpu *pv);
void pmu_syscall_exit(struct pmu_vcpu *pv);
uint64_t pmu_cycles(struct pmu_vcpu *pv, bool rdtsc);
/* The simulated nanoseconds this thread's relative sleeps kept its CPU
 * idle (on the clock, not on the thread's CPU time). */
uint64_t pmu_slept_ns(const struct pmu_vcpu *pv);
void pmu_code_changed(struct pmu_vcpu *pv, uint64_t start, uint64_t end);
/* One guest data access (the memory hook, on only while an event counts
 * per access): the cache model's outcome into the memory sources, and an
 * overflow at this access for a sampling counter of one of them. */
void pmu_on_mem(struct pmu_vcpu *pv, bool write, uint64_t addr, unsigned size);
/* Whether an event counting src needs the memory hook. */
bool pmu_source_needs_mem(unsigned src);
/* From the breakpoint hooks: the instruction at addr is about to execute
 * (exec), or an access of size bytes at addr (a write or a read) is made
 * by the instruction at RIP. Each installed breakpoint it hits counts one
 * on its register's source, reported with the sample IP the kernel's
 * debug exception gives: the instruction for X, the next one for data. */
bool pmu_on_breakpoint(struct pmu_vcpu *pv, bool exec, bool write, uint64_t addr,
		       unsigned size);
/* Returns whether the engine should stop to deliver an overflow signal
 * (the stop takes effect at the next block start, safe_stop.h). An X hit
 * is reported in its code hook, with the state before its instruction; a
 * data hit whose sample or signal needs the task's state waits for
 * pmu_on_breakpoint_step() at the next instruction, which reports it with
 * the state after the accessing one and returns true. */
bool pmu_on_breakpoint_step(struct pmu_vcpu *pv, uint64_t addr);
/* A page fault of the guest at user mode on addr (the sample's ADDR).
 * pmu_page_fault: a handled (minor) one, from the tlb_fill callback (the
 * sample IP is the faulting instruction: vcpu_access_ip). _bad: one that
 * ends in SIGSEGV, after the engine stopped at the instruction
 * (PAGE_FAULTS only). */
void pmu_page_fault(struct pmu_vcpu *pv, uint64_t addr, uintptr_t retaddr);
void pmu_page_fault_bad(struct pmu_vcpu *pv, uint64_t addr);
/* An EL0 read of PMU counter hwidx by the instruction at pc (arm64 MRS):
 * the counter register as it is before that instruction retires, or
 * -EPERM when EL0 access is off (perf_cpu_user_read); hwidx -1 asks only
 * that. *gen: the CPU's user-page generation (it moves with the sequence
 * lock of any of its events' pages). */
int pmu_user_read(struct pmu_vcpu *pv, int hwidx, uint64_t pc, uint64_t *val, uint64_t *gen);

/*
 * Exact stops. A user-mode overflow whose sample reads the guest's
 * registers, stack or callchain, or whose event signals the guest (O_ASYNC),
 * is reported with the engine in the state right after the overflowing
 * instruction retired. In the middle of a block, pmu_on_block stops the
 * engine before the block runs; vcpu_run() then asks pmu_exact_prefix()
 * for the range to run (the block up to and including that instruction)
 * and calls pmu_exact_done(). At a block's last instruction the report
 * waits for the state after it: the next block (hook_block, before its
 * kick test), the next syscall, RDPMC or the end of the run call
 * pmu_exact_done(). pmu_exact_done() is a no-op when nothing is pending.
 */
bool pmu_exact_prefix(struct pmu_vcpu *pv, uint64_t *begin, uint64_t *until);
void pmu_exact_done(struct pmu_vcpu *pv);
/* From the block hook, at a block starting at addr: pmu_exact_done, unless
 * the block is the next iteration of the REP string instruction the
 * overflow is at (it retires after its last). */
void pmu_exact_block(struct pmu_vcpu *pv, uint64_t addr);

/* Takes the CPU for pv's task (lock + context switch if another task ran
 * there); pmu_vcpu_release gives the lock back. */
void pmu_vcpu_acquire(struct pmu_vcpu *pv);
void pmu_vcpu_release(struct pmu_vcpu *pv);
/* Installs the block hook if an event scheduled on pv's CPU needs it, and
 * the memory hook while one counts a memory source (removed again when no
 * event of the CPU's contexts does): stops the engine when that changes. */
void pmu_vcpu_check_hooks(struct pmu_vcpu *pv);
/* The same decision, taken at the next vcpu_run() without stopping the
 * engine (before the first instruction of a task). */
void pmu_vcpu_hooks_pending(struct pmu_vcpu *pv);
/* In the child of a host fork, on the forking thread: what the parent's
 * vCPU had running beside it (the access log's replay thread) starts
 * again. */
void pmu_vcpu_forked(struct pmu_vcpu *pv);
/* pv's task moves to CPU cpu (a migration: it leaves its CPU, context
 * switch out, and runs on the other, context switch in); its hooks follow
 * the new CPU's events. Returns with the core lock as pv had it. */
void pmu_vcpu_migrate(struct pmu_vcpu *pv, unsigned cpu);

/* Adds one mispredicted branch to d: the miss, its cycles and its parts
 * (wrong-path uops, recovery cycles, the front end's empty slots and
 * cycles: struct pmu_pipeline). */
void pmu_mispredict(const struct pmu_vcpu *pv, struct sim_delta *d);

/* fill_sample for the vCPU running on a CPU. */
/* The modelled cost of one part of a counter interrupt (the core's
 * pmi_cost machine hook): docs/machine-counting.md, "The PMI". */
void pmu_pmi_cost(struct pmu_vcpu *pv, enum perf_pmi_part part, struct sim_delta *d);
void pmu_fill_sample(struct pmu_vcpu *pv, struct perf_event *event,
		     struct perf_sample_data *data);

#endif
