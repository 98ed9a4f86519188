/*
 * pmu_model.h - the schema of a PMU description.
 *
 * A model is pure data (designated initialisers, in the style of libpfm4):
 * counters and widths, the event encodings it has and which machine
 * quantity each counts, counter constraints, the generic and HW_CACHE maps,
 * sysfs format/ and events/ strings, caps, the PMU type number and name, and
 * the CPU identity. The only behaviour is in the counter allocator the model
 * names (x86 constraint scheduling or PMUv3 with its cycle counter and
 * chained pairs), reached through struct pmu_counter_ops.
 */
#ifndef PMUSIM_PMU_MODEL_H
#define PMUSIM_PMU_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "pmu_models/sim_source.h"

enum pmu_arch {
	PMU_ARCH_X86_INTEL,
	PMU_ARCH_X86_AMD,
	PMU_ARCH_ARM_PMUV3,
};

/*
 * Counter index space, as the kernel numbers hw.idx:
 *  - x86: general-purpose counters 0..n-1, fixed counters from
 *    PMU_IDX_FIXED (INTEL_PMC_IDX_FIXED = 32);
 *  - PMUv3: PMU_IDX_ARM_CYCLE (ARMV8_IDX_CYCLE_COUNTER = 0) for PMCCNTR_EL0,
 *    event counter i at idx i+1 (ARMV8_IDX_COUNTER0 = 1).
 */
#define PMU_IDX_FIXED      32
#define PMU_IDX_ARM_CYCLE  0
#define PMU_MAX_COUNTERS   64

/* Marks in the generic and cache maps (values of arch/x86's tables). */
#define PMU_MAP_UNSUPPORTED  UINT64_C(0)            /* -> ENOENT */
#define PMU_MAP_INVALID      UINT64_MAX             /* -> EINVAL (x86: -1) */

/* One event encoding the model knows. */
struct pmu_event_desc {
	const char *name;          /* sysfs events/ name, e.g. "inst_retired.any" */
	uint64_t config;           /* encoding, in the model's raw format */
	enum sim_source source;    /* what it counts */
	uint64_t counter_mask;     /* allowed counters (bit = idx); 0 = any GP */
	const char *desc;          /* one line for `perf list` / `pmusim models -v` */
	const char *sysfs;         /* the kernel's own events/ text (EVENT_ATTR_STR),
				    * or NULL: formatted from config, see
				    * pmu_model_event_sysfs() */
	const char *scale;         /* the kernel's events/<name>.scale text, or NULL */
	bool vendor_list;          /* a name of the vendor's event list (Intel
				    * perfmon, AMD PPR) with no events/ attribute
				    * in the kernel: perf resolves it from its
				    * pmu-events tables (chosen by PERF_CPUID);
				    * lookups and `pmusim models` still use it */
};

/* A sysfs format/ entry: name and "config:0-7" style spec. */
struct pmu_format_field {
	const char *name;
	const char *spec;
};

/* A sysfs caps/ entry. */
struct pmu_cap {
	const char *name;
	const char *value;
};

/* What the allocator needs to know of one event to place it. */
struct pmu_hw_request {
	uint64_t config;           /* encoding (after generic/cache mapping) */
	uint64_t counter_mask;     /* constraint (from the model's tables) */
	bool chained;              /* PMUv3: needs an even/odd chained pair */
	int prev_idx;              /* index it had last time, or -1 */
};

