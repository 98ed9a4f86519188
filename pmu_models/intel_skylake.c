/*
 * intel_skylake.c - the "skylake" model: the core PMU of an Intel Skylake
 * client part (family 6, model 0x5e) as arch/x86/events/intel/core.c and
 * intel/ds.c set it up: 4 general counters and 3 fixed counters, 48 bits,
 * perfmon version 4, PEBS (max_precise 3), 32-entry LBR, TSX (RTM).
 *
 * Tables copied from the kernel: intel_perfmon_event_map,
 * skl_hw_cache_event_ids, intel_skl_event_constraints,
 * intel_skl_pebs_event_constraints (only the rows whose mask differs from
 * the catch-all 0xf row), intel_skl_extra_regs, the format attributes of
 * intel_arch3_formats_attr + hsw_format_attr + skl_format_attr.
 */
#include "pmu_models/model_internal.h"

#define C(x) PERF_COUNT_HW_CACHE_##x
#define FIXED(n) (UINT64_C(1) << (PMU_IDX_FIXED + (n)))

/* intel_skl_event_constraints */
static const struct x86_constraint skl_constraints[] = {
	/* FIXED_EVENT_CONSTRAINT(): general counters are ORed in */
	{ .code = 0x00c0, .cmask = X86_FIXED_EVENT_FLAGS, .idxmsk = FIXED(0), .fixed = true }, /* INST_RETIRED.ANY */
	{ .code = 0x003c, .cmask = X86_FIXED_EVENT_FLAGS, .idxmsk = FIXED(1), .fixed = true }, /* CPU_CLK_UNHALTED.CORE */
	{ .code = 0x0300, .cmask = X86_FIXED_EVENT_FLAGS, .idxmsk = FIXED(2), .fixed = true }, /* CPU_CLK_UNHALTED.REF */
	/* INTEL_UEVENT_CONSTRAINT */
	{ .code = 0x01c0, .cmask = X86_INTEL_ARCH_EVENT_MASK, .idxmsk = 0x2 },  /* INST_RETIRED.PREC_DIST */
	/* INTEL_EVENT_CONSTRAINT: when HT is off, only the bottom 4 counters */
	{ .code = 0xd0, .cmask = X86_EVENTSEL_EVENT, .idxmsk = 0xf },  /* MEM_INST_RETIRED.* */
	{ .code = 0xd1, .cmask = X86_EVENTSEL_EVENT, .idxmsk = 0xf },  /* MEM_LOAD_RETIRED.* */
	{ .code = 0xd2, .cmask = X86_EVENTSEL_EVENT, .idxmsk = 0xf },  /* MEM_LOAD_L3_HIT_RETIRED.* */
	{ .code = 0xcd, .cmask = X86_EVENTSEL_EVENT, .idxmsk = 0xf },  /* MEM_TRANS_RETIRED.* */
	{ .code = 0xc6, .cmask = X86_EVENTSEL_EVENT, .idxmsk = 0xf },  /* FRONTEND_RETIRED.* */
};

/* intel_skl_pebs_event_constraints: the INTEL_FLAGS_UEVENT_CONSTRAINT rows
 * match event, umask and all flags; the last row allows every event. */
#define PEBS_CMASK (X86_INTEL_ARCH_EVENT_MASK | X86_ALL_EVENT_FLAGS)
static const struct x86_constraint skl_pebs_constraints[] = {
	{ .code = 0x01c0, .cmask = PEBS_CMASK, .idxmsk = 0x2 },       /* INST_RETIRED.PREC_DIST */
	{ .code = 0x108001c0, .cmask = PEBS_CMASK, .idxmsk = 0x2 },   /* PREC_DIST,inv,cmask=16 (cycles:ppp) */
	{ .code = 0x108000c0, .cmask = PEBS_CMASK, .idxmsk = 0xf },   /* TOTAL_CYCLES_PS (cycles:p) */
	{ .code = 0, .cmask = 0, .idxmsk = 0xf },                     /* INTEL_ALL_EVENT_CONSTRAINT(0, 0xf) */
};

/* intel_skl_extra_regs */
static const struct x86_extra_reg skl_extra_regs[] = {
	{ .event = 0x01b7, .config_mask = X86_INTEL_ARCH_EVENT_MASK, .valid_mask = UINT64_C(0x3fffff8fff), .what = "offcore_rsp_0" },
	{ .event = 0x01bb, .config_mask = X86_INTEL_ARCH_EVENT_MASK, .valid_mask = UINT64_C(0x3fffff8fff), .what = "offcore_rsp_1" },
	{ .event = 0x01cd, .config_mask = X86_INTEL_ARCH_EVENT_MASK, .valid_mask = 0xffff, .what = "ldlat" },
	{ .event = 0x01c6, .config_mask = X86_INTEL_ARCH_EVENT_MASK, .valid_mask = 0x7fff17, .what = "frontend" },
};

static const struct x86_arch_data skl_arch = {
	.version = 4,
	.constraints = skl_constraints,
	.nr_constraints = sizeof(skl_constraints) / sizeof(skl_constraints[0]),
	.pebs_constraints = skl_pebs_constraints,
	.nr_pebs_constraints = sizeof(skl_pebs_constraints) / sizeof(skl_pebs_constraints[0]),
	.extra_regs = skl_extra_regs,
	.nr_extra_regs = sizeof(skl_extra_regs) / sizeof(skl_extra_regs[0]),
	.lbr_nr = 32,
	.pebs_format = 3,
	.bts = true,
	.rtm = true,
	.hsw_hw_config = true,
	.pebs_aliases_skl = true,
};

#define GP4 UINT64_C(0xf)

