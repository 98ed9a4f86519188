/*
 * arm_pmuv3.c - the Arm PMUv3 models as drivers/perf/arm_pmuv3.c sets them
 * up through the ACPI probe ("armv8_pmuv3_0", generic map_event):
 *  - "pmuv3": a Cortex-A72-like core, PMUv3 (v8.0): 6 event counters of
 *    32 bits, the 64-bit cycle counter, 64-bit events on chained pairs
 *    (config1:0 "long"), PMCEID0 0x7fff0f3f / PMCEID1 0 as the A72 has;
 *    a host kernel at EL1 (no VHE);
 *  - "pmuv3p5": a Neoverse-N2-like core, PMUv3p5: 6 event counters of 64
 *    bits (no chaining), the v8.1+ common events of PMCEID1; a VHE host
 *    kernel at EL2.
 *
 * Tables copied from the kernel: armv8_pmuv3_perf_map,
 * armv8_pmuv3_perf_cache_map, armv8_pmuv3_event_attrs (names and
 * numbers; sysfs shows only what PMCEID says is implemented),
 * armv8_pmuv3_format_attrs, armv8_pmuv3_caps_attrs.
 */
#include "pmu_models/model_internal.h"

#define C(x) PERF_COUNT_HW_CACHE_##x
#define BIT32(n) (UINT64_C(1) << ((n) % 32))

/* The common events the two cores implement (PMCEID0: events 0x00-0x1f) */
#define PMCEID0_A72 UINT64_C(0x7fff0f3f)
/* PMCEID1 (events 0x20-0x3f) of the N2-like core */
#define PMCEID1_N2 (BIT32(0x20) | BIT32(0x21) | BIT32(0x22) | BIT32(0x23) | BIT32(0x24) | \
		    BIT32(0x25) | BIT32(0x26) | BIT32(0x29) | BIT32(0x2a) | BIT32(0x2b) | \
		    BIT32(0x2d) | BIT32(0x2f) | BIT32(0x31) | BIT32(0x34) | BIT32(0x35) | \
		    BIT32(0x36) | BIT32(0x37) | BIT32(0x39) | BIT32(0x3a) | BIT32(0x3b) | \
		    BIT32(0x3c) | BIT32(0x3d) | BIT32(0x3e))

/* The A72 is ARMv8.0: no VHE, the host kernel runs at EL1 */
static const struct pmuv3_arch_data a72_arch = {
	.has_evt_count_64 = false,
	.has_rdpmc_format = true,
	.pmceid = { PMCEID0_A72, 0 },
	.kernel_el = PMUV3_HOST_NVHE,
};

/* The N2 (ARMv9.0) has VHE: the host kernel runs at EL2 */
static const struct pmuv3_arch_data n2_arch = {
	.has_evt_count_64 = true,
	.has_rdpmc_format = true,
	.pmceid = { PMCEID0_A72, PMCEID1_N2 },
	.kernel_el = PMUV3_HOST_VHE,
};

#define CYC (UINT64_C(1) << ARMV8_IDX_CYCLE_COUNTER)
#define EV6 (UINT64_C(0x3f) << ARMV8_IDX_COUNTER0)