/* What the PMU's event_init decided for one attr. */
struct pmu_event_config {
	uint64_t config;           /* encoding (after generic/cache mapping) */
	enum sim_source source;    /* what it counts (SIM_SRC_NONE for unknown raw) */
	uint64_t counter_mask;     /* allowed counters */
	bool chained;              /* PMUv3: 64-bit event on a chained pair (when it
				    * lands on event counters, not PMCCNTR_EL0).
				    * x86 never sets it: an AMD pair event
				    * (PERF_X86_EVENT_PAIR, idx and idx+1) is
				    * recognised by assign() from its config */
	unsigned event_width;      /* bits the event's count wraps at, whatever
				    * counter holds it (PMUv3: 64 with config1:0
				    * "long", else 32: arm_pmu_event_max_period());
				    * 0: the counter's width, ops->width() */
	uint32_t flags;            /* PMU_EVENT_FLAG_*: hw_perf_event::flags the
				    * driver sets at event_init */
	bool mode_filter;          /* the PMU's privilege filter decided modes */
	uint8_t modes;             /* with mode_filter: bit (1 << enum sim_mode)
				    * for each mode counted; else the core
				    * counts as exclude_user/exclude_kernel say */
};

/* pmu_event_config::flags (arch/x86/events/perf_event_flags.h) */
#define PMU_EVENT_FLAG_PEBS_LDLAT 0x0001u  /* PERF_X86_EVENT_PEBS_LDLAT: the
					    * load-latency event, whose samples
					    * carry weight and data source */

/* One level of the modelled CPU's cache hierarchy. */
struct pmu_cache_level {
	unsigned size;             /* bytes */
	unsigned ways;             /* associativity (sets = size / ways / line) */
	unsigned line;             /* line size in bytes */
	unsigned latency;          /* load-to-use cycles of a load it serves */
};

/* One TLB level for 4 KiB pages (entries / ways sets; ways == entries:
 * fully associative). */
struct pmu_tlb_level {
	unsigned entries;
	unsigned ways;
};

/* The caches and TLBs the machine's cache model simulates
 * (sim/cpu/cache_model.h): L1I and L1D in front of a unified L2 and the
 * LLC, with the latency of a load served by memory; the first-level
 * instruction and data TLBs in front of second-level ones (one unified
 * STLB when l2tlb_unified: dtlb2 serves both, itlb2 is unused), and the
 * cycles of one page walk. The model table cites the vendor's document
 * for each value. */
struct pmu_cache_geometry {
	struct pmu_cache_level l1i, l1d, l2, llc;
	unsigned mem_latency;
	struct pmu_tlb_level itlb, dtlb, itlb2, dtlb2;
	bool l2tlb_unified;
	unsigned walk_cycles;
};

/*
 * The pipeline the machine's cycle and top-down model assumes
 * (docs/machine-counting.md, "The pipeline model"): an in-order issue of
 * issue_width uops a cycle into an unbounded out-of-order core, each block
 * finishing before the next issues. Latencies are in cycles; a load's is
 * the L1D load-to-use latency of the cache table. A mispredicted branch
 * costs mispredict_cycles: the first wrong_path_cycles issue wrong-path
 * uops (issue_width a cycle, never retired), the next recovery_cycles
 * recover the machine state (INT_MISC.RECOVERY_CYCLES), the rest refill
 * the front end (slots it does not deliver). The model table cites the
 * vendor's document for each value.
 */
struct pmu_pipeline {
	unsigned issue_width;      /* uops issued (allocated) and retired a cycle */
	unsigned mispredict_cycles;
	unsigned wrong_path_cycles;
	unsigned recovery_cycles;
	unsigned mul_latency;      /* MUL/IMUL */
	unsigned div_latency;      /* DIV/IDIV */
	unsigned div_uops;         /* DIV/IDIV (microcoded) */
	unsigned call_uops;        /* CALL (push and jump) */
	unsigned ret_uops;         /* RET (load and jump) */
	unsigned rmw_uops;         /* an instruction that loads and stores memory */
};

/*
 * The front end of an x86 core with a decoded uop cache (the machine's
 * front-end model, sim/cpu/frontend_model.h): the DSB's geometry and
 * filling rules, the microcode sequencer's threshold, the penalties of a
 * switch from the DSB to the legacy decoders and of a length-changing
 * prefix, the cost of a second-level ITLB hit, and the BTB that resteers
 * a taken branch it does not know (BACLEARS). The model table cites the
 * vendor's document for each value.
 */