/*
 * Caches and TLBs of a Skylake client core (i7-6700K class): Intel 64 and
 * IA-32 Architectures Optimization Reference Manual (248966), tables
 * "Cache Parameters of the Skylake Microarchitecture" (L1I 32 KiB 8-way,
 * L1D 32 KiB 8-way, L2 256 KiB 4-way, 64-byte lines, load-to-use 4 and 12
 * cycles) and "TLB Parameters of the Skylake Microarchitecture" (4 KiB
 * pages: ITLB 128 entries 8-way, DTLB 64 entries 4-way, the shared STLB
 * 1536 entries 12-way); the shared L3 of a 4-core part, 8 MiB 16-way. L3
 * and memory latencies as measured on an i7-6700 (7-cpu.com "Skylake"): L3
 * 42 cycles, RAM 42 cycles + 51 ns, about 195 cycles at the model's 3 GHz.
 * A page walk costs the model 20 cycles (no vendor figure: about four
 * paging-structure loads served by L1D/L2).
 */
static const struct pmu_cache_geometry skl_caches = {
	.l1i = { .size = 32 << 10, .ways = 8, .line = 64, .latency = 4 },
	.l1d = { .size = 32 << 10, .ways = 8, .line = 64, .latency = 4 },
	.l2 = { .size = 256 << 10, .ways = 4, .line = 64, .latency = 12 },
	.llc = { .size = 8 << 20, .ways = 16, .line = 64, .latency = 42 },
	.mem_latency = 195,
	.itlb = { .entries = 128, .ways = 8 },
	.dtlb = { .entries = 64, .ways = 4 },
	.dtlb2 = { .entries = 1536, .ways = 12 },
	.l2tlb_unified = true,
	.walk_cycles = 20,
};

/*
 * The pipeline of a Skylake client core: Intel 64 and IA-32 Architectures
 * Optimization Reference Manual (248966), "Skylake Client
 * Microarchitecture": the allocator issues and the retirement unit retires
 * up to 4 uops a cycle per thread (the 4 TMA slots a cycle); IMUL r64 has
 * latency 3. DIV r64 is microcoded: 36 uops, latency about 26 at the low
 * end (Agner Fog's instruction tables, Skylake); CALL is 2 fused uops,
 * RET 2, a load-op-store 2. Model values: a mispredict costs 15 cycles
 * (the manual's figure for recent cores is about that), of which 8 issue
 * wrong-path uops until the branch executes, 2 recover
 * (INT_MISC.RECOVERY_CYCLES), the other 5 refill the front end.
 */
static const struct pmu_pipeline skl_pipeline = {
	.issue_width = 4,
	.mispredict_cycles = 15,
	.wrong_path_cycles = 8,
	.recovery_cycles = 2,
	.mul_latency = 3,
	.div_latency = 26,
	.div_uops = 36,
	.call_uops = 2,
	.ret_uops = 2,
	.rmw_uops = 2,
};

/*
 * The front end of a Skylake client core: Intel 64 and IA-32 Architectures
 * Optimization Reference Manual (248966), "Decoded ICache" (Sandy Bridge,
 * whose organisation the Skylake chapter keeps with a wider delivery): 32
 * sets of 8 ways, each way up to 6 uops of instructions that start in one
 * aligned 32-byte window; a window takes at most 3 ways (18 uops), else it
 * is not cached and the legacy decode pipeline (MITE) delivers it; a way
 * holds at most 2 branches, an unconditional branch ends its way, an
 * instruction that turns on the MSROM takes a whole way; "Legacy Decode
 * Pipeline": instructions of more than 4 uops are delivered by the
 * microcode sequencer (MSROM); a length-changing prefix (0x66 with an
 * imm16) stalls the legacy decoders 3 cycles, and costs nothing from the
 * Decoded ICache. Model values: a DSB-to-MITE switch costs 2 cycles (the
 * manual gives no figure); a code page the STLB serves stalls fetch 9
 * cycles (the STLB-hit cost of Intel's TMA metrics for Skylake, perf's
 * tma_dtlb_load); BACLEARS come from a BTB of the machine's predictor
 * geometry (1024 entries by branch address, docs/machine-counting.md
 * "Branch predictor"), for direct branches.
 */
static const struct pmu_frontend skl_frontend = {
	.dsb_sets = 32,
	.dsb_ways = 8,
	.dsb_window = 32,
	.way_uops = 6,
	.way_branches = 2,
	.window_ways = 3,
	.ms_uops = 4,
	.dsb2mite_penalty = 2,
	.lcp_penalty = 3,
	.stlb_hit_cycles = 9,
	.btb_entries = 1024,
};