/* PMCEID0 events, in armv8_pmuv3_event_attrs order */
#define PMUV3_COMMON_EVENTS \
	EV("sw_incr", 0x00, SIM_SRC_NONE, 0, "software increment (PMSWINC_EL0 writes)"), \
	EV("l1i_cache_refill", 0x01, SIM_SRC_L1I_MISS, 0, "L1 instruction cache refills"), \
	EV("l1i_tlb_refill", 0x02, SIM_SRC_ITLB_L1_MISS, 0, "L1 instruction TLB refills"), \
	EV("l1d_cache_refill", 0x03, SIM_SRC_L1D_MISS, 0, "L1 data cache refills"), \
	EV("l1d_cache", 0x04, SIM_SRC_L1D_ACCESS, 0, "L1 data cache accesses"), \
	EV("l1d_tlb_refill", 0x05, SIM_SRC_DTLB_L1_MISS, 0, "L1 data TLB refills"), \
	EV("inst_retired", 0x08, SIM_SRC_INSTRUCTIONS, 0, "instructions architecturally executed"), \
	EV("exc_taken", 0x09, SIM_SRC_NONE, 0, "exceptions taken"), \
	EV("exc_return", 0x0a, SIM_SRC_NONE, 0, "exception returns"), \
	EV("cid_write_retired", 0x0b, SIM_SRC_NONE, 0, "CONTEXTIDR writes"), \
	EV("br_mis_pred", 0x10, SIM_SRC_BRANCH_MISSES, 0, "mispredicted or not predicted branches"), \
	EV("cpu_cycles", 0x11, SIM_SRC_CYCLES, 0, "cycles (cycle counter or an event counter)"), \
	EV("br_pred", 0x12, SIM_SRC_BRANCHES, 0, "predictable branches executed (no speculation: all branches)"), \
	EV("mem_access", 0x13, SIM_SRC_L1D_ACCESS, 0, "data memory accesses"), \
	EV("l1i_cache", 0x14, SIM_SRC_L1I_ACCESS, 0, "L1 instruction cache accesses"), \
	EV("l1d_cache_wb", 0x15, SIM_SRC_NONE, 0, "L1 data cache write-backs"), \
	EV("l2d_cache", 0x16, L2_ACCESS_SRC, 0, "L2 data cache accesses"), \
	EV("l2d_cache_refill", 0x17, L2_MISS_SRC, 0, "L2 data cache refills"), \
	EV("l2d_cache_wb", 0x18, SIM_SRC_NONE, 0, "L2 data cache write-backs"), \
	EV("bus_access", 0x19, SIM_SRC_NONE, 0, "bus accesses"), \
	EV("memory_error", 0x1a, SIM_SRC_NONE, 0, "local memory errors"), \
	EV("inst_spec", 0x1b, SIM_SRC_INSTRUCTIONS, 0, "instructions speculatively executed (no speculation: retired)"), \
	EV("ttbr_write_retired", 0x1c, SIM_SRC_NONE, 0, "TTBR writes"), \
	EV("bus_cycles", 0x1d, SIM_SRC_BUS_CYCLES, 0, "bus cycles")

/* On the A72-like core L2 is the last level */
#define L2_ACCESS_SRC SIM_SRC_LLC_ACCESS
#define L2_MISS_SRC SIM_SRC_LLC_MISS
static const struct pmu_event_desc a72_events[] = {
	PMUV3_COMMON_EVENTS,
};
#undef L2_ACCESS_SRC
#undef L2_MISS_SRC

/* On the N2-like core the last level is the system cache (LL_CACHE_*) */
#define L2_ACCESS_SRC SIM_SRC_NONE
#define L2_MISS_SRC SIM_SRC_NONE
static const struct pmu_event_desc n2_events[] = {
	PMUV3_COMMON_EVENTS,
	EV("l2d_cache_allocate", 0x20, SIM_SRC_NONE, 0, "L2 allocations without refill"),
	EV("br_retired", 0x21, SIM_SRC_BRANCHES, 0, "branches architecturally executed"),
	EV("br_mis_pred_retired", 0x22, SIM_SRC_BRANCH_MISSES, 0, "mispredicted branches retired"),
	EV("stall_frontend", 0x23, SIM_SRC_STALLED_FRONTEND, 0, "cycles without operations from the front end"),
	EV("stall_backend", 0x24, SIM_SRC_STALLED_BACKEND, 0, "cycles the back end could not accept operations"),
	EV("l1d_tlb", 0x25, SIM_SRC_DTLB_ACCESS, 0, "L1 data TLB accesses"),
	EV("l1i_tlb", 0x26, SIM_SRC_ITLB_ACCESS, 0, "L1 instruction TLB accesses"),
	EV("l3d_cache_allocate", 0x29, SIM_SRC_NONE, 0, "L3 allocations without refill"),
	EV("l3d_cache_refill", 0x2a, SIM_SRC_NONE, 0, "L3 data cache refills"),
	EV("l3d_cache", 0x2b, SIM_SRC_NONE, 0, "L3 data cache accesses"),
	EV("l2d_tlb_refill", 0x2d, SIM_SRC_NONE, 0, "L2 data TLB refills"),
	EV("l2d_tlb", 0x2f, SIM_SRC_NONE, 0, "L2 data TLB accesses"),
	EV("remote_access", 0x31, SIM_SRC_NONE, 0, "accesses to another socket"),
	EV("dtlb_walk", 0x34, SIM_SRC_DTLB_MISS, 0, "data TLB walks"),
	EV("itlb_walk", 0x35, SIM_SRC_ITLB_MISS, 0, "instruction TLB walks"),
	EV("ll_cache_rd", 0x36, SIM_SRC_LLC_ACCESS, 0, "last-level cache reads"),
	EV("ll_cache_miss_rd", 0x37, SIM_SRC_LLC_MISS, 0, "last-level cache read misses"),
	EV("l1d_cache_lmiss_rd", 0x39, SIM_SRC_NONE, 0, "L1D long-latency read misses"),
	EV("op_retired", 0x3a, SIM_SRC_UOPS_RETIRED, 0, "micro-operations retired"),
	EV("op_spec", 0x3b, SIM_SRC_UOPS_ISSUED, 0, "micro-operations speculatively executed"),
	EV("stall", 0x3c, SIM_SRC_NONE, 0, "cycles without dispatch"),
	EV("stall_slot_backend", 0x3d, SIM_SRC_NONE, 0, "slots without back-end dispatch"),
	EV("stall_slot_frontend", 0x3e, SIM_SRC_NONE, 0, "slots without front-end operations"),
};
#undef L2_ACCESS_SRC
#undef L2_MISS_SRC