struct pmu_frontend {
	unsigned dsb_sets;         /* a power of two; set = window number mod sets */
	unsigned dsb_ways;
	unsigned dsb_window;       /* bytes of the aligned code window a way caches */
	unsigned way_uops;         /* uops a way holds */
	unsigned way_branches;     /* branches a way holds */
	unsigned window_ways;      /* ways one window may take (more: not cached) */
	unsigned ms_uops;          /* an instruction of more uops is microcoded */
	unsigned dsb2mite_penalty; /* cycles of a DSB-to-MITE switch */
	unsigned lcp_penalty;      /* decoder stall cycles of a length-changing prefix */
	unsigned stlb_hit_cycles;  /* fetch stall of a code page the STLB serves */
	unsigned btb_entries;      /* a power of two; entry = branch address mod entries */
};

struct pmu_model;

/* The model's counter allocator: the kernel's x86_schedule_events /
 * armv8pmu_get_event_idx, as one call over the whole set to place. */
struct pmu_counter_ops {
	/*
	 * The PMU's event_init for attr.type PERF_TYPE_HARDWARE, HW_CACHE,
	 * RAW or the model's own type: map the config and check the attr as
	 * x86_pmu_event_init()/x86_pmu_hw_config() (and intel_pmu_hw_config /
	 * amd_core_hw_config) or armpmu_event_init()/__hw_perf_event_init()
	 * do, returning the kernel's errno (-ENOENT for an unsupported
	 * generic/cache event, -EINVAL for a bad config, -EOPNOTSUPP for
	 * precise_ip / exclude bits / branch stacks the PMU lacks). Group
	 * validation (validate_group) is done by the core with assign().
	 */
	int (*event_init)(const struct pmu_model *m, unsigned nr_gp,
			  const struct perf_event_attr *attr, struct pmu_event_config *out);
	/*
	 * Assign counters to n requests. On success returns 0 and sets
	 * assign[i] to the counter index of request i (for a chained PMUv3
	 * request, the odd, high index of the pair, as the kernel does).
	 * Returns -EINVAL if the set cannot be placed (the kernel's answer from
	 * x86_pmu.schedule_events / validate_group), with assign[] undefined.
	 * nr_gp overrides the model's general counter count (--counters).
	 */
	int (*assign)(const struct pmu_model *m, unsigned nr_gp,
		      const struct pmu_hw_request *req, unsigned n, int *assign);
	/* Constraint of one encoding (the x86 constraint tables). */
	uint64_t (*constraint)(const struct pmu_model *m, unsigned nr_gp, uint64_t config);
	/* Width in bits of counter idx. */
	unsigned (*width)(const struct pmu_model *m, int idx);
};

struct pmu_cpu_identity {
	const char *vendor;        /* CPUID vendor: "GenuineIntel", "AuthenticAMD", "ARM" */
	unsigned family, model, stepping;
	uint32_t midr;             /* arm64 MIDR_EL1 */
	const char *brand;         /* /proc/cpuinfo "model name" */
	unsigned perfmon_version;  /* CPUID.0AH:EAX[7:0] for Intel */
	const char *pfm_name;      /* LIBPFM_FORCE_PMU value, e.g. "skl" */
	const char *perf_cpuid;    /* PERF_CPUID value, e.g. "GenuineIntel-6-5E" */
};

/*
 * The modelled machine's PMUs beside its core PMU, as the kernel registers
 * them on such a CPU: "msr" (arch/x86/events/msr.c), "cstate_core" and
 * "cstate_pkg" (arch/x86/events/intel/cstate.c), "uncore_<box>"
 * (arch/x86/events/intel/uncore*.c). Their kind picks the core's driver
 * (sim/core/pmu_msr.c, pmu_cstate.c, pmu_uncore.c); the tables say which
 * events exist, what the sysfs shows and what each event counts.
 */
enum pmu_side_kind {
	PMU_SIDE_MSR,              /* task-capable free-running MSRs */
	PMU_SIDE_CSTATE_CORE,      /* per-core residency counters, CPU-wide only */
	PMU_SIDE_CSTATE_PKG,       /* per-package residency counters, CPU-wide only */
	PMU_SIDE_UNCORE,           /* a package uncore box, CPU-wide only */
};

