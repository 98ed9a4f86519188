/*
 * model_registry.c - the list of PMU models, their validation and the
 * decoding of an encoding to the model's event description.
 *
 * Invariant: every registered model passes pmu_model_validate() (the
 * models test suite checks it); the first one is the default.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "pmu_models/model_internal.h"

static const struct pmu_model *const models[] = {
	&pmu_model_skylake,     /* default */
	&pmu_model_zen,
	&pmu_model_pmuv3,
	&pmu_model_pmuv3p5,
};
#define NR_MODELS (sizeof(models) / sizeof(models[0]))

const struct pmu_model *pmu_model_find(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned i = 0; i < NR_MODELS; i++)
		if (strcmp(models[i]->name, name) == 0)
			return models[i];
	return NULL;
}

const struct pmu_model *pmu_model_default(void)
{
	return models[0];
}

unsigned pmu_model_count(void)
{
	return NR_MODELS;
}

const struct pmu_model *pmu_model_at(unsigned i)
{
	return i < NR_MODELS ? models[i] : NULL;
}

/* The bits lookup compares after an exact match failed: the event select
 * and unit mask (x86, with AMD's extended event bits), the event number
 * (PMUv3, ARMV8_PMU_EVTYPE_EVENT). */
static uint64_t event_id_mask(const struct pmu_model *m)
{
	switch (m->arch) {
	case PMU_ARCH_X86_INTEL:
		return X86_INTEL_ARCH_EVENT_MASK;
	case PMU_ARCH_X86_AMD:
		return X86_AMD64_EVENTSEL_EVENT | X86_EVENTSEL_UMASK;
	case PMU_ARCH_ARM_PMUV3:
		return ARMV8_PMU_EVTYPE_EVENT;
	}
	return 0;
}

/*
 * Decode as the hardware would: the encoding masked to the bits the model's
 * raw format keeps; an exact match first (so that e.g. cycles-t with in_tx
 * is told from cycles), then event and unit mask alone, with edge, inv,
 * cmask and the like ignored.
 */
const struct pmu_event_desc *pmu_model_lookup(const struct pmu_model *m, uint64_t config)
{
	uint64_t id = event_id_mask(m);

	config &= m->raw_config_mask;
	for (unsigned i = 0; i < m->nr_events; i++)
		if (m->events[i].config == config)
			return &m->events[i];
	for (unsigned i = 0; i < m->nr_events; i++)
		if ((m->events[i].config & id) == (config & id))
			return &m->events[i];
	return NULL;
}

bool pmu_model_counts_source(const struct pmu_model *m, enum sim_source src)
{
	for (unsigned i = 0; m && i < m->nr_events; i++)
		if (m->events[i].source == src)
			return true;
	return false;
}

/* snprintf at offset n of buf[len], keeping the would-be length */
__attribute__((format(printf, 4, 5)))
static int append(char *buf, size_t len, int n, const char *fmt, ...)
{
	va_list ap;
	size_t off = (size_t)n < len ? (size_t)n : len;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	return n + (r > 0 ? r : 0);
}

int pmu_model_event_sysfs(const struct pmu_model *m, const struct pmu_event_desc *e,
			  char *buf, size_t len)
{
	uint64_t c = e->config, event;
	int n;

	/* events_sysfs_show(): "string trumps id", written without newline */
	if (e->sysfs)
		return snprintf(buf, len, "%s", e->sysfs);
	/* armv8pmu_events_sysfs_show() */
	if (m->arch == PMU_ARCH_ARM_PMUV3)
		return snprintf(buf, len, "event=0x%04llx\n", (unsigned long long)c);

	/* intel_event_sysfs_show() / amd_event_sysfs_show() give the event
	 * select, x86_event_sysfs_show() the rest in this order */
	event = c & X86_EVENTSEL_EVENT;
	if (m->arch == PMU_ARCH_X86_AMD)
		event |= (c & X86_AMD64_EVENTSEL_EVENT) >> 24;
	n = snprintf(buf, len, "event=0x%02llx", (unsigned long long)event);
	if (c & X86_EVENTSEL_UMASK)
		n = append(buf, len, n, ",umask=0x%02llx",
			   (unsigned long long)((c & X86_EVENTSEL_UMASK) >> 8));
	if (c & X86_EVENTSEL_EDGE)
		n = append(buf, len, n, ",edge");
	if (c & X86_EVENTSEL_PIN_CONTROL)
		n = append(buf, len, n, ",pc");
	if (c & X86_EVENTSEL_ANY)
		n = append(buf, len, n, ",any");
	if (c & X86_EVENTSEL_INV)
		n = append(buf, len, n, ",inv");
	if (c & X86_EVENTSEL_CMASK)
		n = append(buf, len, n, ",cmask=0x%02llx",
			   (unsigned long long)((c & X86_EVENTSEL_CMASK) >> 24));
	return append(buf, len, n, "\n");
}

