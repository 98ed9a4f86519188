/*
 * pmu.c - the registry of the simulated kernel's PMUs: the order
 * perf_event_init() registers them in (software, cpu_clock, task_clock,
 * tracepoint, breakpoint, then the architecture's core PMU), and the lookups perf_init_event()
 * makes in it (pmu_idr by type, the pmus list in order), and what the
 * side PMUs (msr, cstate, uncore) share: their table lookups and the
 * free-running counters' event_init.
 */
#include <errno.h>
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"

/* Adding a PMU: its file, and its line here (registration order is the
 * order perf_init_event() offers an unknown type to the PMUs). */
const struct perf_pmu *const perf_pmus[] = {
	&perf_swevent_pmu,
	&perf_cpu_clock_pmu,
	&perf_task_clock_pmu,
	&perf_tracepoint_pmu,   /* perf_tp_register(), from perf_event_init() */
	&perf_bp_pmu,           /* init_hw_breakpoint(), from perf_event_init() */
	&perf_cpu_pmu,          /* the arch's, from an early initcall */
	/* the model's others, from device initcalls (pmu_model.h side_pmus) */
	&perf_msr_pmu,
	&perf_uncore_pmu,
	&perf_cstate_core_pmu,
	&perf_cstate_pkg_pmu,
};
const unsigned perf_nr_pmus = sizeof(perf_pmus) / sizeof(perf_pmus[0]);

unsigned perf_pmu_index(const struct perf_pmu *pmu)
{
	for (unsigned i = 0; i < perf_nr_pmus; i++)
		if (perf_pmus[i] == pmu)
			return i;
	assert(!"PMU not registered");
	return 0;
}

bool perf_pmu_probe(const struct perf_core *core, const struct perf_pmu *pmu,
		    uint32_t *type, unsigned *caps)
{
	uint32_t t = 0;
	unsigned c = 0;
	bool ok = pmu->probe(core, &t, &c);

	if (type)
		*type = t;
	if (caps)
		*caps = c;
	return ok;
}

int perf_pmu_find_type(const struct perf_core *core, uint32_t type)
{
	uint32_t t;

	for (unsigned i = 0; i < perf_nr_pmus; i++)
		if (perf_pmu_probe(core, perf_pmus[i], &t, NULL) && t == type)
			return (int)i;
	return -1;
}

unsigned perf_event_pmu_caps(const struct perf_event *event)
{
	unsigned caps;

	perf_pmu_probe(event->core, perf_event_pmu(event), NULL, &caps);
	return caps;
}

/* The type the first side PMU registers with: the session's, or the one
 * after cpu_clock (6) and task_clock (7). */
static uint32_t side_first_type(const struct perf_core *core)
{
	return core->cfg.first_side_type ? core->cfg.first_side_type : PERF_FIRST_SIDE_TYPE;
}

const struct pmu_side_pmu *perf_side_pmu(const struct perf_core *core, enum pmu_side_kind kind,
					 uint32_t *type)
{
	const struct pmu_model *m = core ? perf_core_model(core) : NULL;
	uint32_t first;

	if (!m)
		return NULL;
	first = side_first_type(core);
	for (unsigned i = 0; i < m->nr_side_pmus; i++) {
		if (m->side_pmus[i].kind != kind)
			continue;
		if (type)
			*type = first + i;
		return &m->side_pmus[i];
	}
	return NULL;
}

/* The model's event of a side PMU with this config, or NULL. */
const struct pmu_side_event *perf_side_event(const struct pmu_side_pmu *p, uint64_t config)
{
	for (unsigned i = 0; i < p->nr_events; i++)
		if (p->events[i].config == config)
			return &p->events[i];
	return NULL;
}

int perf_side_counter_init(const struct perf_core *core, enum pmu_side_kind kind,
			   const struct perf_event_attr *attr, struct perf_event_init *out)
{
	uint32_t type = 0;
	const struct pmu_side_pmu *p = perf_side_pmu(core, kind, &type);
	const struct pmu_side_event *e;

	if (!p || attr->type != type)
		return -ENOENT;
	if (attr->sample_period)        /* no sampling */
		return -EINVAL;
	e = perf_side_event(p, attr->config);
	if (!e)
		return -EINVAL;
	out->source = SIM_SRC_NONE;
	out->time_source = e->time;
	out->sw_source = e->time == PMU_TIME_NONE ? PERF_SW_SRC_NONE : PERF_SW_SRC_RESIDENCY;
	return 0;
}

bool perf_side_pmu_probe(const struct perf_core *core, enum pmu_side_kind kind, uint32_t *type)
{
	return perf_side_pmu(core, kind, type) != NULL;
}

bool perf_core_is_side_type(const struct perf_core *core, uint32_t type)
{
	const struct pmu_model *m = core ? perf_core_model(core) : NULL;
	uint32_t first = core ? side_first_type(core) : 0;

	return m && type >= first && type - first < m->nr_side_pmus;
}
