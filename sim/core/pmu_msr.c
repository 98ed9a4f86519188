/*
 * pmu_msr.c - "msr" (arch/x86/events/msr.c): free-running model-specific
 * registers read as counters, here TSC ticks of simulated time (tsc) and
 * of the time the CPU runs a task (aperf, mperf, pperf), or 0 (smi: the
 * simulated machine takes no SMIs). Which events exist is the model's
 * table (pmu_models/pmu_model.h struct pmu_side_pmu). Its events live in
 * the software context (per task or per CPU), never sample, never exclude
 * anything; the core counts them from the CPU's clock (count.c,
 * PERF_SW_SRC_RESIDENCY).
 */
#include <errno.h>
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"

/* msr_init(): perf_pmu_register(&pmu_msr, "msr", -1) with
 * PERF_PMU_CAP_NO_INTERRUPT | PERF_PMU_CAP_NO_EXCLUDE, when the model has it */
static bool msr_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	*caps = PERF_PMU_CAP_SIM_NO_INTERRUPT | PERF_PMU_CAP_SIM_NO_EXCLUDE;
	return perf_side_pmu_probe(core, PMU_SIDE_MSR, type);
}

/* The model's event of a side PMU with this config, or NULL. */
const struct pmu_side_event *perf_side_event(const struct pmu_side_pmu *p, uint64_t config)
{
	for (unsigned i = 0; i < p->nr_events; i++)
		if (p->events[i].config == config)
			return &p->events[i];
	return NULL;
}

/* msr_event_init(): its own type only (-ENOENT), no sampling (-EINVAL),
 * a config past PERF_MSR_EVENT_MAX or not in msr_mask (-EINVAL). The
 * caller's perf_try_init_event() then rejects exclude_* (NO_EXCLUDE). */
static int msr_event_init(const struct perf_core *core, struct perf_event_attr *attr,
			  const struct perf_event_init_hooks *hooks, struct perf_event_init *out)
{
	uint32_t type = 0;
	const struct pmu_side_pmu *p = perf_side_pmu(core, PMU_SIDE_MSR, &type);
	const struct pmu_side_event *e;

	(void)hooks;
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

const struct perf_pmu perf_msr_pmu = {
	.name = "msr",
	.task_ctx_nr = perf_sw_context,
	.probe = msr_probe,
	.event_init = msr_event_init,
};
