/*
 * pmuv3_assign.c - the Arm PMUv3 allocator: armpmu_event_init() and
 * __hw_perf_event_init() of drivers/perf/arm_pmu.c with armpmu_map_event()
 * and its helpers, __armv8_pmuv3_map_event() and armv8pmu_set_event_filter()
 * of drivers/perf/arm_pmuv3.c (the generic "armv8_pmuv3" map_event, as the
 * ACPI probe installs it: no implementation-defined extra maps), and
 * armv8pmu_get_event_idx() with its cycle counter and chained pairs.
 *
 * Counter indexes are the kernel's hw.idx: 0 is PMCCNTR_EL0, event counter
 * n is idx n+1. A chained pair is (idx-1, idx) with idx even, i.e. the
 * hardware counters 2k and 2k+1; the event's idx is the high one.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>
#include "pmu_models/model_internal.h"

#define ARMV8_PMUV3_MAX_COMMON_EVENTS 0x40
#define ARMV8_PMUV3_PERFCTR_PC_WRITE_RETIRED 0x0c
#define ARMV8_PMUV3_PERFCTR_BR_RETIRED 0x21

static uint64_t event_counters(unsigned nr_gp)
{
	return pmu_gp_mask(nr_gp) << ARMV8_IDX_COUNTER0;
}

static bool pmceid_has(const struct pmuv3_arch_data *d, unsigned id)
{
	return id < ARMV8_PMUV3_MAX_COMMON_EVENTS && ((d->pmceid[id / 32] >> (id % 32)) & 1);
}

/*
 * armpmu_map_event() over the model's tables (armv8_pmuv3_perf_map,
 * armv8_pmuv3_perf_cache_map) or, with tables == false, over the NULL extra
 * maps of the generic armv8_pmuv3: range checks keep their -EINVAL, any
 * generic or cache event is -ENOENT, a raw event passes masked.
 */