static const struct pmu_event_desc skl_events[] = {
	/*
	 * events/ as intel_pmu_init() builds it for Skylake: events_attr of
	 * arch/x86/events/core.c where intel_perfmon_event_map has an entry
	 * (is_visible(): not the stalled-cycles pair), then td_attr =
	 * hsw_events_attrs, mem_attr = hsw_mem_events_attrs (pebs_is_visible)
	 * and tsx_attr = hsw_tsx_events_attrs (tsx_is_visible(): the model
	 * has RTM) of arch/x86/events/intel/core.c.
	 */
	EV("cpu-cycles", 0x003c, SIM_SRC_CYCLES, GP4 | FIXED(1), "core cycles (CPU_CLK_UNHALTED.THREAD)"),
	EV("instructions", 0x00c0, SIM_SRC_INSTRUCTIONS, GP4 | FIXED(0), "retired instructions (INST_RETIRED.ANY)"),
	EV("cache-references", 0x4f2e, SIM_SRC_LLC_ACCESS, 0, "last-level cache references (LONGEST_LAT_CACHE.REFERENCE)"),
	EV("cache-misses", 0x412e, SIM_SRC_LLC_MISS, 0, "last-level cache misses (LONGEST_LAT_CACHE.MISS)"),
	EV("branch-instructions", 0x00c4, SIM_SRC_BRANCHES, 0, "retired branches (BR_INST_RETIRED.ALL_BRANCHES)"),
	EV("branch-misses", 0x00c5, SIM_SRC_BRANCH_MISSES, 0, "mispredicted retired branches (BR_MISP_RETIRED.ALL_BRANCHES)"),
	EV("bus-cycles", 0x013c, SIM_SRC_BUS_CYCLES, 0, "reference clock cycles (CPU_CLK_THREAD_UNHALTED.REF_XCLK)"),
	EV("ref-cycles", 0x0300, SIM_SRC_REF_CYCLES, FIXED(2), "reference cycles at TSC rate (fixed counter 2 only)"),
	/* hsw_events_attrs with the Skylake recovery-bubbles umask; the
	 * EVENT_ATTR_STR_HT texts are the no-SMT ones (the model has no SMT) */
	EVSC("topdown-total-slots", 0x003c, SIM_SRC_CYCLES, GP4 | FIXED(1), "cycles, times 4 slots", "event=0x3c,umask=0x0", "4"),
	EVS("topdown-slots-issued", 0x010e, SIM_SRC_UOPS_ISSUED, 0, "uops issued (UOPS_ISSUED.ANY)", "event=0xe,umask=0x1"),
	EVS("topdown-slots-retired", 0x02c2, SIM_SRC_UOPS_RETIRED, 0, "retirement slots used (UOPS_RETIRED.RETIRE_SLOTS)", "event=0xc2,umask=0x2"),
	EVS("topdown-fetch-bubbles", 0x019c, SIM_SRC_FE_BUBBLES, 0, "uops not delivered (IDQ_UOPS_NOT_DELIVERED.CORE)", "event=0x9c,umask=0x1"),
	EVSC("topdown-recovery-bubbles", 0x0100010d, SIM_SRC_RECOVERY_CYCLES, 0, "recovery cycles, times 4 slots (INT_MISC.RECOVERY_CYCLES)", "event=0xd,umask=0x1,cmask=1", "4"),
	/* hsw_mem_events_attrs (ldlat=3 is config1) */
	EVS("mem-loads", 0x01cd, SIM_SRC_NONE, GP4, "loads slower than ldlat cycles (MEM_TRANS_RETIRED.LOAD_LATENCY)", "event=0xcd,umask=0x1,ldlat=3"),
	EVS("mem-stores", 0x82d0, SIM_SRC_STORES, GP4, "retired stores (MEM_INST_RETIRED.ALL_STORES)", "event=0xd0,umask=0x82"),
	/* hsw_tsx_events_attrs: the machine has no transactions */
	EVS("tx-start", 0x01c9, SIM_SRC_NONE, 0, "RTM transactions started", "event=0xc9,umask=0x1"),
	EVS("tx-commit", 0x02c9, SIM_SRC_NONE, 0, "RTM transactions committed", "event=0xc9,umask=0x2"),
	EVS("tx-abort", 0x04c9, SIM_SRC_NONE, 0, "RTM transactions aborted", "event=0xc9,umask=0x4"),
	EVS("tx-capacity", 0x0254, SIM_SRC_NONE, 0, "transactions aborted for capacity", "event=0x54,umask=0x2"),
	EVS("tx-conflict", 0x0154, SIM_SRC_NONE, 0, "transactions aborted for conflict", "event=0x54,umask=0x1"),
	EVS("el-start", 0x01c8, SIM_SRC_NONE, 0, "HLE elisions started", "event=0xc8,umask=0x1"),
	EVS("el-commit", 0x02c8, SIM_SRC_NONE, 0, "HLE elisions committed", "event=0xc8,umask=0x2"),
	EVS("el-abort", 0x04c8, SIM_SRC_NONE, 0, "HLE elisions aborted", "event=0xc8,umask=0x4"),
	EVS("el-capacity", 0x0254, SIM_SRC_NONE, 0, "elisions aborted for capacity", "event=0x54,umask=0x2"),
	EVS("el-conflict", 0x0154, SIM_SRC_NONE, 0, "elisions aborted for conflict", "event=0x54,umask=0x1"),
	EVS("cycles-t", UINT64_C(0x10000003c), SIM_SRC_NONE, GP4, "cycles inside transactions", "event=0x3c,in_tx=1"),
	EVS("cycles-ct", UINT64_C(0x30000003c), SIM_SRC_NONE, 0x4, "cycles in committed transactions (counter 2 only)", "event=0x3c,in_tx=1,in_tx_cp=1"),
	/* Skylake raw events (Intel SDM / perfmon event list): no events/
	 * file, perf resolves them from its skylake pmu-events table, except
	 * mem_trans_retired.load_latency and frontend_retired (libpfm4's
	 * names; perf's are the mem-loads attribute and the qualified
	 * mem_trans_retired.load_latency_gt_* and frontend_retired.*) */
	EVL("inst_retired.any", 0x00c0, SIM_SRC_INSTRUCTIONS, GP4 | FIXED(0), "retired instructions"),
	EVL("inst_retired.prec_dist", 0x01c0, SIM_SRC_INSTRUCTIONS, 0x2, "retired instructions, precise distribution (counter 1 only)"),
	EVL("cpu_clk_unhalted.thread", 0x003c, SIM_SRC_CYCLES, GP4 | FIXED(1), "core cycles"),
	EVL("cpu_clk_unhalted.ref_tsc", 0x0300, SIM_SRC_REF_CYCLES, FIXED(2), "reference cycles at TSC rate"),
	EVL("cpu_clk_thread_unhalted.ref_xclk", 0x013c, SIM_SRC_BUS_CYCLES, 0, "reference clock (bus) cycles"),
	EVL("cpu_clk_thread_unhalted.one_thread_active", 0x023c, SIM_SRC_BUS_CYCLES, 0,
	   "reference clock cycles with one thread of the core active (no SMT: all of them)"),
	EVL("br_inst_retired.all_branches", 0x00c4, SIM_SRC_BRANCHES, 0, "retired branches"),
	EVL("br_inst_retired.conditional", 0x01c4, SIM_SRC_COND_BRANCHES, 0, "retired conditional branches"),
	EVL("br_inst_retired.near_call", 0x02c4, SIM_SRC_CALLS, 0, "retired near calls"),
	EVL("br_inst_retired.near_return", 0x08c4, SIM_SRC_RETURNS, 0, "retired near returns"),
	EVL("br_inst_retired.near_taken", 0x20c4, SIM_SRC_TAKEN_BRANCHES, 0, "retired taken branches"),
	EVL("br_inst_retired.not_taken", 0x10c4, SIM_SRC_COND_NOT_TAKEN, 0, "retired conditional branches not taken"),
	EVL("br_misp_retired.all_branches", 0x00c5, SIM_SRC_BRANCH_MISSES, 0, "mispredicted retired branches"),
	EVL("mem_inst_retired.all_loads", 0x81d0, SIM_SRC_LOADS, GP4, "retired load instructions"),
	EVL("mem_inst_retired.all_stores", 0x82d0, SIM_SRC_STORES, GP4, "retired store instructions"),
	/* MEM_LOAD_RETIRED.*: per load access, by the level that served it */
	EVL("mem_load_retired.l1_hit", 0x01d1, SIM_SRC_LOAD_L1_HIT, GP4, "retired loads that hit L1D"),
	EVL("mem_load_retired.l2_hit", 0x02d1, SIM_SRC_LOAD_L2_HIT, GP4, "retired loads that hit L2"),
	EVL("mem_load_retired.l3_hit", 0x04d1, SIM_SRC_LOAD_L3_HIT, GP4, "retired loads that hit L3"),
	EVL("mem_load_retired.l1_miss", 0x08d1, SIM_SRC_LOAD_L1_MISS, GP4, "retired loads that missed L1D"),
	EVL("mem_load_retired.l2_miss", 0x10d1, SIM_SRC_LOAD_L2_MISS, GP4, "retired loads that missed L2"),
	EVL("mem_load_retired.l3_miss", 0x20d1, SIM_SRC_LOAD_L3_MISS, GP4, "retired loads that missed L3"),
	EVL("l1d.replacement", 0x0151, SIM_SRC_L1D_MISS, 0, "L1D lines replaced (L1D misses)"),
	EVL("icache_64b.iftag_miss", 0x0283, SIM_SRC_L1I_MISS, 0, "instruction fetch tag misses (L1I misses)"),
	EVL("l2_rqsts.references", 0xff24, SIM_SRC_L2_ACCESS, 0, "L2 requests (data lines that missed L1D)"),
	EVL("l2_rqsts.miss", 0x3f24, SIM_SRC_L2_MISS, 0, "L2 misses (data lines)"),
	EVL("longest_lat_cache.reference", 0x4f2e, SIM_SRC_LLC_ACCESS, 0, "last-level cache references"),
	EVL("longest_lat_cache.miss", 0x412e, SIM_SRC_LLC_MISS, 0, "last-level cache misses"),
	EVL("dtlb_load_misses.walk_completed", 0x0e08, SIM_SRC_DTLB_MISS, 0, "dTLB misses that completed a walk (all data accesses)"),
	EVL("dtlb_store_misses.walk_completed", 0x0e49, SIM_SRC_NONE, 0, "store dTLB misses (counted in the load event)"),
	EVL("itlb_misses.walk_completed", 0x0e85, SIM_SRC_ITLB_MISS, 0, "iTLB misses that completed a walk"),
	EVL("itlb_misses.stlb_hit", 0x2085, SIM_SRC_ITLB_L2_HIT, 0, "iTLB misses that hit the STLB"),
	EVL("itlb_misses.walk_pending", 0x1085, SIM_SRC_ITLB_WALK_CYCLES, 0, "cycles of iTLB page walks"),
	EVL("dtlb_load_misses.stlb_hit", 0x2008, SIM_SRC_DTLB_L2_HIT, 0, "dTLB misses that hit the STLB (all data accesses)"),
	EVL("dtlb_load_misses.walk_pending", 0x1008, SIM_SRC_DTLB_WALK_CYCLES, 0, "cycles of dTLB page walks (all data accesses)"),
	EVL("uops_issued.any", 0x010e, SIM_SRC_UOPS_ISSUED, 0, "uops issued"),
	EVL("uops_retired.retire_slots", 0x02c2, SIM_SRC_UOPS_RETIRED, 0, "retirement slots used"),
	EVL("idq_uops_not_delivered.core", 0x019c, SIM_SRC_FE_BUBBLES, 0, "uops not delivered to the back end"),
	EVL("int_misc.recovery_cycles", 0x0100010d, SIM_SRC_RECOVERY_CYCLES, 0, "cycles the allocator waited for a mispredict's recovery"),
	EVL("idq_uops_not_delivered.cycles_0_uops_deliv.core", 0x0400019c, SIM_SRC_STALLED_FRONTEND, 0, "cycles the front end delivered nothing"),
	EVL("resource_stalls.any", 0x01a2, SIM_SRC_STALLED_BACKEND, 0, "back-end resource stall cycles"),
	/*
	 * Decoded and execution events (Intel's Skylake event list, the
	 * perfmon JSON perf 6.1 carries as pmu-events/arch/x86/skylake):
	 * FP_ARITH_INST_RETIRED.* counts per instruction (an FMA or DPP
	 * twice), SW_PREFETCH_ACCESS.* per prefetch instruction,
	 * BR_INST_RETIRED.FAR_BRANCH far transfers, UOPS_EXECUTED.* the
	 * unfused uops of the pipeline model's execution schedule. The model
	 * has no SMT: the .CORE forms are the thread's. The cmask forms are
	 * rows of their own (the lookup ignores cmask otherwise);
	 * STALL_CYCLES and CORE_CYCLES_NONE (inv) are not driven.
	 */
	EVL("fp_arith_inst_retired.scalar_double", 0x01c7, SIM_SRC_FP_SCALAR_DOUBLE, 0, "retired scalar double-precision FP arithmetic (FMA twice)"),
	EVL("fp_arith_inst_retired.scalar_single", 0x02c7, SIM_SRC_FP_SCALAR_SINGLE, 0, "retired scalar single-precision FP arithmetic (FMA twice)"),
	EVL("fp_arith_inst_retired.128b_packed_double", 0x04c7, SIM_SRC_FP_128B_DOUBLE, 0, "retired 128-bit packed double FP arithmetic (FMA, DPP twice)"),
	EVL("fp_arith_inst_retired.128b_packed_single", 0x08c7, SIM_SRC_FP_128B_SINGLE, 0, "retired 128-bit packed single FP arithmetic (FMA, DPP twice)"),
	EVL("fp_arith_inst_retired.256b_packed_double", 0x10c7, SIM_SRC_FP_256B_DOUBLE, 0, "retired 256-bit packed double FP arithmetic (FMA twice)"),
	EVL("fp_arith_inst_retired.256b_packed_single", 0x20c7, SIM_SRC_FP_256B_SINGLE, 0, "retired 256-bit packed single FP arithmetic (FMA, DPP twice)"),
	EVL("sw_prefetch_access.nta", 0x0132, SIM_SRC_SWPF_NTA, 0, "PREFETCHNTA instructions"),
	EVL("sw_prefetch_access.t0", 0x0232, SIM_SRC_SWPF_T0, 0, "PREFETCHT0 instructions"),
	EVL("sw_prefetch_access.t1_t2", 0x0432, SIM_SRC_SWPF_T1_T2, 0, "PREFETCHT1 and PREFETCHT2 instructions"),
	EVL("sw_prefetch_access.prefetchw", 0x0832, SIM_SRC_SWPF_PREFETCHW, 0, "PREFETCHW instructions"),
	EVL("sw_prefetch_access.any", 0x0f32, SIM_SRC_SWPF_ANY, 0, "software prefetch instructions of any kind (umask 0xf)"),
	EVL("mem_inst_retired.lock_loads", 0x21d0, SIM_SRC_LOCK_LOADS, GP4, "retired locked loads"),
	EVL("br_inst_retired.far_branch", 0x40c4, SIM_SRC_FAR_BRANCHES, 0, "retired far branches (SYSCALL at user, the return at kernel level)"),
	EVL("uops_executed.thread", 0x01b1, SIM_SRC_UOPS_EXECUTED, 0, "uops executed"),
	EVL("uops_executed.core", 0x02b1, SIM_SRC_UOPS_EXECUTED, 0, "uops executed on the core (no SMT: the thread's)"),
	EVL("uops_executed.x87", 0x10b1, SIM_SRC_UOPS_EXECUTED_X87, 0, "x87 uops executed"),
	EVL("uops_executed.cycles_ge_1_uop_exec", 0x010001b1, SIM_SRC_EXEC_CYCLES_GE1, 0, "cycles with at least 1 uop executed"),
	EVL("uops_executed.cycles_ge_2_uops_exec", 0x020001b1, SIM_SRC_EXEC_CYCLES_GE2, 0, "cycles with at least 2 uops executed"),
	EVL("uops_executed.cycles_ge_3_uops_exec", 0x030001b1, SIM_SRC_EXEC_CYCLES_GE3, 0, "cycles with at least 3 uops executed"),
	EVL("uops_executed.cycles_ge_4_uops_exec", 0x040001b1, SIM_SRC_EXEC_CYCLES_GE4, 0, "cycles with at least 4 uops executed"),
	EVL("uops_executed.stall_cycles", 0x018001b1, SIM_SRC_NONE, 0, "cycles with no uop executed"),
	EVL("uops_executed.core_cycles_ge_1", 0x010002b1, SIM_SRC_EXEC_CYCLES_GE1, 0, "core cycles with at least 1 uop executed"),
	EVL("uops_executed.core_cycles_ge_2", 0x020002b1, SIM_SRC_EXEC_CYCLES_GE2, 0, "core cycles with at least 2 uops executed"),
	EVL("uops_executed.core_cycles_ge_3", 0x030002b1, SIM_SRC_EXEC_CYCLES_GE3, 0, "core cycles with at least 3 uops executed"),
	EVL("uops_executed.core_cycles_ge_4", 0x040002b1, SIM_SRC_EXEC_CYCLES_GE4, 0, "core cycles with at least 4 uops executed"),
	EVL("uops_executed.core_cycles_none", 0x018002b1, SIM_SRC_NONE, 0, "core cycles with no uop executed"),
	/* CYCLE_ACTIVITY, EXE_ACTIVITY: the execution schedule per block (a
	 * mispredict's cycles execute nothing); a load is in flight for the
	 * L1D latency, and the cache misses cost no cycles (docs/models.md),
	 * so the L1D/L2/L3-miss forms are not driven, nor BOUND_ON_STORES
	 * (no store buffer) */
	EVL("cycle_activity.stalls_total", 0x040004a3, SIM_SRC_EXEC_STALLS, 0, "cycles with no uop executed"),
	EVL("cycle_activity.cycles_mem_any", 0x100010a3, SIM_SRC_EXEC_MEM_CYCLES, 0, "cycles with a load in flight"),
	EVL("cycle_activity.stalls_mem_any", 0x140014a3, SIM_SRC_EXEC_MEM_STALLS, 0, "cycles with no uop executed and a load in flight"),
	EVL("cycle_activity.cycles_l1d_miss", 0x080008a3, SIM_SRC_NONE, 0, "cycles with an L1D miss in flight (misses cost no cycles)"),
	EVL("cycle_activity.stalls_l1d_miss", 0x0c000ca3, SIM_SRC_NONE, 0, "stall cycles with an L1D miss in flight"),
	EVL("cycle_activity.cycles_l2_miss", 0x010001a3, SIM_SRC_NONE, 0, "cycles with an L2 miss in flight"),
	EVL("cycle_activity.stalls_l2_miss", 0x050005a3, SIM_SRC_NONE, 0, "stall cycles with an L2 miss in flight"),
	EVL("cycle_activity.cycles_l3_miss", 0x020002a3, SIM_SRC_NONE, 0, "cycles with an L3 miss in flight"),
	EVL("cycle_activity.stalls_l3_miss", 0x060006a3, SIM_SRC_NONE, 0, "stall cycles with an L3 miss in flight"),
	EVL("exe_activity.1_ports_util", 0x02a6, SIM_SRC_EXEC_CYCLES_EQ1, 0, "cycles with exactly 1 uop executed"),
	EVL("exe_activity.2_ports_util", 0x04a6, SIM_SRC_EXEC_CYCLES_EQ2, 0, "cycles with exactly 2 uops executed"),
	EVL("exe_activity.4_ports_util", 0x10a6, SIM_SRC_EXEC_CYCLES_GE4, 0, "cycles with 4 or more uops executed"),
	EVL("exe_activity.bound_on_stores", 0x40a6, SIM_SRC_NONE, 0, "cycles the store buffer was full (no store buffer in the model)"),
	/* L1D_PEND_MISS.*: the misses' latencies (sim_source.h); no overlap
	 * in the model, so PENDING_CYCLES is PENDING and the fill buffers
	 * are never full */
	EVL("l1d_pend_miss.pending", 0x0148, SIM_SRC_L1D_PENDING, 0, "cycles of outstanding L1D load misses, summed over the misses"),
	EVL("l1d_pend_miss.pending_cycles", 0x01000148, SIM_SRC_L1D_PENDING, 0, "cycles with an L1D load miss outstanding (misses do not overlap)"),
	EVL("l1d_pend_miss.fb_full", 0x0248, SIM_SRC_NONE, 0, "requests that found the fill buffers full (never in the model)"),
	/* L2 RFOs and the super queue's offcore requests (loads and stores
	 * that missed L2), outstanding for their latency without overlap:
	 * the CYCLES_WITH forms are the sums, and 4 at once never happen */
	EVL("l2_rqsts.all_rfo", 0xe224, SIM_SRC_STORE_L1_MISS, 0, "RFO requests to L2 (stores that missed L1D)"),
	EVL("l2_rqsts.rfo_hit", 0x4224, SIM_SRC_STORE_L2_HIT, 0, "RFO requests that hit L2"),
	EVL("l2_rqsts.rfo_miss", 0x2224, SIM_SRC_STORE_L2_MISS, 0, "RFO requests that missed L2"),
	EVL("offcore_requests.demand_data_rd", 0x01b0, SIM_SRC_LOAD_L2_MISS, 0, "demand data reads sent beyond L2"),
	EVL("offcore_requests.demand_rfo", 0x04b0, SIM_SRC_STORE_L2_MISS, 0, "demand RFOs sent beyond L2"),
	EVL("offcore_requests.all_data_rd", 0x08b0, SIM_SRC_LOAD_L2_MISS, 0, "data reads sent beyond L2 (no prefetcher: the demand ones)"),
	EVL("offcore_requests.all_requests", 0x80b0, SIM_SRC_L2_MISS, 0, "requests sent beyond L2 (data lines)"),
	EVL("offcore_requests_outstanding.demand_data_rd", 0x0160, SIM_SRC_OFFCORE_RD_PENDING, 0, "outstanding demand data reads, each cycle"),
	EVL("offcore_requests_outstanding.cycles_with_demand_data_rd", 0x01000160, SIM_SRC_OFFCORE_RD_PENDING, 0, "cycles with a demand data read outstanding"),
	EVL("offcore_requests_outstanding.demand_rfo", 0x0460, SIM_SRC_OFFCORE_RFO_PENDING, 0, "outstanding demand RFOs, each cycle"),
	EVL("offcore_requests_outstanding.cycles_with_demand_rfo", 0x01000460, SIM_SRC_OFFCORE_RFO_PENDING, 0, "cycles with a demand RFO outstanding"),
	EVL("offcore_requests_outstanding.all_data_rd", 0x0860, SIM_SRC_OFFCORE_RD_PENDING, 0, "outstanding data reads, each cycle"),
	EVL("offcore_requests_outstanding.cycles_with_data_rd", 0x01000860, SIM_SRC_OFFCORE_RD_PENDING, 0, "cycles with a data read outstanding"),
	EVL("offcore_requests_outstanding.all_data_rd_c4", 0x04000860, SIM_SRC_NONE, 0, "cycles with 4 data reads outstanding (never: no overlap)"),
	EVL("offcore_requests_outstanding.demand_data_rd_ge_6", 0x06000160, SIM_SRC_NONE, 0, "cycles with 6 demand reads outstanding (never)"),
	/* the front-end model (skl_frontend); frontend_retired.any_dsb_miss
	 * is frontend_retired with config1 frontend=0x1 (intel_frontend_source) */
	EVL("idq.dsb_uops", 0x0879, SIM_SRC_DSB_UOPS, 0, "uops delivered by the decoded uop cache (DSB)"),
	EVL("idq.mite_uops", 0x0479, SIM_SRC_MITE_UOPS, 0, "uops delivered by the legacy decoders (MITE)"),
	EVL("idq.ms_uops", 0x3079, SIM_SRC_MS_UOPS, 0, "uops delivered by the microcode sequencer (MS)"),
	EVL("idq.ms_switches", 0x01043079, SIM_SRC_MS_SWITCHES, 0, "switches of uop delivery to the MS"),
	EVL("dsb2mite_switches.count", 0x01ab, SIM_SRC_DSB2MITE_SWITCHES, 0, "switches from the DSB to MITE"),
	EVL("dsb2mite_switches.penalty_cycles", 0x02ab, SIM_SRC_DSB2MITE_PENALTY, 0, "penalty cycles of DSB-to-MITE switches"),
	EVL("baclears.any", 0x01e6, SIM_SRC_BACLEARS, 0, "front-end resteers: taken direct branches the BTB did not know"),
	EVL("ild_stall.lcp", 0x0187, SIM_SRC_LCP_STALLS, 0, "decoder stall cycles on length-changing prefixes"),
	EVL("int_misc.clear_resteer_cycles", 0x800d, SIM_SRC_CLEAR_RESTEER_CYCLES, 0, "cycles waiting for the front end after a mispredict"),
	EVL("icache_16b.ifdata_stall", 0x0480, SIM_SRC_ICACHE_DATA_STALL, 0, "fetch stall cycles on L1I misses"),
	EVL("icache_16b.ifdata_stall:c1:e", 0x01040480, SIM_SRC_L1I_MISS, 0, "fetch stalls on L1I misses (their starts: the misses)"),
	EVL("icache_64b.iftag_stall", 0x0483, SIM_SRC_ICACHE_TAG_STALL, 0, "fetch stall cycles on ITLB misses"),
	EVL("offcore_response", 0x01b7, SIM_SRC_NONE, 0, "offcore response (config1: request/response)"),
	EVL("mem_trans_retired.load_latency", 0x01cd, SIM_SRC_NONE, GP4, "loads above ldlat cycles (config1)"),
	EVL("frontend_retired", 0x01c6, SIM_SRC_NONE, GP4, "front-end retired events (config1)"),
};

