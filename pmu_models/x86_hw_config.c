/*
 * x86_hw_config.c - the x86 core PMU's event_init: x86_pmu_event_init(),
 * x86_pmu_hw_config(), x86_setup_perfctr(), set_ext_hw_attr() and
 * x86_pmu_extra_regs() of arch/x86/events/core.c, then the vendor's
 * hw_config: intel_pmu_hw_config() (+ hsw_hw_config() on Skylake) or
 * amd_pmu_hw_config()/amd_core_hw_config(), with their errnos and in their
 * order. What the model tables say decides each check (max_precise, LBR,
 * BTS, RTM, extra registers).
 */
#include <errno.h>
#include <string.h>
#include "pmu_models/model_internal.h"
#include "pmu_models/x86_internal.h"

/* is_sampling_event() */
static bool is_sampling(const struct perf_event_attr *attr)
{
	return attr->sample_period != 0;
}

/* has_branch_stack() / needs_branch_stack() */
static bool has_branch_stack(const struct perf_event_attr *attr)
{
	return attr->sample_type & PERF_SAMPLE_BRANCH_STACK;
}

/* x86_pmu_extra_regs(): an event with an extra MSR takes config1, whose
 * bits must be within the register's valid mask. */
static int x86_pmu_extra_regs(const struct x86_arch_data *d, uint64_t config, uint64_t config1)
{
	for (unsigned i = 0; i < d->nr_extra_regs; i++) {
		const struct x86_extra_reg *er = &d->extra_regs[i];

		if ((config & er->config_mask) != er->event)
			continue;
		if (config1 & ~er->valid_mask)
			return -EINVAL;
		/* extra_msr_access: the modelled MSRs always exist */
		return 0;
	}
	return 0;
}

static bool is_offcore(const struct x86_arch_data *d, uint64_t config)
{
	for (unsigned i = 0; i < d->nr_extra_regs; i++)
		if ((config & d->extra_regs[i].config_mask) == d->extra_regs[i].event)
			return true;
	return false;
}

/* What a HW_CACHE event counts. The encoding's own source where the model
 * names it; an OFFCORE_RESPONSE encoding is told apart only by config1, so
 * it counts from the generic cache id: LL read/write access/miss, NODE
 * not driven. */
static enum sim_source cache_source(const struct pmu_model *m, uint64_t encoding,
				    unsigned type, unsigned op, unsigned result)
{
	const struct pmu_event_desc *e;

	if (is_offcore(m->arch_data, encoding)) {
		/* skl_hw_cache_extra_regs: LL read = demand data reads that
		 * reach the LLC (L2 misses), miss = those the LLC missed; LL
		 * write = demand RFOs, likewise */
		bool access = result == PERF_COUNT_HW_CACHE_RESULT_ACCESS;

		if (type != PERF_COUNT_HW_CACHE_LL)
			return SIM_SRC_NONE;
		if (op == PERF_COUNT_HW_CACHE_OP_READ)
			return access ? SIM_SRC_LOAD_L2_MISS : SIM_SRC_LOAD_L3_MISS;
		if (op == PERF_COUNT_HW_CACHE_OP_WRITE)
			return access ? SIM_SRC_STORE_L2_MISS : SIM_SRC_STORE_L3_MISS;
		return SIM_SRC_NONE;
	}
	e = pmu_model_lookup(m, encoding);
	return e ? e->source : SIM_SRC_NONE;
}

/*
 * set_ext_hw_attr(): config is type | op << 8 | result << 16; out-of-range
 * fields are -EINVAL, table value 0 -ENOENT, -1 -EINVAL.
 */
static int set_ext_hw_attr(const struct pmu_model *m, uint64_t config, uint64_t *encoding,
			   enum sim_source *src)
{
	unsigned type = config & 0xff, op = (config >> 8) & 0xff, result = (config >> 16) & 0xff;
	uint64_t val;