/* armv8_pmuv3_format_attrs */
static const struct pmu_format_field pmuv3_formats[] = {
	{ "event", "config:0-15" },
	{ "long", "config1:0" },
	{ "rdpmc", "config1:1" },
};

/* armv8_pmuv3_caps_attrs: PMMIR reads as 0 (not read before PMUv3p4, and
 * the N2-like core does not advertise STALL_SLOT, PMCEID1 bit 31) */
static const struct pmu_cap pmuv3_caps[] = {
	{ "slots", "0x00000000" },
	{ "bus_slots", "0x00000000" },
	{ "bus_width", "0x00000000" },
};

/* armv8_pmuv3_perf_map: BRANCH_INSTRUCTIONS is decided from PMCEID by
 * __armv8_pmuv3_map_event_id(), REF_CPU_CYCLES unsupported */
#define PMUV3_GENERIC_MAP { \
	[PERF_COUNT_HW_CPU_CYCLES] = 0x11,             /* CPU_CYCLES */ \
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x08,           /* INST_RETIRED */ \
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0x04,       /* L1D_CACHE */ \
	[PERF_COUNT_HW_CACHE_MISSES] = 0x03,           /* L1D_CACHE_REFILL */ \
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x10,          /* BR_MIS_PRED */ \
	[PERF_COUNT_HW_BUS_CYCLES] = 0x1d,             /* BUS_CYCLES */ \
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x23, /* STALL_FRONTEND */ \
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = 0x24, /* STALL_BACKEND */ \
}

/* armv8_pmuv3_perf_cache_map (0 = CACHE_OP_UNSUPPORTED: no entry is
 * SW_INCR) */
#define PMUV3_CACHE_MAP { \
	[C(L1D)] = { [C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x04, [C(RESULT_MISS)] = 0x03 } }, \
	[C(L1I)] = { [C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x14, [C(RESULT_MISS)] = 0x01 } }, \
	[C(LL)] = { [C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x36, [C(RESULT_MISS)] = 0x37 } }, \
	[C(DTLB)] = { [C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x25, [C(RESULT_MISS)] = 0x05 } }, \
	[C(ITLB)] = { [C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x26, [C(RESULT_MISS)] = 0x02 } }, \
	[C(BPU)] = { [C(OP_READ)] = { [C(RESULT_ACCESS)] = 0x12, [C(RESULT_MISS)] = 0x10 } }, \
}

