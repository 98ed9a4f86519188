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

/* Privilege level a delta was produced at (exclude_user/exclude_kernel). */
enum sim_mode { SIM_MODE_USER = 0, SIM_MODE_KERNEL = 1, SIM_MODE_NR };

/* One machine report: how much of each source happened. */
struct sim_delta {
	unsigned long long v[SIM_SRC_NR];
};

const char *sim_source_name(enum sim_source src);

#endif
