/*
 * amd_zen.c - the "zen" model: the core PMU of an AMD Zen (family 17h,
 * model 1) as arch/x86/events/amd/core.c sets it up: 6 general counters of
 * 48 bits (PERFCTR_CORE), no fixed counters, no IBS and no branch stack
 * (so precise_ip and branch sampling are refused), the Large Increment per
 * Cycle pair constraint for event 0x03 (PMU_FL_PAIR).
 *
 * Tables copied from the kernel: amd_zen1_perfmon_event_map (formerly
 * amd_f17h_perfmon_event_map), amd_hw_cache_event_ids_f17h, the
 * amd_format_attr formats, amd_get_event_constraints_f17h().
 */
#include "pmu_models/model_internal.h"

#define C(x) PERF_COUNT_HW_CACHE_##x

static const struct x86_arch_data zen_arch = {
	.version = 0,                /* no architectural perfmon version */
	.lbr_nr = 0,
	.pebs_format = 0,
	.bts = false,
	.rtm = false,
	.hsw_hw_config = false,
	.pebs_aliases_skl = false,
	.pair_event = 0x03,          /* amd_is_pair_event_code(): Retired SSE/AVX FLOPs */
};

#define EVEN6 UINT64_C(0x15)         /* pair_constraint: counters 0, 2, 4 */

/*
 * Caches and TLBs of a Zen core (family 17h model 01h, a Ryzen 7 1800X
 * class part): AMD Software Optimization Guide for AMD Family 17h
 * Processors (55723), sections "Instruction Cache" (64 KiB 4-way), "L1
 * Data Cache" (32 KiB 8-way, 4-cycle integer load-to-use), "L2 Cache"
 * (512 KiB 8-way per core), "L3 Cache" (8 MiB 16-way per CCX), 64-byte
 * lines; "Translation-Lookaside Buffers" (4 KiB pages: L1 ITLB 64 entries
 * and L1 DTLB 64 entries fully associative, L2 ITLB 512 entries 8-way, L2
 * DTLB 1536 entries 12-way, separate for instructions and data). L2 and L3
 * latencies as measured on a Ryzen 7 1800X (7-cpu.com "AMD Zen"): 17 and
 * about 40 cycles, RAM about 40 cycles + 80 ns (280 cycles at the model's
 * clock). A page walk costs the model 20 cycles (no vendor figure).
 */
static const struct pmu_cache_geometry zen_caches = {
	.l1i = { .size = 64 << 10, .ways = 4, .line = 64, .latency = 4 },
	.l1d = { .size = 32 << 10, .ways = 8, .line = 64, .latency = 4 },
	.l2 = { .size = 512 << 10, .ways = 8, .line = 64, .latency = 17 },
	.llc = { .size = 8 << 20, .ways = 16, .line = 64, .latency = 40 },
	.mem_latency = 280,
	.itlb = { .entries = 64, .ways = 64 },
	.dtlb = { .entries = 64, .ways = 64 },
	.itlb2 = { .entries = 512, .ways = 8 },
	.dtlb2 = { .entries = 1536, .ways = 12 },
	.walk_cycles = 20,
};

/*
 * The pipeline of a Zen core: AMD Software Optimization Guide for AMD
 * Family 17h Processors (55723), "Dispatch" (up to 6 macro-ops dispatched
 * a cycle; the model issues and retires 6 a cycle, where the hardware
 * retires 8) and "Branch Prediction" (a mispredict costs 12 to 18
 * cycles: 15 here, of which model values 8 issue wrong-path ops and 2
 * recover); the "Integer Execution" latencies (IMUL 3; DIV r64 up to about
 * 45, 26 here). Macro-op counts of CALL, RET, DIV and a load-op-store
 * follow the guide's instruction latency tables (2, 2, 2, 2).
 */
static const struct pmu_pipeline zen_pipeline = {
	.issue_width = 6,
	.mispredict_cycles = 15,
	.wrong_path_cycles = 8,
	.recovery_cycles = 2,
	.mul_latency = 3,
	.div_latency = 26,
	.div_uops = 2,
	.call_uops = 2,
	.ret_uops = 2,
	.rmw_uops = 2,
};

