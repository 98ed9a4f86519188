/*
 * model_internal.h - what the model tables and their allocators share inside
 * pmu_models/: the architecture-private data a struct pmu_model points to
 * (arch_data), the allocators' ops, and the models themselves.
 *
 * Nothing outside pmu_models/ (and its tests) includes this file.
 */
#ifndef PMUSIM_MODEL_INTERNAL_H
#define PMUSIM_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "pmu_models/pmu_model.h"

/* ---- x86 (arch/x86/include/asm/perf_event.h, arch/x86/events/perf_event.h) ---- */

#define X86_EVENTSEL_EVENT      UINT64_C(0x000000ff)
#define X86_EVENTSEL_UMASK      UINT64_C(0x0000ff00)
#define X86_EVENTSEL_EDGE       (UINT64_C(1) << 18)
#define X86_EVENTSEL_PIN_CONTROL (UINT64_C(1) << 19)
#define X86_EVENTSEL_ANY        (UINT64_C(1) << 21)
#define X86_EVENTSEL_INV        (UINT64_C(1) << 23)
#define X86_EVENTSEL_CMASK      UINT64_C(0xff000000)
#define X86_HSW_IN_TX           (UINT64_C(1) << 32)
#define X86_HSW_IN_TX_CP        (UINT64_C(1) << 33)
#define X86_AMD64_EVENTSEL_EVENT (X86_EVENTSEL_EVENT | (UINT64_C(0xf) << 32))
#define X86_INTEL_ARCH_EVENT_MASK (X86_EVENTSEL_UMASK | X86_EVENTSEL_EVENT)
/* X86_RAW_EVENT_MASK */
#define X86_RAW_EVENT_MASK      (X86_EVENTSEL_EVENT | X86_EVENTSEL_UMASK | X86_EVENTSEL_EDGE | \
				 X86_EVENTSEL_INV | X86_EVENTSEL_CMASK)
/* AMD64_RAW_EVENT_MASK */
#define X86_AMD64_RAW_EVENT_MASK (X86_RAW_EVENT_MASK | X86_AMD64_EVENTSEL_EVENT)
/* X86_ALL_EVENT_FLAGS */
#define X86_ALL_EVENT_FLAGS     (X86_EVENTSEL_EDGE | X86_EVENTSEL_INV | X86_EVENTSEL_CMASK | \
				 X86_EVENTSEL_ANY | X86_EVENTSEL_PIN_CONTROL | \
				 X86_HSW_IN_TX | X86_HSW_IN_TX_CP)
/* FIXED_EVENT_FLAGS: the cmask of FIXED_EVENT_CONSTRAINT() */
#define X86_FIXED_EVENT_FLAGS   (X86_RAW_EVENT_MASK | X86_HSW_IN_TX | X86_HSW_IN_TX_CP)
/* INTEL_FIXED_VLBR_EVENT */
#define X86_INTEL_FIXED_VLBR_EVENT UINT64_C(0x1b00)
/* PERF_REG_EXTENDED_MASK: XMM registers, from PERF_REG_X86_XMM0 = 32 */
#define X86_PERF_REG_EXTENDED_MASK (~((UINT64_C(1) << 32) - 1))

/*
 * One struct event_constraint: an encoding matches when
 * (config & cmask) == code. idxmsk is the table's counter mask; for a
 * fixed-counter constraint (fixed = true) it holds only the fixed bit and
 * the allocator ORs in the general counters, except for REF_CYCLES
 * (intel_pmu_check_event_constraints()).
 */
struct x86_constraint {
	uint64_t code;
	uint64_t cmask;
	uint64_t idxmsk;
	bool fixed;
	bool overlap;       /* EVENT_CONSTRAINT_OVERLAP: scheduler may backtrack */
};

/* One struct extra_reg: events that take config1 (OFFCORE_RSP, LDLAT, FE). */
struct x86_extra_reg {
	uint64_t event;
	uint64_t config_mask;
	uint64_t valid_mask;
	const char *what;
};