static int64_t armpmu_map_event(const struct pmu_model *m, const struct perf_event_attr *attr,
				bool tables)
{
	uint64_t config = attr->config;
	uint64_t v;

	if (attr->type == m->pmu_type || attr->type == PERF_TYPE_RAW)
		return config & ARMV8_PMU_EVTYPE_EVENT;     /* armpmu_map_raw_event() */

	if (attr->type == PERF_TYPE_HARDWARE) {
		/* armpmu_map_hw_event() */
		if (config >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		if (!tables)
			return -ENOENT;
		v = m->generic_map[config];
		return v == PMU_MAP_UNSUPPORTED ? -ENOENT : (int64_t)v;
	}
	if (attr->type == PERF_TYPE_HW_CACHE) {
		/* armpmu_map_cache_event() */
		unsigned type = config & 0xff, op = (config >> 8) & 0xff;
		unsigned result = (config >> 16) & 0xff;

		if (type >= PERF_COUNT_HW_CACHE_MAX || op >= PERF_COUNT_HW_CACHE_OP_MAX ||
		    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
			return -EINVAL;
		if (!tables)
			return -ENOENT;
		v = m->cache_map[type][op][result];
		return v == PMU_MAP_UNSUPPORTED ? -ENOENT : (int64_t)v;
	}
	return -ENOENT;
}

/* __armv8_pmuv3_map_event_id(): branch-instructions picks what PMCEID has */
static int64_t armv8_pmuv3_map_event_id(const struct pmu_model *m,
					const struct perf_event_attr *attr)
{
	const struct pmuv3_arch_data *d = m->arch_data;

	if (attr->type == PERF_TYPE_HARDWARE &&
	    attr->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS) {
		if (pmceid_has(d, ARMV8_PMUV3_PERFCTR_PC_WRITE_RETIRED))
			return ARMV8_PMUV3_PERFCTR_PC_WRITE_RETIRED;
		if (pmceid_has(d, ARMV8_PMUV3_PERFCTR_BR_RETIRED))
			return ARMV8_PMUV3_PERFCTR_BR_RETIRED;
		return ARMV8_PMU_HW_UNSUPPORTED;
	}
	return armpmu_map_event(m, attr, true);
}

/*
 * __armv8_pmuv3_map_event(): CHAIN is refused, rdpmc (config1:1) events
 * must fit one counter, and a common event the PMU does not implement
 * (PMCEID) falls back to the extra maps, which the generic PMU lacks.
 */
static int64_t armv8_pmuv3_map_event(const struct pmu_model *m,
				     const struct perf_event_attr *attr)
{
	const struct pmuv3_arch_data *d = m->arch_data;
	int64_t id = armv8_pmuv3_map_event_id(m, attr);

	if (id == ARMV8_PMUV3_PERFCTR_CHAIN)
		return -EINVAL;
	if ((attr->config1 & 0x2) && d->has_rdpmc_format) {
		/* !(attach_state & PERF_ATTACH_TASK) -> -EINVAL is the core's
		 * to check: it knows whether a task was given. */
		if ((attr->config1 & 0x1) && id != ARMV8_PMUV3_PERFCTR_CPU_CYCLES &&
		    !d->has_evt_count_64)
			return -EOPNOTSUPP;
	}
	if (id > 0 && id < ARMV8_PMUV3_MAX_COMMON_EVENTS && pmceid_has(d, (unsigned)id))
		return id;
	return armpmu_map_event(m, attr, false);
}

/* PMEVTYPER<n>_EL0 / PMCCFILTR_EL0 filter bits (ARMV8_PMU_EXCLUDE_EL1,
 * ARMV8_PMU_EXCLUDE_EL0, ARMV8_PMU_INCLUDE_EL2) */
#define PMU_EXCLUDE_EL1 (UINT32_C(1) << 31)
#define PMU_EXCLUDE_EL0 (UINT32_C(1) << 30)
#define PMU_INCLUDE_EL2 (UINT32_C(1) << 27)

/*
 * armv8pmu_set_event_filter(): the exception levels the counter counts.
 * exclude_idle cannot be honoured: the filter says -EPERM, but
 * __hw_perf_event_init() reports any filter failure as -EOPNOTSUPP ("ARM
 * performance counters do not support mode exclusion"), and that is what
 * the caller sees. A VHE host kernel is the hypervisor: EL2 is counted
 * unless exclude_kernel or exclude_host, exclude_hv is ignored,
 * exclude_guest drops EL1 (a guest's kernel) and exclude_host EL0 too.
 * Without VHE, EL2 is counted unless exclude_hv or exclude_host. Then
 * exclude_kernel drops EL1, exclude_user EL0.
 */
static int armv8pmu_set_event_filter(const struct pmuv3_arch_data *d,
				     const struct perf_event_attr *attr, uint32_t *config_base)
{
	uint32_t f = 0;

	if (attr->exclude_idle)
		return -EOPNOTSUPP;
	if (d->kernel_el == PMUV3_HOST_VHE) {     /* is_kernel_in_hyp_mode() */
		if (!attr->exclude_kernel && !attr->exclude_host)
			f |= PMU_INCLUDE_EL2;
		if (attr->exclude_guest)
			f |= PMU_EXCLUDE_EL1;
		if (attr->exclude_host)
			f |= PMU_EXCLUDE_EL0;
	} else if (!attr->exclude_hv && !attr->exclude_host) {
		f |= PMU_INCLUDE_EL2;
	}
	if (attr->exclude_kernel)
		f |= PMU_EXCLUDE_EL1;
	if (attr->exclude_user)
		f |= PMU_EXCLUDE_EL0;
	*config_base = f;
	return 0;
}

/*
 * The simulated modes an event counts: user code at EL0, the modelled
 * kernel at the model's EL (EL1, or EL2 on a VHE host; EL2 is never
 * counted in a guest: the hypervisor does not let its filter reach it).
 * armv8pmu_enable_event_counter(): without VHE an exclude_host event is
 * enabled only at guest entry (kvm_pmu_counter_deferred()), so it counts
 * nothing here, where no guest runs.
 */
static uint8_t pmuv3_modes(const struct pmuv3_arch_data *d, const struct perf_event_attr *attr,
			   uint32_t f)
{
	bool kernel;

	if (d->kernel_el != PMUV3_HOST_VHE && attr->exclude_host)
		return 0;
	kernel = d->kernel_el == PMUV3_HOST_VHE ? (f & PMU_INCLUDE_EL2) != 0 :
						  !(f & PMU_EXCLUDE_EL1);
	return (uint8_t)((f & PMU_EXCLUDE_EL0 ? 0 : 1u << SIM_MODE_USER) |
			 (kernel ? 1u << SIM_MODE_KERNEL : 0));
}

/* armv8pmu_event_is_chained() for an event not on the cycle counter */
static bool pmuv3_chained(const struct pmu_model *m, const struct perf_event_attr *attr)
{
	const struct pmuv3_arch_data *d = m->arch_data;
	bool user_read = d->has_rdpmc_format && (attr->config1 & 0x2);

	return !user_read && (attr->config1 & 0x1) && !d->has_evt_count_64;
}

/* The counters an event may use: PMCCNTR_EL0 only takes CPU_CYCLES
 * (armv8pmu_get_event_idx()); a 64-bit rdpmc cycles event without long
 * event counters may take nothing else. */
static uint64_t pmuv3_mask(const struct pmu_model *m, unsigned nr_gp, uint64_t evtype,
			   const struct perf_event_attr *attr)
{
	const struct pmuv3_arch_data *d = m->arch_data;
	uint64_t mask = event_counters(nr_gp);

	if (evtype == ARMV8_PMUV3_PERFCTR_CPU_CYCLES && m->has_cycle_counter) {
		if (attr && (attr->config1 & 0x1) && (attr->config1 & 0x2) &&
		    d->has_rdpmc_format && !d->has_evt_count_64)
			return UINT64_C(1) << ARMV8_IDX_CYCLE_COUNTER;
		mask |= UINT64_C(1) << ARMV8_IDX_CYCLE_COUNTER;
	}
	return mask;
}

static int pmuv3_event_init(const struct pmu_model *m, unsigned nr_gp,
			    const struct perf_event_attr *attr, struct pmu_event_config *out)
{
	const struct pmu_event_desc *e;
	uint32_t filter = 0;
	int64_t mapping;
	int ret;

	if (!nr_gp || nr_gp > m->nr_gp_counters)
		nr_gp = m->nr_gp_counters;

	/* armpmu_event_init(): does not support taken branch sampling */
	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK)
		return -EOPNOTSUPP;

	/* __hw_perf_event_init(): map, then the filter */
	mapping = armv8_pmuv3_map_event(m, attr);
	if (mapping < 0)
		return (int)mapping;
	ret = armv8pmu_set_event_filter(m->arch_data, attr, &filter);
	if (ret)
		return ret;

	memset(out, 0, sizeof(*out));
	out->config = (uint64_t)mapping;
	e = pmu_model_lookup(m, out->config);
	out->source = e ? e->source : SIM_SRC_NONE;
	out->counter_mask = pmuv3_mask(m, nr_gp, out->config, attr);
	out->chained = pmuv3_chained(m, attr);
	/* arm_pmu_event_max_period(): ARMPMU_EVT_64BIT from config1:0 */
	out->event_width = (attr->config1 & 0x1) ? 64 : 32;
	out->mode_filter = true;
	out->modes = pmuv3_modes(m->arch_data, attr, filter);
	return 0;
}

/* armv8pmu_get_single_idx() */
static int get_single_idx(uint64_t *used, unsigned num_events)
{
	for (unsigned idx = ARMV8_IDX_COUNTER0; idx < num_events; idx++) {
		if (!(*used & (UINT64_C(1) << idx))) {
			*used |= UINT64_C(1) << idx;
			return (int)idx;
		}
	}
	return -EAGAIN;
}

/* armv8pmu_get_chain_idx(): an odd/even pair, the lower hardware counter
 * even, i.e. idx even with idx-1 free */
static int get_chain_idx(uint64_t *used, unsigned num_events)
{
	for (unsigned idx = ARMV8_IDX_COUNTER0 + 1; idx < num_events; idx += 2) {
		uint64_t hi = UINT64_C(1) << idx, lo = UINT64_C(1) << (idx - 1);

		if (!(*used & hi)) {
			if (!(*used & lo)) {
				*used |= hi | lo;
				return (int)idx;
			}
		}
	}
	return -EAGAIN;
}

/*
 * armpmu_add() for each event of the set, in order, with
 * armv8pmu_get_event_idx(): CPU_CYCLES prefers the cycle counter, other
 * events take the first free event counter, chained ones the first free
 * pair. No previous-counter fast path: the Arm PMU has none. -EAGAIN of any
 * member is -EINVAL for the set (validate_group()).
 */
static int pmuv3_assign(const struct pmu_model *m, unsigned nr_gp,
			const struct pmu_hw_request *req, unsigned n, int *assign)
{
	unsigned num_events;
	uint64_t used = 0;

	if (!nr_gp || nr_gp > m->nr_gp_counters)
		nr_gp = m->nr_gp_counters;
	num_events = nr_gp + ARMV8_IDX_COUNTER0;   /* PMCR.N + the cycle counter */

	for (unsigned i = 0; i < n; i++) {
		uint64_t cyc = UINT64_C(1) << ARMV8_IDX_CYCLE_COUNTER;
		int idx;

		if ((req[i].config & ARMV8_PMU_EVTYPE_EVENT) == ARMV8_PMUV3_PERFCTR_CPU_CYCLES &&
		    (req[i].counter_mask & cyc)) {
			if (!(used & cyc)) {
				used |= cyc;
				assign[i] = ARMV8_IDX_CYCLE_COUNTER;
				continue;
			}
			if (!(req[i].counter_mask & event_counters(nr_gp)))
				return -EINVAL;     /* 64-bit rdpmc cycles: -EAGAIN */
		}
		if (req[i].chained)
			idx = get_chain_idx(&used, num_events);
		else
			idx = get_single_idx(&used, num_events);
		if (idx < 0)
			return -EINVAL;
		/* an event counter, and for a chained event the high half of an
		 * (odd, even) idx pair */
		assert(idx >= ARMV8_IDX_COUNTER0 && (unsigned)idx < num_events);
		assert(!req[i].chained || (idx % 2) == 0);
		assign[i] = idx;
	}
	return 0;
}

static uint64_t pmuv3_constraint(const struct pmu_model *m, unsigned nr_gp, uint64_t config)
{
	if (!nr_gp || nr_gp > m->nr_gp_counters)
		nr_gp = m->nr_gp_counters;
	return pmuv3_mask(m, nr_gp, config & ARMV8_PMU_EVTYPE_EVENT, NULL);
}

static unsigned pmuv3_width(const struct pmu_model *m, int idx)
{
	if (idx == ARMV8_IDX_CYCLE_COUNTER)
		return 64;             /* PMCCNTR_EL0 */
	return m->gp_width;
}

const struct pmu_counter_ops pmuv3_counter_ops = {
	.event_init = pmuv3_event_init,
	.assign = pmuv3_assign,
	.constraint = pmuv3_constraint,
	.width = pmuv3_width,
};
