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

/* msr_event_init(): its own type only (-ENOENT), no sampling (-EINVAL),
 * a config past PERF_MSR_EVENT_MAX or not in msr_mask (-EINVAL). The
 * caller's perf_try_init_event() then rejects exclude_* (NO_EXCLUDE). */
static int msr_event_init(const struct perf_core *core, struct perf_event_attr *attr,
			  const struct perf_event_init_hooks *hooks, struct perf_event_init *out)
{
	(void)hooks;
	return perf_side_counter_init(core, PMU_SIDE_MSR, attr, out);
}

const struct perf_pmu perf_msr_pmu = {
	.name = "msr",
	.task_ctx_nr = perf_sw_context,
	.probe = msr_probe,
	.event_init = msr_event_init,
};