static const struct pmu_event_desc zen_events[] = {
	/*
	 * events/: events_attr of arch/x86/events/core.c, shown by is_visible()
	 * where amd_zen1_perfmon_event_map has an entry (no bus-cycles, no
	 * ref-cycles); amd_pmu_init() adds no other events/ group for family
	 * 17h model 1 (branch-brs needs BRS, Zen 3 on).
	 */
	EV("cpu-cycles", 0x0076, SIM_SRC_CYCLES, 0, "core cycles not halted (LS_NOT_HALTED_CYC)"),
	EV("instructions", 0x00c0, SIM_SRC_INSTRUCTIONS, 0, "retired instructions (EX_RET_INSTR)"),
	EV("cache-references", 0xff60, SIM_SRC_L2_ACCESS, 0, "L2 cache requests (L2_REQUEST_G1.ALL)"),
	EV("cache-misses", 0x0964, SIM_SRC_L2_MISS, 0, "L2 cache misses (L2_CACHE_REQ_STAT.IC_DC_MISS_IN_L2)"),
	EV("branch-instructions", 0x00c2, SIM_SRC_BRANCHES, 0, "retired branches (EX_RET_BRN)"),
	EV("branch-misses", 0x00c3, SIM_SRC_BRANCH_MISSES, 0, "retired mispredicted branches (EX_RET_BRN_MISP)"),
	EV("stalled-cycles-frontend", 0x0287, SIM_SRC_STALLED_FRONTEND, 0, "instruction fetch stall cycles (IC_FETCH_STALL.IC_STALL_DQ_EMPTY)"),
	EV("stalled-cycles-backend", 0x0187, SIM_SRC_STALLED_BACKEND, 0, "fetch stall cycles from back pressure (IC_FETCH_STALL.IC_STALL_BACK_PRESSURE)"),
	/* Zen raw events (AMD PPR for family 17h model 01h): no events/ file,
	 * perf resolves them from its amdzen1 pmu-events table, whose names
	 * these are */
	EVL("ls_not_halted_cyc", 0x0076, SIM_SRC_CYCLES, 0, "core cycles not halted"),
	EVL("ex_ret_instr", 0x00c0, SIM_SRC_INSTRUCTIONS, 0, "retired instructions"),
	EVL("ex_ret_brn", 0x00c2, SIM_SRC_BRANCHES, 0, "retired branches"),
	EVL("ex_ret_brn_misp", 0x00c3, SIM_SRC_BRANCH_MISSES, 0, "retired mispredicted branches"),
	EVL("ex_ret_cops", 0x00c1, SIM_SRC_UOPS_RETIRED, 0, "retired macro-ops"),
	EVL("ex_ret_brn_tkn", 0x00c4, SIM_SRC_TAKEN_BRANCHES, 0, "retired taken branches"),
	EVL("ex_ret_near_ret", 0x00c8, SIM_SRC_RETURNS, 0, "retired near returns"),
	EVL("ex_ret_cond", 0x00d1, SIM_SRC_COND_BRANCHES, 0, "retired conditional branches"),
	EVL("ls_dispatch.ld_dispatch", 0x0129, SIM_SRC_LOADS, 0, "load operations dispatched (no speculation: retired loads)"),
	EVL("ls_dispatch.store_dispatch", 0x0229, SIM_SRC_STORES, 0, "store operations dispatched (no speculation: retired stores)"),
	EVL("ls_dc_accesses", 0x0040, SIM_SRC_L1D_ACCESS, 0, "data cache accesses"),
	EVL("l2_cache_accesses_from_dc_misses", 0xc860, SIM_SRC_L1D_MISS, 0, "L2 accesses from data cache misses"),
	/* amd_hw_cache_event_ids_f17h's L1D prefetch access; no name in perf's
	 * amdzen1 table (reach it as cpu/event=0x5a,umask=0xff/ or
	 * L1-dcache-prefetches) */
	EVL("ls_refills_from_sys.hw_pf", 0xff5a, SIM_SRC_NONE, 0, "data cache fills by hardware prefetch"),
	EVL("ic_fw32", 0x0080, SIM_SRC_L1I_ACCESS, 0, "instruction cache fetches (32 bytes)"),
	EVL("ic_fw32_miss", 0x0081, SIM_SRC_L1I_MISS, 0, "instruction cache misses"),
	EVL("l2_cache_req_stat.ic_dc_miss_in_l2", 0x0964, SIM_SRC_L2_MISS, 0, "L2 cache misses"),
	EVL("ls_l1_d_tlb_miss.all", 0xff45, SIM_SRC_DTLB_L1_MISS, 0, "L1 dTLB misses (L2 dTLB accesses)"),
	EVL("l2_dtlb_misses", 0xf045, SIM_SRC_DTLB_MISS, 0, "L2 dTLB misses (page walks)"),
	EVL("bp_l1_tlb_miss_l2_hit", 0x0084, SIM_SRC_ITLB_L2_HIT, 0, "L1 iTLB misses that hit the L2 iTLB"),
	/* 0xff85 is amd_hw_cache_event_ids_f17h's iTLB miss; perf's amdzen1
	 * table names event 0x85 with no unit mask (no page size selected:
	 * counts nothing here) bp_l1_tlb_miss_l2_miss, 0x0785 l2_itlb_misses */
	EVL("bp_l1_tlb_miss_l2_miss", 0xff85, SIM_SRC_ITLB_MISS, 0, "iTLB misses in both levels"),
	EVL("l2_itlb_misses", 0x0785, SIM_SRC_ITLB_MISS, 0, "iTLB misses in both levels, 4K, 2M and 1G pages"),
	EVL("fp_ret_sse_avx_ops.all", 0xff03, SIM_SRC_NONE, EVEN6, "retired SSE/AVX FLOPs (even counter pair only)"),
};