/* PMU_FORMAT_ATTR()s of intel_arch3_formats_attr, hsw_format_attr (RTM)
 * and skl_format_attr */
static const struct pmu_format_field skl_formats[] = {
	{ "event", "config:0-7" },
	{ "umask", "config:8-15" },
	{ "edge", "config:18" },
	{ "pc", "config:19" },
	{ "any", "config:21" },
	{ "inv", "config:23" },
	{ "cmask", "config:24-31" },
	{ "in_tx", "config:32" },
	{ "in_tx_cp", "config:33" },
	{ "offcore_rsp", "config1:0-63" },
	{ "ldlat", "config1:0-15" },
	{ "frontend", "config1:0-23" },
};

/* caps/: intel_pmu_caps_attrs, lbr_attrs, and the generic max_precise */
static const struct pmu_cap skl_caps[] = {
	{ "branches", "32" },
	{ "max_precise", "3" },
	{ "pmu_name", "skylake" },
};

/* ---- the PMUs beside "cpu" on a Skylake client (family 6 model 0x5E) ----
 *
 * msr (msr.c msr_init: tsc always; aperf/mperf with APERFMPERF; pperf and
 * smi for INTEL_FAM6_SKYLAKE, test_intel(); cpu_thermal_margin needs
 * DTHERM and a temperature: not modelled, so not registered), cstate_core
 * and cstate_pkg (cstate.c: model 0x5E uses snb_cstates, core C3/C6/C7
 * and package C2/C3/C6/C7), and the client uncore's arbitration box
 * (uncore_snb.c: skl_msr_uncores' snb_uncore_arb, "uncore_arb", two 44-bit
 * counters, snb_uncore_formats_attr, no event aliases; its events are
 * perf's skylake uncore-other.json UNC_ARB_*). What each counts:
 * docs/models.md, "The C-state model" and "The uncore arbitration box".
 */