/* What the x86 allocator needs beyond struct pmu_model. */
struct x86_arch_data {
	unsigned version;                 /* perfmon version (Intel) */
	const struct x86_constraint *constraints;       /* x86_pmu.event_constraints */
	unsigned nr_constraints;
	const struct x86_constraint *pebs_constraints;  /* x86_pmu.pebs_constraints */
	unsigned nr_pebs_constraints;
	const struct x86_extra_reg *extra_regs;         /* x86_pmu.extra_regs */
	unsigned nr_extra_regs;
	unsigned lbr_nr;                  /* x86_pmu.lbr_nr (0: no branch stack) */
	unsigned pebs_format;             /* x86_pmu.intel_cap.pebs_format */
	bool bts;                         /* x86_pmu.bts_active */
	bool rtm;                         /* X86_FEATURE_RTM: hsw_hw_config() in_tx bits */
	bool hsw_hw_config;               /* x86_pmu.hw_config == hsw_hw_config */
	bool pebs_aliases_skl;            /* x86_pmu.pebs_aliases == intel_pebs_aliases_skl */
	uint64_t pair_event;              /* AMD PMU_FL_PAIR event code (0: none) */
};

/* ---- Arm PMUv3 (drivers/perf/arm_pmuv3.c, include/linux/perf/arm_pmuv3.h) ---- */

#define ARMV8_PMU_EVTYPE_EVENT   UINT64_C(0xffff)
#define ARMV8_IDX_CYCLE_COUNTER  0
#define ARMV8_IDX_COUNTER0       1
#define ARMV8_PMUV3_PERFCTR_CPU_CYCLES 0x0011
#define ARMV8_PMUV3_PERFCTR_CHAIN      0x001e
#define ARMV8_PMU_HW_UNSUPPORTED UINT64_C(0xffff)   /* HW_OP_UNSUPPORTED */
#define ARMV8_PMU_CACHE_UNSUPPORTED UINT64_C(0xffff) /* CACHE_OP_UNSUPPORTED */

/*
 * Where the modelled kernel runs (Documentation/arch/arm64/perf.rst, "Perf
 * Event Attributes"): a host kernel at EL1 with a hypervisor stub at EL2
 * (no VHE, as before ARMv8.1), a host kernel at EL2 (VHE:
 * is_kernel_in_hyp_mode()), or a KVM guest's kernel at EL1, where EL2 is
 * never counted. User code is at EL0 in all three.
 */
enum pmuv3_kernel_el {
	PMUV3_HOST_NVHE = 0,
	PMUV3_HOST_VHE,
	PMUV3_GUEST,
};

struct pmuv3_arch_data {
	bool has_evt_count_64;            /* PMUv3p5: 64-bit event counters */
	bool has_rdpmc_format;            /* config1:1 "rdpmc" */
	uint64_t pmceid[2];               /* common events 0x00-0x3f the PMU implements */
	enum pmuv3_kernel_el kernel_el;   /* where the modelled kernel's work runs */
};

/* One event row: EV() for events the kernel shows in events/ by id, EVS()
 * with the kernel's EVENT_ATTR_STR text, EVL() for a vendor event-list name
 * the kernel has no events/ attribute for (only perf's event lists name it). */
#define EV(n, c, s, m, d) { .name = (n), .config = (c), .source = (s), \
			    .counter_mask = (m), .desc = (d) }
#define EVS(n, c, s, m, d, str) { .name = (n), .config = (c), .source = (s), \
				  .counter_mask = (m), .desc = (d), .sysfs = (str) }
#define EVL(n, c, s, m, d) { .name = (n), .config = (c), .source = (s), \
			     .counter_mask = (m), .desc = (d), .vendor_list = true }
/* EVS() with the kernel's events/<name>.scale text (EVENT_ATTR_STR) */
#define EVSC(n, c, s, m, d, str, sc) { .name = (n), .config = (c), .source = (s), \
				       .counter_mask = (m), .desc = (d), .sysfs = (str), \
				       .scale = (sc) }

/* ---- allocators ---- */
extern const struct pmu_counter_ops x86_counter_ops;
extern const struct pmu_counter_ops pmuv3_counter_ops;

/* x86_perf_assign_events(): pmu_model.h (the core's uncore boxes use it too) */

/* The general-counter mask of nr_gp counters. */
static inline uint64_t pmu_gp_mask(unsigned nr_gp)
{
	return nr_gp >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << nr_gp) - 1;
}

/* ---- the models ---- */
extern const struct pmu_model pmu_model_skylake;
extern const struct pmu_model pmu_model_zen;
extern const struct pmu_model pmu_model_pmuv3;
extern const struct pmu_model pmu_model_pmuv3p5;

#endif