/* amd_format_attr */
static const struct pmu_format_field zen_formats[] = {
	{ "event", "config:0-7,32-35" },
	{ "umask", "config:8-15" },
	{ "edge", "config:18" },
	{ "inv", "config:23" },
	{ "cmask", "config:24-31" },
};

/* x86_pmu_caps_attrs: max_precise (0 without IBS) */
static const struct pmu_cap zen_caps[] = {
	{ "max_precise", "0" },
};

const struct pmu_model pmu_model_zen = {
	.name = "zen",
	.summary = "AMD Zen core PMU (family 17h model 1), no IBS",
	.arch = PMU_ARCH_X86_AMD,
	.pmu_name = "cpu",
	.pmu_type = PERF_TYPE_RAW,
	.nr_gp_counters = 6,
	.gp_width = 48,
	.nr_fixed_counters = 0,
	.fixed_width = 0,
	.raw_config_mask = X86_AMD64_RAW_EVENT_MASK,
	.max_precise = 0,
	.sampling_exclude_ok = true,
	/* amd_zen1_perfmon_event_map */
	.generic_map = {
		[PERF_COUNT_HW_CPU_CYCLES] = 0x0076,
		[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
		[PERF_COUNT_HW_CACHE_REFERENCES] = 0xff60,
		[PERF_COUNT_HW_CACHE_MISSES] = 0x0964,
		[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c2,
		[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c3,
		[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x0287,
		[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = 0x0187,
	},
	/* amd_hw_cache_event_ids_f17h */
	.cache_map = {
		[C(L1D)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x0040, [C(RESULT_MISS)] = 0xc860 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = 0, [C(RESULT_MISS)] = 0 },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = 0xff5a, [C(RESULT_MISS)] = 0 },
		},
		[C(L1I)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x0080, [C(RESULT_MISS)] = 0x0081 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = 0, [C(RESULT_MISS)] = 0 },
		},
		[C(LL)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0, [C(RESULT_MISS)] = 0 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = 0, [C(RESULT_MISS)] = 0 },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = 0, [C(RESULT_MISS)] = 0 },
		},
		[C(DTLB)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0xff45, [C(RESULT_MISS)] = 0xf045 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = 0, [C(RESULT_MISS)] = 0 },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = 0, [C(RESULT_MISS)] = 0 },
		},
		[C(ITLB)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x0084, [C(RESULT_MISS)] = 0xff85 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
		},
		[C(BPU)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x00c2, [C(RESULT_MISS)] = 0x00c3 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
		},
		[C(NODE)] = {
			[C(OP_READ)] = { [C(RESULT_ACCESS)] = 0, [C(RESULT_MISS)] = 0 },
			[C(OP_WRITE)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
			[C(OP_PREFETCH)] = { [C(RESULT_ACCESS)] = PMU_MAP_INVALID, [C(RESULT_MISS)] = PMU_MAP_INVALID },
		},
	},
	.events = zen_events,
	.nr_events = sizeof(zen_events) / sizeof(zen_events[0]),
	.formats = zen_formats,
	.nr_formats = sizeof(zen_formats) / sizeof(zen_formats[0]),
	.caps = zen_caps,
	.nr_caps = sizeof(zen_caps) / sizeof(zen_caps[0]),
	.cpu = {
		.vendor = "AuthenticAMD",
		.family = 0x17,
		.model = 1,
		.stepping = 1,
		.brand = "AMD Ryzen pmusim-zen @ 3.00GHz",
		.perfmon_version = 0,
		.pfm_name = "amd64_fam17h_zen1",
		.perf_cpuid = "AuthenticAMD-23-1-1",
	},
	.freq_hz = UINT64_C(3000000000),
	.tsc_hz = UINT64_C(3000000000),
	.mux_interval_ms = 4,
	.ops = &x86_counter_ops,
	.caches = &zen_caches,
	.pipeline = &zen_pipeline,
	.arch_data = &zen_arch,
};