static const struct pmu_format_field skl_event_formats[] = {
	{ "event", "config:0-63" },
};

static const struct pmu_side_event skl_msr_events[] = {
	{ .name = "tsc", .config = 0x00, .time = PMU_TIME_TSC },
	{ .name = "aperf", .config = 0x01, .time = PMU_TIME_BUSY },
	{ .name = "mperf", .config = 0x02, .time = PMU_TIME_BUSY },
	{ .name = "pperf", .config = 0x03, .time = PMU_TIME_BUSY },
	{ .name = "smi", .config = 0x04, .time = PMU_TIME_NONE },
};

static const struct pmu_side_event skl_cstate_core_events[] = {
	{ .name = "c3-residency", .config = 0x01, .time = PMU_TIME_NONE },
	{ .name = "c6-residency", .config = 0x02, .time = PMU_TIME_CORE_IDLE },
	{ .name = "c7-residency", .config = 0x03, .time = PMU_TIME_NONE },
};

static const struct pmu_side_event skl_cstate_pkg_events[] = {
	{ .name = "c2-residency", .config = 0x00, .time = PMU_TIME_NONE },
	{ .name = "c3-residency", .config = 0x01, .time = PMU_TIME_NONE },
	{ .name = "c6-residency", .config = 0x02, .time = PMU_TIME_PKG_IDLE },
	{ .name = "c7-residency", .config = 0x03, .time = PMU_TIME_NONE },
};