/* All counter indexes the model has, as a mask over hw.idx. */
static uint64_t all_counters(const struct pmu_model *m)
{
	if (m->arch == PMU_ARCH_ARM_PMUV3)
		return pmu_gp_mask(m->nr_gp_counters) << ARMV8_IDX_COUNTER0 |
		       (m->has_cycle_counter ? UINT64_C(1) << ARMV8_IDX_CYCLE_COUNTER : 0);
	return pmu_gp_mask(m->nr_gp_counters) |
	       pmu_gp_mask(m->nr_fixed_counters) << PMU_IDX_FIXED;
}

__attribute__((format(printf, 4, 5)))
static int invalid(const struct pmu_model *m, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (why && whylen) {
		n = snprintf(why, whylen, "model '%s': ", m->name ? m->name : "(null)");
		if (n >= 0 && (size_t)n < whylen) {
			va_start(ap, fmt);
			vsnprintf(why + n, whylen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

static int validate_map_entry(const struct pmu_model *m, uint64_t v, const char *what,
			      char *why, size_t whylen)
{
	if (v == PMU_MAP_UNSUPPORTED || v == PMU_MAP_INVALID)
		return 0;
	if (v & ~m->raw_config_mask)
		return invalid(m, why, whylen, "%s encoding 0x%llx outside the raw format",
			       what, (unsigned long long)v);
	/* PMUv3: any 16-bit event number is a raw event; the generic and
	 * cache tables name common events the PMU may not implement, which
	 * map_event turns into -ENOENT through PMCEID */
	if (m->arch == PMU_ARCH_ARM_PMUV3)
		return 0;
	if (!pmu_model_lookup(m, v))
		return invalid(m, why, whylen, "%s encoding 0x%llx is not a known event",
			       what, (unsigned long long)v);
	return 0;
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The pipeline table, as sim/cpu/block_decode.c schedules with it: an
 * issue width inline counting can bound (instructions per cycle at most
 * 8), a mispredict split into its parts, every instruction at least one
 * uop and one cycle of latency. Required with a cache table (a load's
 * latency is the L1D's). */
static int validate_pipeline(const struct pmu_model *m, char *why, size_t whylen)
{
	const struct pmu_pipeline *p = m->pipeline;

	if (!p)
		return m->caches ? invalid(m, why, whylen, "cache table without a pipeline table") : 0;
	if (p->issue_width < 1 || p->issue_width > 8)
		return invalid(m, why, whylen, "issue width %u outside 1-8", p->issue_width);
	if (p->wrong_path_cycles + p->recovery_cycles > p->mispredict_cycles)
		return invalid(m, why, whylen, "mispredict parts exceed its %u cycles",
			       p->mispredict_cycles);
	if (!p->mul_latency || !p->div_latency || !p->div_uops || !p->call_uops ||
	    !p->ret_uops || !p->rmw_uops)
		return invalid(m, why, whylen, "pipeline latency or uop count of 0");
	return 0;
}

/* The front-end table, as sim/cpu/frontend_model.c simulates it: a
 * power-of-two number of DSB sets, window bytes and BTB entries, ways that
 * hold something, a window that fits its set. */
static int validate_frontend(const struct pmu_model *m, char *why, size_t whylen)
{
	const struct pmu_frontend *f = m->frontend;

	if (!f)
		return 0;
	if (!f->dsb_sets || (f->dsb_sets & (f->dsb_sets - 1)) || !f->dsb_window ||
	    (f->dsb_window & (f->dsb_window - 1)) || !f->btb_entries ||
	    (f->btb_entries & (f->btb_entries - 1)))
		return invalid(m, why, whylen, "front-end sets, window or BTB not a power of two");
	if (!f->dsb_ways || f->dsb_ways > 255 || !f->way_uops || !f->way_branches ||
	    !f->window_ways || f->window_ways > f->dsb_ways || !f->ms_uops)
		return invalid(m, why, whylen, "front-end ways, uops or branches out of range");
	return 0;
}

/* The cache table, as sim/cpu/cache_model.c simulates it: every cache and
 * TLB level a power-of-two number of sets, one line size throughout. */
static int validate_caches(const struct pmu_model *m, char *why, size_t whylen)
{
	const struct pmu_cache_geometry *g = m->caches;
	const struct pmu_cache_level *lv[4];
	const struct pmu_tlb_level *tl[4];
	static const char *const lname[4] = { "L1I", "L1D", "L2", "LLC" };
	static const char *const tname[4] = { "ITLB", "DTLB", "second-level ITLB", "second-level DTLB" };

	if (!g)
		return 0;
	lv[0] = &g->l1i; lv[1] = &g->l1d; lv[2] = &g->l2; lv[3] = &g->llc;
	tl[0] = &g->itlb; tl[1] = &g->dtlb; tl[2] = &g->itlb2; tl[3] = &g->dtlb2;
	for (unsigned i = 0; i < 4; i++) {
		const struct pmu_cache_level *l = lv[i];

		if (!l->ways || !l->line || l->line != g->l1d.line ||
		    l->size % (l->ways * l->line) || !pow2(l->size / l->ways / l->line) ||
		    !pow2(l->line))
			return invalid(m, why, whylen, "%s cache geometry %u/%u/%u is not one the "
				       "cache model simulates", lname[i], l->size, l->ways, l->line);
		if (i == 2 && g->l2tlb_unified && !tl[i]->entries)
			continue;   /* one STLB: dtlb2 */
		if (!tl[i]->ways || tl[i]->entries % tl[i]->ways || !pow2(tl[i]->entries / tl[i]->ways))
			return invalid(m, why, whylen, "%s geometry %u/%u is not one the cache "
				       "model simulates", tname[i], tl[i]->entries, tl[i]->ways);
	}
	return 0;
}

/* The PMUs beside the core PMU: named, with formats and events; an event
 * with a sysfs name (msr, cstate) or perf's name (uncore), a known source,
 * an uncore event selected by its select bits alone. */
static int validate_side_pmus(const struct pmu_model *m, char *why, size_t whylen)
{
	for (unsigned i = 0; i < m->nr_side_pmus; i++) {
		const struct pmu_side_pmu *p = &m->side_pmus[i];
		bool uncore = p->kind == PMU_SIDE_UNCORE;

		if (!p->name || !p->nr_formats || !p->nr_events)
			return invalid(m, why, whylen, "side PMU %u incomplete", i);
		/* the allocator (x86_perf_assign_events) takes general
		 * counters below PMU_IDX_FIXED only */
		if (uncore && (!p->nr_counters || p->nr_counters > PMU_IDX_FIXED))
			return invalid(m, why, whylen, "%s has no counters, or more than %u",
				       p->name, PMU_IDX_FIXED);
		for (unsigned e = 0; e < p->nr_events; e++) {
			const struct pmu_side_event *ev = &p->events[e];

			if (uncore ? !ev->perf_name : !ev->name)
				return invalid(m, why, whylen, "%s event %u has no name", p->name, e);
			if ((unsigned)ev->source >= SIM_SRC_NR || ev->time > PMU_TIME_PKG_IDLE)
				return invalid(m, why, whylen, "%s event %u counts out of range",
					       p->name, e);
			if (uncore && (ev->config & ~p->select_mask))
				return invalid(m, why, whylen, "%s event %u past the select bits",
					       p->name, e);
		}
	}
	return 0;
}

int pmu_model_validate(const struct pmu_model *m, char *why, size_t whylen)
{
	const struct pmu_cpu_identity *id;
	uint64_t counters;
	char what[64];
	int ret;

	if (why && whylen)
		why[0] = '\0';
	if (!m)
		return -EINVAL;
	if (!m->name || !m->name[0] || !m->summary || !m->pmu_name || !m->pmu_name[0])
		return invalid(m, why, whylen, "name, summary or PMU name missing");
	if (!m->ops || !m->ops->event_init || !m->ops->assign || !m->ops->constraint ||
	    !m->ops->width)
		return invalid(m, why, whylen, "counter ops missing");
	if (!m->arch_data)
		return invalid(m, why, whylen, "allocator data missing");

	/* counters: index space of the architecture within PMU_MAX_COUNTERS */
	if (m->nr_gp_counters == 0)
		return invalid(m, why, whylen, "no general counters");
	if (m->arch == PMU_ARCH_ARM_PMUV3) {
		if (m->nr_gp_counters + ARMV8_IDX_COUNTER0 > PMU_MAX_COUNTERS ||
		    m->nr_gp_counters > 31)
			return invalid(m, why, whylen, "%u event counters exceed the index space",
				       m->nr_gp_counters);
		if (m->nr_fixed_counters)
			return invalid(m, why, whylen, "PMUv3 has no fixed counters");
		if (m->pmu_type < PERF_TYPE_MAX)
			return invalid(m, why, whylen, "PMU type %u is a generic type",
				       m->pmu_type);
	} else {
		if (m->nr_gp_counters > PMU_IDX_FIXED)
			return invalid(m, why, whylen, "%u general counters exceed %u",
				       m->nr_gp_counters, PMU_IDX_FIXED);
		if (m->nr_fixed_counters > PMU_MAX_COUNTERS - PMU_IDX_FIXED)
			return invalid(m, why, whylen, "%u fixed counters exceed %u",
				       m->nr_fixed_counters, PMU_MAX_COUNTERS - PMU_IDX_FIXED);
		if (m->has_cycle_counter || m->chain_for_64bit)
			return invalid(m, why, whylen, "x86 has no PMUv3 cycle counter or chaining");
		if (m->pmu_type != PERF_TYPE_RAW)
			return invalid(m, why, whylen, "x86 core PMU type %u is not PERF_TYPE_RAW",
				       m->pmu_type);
	}
	if (m->gp_width < 1 || m->gp_width > 64)
		return invalid(m, why, whylen, "counter width %u not in 1..64", m->gp_width);
	if (m->nr_fixed_counters && (m->fixed_width < 1 || m->fixed_width > 64))
		return invalid(m, why, whylen, "fixed counter width %u not in 1..64",
			       m->fixed_width);
	if (m->max_precise > 3)
		return invalid(m, why, whylen, "max_precise %u above 3", m->max_precise);
	if (!m->raw_config_mask)
		return invalid(m, why, whylen, "empty raw config mask");
	counters = all_counters(m);

	/* events: unique names, encodings in the raw format, masks on counters */
	if (m->nr_events && !m->events)
		return invalid(m, why, whylen, "event table missing");
	for (unsigned i = 0; i < m->nr_events; i++) {
		const struct pmu_event_desc *e = &m->events[i];

		if (!e->name || !e->name[0] || !e->desc)
			return invalid(m, why, whylen, "event %u has no name or description", i);
		for (unsigned j = 0; j < i; j++)
			if (strcmp(m->events[j].name, e->name) == 0)
				return invalid(m, why, whylen, "event name '%s' appears twice",
					       e->name);
		if ((unsigned)e->source >= SIM_SRC_NR)
			return invalid(m, why, whylen, "event '%s' has source %u out of range",
				       e->name, (unsigned)e->source);
		if (e->config & ~m->raw_config_mask)
			return invalid(m, why, whylen,
				       "event '%s' encoding 0x%llx outside the raw format",
				       e->name, (unsigned long long)e->config);
		if (e->counter_mask & ~counters)
			return invalid(m, why, whylen,
				       "event '%s' counter mask 0x%llx outside the counters 0x%llx",
				       e->name, (unsigned long long)e->counter_mask,
				       (unsigned long long)counters);
	}

	/* generic and cache maps: every entry a known event */
	for (unsigned i = 0; i < PERF_COUNT_HW_MAX; i++) {
		snprintf(what, sizeof(what), "generic event %u", i);
		ret = validate_map_entry(m, m->generic_map[i], what, why, whylen);
		if (ret)
			return ret;
	}
	for (unsigned t = 0; t < PERF_COUNT_HW_CACHE_MAX; t++)
		for (unsigned o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++)
			for (unsigned r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				snprintf(what, sizeof(what), "cache event %u/%u/%u", t, o, r);
				ret = validate_map_entry(m, m->cache_map[t][o][r], what, why, whylen);
				if (ret)
					return ret;
			}

	for (unsigned i = 0; i < m->nr_formats; i++)
		if (!m->formats[i].name || !m->formats[i].spec)
			return invalid(m, why, whylen, "format %u incomplete", i);
	for (unsigned i = 0; i < m->nr_caps; i++)
		if (!m->caps[i].name || !m->caps[i].value)
			return invalid(m, why, whylen, "cap %u incomplete", i);

	/* identity */
	id = &m->cpu;
	if (!id->vendor || !id->brand || !id->pfm_name || !id->perf_cpuid)
		return invalid(m, why, whylen, "CPU identity incomplete");
	/* CPUID.80000002h-80000004h: 48 bytes with the terminating NUL */
	if (m->arch != PMU_ARCH_ARM_PMUV3 && strlen(id->brand) > 47)
		return invalid(m, why, whylen, "brand string longer than CPUID's 47 characters");
	if (m->arch == PMU_ARCH_ARM_PMUV3 ? !id->midr : !id->family)
		return invalid(m, why, whylen, "CPU identity has no %s",
			       m->arch == PMU_ARCH_ARM_PMUV3 ? "MIDR" : "family");
	if (!m->freq_hz || !m->tsc_hz || !m->mux_interval_ms)
		return invalid(m, why, whylen, "clock or mux interval missing");
	if ((ret = validate_pipeline(m, why, whylen)))
		return ret;
	if ((ret = validate_frontend(m, why, whylen)))
		return ret;
	if ((ret = validate_side_pmus(m, why, whylen)))
		return ret;
	return validate_caches(m, why, whylen);
}
