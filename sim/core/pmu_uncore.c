/*
 * pmu_uncore.c - the model's uncore box (arch/x86/events/intel/uncore.c
 * over the model's table; Skylake client: uncore_snb.c's "arb", the
 * arbitration box between the cores, the LLC and memory). One box per
 * package, read on the package's first CPU: CPU-wide events only
 * (perf_invalid_context), no sampling, no exclude_*. An event counts the
 * sim_source the model's table gives its event and umask, as the machine
 * reports it on the box's CPU (docs/models.md, "The uncore arbitration
 * box"); a selection the table lacks opens and counts 0, as an encoding
 * the hardware does not count would.
 */
#include <errno.h>
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"

/* uncore_pmu_register(): "uncore_<type>", PERF_PMU_CAP_NO_EXCLUDE only
 * (sampling is event_init's to refuse) */
static bool uncore_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	*caps = PERF_PMU_CAP_SIM_NO_EXCLUDE;
	return perf_side_pmu_probe(core, PMU_SIDE_UNCORE, type);
}

/* The counters an encoding may use on the box (its constraint, or any). */
static uint64_t uncore_counters(const struct pmu_side_pmu *p, uint64_t config)
{
	for (unsigned i = 0; i < p->nr_constraints; i++)
		if ((config & p->constraints[i].code_mask) == p->constraints[i].code)
			return p->constraints[i].counters;
	return (UINT64_C(1) << p->nr_counters) - 1;
}

/*
 * uncore_validate_group(): on a fake box, the group's events of this PMU
 * (uncore_collect_events(): the leader, and siblings not OFF; more than
 * the box's counters is -EINVAL), then the new one, must all get a counter
 * (uncore_assign_events(): the most constrained first; -EINVAL if not).
 */
static int uncore_validate_group(const struct pmu_side_pmu *p, const struct perf_event *leader,
				 uint64_t config)
{
	uint64_t want[PMU_MAX_COUNTERS + 1];
	const struct perf_event *e;
	unsigned n = 0;

	if (perf_event_pmu(leader) == &perf_uncore_pmu)
		want[n++] = uncore_counters(p, leader->hw_config);
	list_for_each_entry(e, &leader->sibling_list, sibling_entry) {
		if (perf_event_pmu(e) != &perf_uncore_pmu || e->state <= PERF_EVENT_STATE_OFF)
			continue;
		if (n >= p->nr_counters)
			return -EINVAL;
		want[n++] = uncore_counters(p, e->hw_config);
	}
	if (n >= p->nr_counters)
		return -EINVAL;
	want[n++] = uncore_counters(p, config);
	return x86_perf_assign_events(want, NULL, NULL, n, p->nr_counters, NULL) ? -EINVAL : 0;
}

/*
 * uncore_pmu_event_init(): its own type only (-ENOENT); "Sampling not
 * supported yet" (hwc->sample_period: -EINVAL); "Place all uncore events
 * for a particular physical package onto a single cpu": event->cpu < 0 is
 * -EINVAL, and the event moves to the box's CPU (event->cpu = box->cpu,
 * CPU 0 of the one package); hwc->config = attr.config & the box's
 * event_mask (bits outside it are dropped, not refused); a sibling's
 * group must fit the box (uncore_validate_group). perf_event_alloc() then
 * refuses a task (invalid context).
 */
static int uncore_event_init(const struct perf_core *core, struct perf_event_attr *attr,
			     const struct perf_event_init_hooks *hooks, struct perf_event_init *out)
{
	uint32_t type = 0;
	const struct pmu_side_pmu *p = perf_side_pmu(core, PMU_SIDE_UNCORE, &type);
	const struct pmu_side_event *e;
	uint64_t config;

	if (!p || attr->type != type)
		return -ENOENT;
	if (attr->sample_period)        /* sample_freq shares the field */
		return -EINVAL;
	if (out->cpu < 0)
		return -EINVAL;
	out->cpu = 0;                   /* box->cpu: the package's reader */
	config = attr->config & p->config_mask;
	e = perf_side_event(p, config & p->select_mask);
	out->source = e ? e->source : SIM_SRC_NONE;
	/* the model's requests never overlap (a CPU waits for each miss):
	 * cycles with at least one entry are the occupancy itself, with two
	 * or more none; edge and inv are not modelled and count 0 */
	if ((config & p->modifier_mask) ||
	    (config & p->threshold_mask) > (p->threshold_mask & -p->threshold_mask))
		out->source = SIM_SRC_NONE;
	out->sw_source = PERF_SW_SRC_NONE;
	out->hw.config = config;
	if (hooks && hooks->group_leader)
		return uncore_validate_group(p, hooks->group_leader, config);
	return 0;
}

const struct perf_pmu perf_uncore_pmu = {
	.name = "uncore",
	.task_ctx_nr = perf_invalid_context,
	.probe = uncore_probe,
	.event_init = uncore_event_init,
};