static const struct pmu_format_field skl_uncore_formats[] = {
	{ "event", "config:0-7" },
	{ "umask", "config:8-15" },
	{ "edge", "config:18" },
	{ "inv", "config:23" },
	{ "cmask", "config:24-28" },
};

/* UNC_ARB_*: requests the LLC sends to memory are its misses, each in the
 * tracker from the miss to the fill; the cache model has no write-backs
 * and no coherent (non-memory) requests, which count 0 */
static const struct pmu_side_event skl_arb_events[] = {
	{ .perf_name = "UNC_ARB_TRK_REQUESTS.ALL", .config = 0x0181, .source = SIM_SRC_LLC_MISS },
	{ .perf_name = "UNC_ARB_TRK_REQUESTS.DATA_READ", .config = 0x0281,
	  .source = SIM_SRC_LOAD_L3_MISS },
	{ .perf_name = "UNC_ARB_TRK_REQUESTS.WRITES", .config = 0x2081, .source = SIM_SRC_NONE },
	{ .perf_name = "UNC_ARB_TRK_OCCUPANCY.ALL", .config = 0x0180,
	  .source = SIM_SRC_MEM_REQ_OCCUPANCY },
	{ .perf_name = "UNC_ARB_TRK_OCCUPANCY.DATA_READ", .config = 0x0280,
	  .source = SIM_SRC_MEM_READ_OCCUPANCY },
	{ .perf_name = "UNC_ARB_COH_TRK_REQUESTS.ALL", .config = 0x0184, .source = SIM_SRC_NONE },
};