	if (type >= PERF_COUNT_HW_CACHE_MAX)
		return -EINVAL;
	if (op >= PERF_COUNT_HW_CACHE_OP_MAX)
		return -EINVAL;
	if (result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return -EINVAL;
	val = m->cache_map[type][op][result];
	if (val == PMU_MAP_UNSUPPORTED)
		return -ENOENT;
	if (val == PMU_MAP_INVALID)
		return -EINVAL;
	*encoding = val;
	*src = cache_source(m, val, type, op, result);
	/* attr->config1 = hw_cache_extra_regs[..]: always within the valid
	 * mask, so x86_pmu_extra_regs() cannot fail here. */
	return 0;
}

/* x86_setup_perfctr(): map the generic or cache config, check a raw one's
 * extra register. */
static int x86_setup_perfctr(const struct pmu_model *m, const struct perf_event_attr *attr,
			     uint64_t *encoding, enum sim_source *src)
{
	const struct x86_arch_data *d = m->arch_data;
	const struct pmu_event_desc *e;
	uint64_t config;

	if (attr->type == m->pmu_type)
		return x86_pmu_extra_regs(d, attr->config, attr->config1);
	if (attr->type == PERF_TYPE_HW_CACHE)
		return set_ext_hw_attr(m, attr->config, encoding, src);

	/* x86_pmu.max_events == ARRAY_SIZE(perfmon_event_map) == PERF_COUNT_HW_MAX */
	if (attr->config >= PERF_COUNT_HW_MAX)
		return -EINVAL;
	config = m->generic_map[attr->config];
	if (config == PMU_MAP_UNSUPPORTED)
		return -ENOENT;
	if (config == PMU_MAP_INVALID)
		return -EINVAL;
	*encoding = config;
	e = pmu_model_lookup(m, config);
	*src = e ? e->source : SIM_SRC_NONE;
	return 0;
}

/* x86_pmu_hw_config() */
static int x86_pmu_hw_config(const struct pmu_model *m, const struct perf_event_attr *attr,
			     uint64_t *encoding, enum sim_source *src)
{
	const struct x86_arch_data *d = m->arch_data;

	if (attr->precise_ip) {
		/* x86_pmu_max_precise() is the model's max_precise */
		if (attr->precise_ip > m->max_precise)
			return -EOPNOTSUPP;
		/* There's no sense in having PEBS for non sampling events */
		if (!is_sampling(attr))
			return -EINVAL;
	}
	/* PEBS LBR correction vs branch_sample_type: only PEBS format < 2 */
	if (attr->precise_ip > 1 && d->pebs_format < 2 && has_branch_stack(attr)) {
		uint64_t mm = attr->branch_sample_type, b = 0;

		/* precise_br_compat() */
		if (!(mm & PERF_SAMPLE_BRANCH_ANY))
			return -EOPNOTSUPP;
		mm &= PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_USER;
		if (!attr->exclude_user)
			b |= PERF_SAMPLE_BRANCH_USER;
		if (!attr->exclude_kernel)
			b |= PERF_SAMPLE_BRANCH_KERNEL;
		if (mm != b)
			return -EOPNOTSUPP;
	}

	*encoding = 0;
	if (attr->type == m->pmu_type)
		*encoding = attr->config & X86_RAW_EVENT_MASK;

	/* x86_pmu.limit_period: none of our models has one */

	/* sample_regs_user never support XMM registers */
	if (attr->sample_regs_user & X86_PERF_REG_EXTENDED_MASK)
		return -EINVAL;
	/* XMM in sample_regs_intr needs PERF_PMU_CAP_EXTENDED_REGS (Icelake+) */
	if (attr->sample_regs_intr & X86_PERF_REG_EXTENDED_MASK)
		return -EINVAL;

	return x86_setup_perfctr(m, attr, encoding, src);
}

/* intel_pmu_bts_config(): branch-instructions with period 1 is BTS */
static int intel_pmu_bts_config(const struct pmu_model *m, const struct perf_event_attr *attr,
				uint64_t encoding)
{
	const struct x86_arch_data *d = m->arch_data;

	/* intel_pmu_has_bts_period() */
	if (attr->freq || attr->sample_period != 1 ||
	    (encoding & X86_INTEL_ARCH_EVENT_MASK) !=
	    m->generic_map[PERF_COUNT_HW_BRANCH_INSTRUCTIONS])
		return 0;
	if (!d->bts)
		return -EOPNOTSUPP;
	/* BTS is currently only allowed for user-mode. */
	if (!attr->exclude_kernel)
		return -EOPNOTSUPP;
	/* BTS is not allowed for precise events. */
	if (attr->precise_ip)
		return -EOPNOTSUPP;
	return 0;
}

/* intel_pmu_hw_config(), then hsw_hw_config() where the model uses it */
static int intel_pmu_hw_config(const struct pmu_model *m, const struct perf_event_attr *attr,
			       uint64_t *encoding, enum sim_source *src)
{
	const struct x86_arch_data *d = m->arch_data;
	int ret;

	ret = x86_pmu_hw_config(m, attr, encoding, src);
	if (ret)
		return ret;
	ret = intel_pmu_bts_config(m, attr, *encoding);
	if (ret)
		return ret;

	if (attr->precise_ip) {
		if (attr->type == m->pmu_type &&
		    (attr->config & X86_INTEL_ARCH_EVENT_MASK) == X86_INTEL_FIXED_VLBR_EVENT)
			return -EINVAL;
		/* intel_pebs_aliases_skl(): cycles become a PEBS-capable
		 * encoding that counts every cycle */
		if (d->pebs_aliases_skl &&
		    (*encoding & X86_RAW_EVENT_MASK) == 0x003c) {
			uint64_t alt = attr->precise_ip < 3 ?
				UINT64_C(0x108000c0) : /* INST_RETIRED.TOTAL_CYCLES_PS: c0,inv,cmask=16 */
				UINT64_C(0x108001c0);  /* INST_RETIRED.PREC_DIST,inv,cmask=16 */

			*encoding = alt | (*encoding & ~X86_RAW_EVENT_MASK);
		}
	}

	/* intel_pmu_setup_lbr_filter(): no LBR -> -EOPNOTSUPP. The Skylake
	 * lbr_sel_map has no LBR_NOT_SUPP entry, so any branch_sample_type
	 * the core accepted is accepted here. */
	if (has_branch_stack(attr) && !d->lbr_nr)
		return -EOPNOTSUPP;

	if (attr->aux_output && !attr->precise_ip)
		return -EINVAL;

	if (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE)
		goto hsw;

	if (attr->config & X86_EVENTSEL_ANY) {
		if (d->version < 3)
			return -EINVAL;
		/* perf_allow_cpu(): the core's paranoid check, not modelled here */
		*encoding |= X86_EVENTSEL_ANY;
	}

hsw:
	if (!d->hsw_hw_config || !d->rtm)
		return 0;
	/* hsw_hw_config() */
	*encoding |= attr->config & (X86_HSW_IN_TX | X86_HSW_IN_TX_CP);
	if ((*encoding & (X86_HSW_IN_TX | X86_HSW_IN_TX_CP)) &&
	    ((*encoding & X86_EVENTSEL_ANY) || attr->precise_ip > 0))
		return -EOPNOTSUPP;
	/* event_is_checkpointed(): no sampling unless with a long period */
	if ((*encoding & X86_HSW_IN_TX_CP) &&
	    attr->sample_period > 0 && attr->sample_period < 0x7fffffff)
		return -EOPNOTSUPP;
	return 0;
}

/* amd_pmu_hw_config() and amd_core_hw_config() */
static int amd_pmu_hw_config(const struct pmu_model *m, const struct perf_event_attr *attr,
			     uint64_t *encoding, enum sim_source *src)
{
	const struct x86_arch_data *d = m->arch_data;
	int ret;

	/* precise events go to IBS when it exists: the model has no IBS, so
	 * x86_pmu_hw_config() rejects them (max_precise 0). */
	if (has_branch_stack(attr) && !d->lbr_nr)
		return -EOPNOTSUPP;
	ret = x86_pmu_hw_config(m, attr, encoding, src);
	if (ret)
		return ret;
	if (attr->type == m->pmu_type)
		*encoding |= attr->config & X86_AMD64_RAW_EVENT_MASK;
	/* amd_core_hw_config(): exclude_host/guest only steer the HO/GO bits */
	return 0;
}

/*
 * What Intel's PEBS memory events count on this machine, whose loads take
 * the fixed latency of the cache level that serves them (the model's
 * struct pmu_cache_geometry):
 *  - MEM_TRANS_RETIRED.LOAD_LATENCY (0x01cd, perf's mem-loads) counts the
 *    loads whose latency exceeds the threshold in config1
 *    (MSR_PEBS_LD_LAT_THRESHOLD, intel_skl_extra_regs "ldlat"; SDM vol. 3
 *    "Load Latency Performance Monitoring Facility"): the loads served by
 *    the first level slower than the threshold or beyond;
 *  - a precise sampling event asking for the data address, source, weight
 *    (ADDR, DATA_SRC, WEIGHT, PHYS_ADDR: what a PEBS record reports)
 *    counts its loads or stores per data access, so that its overflow is at
 *    the access and the sample carries it (the machine's memory hook).
 */
static enum sim_source intel_mem_source(const struct pmu_model *m,
					const struct perf_event_attr *attr,
					uint64_t encoding, enum sim_source src)
{
	const struct pmu_cache_geometry *g = m->caches;
	uint64_t data = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT |
			PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_PHYS_ADDR;

	if ((encoding & X86_INTEL_ARCH_EVENT_MASK) == 0x01cd && src == SIM_SRC_NONE) {
		uint64_t ldlat = attr->config1 & 0xffff;

		if (!g)
			return SIM_SRC_NONE;
		if (g->l1d.latency > ldlat)
			return SIM_SRC_MEM_LOADS;
		if (g->l2.latency > ldlat)
			return SIM_SRC_LOAD_L1_MISS;
		if (g->llc.latency > ldlat)
			return SIM_SRC_LOAD_L2_MISS;
		if (g->mem_latency > ldlat)
			return SIM_SRC_LOAD_L3_MISS;
		return SIM_SRC_NONE;
	}
	if (attr->precise_ip && is_sampling(attr) && (attr->sample_type & data) && g) {
		if (src == SIM_SRC_LOADS)
			return SIM_SRC_MEM_LOADS;
		if (src == SIM_SRC_STORES)
			return SIM_SRC_MEM_STORES;
	}
	return src;
}

/*
 * FRONTEND_RETIRED (0x01c6) counts what config1 (MSR_PEBS_FRONTEND,
 * intel_skl_extra_regs "frontend") selects: event 0x1, ANY_DSB_MISS, the
 * retired instructions whose code missed the decoded uop cache (perf's
 * frontend_retired.any_dsb_miss), is the front-end model's; the other
 * selections are not driven.
 */
static enum sim_source intel_frontend_source(const struct pmu_model *m,
					     const struct perf_event_attr *attr,
					     uint64_t encoding, enum sim_source src)
{
	if ((encoding & X86_INTEL_ARCH_EVENT_MASK) == 0x01c6 && src == SIM_SRC_NONE &&
	    m->frontend && (attr->config1 & 0x7fff17) == 0x1)
		return SIM_SRC_DSB_MISS_INSNS;
	return src;
}

int x86_event_init(const struct pmu_model *m, unsigned nr_gp,
		   const struct perf_event_attr *attr, struct pmu_event_config *out)
{
	enum sim_source src = SIM_SRC_NONE;
	uint64_t encoding = 0, mask;
	bool pair, overlap;
	int ret;

	if (!nr_gp || nr_gp > m->nr_gp_counters)
		nr_gp = m->nr_gp_counters;

	/* x86_pmu_event_init(): this PMU takes its own type, HARDWARE, HW_CACHE */
	if (attr->type != m->pmu_type && attr->type != PERF_TYPE_HARDWARE &&
	    attr->type != PERF_TYPE_HW_CACHE)
		return -ENOENT;

	if (m->arch == PMU_ARCH_X86_AMD)
		ret = amd_pmu_hw_config(m, attr, &encoding, &src);
	else
		ret = intel_pmu_hw_config(m, attr, &encoding, &src);
	if (ret)
		return ret;
	if (attr->type == m->pmu_type) {
		/* a raw event counts what its encoding (before any PEBS alias)
		 * names in the model, or nothing */
		const struct pmu_event_desc *e;

		e = pmu_model_lookup(m, attr->config & m->raw_config_mask);
		src = e ? e->source : SIM_SRC_NONE;
	}
	if (m->arch == PMU_ARCH_X86_INTEL) {
		src = intel_mem_source(m, attr, encoding, src);
		src = intel_frontend_source(m, attr, encoding, src);
	}

	/*
	 * exclude_host: the counter runs only while a guest does
	 * (intel_pmu_enable_event()'s intel_ctrl_guest_mask, AMD's GUESTONLY
	 * bit, or HO=GO=1 read as US=OS=0 by amd_core_hw_config()). The
	 * simulated machine runs no guests, so such an event counts nothing.
	 */
	if (attr->exclude_host)
		src = SIM_SRC_NONE;

	/* validate_event(): an event no counter can take is -EINVAL */
	mask = x86_event_constraint(m, nr_gp, encoding, attr->precise_ip, &pair, &overlap);
	if (!mask)
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	out->config = encoding;
	out->source = src;
	out->counter_mask = mask;
	/* intel_pmu_hw_config(): MEM_TRANS_RETIRED.LOAD_LATENCY's PEBS record
	 * is a load-latency one (INTEL_PLD_CONSTRAINT(0x1cd, ...)) */
	if (m->arch == PMU_ARCH_X86_INTEL && (encoding & X86_INTEL_ARCH_EVENT_MASK) == 0x01cd)
		out->flags |= PMU_EVENT_FLAG_PEBS_LDLAT;
	/* an AMD pair event takes idx and idx+1: assign() knows it from the
	 * encoding; chained stays the PMUv3 notion */
	out->chained = false;
	return 0;
}