/*
 * The pipelines: Cortex-A72 TRM (100095), "About the processor": a 3-wide
 * decode and dispatch of up to 5 micro-ops a cycle (3 here: the decode
 * width bounds the sustained rate); Neoverse N2 TRM (102099): a 5-wide
 * decode and dispatch (5 here). Mispredict costs, latencies and micro-op
 * counts are model values (the TRMs give none): 15 cycles for the A72's
 * 15-stage pipeline, 11 for the N2's shorter one; MUL 3, DIV 12.
 */
static const struct pmu_pipeline a72_pipeline = {
	.issue_width = 3,
	.mispredict_cycles = 15,
	.wrong_path_cycles = 8,
	.recovery_cycles = 2,
	.mul_latency = 3,
	.div_latency = 12,
	.div_uops = 1,
	.call_uops = 1,
	.ret_uops = 1,
	.rmw_uops = 2,
};

static const struct pmu_pipeline n2_pipeline = {
	.issue_width = 5,
	.mispredict_cycles = 11,
	.wrong_path_cycles = 6,
	.recovery_cycles = 2,
	.mul_latency = 3,
	.div_latency = 12,
	.div_uops = 1,
	.call_uops = 1,
	.ret_uops = 1,
	.rmw_uops = 2,
};

/*
 * Caches and TLBs of the Cortex-A72-like core: Arm Cortex-A72 MPCore
 * Processor Technical Reference Manual (100095), "Level 1 memory system"
 * (L1I 48 KiB 3-way, L1D 32 KiB 2-way, 64-byte lines; a 48-entry fully
 * associative L1 instruction TLB, a 32-entry fully associative L1 data
 * TLB), "Level 2 memory system" (L2 512 KiB to 4 MiB, 16-way, 64-byte
 * lines: 1 MiB here) and "L2 TLB" (1024 entries 4-way, unified). The A72
 * has no L3: its L2 is the last level, so the LLC is the same cache (the
 * model's LLC level repeats L2's outcome). Latencies are model values
 * (the TRM gives none): L1D 4, L2 21 cycles, memory 100 ns (200 cycles at
 * 2 GHz); a page walk 20 cycles.
 */
static const struct pmu_cache_geometry a72_caches = {
	.l1i = { .size = 48 << 10, .ways = 3, .line = 64, .latency = 4 },
	.l1d = { .size = 32 << 10, .ways = 2, .line = 64, .latency = 4 },
	.l2 = { .size = 1 << 20, .ways = 16, .line = 64, .latency = 21 },
	.llc = { .size = 1 << 20, .ways = 16, .line = 64, .latency = 21 },
	.mem_latency = 200,
	.itlb = { .entries = 48, .ways = 48 },
	.dtlb = { .entries = 32, .ways = 32 },
	.dtlb2 = { .entries = 1024, .ways = 4 },
	.l2tlb_unified = true,
	.walk_cycles = 20,
};

/*
 * Caches and TLBs of the Neoverse-N2-like core: Arm Neoverse N2 Core
 * Technical Reference Manual (102099), "L1 instruction memory system" (64
 * KiB 4-way, 64-byte lines, a 48-entry fully associative L1 instruction
 * TLB), "L1 data memory system" (64 KiB 4-way, a 48-entry fully associative
 * L1 data TLB), "L2 memory system" (512 KiB or 1 MiB 8-way: 1 MiB here) and
 * the unified L2 TLB (1536 entries 6-way). The last level is the
 * interconnect's system-level cache, whose size the system chooses: 32 MiB
 * 16-way here. Latencies are model values (the TRM gives none): L1D 4, L2
 * 11, SLC 35 cycles, memory 100 ns (200 cycles at 2 GHz); a page walk 20
 * cycles.
 */
static const struct pmu_cache_geometry n2_caches = {
	.l1i = { .size = 64 << 10, .ways = 4, .line = 64, .latency = 4 },
	.l1d = { .size = 64 << 10, .ways = 4, .line = 64, .latency = 4 },
	.l2 = { .size = 1 << 20, .ways = 8, .line = 64, .latency = 11 },
	.llc = { .size = 32 << 20, .ways = 16, .line = 64, .latency = 35 },
	.mem_latency = 200,
	.itlb = { .entries = 48, .ways = 48 },
	.dtlb = { .entries = 48, .ways = 48 },
	.dtlb2 = { .entries = 1536, .ways = 6 },
	.l2tlb_unified = true,
	.walk_cycles = 20,
};