/* snb_uncore_arb_constraints: the occupancy events (0x80, 0x83) count on
 * counter 0 only */
static const struct pmu_side_constraint skl_arb_constraints[] = {
	{ .code = 0x80, .code_mask = 0xff, .counters = 0x1 },
	{ .code = 0x83, .code_mask = 0xff, .counters = 0x1 },
};

#define SKL_SIDE(n, k, f, e) .name = n, .kind = k, .formats = f, \
	.nr_formats = sizeof(f) / sizeof(f[0]), .events = e, .nr_events = sizeof(e) / sizeof(e[0])

/* registration order: msr.o, then intel/'s uncore and cstate drivers */
static const struct pmu_side_pmu skl_side_pmus[] = {
	{ SKL_SIDE("msr", PMU_SIDE_MSR, skl_event_formats, skl_msr_events) },
	{ SKL_SIDE("uncore_arb", PMU_SIDE_UNCORE, skl_uncore_formats, skl_arb_events),
	  .config_mask = 0x1f84ffff,   /* SNB_UNC_RAW_EVENT_MASK */
	  .select_mask = 0xffff, .threshold_mask = 0x1f000000, .modifier_mask = 0x840000,
	  .constraints = skl_arb_constraints,
	  .nr_constraints = sizeof(skl_arb_constraints) / sizeof(skl_arb_constraints[0]),
	  .nr_counters = 2, .counter_width = 44 },
	{ SKL_SIDE("cstate_core", PMU_SIDE_CSTATE_CORE, skl_event_formats, skl_cstate_core_events) },
	{ SKL_SIDE("cstate_pkg", PMU_SIDE_CSTATE_PKG, skl_event_formats, skl_cstate_pkg_events) },
};

