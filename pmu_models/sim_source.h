/*
 * sim_source.h - the quantities a machine measures and a PMU counter counts.
 *
 * This is the vocabulary between the three parts: a machine (Unicorn or the
 * synthetic test machine) reports per CPU how much of each source happened;
 * a PMU model says which source each of its event encodings counts; the core
 * adds the deltas to the counters that are scheduled.
 */
#ifndef PMUSIM_SIM_SOURCE_H
#define PMUSIM_SIM_SOURCE_H

enum sim_source {
	SIM_SRC_NONE = 0,          /* an encoding the models do not drive: counts 0 */
	/* architectural: counted exactly from executed code */
	SIM_SRC_INSTRUCTIONS,
	SIM_SRC_BRANCHES,          /* all retired branch instructions */
	SIM_SRC_COND_BRANCHES,
	SIM_SRC_TAKEN_BRANCHES,
	SIM_SRC_CALLS,
	SIM_SRC_RETURNS,
	SIM_SRC_LOADS,             /* retired load instructions */
	SIM_SRC_STORES,            /* retired store instructions */
	/* modelled: from documented deterministic models */
	SIM_SRC_CYCLES,            /* core cycles at the model's frequency */
	SIM_SRC_REF_CYCLES,        /* reference cycles (TSC rate) */
	SIM_SRC_BUS_CYCLES,
	SIM_SRC_BRANCH_MISSES,
	SIM_SRC_L1D_ACCESS,
	SIM_SRC_L1D_MISS,
	SIM_SRC_L1I_ACCESS,
	SIM_SRC_L1I_MISS,
	SIM_SRC_LLC_ACCESS,
	SIM_SRC_LLC_MISS,
	SIM_SRC_DTLB_ACCESS,
	SIM_SRC_DTLB_MISS,
	SIM_SRC_ITLB_ACCESS,
	SIM_SRC_ITLB_MISS,
	SIM_SRC_STALLED_FRONTEND,  /* cycles the front end delivered no uop */
	SIM_SRC_STALLED_BACKEND,   /* cycles the back end issued no uop it could */
	/* the pipeline model (pmu_model.h struct pmu_pipeline) */
	SIM_SRC_UOPS_ISSUED,       /* uops issued, wrong-path ones included */
	SIM_SRC_UOPS_RETIRED,      /* retirement slots used */
	SIM_SRC_FE_BUBBLES,        /* issue slots the front end left empty */
	SIM_SRC_RECOVERY_CYCLES,   /* cycles recovering from mispredicts */
	SIM_SRC_COND_NOT_TAKEN,    /* conditional branches that fell through */
	/* decoded per instruction (x86-64, sim/cpu/x86_64/decode.c), exact:
	 * SSE/AVX arithmetic by precision and width (an FMA or DPP counts
	 * twice, Intel's FP_ARITH_INST_RETIRED), software prefetches by kind,
	 * far branches (SYSCALL; the kernel's return to user mode) */
	SIM_SRC_FP_SCALAR_DOUBLE,
	SIM_SRC_FP_SCALAR_SINGLE,
	SIM_SRC_FP_128B_DOUBLE,
	SIM_SRC_FP_128B_SINGLE,
	SIM_SRC_FP_256B_DOUBLE,
	SIM_SRC_FP_256B_SINGLE,
	SIM_SRC_SWPF_NTA,
	SIM_SRC_SWPF_T0,
	SIM_SRC_SWPF_T1_T2,
	SIM_SRC_SWPF_PREFETCHW,
	SIM_SRC_SWPF_ANY,          /* the four above */
	SIM_SRC_FAR_BRANCHES,
	SIM_SRC_LOCK_LOADS,        /* locked loads (LOCK prefix, XCHG with memory) */
	/* the pipeline model's execution (block_decode.h): unfused uops
	 * executed, those of x87 instructions, and the cycles in which at
	 * least 1, 2, 3, 4 of them execute */
	SIM_SRC_UOPS_EXECUTED,
	SIM_SRC_UOPS_EXECUTED_X87,
	SIM_SRC_EXEC_CYCLES_GE1,
	SIM_SRC_EXEC_CYCLES_GE2,
	SIM_SRC_EXEC_CYCLES_GE3,
	SIM_SRC_EXEC_CYCLES_GE4,
	/* the same schedule per block (a straight run's as a whole): cycles
	 * in which no uop executes (a mispredict's too), those while a load
	 * is in flight (its L1D latency: misses cost no cycles), the cycles
	 * with a load in flight, with exactly 1 and 2 uops executing */
	SIM_SRC_EXEC_STALLS,
	SIM_SRC_EXEC_MEM_STALLS,
	SIM_SRC_EXEC_MEM_CYCLES,
	SIM_SRC_EXEC_CYCLES_EQ1,
	SIM_SRC_EXEC_CYCLES_EQ2,
	/* the front-end model (sim/cpu/frontend_model.h, pmu_model.h struct
	 * pmu_frontend): where each uop came from (the decoded uop cache, the
	 * legacy decoders, the microcode sequencer), switches between them,
	 * front-end resteers and decoder stalls; fed per block while an event
	 * counts one of them */
	SIM_SRC_DSB_UOPS,          /* uops delivered by the DSB (IDQ.DSB_UOPS) */
	SIM_SRC_MITE_UOPS,         /* uops delivered by the legacy decoders */
	SIM_SRC_MS_UOPS,           /* uops delivered by the microcode sequencer */
	SIM_SRC_MS_SWITCHES,       /* deliveries switched to the MS */
	SIM_SRC_DSB2MITE_SWITCHES, /* deliveries switched from the DSB to MITE */
	SIM_SRC_DSB2MITE_PENALTY,  /* their penalty cycles */
	SIM_SRC_DSB_MISS_INSNS,    /* retired instructions whose window missed the DSB */
	SIM_SRC_BACLEARS,          /* taken direct branches the BTB did not know */
	SIM_SRC_LCP_STALLS,        /* cycles the decoders stalled on length-changing prefixes */
	SIM_SRC_CLEAR_RESTEER_CYCLES, /* cycles refilling the front end after a mispredict */
	/* the front-end stalls of instruction fetch, fed by the cache model
	 * like the fetch sources below (the memory hook) */
	SIM_SRC_ICACHE_DATA_STALL, /* cycles fetch waited for lines that missed L1I */
	SIM_SRC_ICACHE_TAG_STALL,  /* cycles fetch waited for code pages that missed the ITLB */
	/* modelled per data access by the cache model (sim/cpu/cache_model.h):
	 * fed only while the machine's memory hook is on */
	SIM_SRC_MEM_LOADS,         /* data reads seen by the memory hook */
	SIM_SRC_MEM_STORES,        /* data writes seen by the memory hook */
	SIM_SRC_LOAD_L1_HIT,       /* reads served by L1D (MEM_LOAD_RETIRED.L1_HIT) */
	SIM_SRC_LOAD_L1_MISS,
	SIM_SRC_LOAD_L2_HIT,
	SIM_SRC_LOAD_L2_MISS,
	SIM_SRC_LOAD_L3_HIT,
	SIM_SRC_LOAD_L3_MISS,
	SIM_SRC_STORE_L2_MISS,     /* writes whose line came from beyond L2 (RFO to the LLC) */
	SIM_SRC_STORE_L3_MISS,     /* writes whose line came from memory */
	SIM_SRC_L2_ACCESS,         /* lines requested from L2 (L1D misses) */
	SIM_SRC_L2_MISS,
	/* modelled per instruction fetch and data access by the cache model's
	 * TLBs (fed like the data caches): first-level misses, second-level
	 * hits, and the cycles of the page walks (a walk is a *_TLB_MISS) */
	SIM_SRC_DTLB_L1_MISS,
	SIM_SRC_DTLB_L2_HIT,
	SIM_SRC_DTLB_WALK_CYCLES,
	SIM_SRC_ITLB_L1_MISS,
	SIM_SRC_ITLB_L2_HIT,
	SIM_SRC_ITLB_WALK_CYCLES,
	/* modelled per LLC miss by the cache model (fed like the data
	 * caches): the cycles its request spends past the LLC, in the
	 * memory controller's tracker (the uncore arb box's occupancy) */
	SIM_SRC_MEM_REQ_OCCUPANCY,     /* every request: LLC misses */
	SIM_SRC_MEM_READ_OCCUPANCY,    /* data reads: loads served by memory */
	/* the cycles demand loads that missed L1D are outstanding: each its
	 * serving level's load-to-use latency (the cache model has no timing,
	 * so misses never overlap in it) */
	SIM_SRC_L1D_PENDING,
	SIM_SRC_STORE_L1_MISS,     /* stores whose line missed L1D (RFOs to L2) */
	SIM_SRC_STORE_L2_HIT,      /* those L2 served */
	/* the cycles the loads and the stores (RFOs) that missed L2 are
	 * outstanding beyond it: each its serving level's latency */
	SIM_SRC_OFFCORE_RD_PENDING,
	SIM_SRC_OFFCORE_RFO_PENDING,
	/* the hardware sources above, SIM_SRC_INSTRUCTIONS .. this one, are
	 * what a block's delta and the memory hook fill */
	SIM_SRC_HW_LAST = SIM_SRC_OFFCORE_RFO_PENDING,
	/* software: reported by the machine's memory and fault handling */
	SIM_SRC_PAGE_FAULTS_MIN,
	SIM_SRC_PAGE_FAULTS_MAJ,
	SIM_SRC_ALIGNMENT_FAULTS,
	SIM_SRC_EMULATION_FAULTS,
	SIM_SRC_PAGE_FAULTS,       /* every fault (PERF_COUNT_SW_PAGE_FAULTS counts
	                            * faults that end in SIGSEGV too) */
	/* breakpoints: hits of the debug register n of the CPU (DR0..DR3),
	 * reported by the machine at the accessing instruction */
	SIM_SRC_BP0,
	SIM_SRC_BP1,
	SIM_SRC_BP2,
	SIM_SRC_BP3,
	SIM_SRC_NR
};

/* A set of sources: bit s for source s (SIM_SRC_NR may pass 64). */
typedef unsigned __int128 sim_src_mask;
#define SIM_SRC_BIT(s) ((sim_src_mask)1 << (s))
/* The sources a .. b (a <= b), as a mask. */
#define SIM_SRC_RANGE(a, b) ((SIM_SRC_BIT(b) << 1) - SIM_SRC_BIT(a))
_Static_assert(SIM_SRC_NR <= 128, "sim_src_mask holds every source");

/* Privilege level a delta was produced at (exclude_user/exclude_kernel). */
enum sim_mode { SIM_MODE_USER = 0, SIM_MODE_KERNEL = 1, SIM_MODE_NR };

/* One machine report: how much of each source happened. */
struct sim_delta {
	unsigned long long v[SIM_SRC_NR];
};

const char *sim_source_name(enum sim_source src);

#endif