const struct pmu_model pmu_model_pmuv3 = {
	.name = "pmuv3",
	.summary = "Arm PMUv3, Cortex-A72-like (32-bit counters, chained pairs)",
	.arch = PMU_ARCH_ARM_PMUV3,
	.pmu_name = "armv8_pmuv3_0",
	.pmu_type = 10,
	.nr_gp_counters = 6,
	.gp_width = 32,
	.nr_fixed_counters = 0,
	.fixed_width = 0,
	.has_cycle_counter = true,
	.chain_for_64bit = true,
	.raw_config_mask = ARMV8_PMU_EVTYPE_EVENT,
	.max_precise = 3,              /* arm_pmu ignores precise_ip */
	.sampling_exclude_ok = false,  /* exclude_idle -> -EOPNOTSUPP */
	.generic_map = PMUV3_GENERIC_MAP,
	.cache_map = PMUV3_CACHE_MAP,
	.events = a72_events,
	.nr_events = sizeof(a72_events) / sizeof(a72_events[0]),
	.formats = pmuv3_formats,
	.nr_formats = sizeof(pmuv3_formats) / sizeof(pmuv3_formats[0]),
	.caps = pmuv3_caps,
	.nr_caps = sizeof(pmuv3_caps) / sizeof(pmuv3_caps[0]),
	.cpu = {
		.vendor = "ARM",
		.family = 8,
		.model = 0xd08,
		.stepping = 3,
		.midr = 0x410fd083,
		.brand = "Cortex-A72 (pmusim pmuv3 model)",
		.perfmon_version = 1,      /* ID_AA64DFR0_EL1.PMUVer: PMUv3 */
		.pfm_name = "arm_ac72",
		.perf_cpuid = "0x00000000410fd083",
	},
	.freq_hz = UINT64_C(2000000000),
	.tsc_hz = UINT64_C(1000000000),   /* CNTFRQ_EL0 */
	.mux_interval_ms = 4,
	.ops = &pmuv3_counter_ops,
	.caches = &a72_caches,
	.pipeline = &a72_pipeline,
	.arch_data = &a72_arch,
};

const struct pmu_model pmu_model_pmuv3p5 = {
	.name = "pmuv3p5",
	.summary = "Arm PMUv3p5, Neoverse-N2-like (64-bit event counters)",
	.arch = PMU_ARCH_ARM_PMUV3,
	.pmu_name = "armv8_pmuv3_0",
	.pmu_type = 10,
	.nr_gp_counters = 6,
	.gp_width = 64,
	.nr_fixed_counters = 0,
	.fixed_width = 0,
	.has_cycle_counter = true,
	.chain_for_64bit = false,
	.raw_config_mask = ARMV8_PMU_EVTYPE_EVENT,
	.max_precise = 3,
	.sampling_exclude_ok = false,
	.generic_map = PMUV3_GENERIC_MAP,
	.cache_map = PMUV3_CACHE_MAP,
	.events = n2_events,
	.nr_events = sizeof(n2_events) / sizeof(n2_events[0]),
	.formats = pmuv3_formats,
	.nr_formats = sizeof(pmuv3_formats) / sizeof(pmuv3_formats[0]),
	.caps = pmuv3_caps,
	.nr_caps = sizeof(pmuv3_caps) / sizeof(pmuv3_caps[0]),
	.cpu = {
		.vendor = "ARM",
		.family = 8,
		.model = 0xd49,
		.stepping = 0,
		.midr = 0x410fd490,
		.brand = "Neoverse-N2 (pmusim pmuv3p5 model)",
		.perfmon_version = 6,      /* ID_AA64DFR0_EL1.PMUVer: PMUv3p5 */
		.pfm_name = "arm_n2",
		.perf_cpuid = "0x00000000410fd490",
	},
	.freq_hz = UINT64_C(2000000000),
	.tsc_hz = UINT64_C(1000000000),   /* CNTFRQ_EL0 */
	.mux_interval_ms = 4,
	.ops = &pmuv3_counter_ops,
	.caches = &n2_caches,
	.pipeline = &n2_pipeline,
	.arch_data = &n2_arch,
};