/* What a time-driven event counts, in TSC ticks of simulated time
 * (docs/models.md, "The C-state model"). */
enum pmu_time_source {
	PMU_TIME_NONE = 0,         /* a state the model never enters: 0 */
	PMU_TIME_TSC,              /* all of the event's time */
	PMU_TIME_BUSY,             /* time the CPU runs a task (C0, unhalted) */
	PMU_TIME_CORE_IDLE,        /* time the CPU runs nothing (core C6) */
	PMU_TIME_PKG_IDLE,         /* time no CPU runs anything (package C6) */
};

struct pmu_side_event {
	const char *name;          /* events/<name>, or NULL: no sysfs alias */
	const char *perf_name;     /* without an alias: perf's pmu-events name */
	uint64_t config;           /* attr.config (uncore: event | umask << 8) */
	enum pmu_time_source time; /* msr and cstate events */
	enum sim_source source;    /* uncore events: what the machine reports */
	const char *scale, *unit;  /* events/<name>.scale, .unit, or NULL */
};

/* An uncore box's counter constraint (UNCORE_EVENT_CONSTRAINT): events
 * whose (config & code_mask) == code may use only these counters. */
struct pmu_side_constraint {
	uint64_t code, code_mask;
	uint64_t counters;
};

struct pmu_side_pmu {
	const char *name;          /* sysfs directory: "msr", "uncore_arb"... */
	enum pmu_side_kind kind;
	const struct pmu_format_field *formats;
	unsigned nr_formats;
	const struct pmu_side_event *events;
	unsigned nr_events;
	/* uncore: the box's event_mask (config bits kept), the bits that
	 * select the event (matched against events[].config; an unlisted
	 * selection opens and counts 0), the counter's threshold (cmask: an
	 * occupancy counts cycles with at least that many entries) and
	 * modifiers (edge, inv), its counters and their width */
	uint64_t config_mask, select_mask, threshold_mask, modifier_mask;
	const struct pmu_side_constraint *constraints;
	unsigned nr_constraints;
	unsigned nr_counters, counter_width;
};

struct pmu_model {
	const char *name;          /* `--model` name, e.g. "skylake" */
	const char *summary;       /* one line for `pmusim models` */
	enum pmu_arch arch;
	const char *pmu_name;      /* sysfs PMU directory: "cpu", "armv8_pmuv3_0" */
	uint32_t pmu_type;         /* perf_event_attr.type of that PMU */

	unsigned nr_gp_counters;   /* general-purpose / event counters */
	unsigned gp_width;         /* their width in bits */
	unsigned nr_fixed_counters;/* x86 fixed counters */
	unsigned fixed_width;
	bool has_cycle_counter;    /* PMUv3 PMCCNTR_EL0 (64-bit) */
	bool chain_for_64bit;      /* PMUv3 without 64-bit event counters: config1 bit 0 chains */

	uint64_t raw_config_mask;  /* bits of attr.config a raw event may use */
	unsigned max_precise;      /* highest precise_ip accepted */
	bool sampling_exclude_ok;  /* exclude_* bits allowed (PMUv3 rejects some) */

	uint64_t generic_map[PERF_COUNT_HW_MAX];   /* PERF_TYPE_HARDWARE config -> encoding */
	uint64_t cache_map[PERF_COUNT_HW_CACHE_MAX][PERF_COUNT_HW_CACHE_OP_MAX]
			  [PERF_COUNT_HW_CACHE_RESULT_MAX];

	const struct pmu_event_desc *events;
	unsigned nr_events;
	const struct pmu_format_field *formats;
	unsigned nr_formats;
	const struct pmu_cap *caps;
	unsigned nr_caps;