const struct pmu_model pmu_model_skylake = {
	.name = "skylake",
	.summary = "Intel Skylake client core PMU (family 6 model 0x5e)",
	.arch = PMU_ARCH_X86_INTEL,
	.pmu_name = "cpu",
	.pmu_type = PERF_TYPE_RAW,
	.nr_gp_counters = 4,
	.gp_width = 48,
	.nr_fixed_counters = 3,
	.fixed_width = 48,
	.raw_config_mask = X86_RAW_EVENT_MASK | X86_EVENTSEL_ANY | X86_HSW_IN_TX | X86_HSW_IN_TX_CP,
	.max_precise = 3,
	.sampling_exclude_ok = true,
	/* intel_perfmon_event_map: Skylake sets no stalled-cycles entries */
	.generic_map = {
		[PERF_COUNT_HW_CPU_CYCLES] = 0x003c,
		[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
		[PERF_COUNT_HW_CACHE_REFERENCES] = 0x4f2e,
		[PERF_COUNT_HW_CACHE_MISSES] = 0x412e,
		[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c4,
		[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c5,
		[PERF_COUNT_HW_BUS_CYCLES] = 0x013c,
		[PERF_COUNT_HW_REF_CPU_CYCLES] = 0x0300, /* pseudo-encoding */
	},
	/* skl_hw_cache_event_ids */
	.cache_map = {
		[C(L1D)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x81d0, [C(RESULT_MISS)] = 0x151 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = 0x82d0, [C(RESULT_MISS)] = 0x0 },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = 0x0, [C(RESULT_MISS)] = 0x0 },
		},
		[C(L1I)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x0, [C(RESULT_MISS)] = 0x283 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = 0x0, [C(RESULT_MISS)] = 0x0 },
		},
		[C(LL)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x1b7, [C(RESULT_MISS)] = 0x1b7 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = 0x1b7, [C(RESULT_MISS)] = 0x1b7 },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = 0x0, [C(RESULT_MISS)] = 0x0 },
		},
		[C(DTLB)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x81d0, [C(RESULT_MISS)] = 0xe08 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = 0x82d0, [C(RESULT_MISS)] = 0xe49 },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = 0x0, [C(RESULT_MISS)] = 0x0 },
		},
		[C(ITLB)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x2085, [C(RESULT_MISS)] = 0xe85 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
		},
		[C(BPU)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0xc4, [C(RESULT_MISS)] = 0xc5 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
		},
		[C(NODE)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x1b7, [C(RESULT_MISS)] = 0x1b7 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = 0x1b7, [C(RESULT_MISS)] = 0x1b7 },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = 0x0, [C(RESULT_MISS)] = 0x0 },
		},
	},
	.events = skl_events,
	.nr_events = sizeof(skl_events) / sizeof(skl_events[0]),
	.formats = skl_formats,
	.nr_formats = sizeof(skl_formats) / sizeof(skl_formats[0]),
	.caps = skl_caps,
	.nr_caps = sizeof(skl_caps) / sizeof(skl_caps[0]),
	.cpu = {
		.vendor = "GenuineIntel",
		.family = 6,
		.model = 0x5e,
		.stepping = 3,
		.brand = "Intel(R) Core(TM) pmusim-skylake CPU @ 3.00GHz",
		.perfmon_version = 4,
		.pfm_name = "skl",
		.perf_cpuid = "GenuineIntel-6-5E-3",
	},
	.freq_hz = UINT64_C(3000000000),
	.tsc_hz = UINT64_C(3000000000),
	.mux_interval_ms = 4,
	.caches = &skl_caches,
	.pipeline = &skl_pipeline,
	.frontend = &skl_frontend,
	.ops = &x86_counter_ops,
	.arch_data = &skl_arch,
	.side_pmus = skl_side_pmus,
	.nr_side_pmus = sizeof(skl_side_pmus) / sizeof(skl_side_pmus[0]),
};