	struct pmu_cpu_identity cpu;
	uint64_t freq_hz;          /* core clock of the timing model */
	uint64_t tsc_hz;           /* reference / TSC clock */
	unsigned mux_interval_ms;  /* perf_event_mux_interval_ms default */
	/* cache and TLB geometry and latencies, or NULL: no cache model,
	 * the cache and TLB sources count 0 */
	const struct pmu_cache_geometry *caches;
	/* the pipeline of the cycle and top-down model (required with caches:
	 * a load's latency is the L1D's) */
	const struct pmu_pipeline *pipeline;
	const struct pmu_frontend *frontend;   /* NULL: no front-end model (its sources count 0) */

	const struct pmu_counter_ops *ops;
	/* Tables private to the allocator named by ops (constraint tables,
	 * extra registers, PEBS/LBR capabilities): pmu_models/model_internal.h. */
	const void *arch_data;

	/* PMUs beside the core PMU, in the order their drivers register
	 * (dynamic types, one after the other); none: NULL */
	const struct pmu_side_pmu *side_pmus;
	unsigned nr_side_pmus;
};

/* The model's perf_event_mux_interval_ms, or the kernel's default
 * (PERF_CPU_HRTIMER, 4 ms). */
static inline unsigned pmu_model_mux_interval_ms(const struct pmu_model *m)
{
	return m->mux_interval_ms ? m->mux_interval_ms : 4;
}

/* CPUID leaf/subleaf of the modelled CPU as the machine answers it. */
typedef void (*pmu_cpuid_fn)(const struct pmu_model *m, uint32_t leaf, uint32_t subleaf,
			     uint32_t out[4]);
/* /proc/cpuinfo of ncpus modelled CPUs (cpuinfo.c), their feature flags
 * from cpuid; returns the length snprintf would write. */
size_t pmu_model_cpuinfo(const struct pmu_model *m, unsigned ncpus, pmu_cpuid_fn cpuid,
			 char *buf, size_t len);

/* Registry (pmu_models/model_registry.c). */
const struct pmu_model *pmu_model_find(const char *name);
const struct pmu_model *pmu_model_default(void);
unsigned pmu_model_count(void);
const struct pmu_model *pmu_model_at(unsigned i);
/* Validates a model's tables; on failure returns -EINVAL and writes a one-line
 * reason naming the problem into why. */
int pmu_model_validate(const struct pmu_model *m, char *why, size_t whylen);

/*
 * perf_assign_events() of arch/x86/events/core.c on plain masks: places the
 * n events of masks[] (weights = popcount) on counters, lowest weight first,
 * fixed counters first, at most gpmax general counters; pair[i] marks an
 * AMD PERF_X86_EVENT_PAIR event (takes idx and idx+1), overlap[i] an
 * EVENT_CONSTRAINT_OVERLAP constraint. Returns the number left unassigned
 * (0 on success). pair and overlap may be NULL (none). The x86 allocator
 * and the uncore boxes' group check (uncore_assign_events()) use it.
 */
int x86_perf_assign_events(const uint64_t *masks, const bool *pair, const bool *overlap,
			   unsigned n, unsigned gpmax, int *assign);
/* Finds the event description of an encoding (masked as the model decodes
 * it), or NULL: such an encoding is accepted but counts SIM_SRC_NONE. */
const struct pmu_event_desc *pmu_model_lookup(const struct pmu_model *m, uint64_t config);
/* Whether an event of m counts src (every encoding m accepts is one of
 * its table's, pmu_model_lookup); false without a model. */
bool pmu_model_counts_source(const struct pmu_model *m, enum sim_source src);
/* The content of the sysfs file events/<e->name>, byte for byte as the
 * kernel writes it: e->sysfs as is (EVENT_ATTR_STR, no newline), else
 * x86_event_sysfs_show() / amd_event_sysfs_show() /
 * armv8pmu_events_sysfs_show() of e->config (with a newline). Returns the
 * length snprintf would write. */
int pmu_model_event_sysfs(const struct pmu_model *m, const struct pmu_event_desc *e,
			  char *buf, size_t len);

#endif
