/*
 * pmu_cstate.c - "cstate_core" and "cstate_pkg" (arch/x86/events/intel/
 * cstate.c): the C-state residency counters of a core and of the package,
 * in TSC ticks of simulated time, from the model's C-state model
 * (docs/models.md, "The C-state model"): a CPU that runs nothing is in
 * core C6, and while no CPU runs anything the package is in C6; the other
 * states are never entered and count 0. The events exist as the model's
 * table lists them (snb_cstates on Skylake client). CPU-wide only
 * (perf_invalid_context), no sampling, no exclude_*; always on (free
 * running counters need no counter of their own).
 */
#include <errno.h>
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"

static unsigned cstate_caps(void)
{
	return PERF_PMU_CAP_SIM_NO_INTERRUPT | PERF_PMU_CAP_SIM_NO_EXCLUDE;
}

/* cstate_init() -> perf_pmu_register(&cstate_core_pmu, "cstate_core", -1) */
static bool cstate_core_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	*caps = cstate_caps();
	return perf_side_pmu_probe(core, PMU_SIDE_CSTATE_CORE, type);
}

static bool cstate_pkg_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	*caps = cstate_caps();
	return perf_side_pmu_probe(core, PMU_SIDE_CSTATE_PKG, type);
}

/*
 * cstate_pmu_event_init(): its own type only (-ENOENT); no sampling
 * (-EINVAL); CPU-wide only, event->cpu < 0 (-EINVAL); a config past the
 * PMU's events or not in core_msr_mask/pkg_msr_mask (-EINVAL). The
 * reader CPU (one per core or package) reads the same counter as any CPU
 * of the scope here: a package event counts the package on whichever CPU
 * it is opened. perf_event_alloc() then refuses a task (invalid context)
 * and perf_try_init_event() any exclude_* (NO_EXCLUDE).
 */
static int cstate_event_init(enum pmu_side_kind kind, const struct perf_core *core,
			     struct perf_event_attr *attr, const struct perf_event_init_hooks *hooks,
			     struct perf_event_init *out)
{
	int err = perf_side_counter_init(core, kind, attr, out);

	(void)hooks;
	if (err)
		return err;
	return out->cpu < 0 ? -EINVAL : 0;
}

static int cstate_core_event_init(const struct perf_core *core, struct perf_event_attr *attr,
				  const struct perf_event_init_hooks *hooks,
				  struct perf_event_init *out)
{
	return cstate_event_init(PMU_SIDE_CSTATE_CORE, core, attr, hooks, out);
}

static int cstate_pkg_event_init(const struct perf_core *core, struct perf_event_attr *attr,
				 const struct perf_event_init_hooks *hooks,
				 struct perf_event_init *out)
{
	return cstate_event_init(PMU_SIDE_CSTATE_PKG, core, attr, hooks, out);
}

const struct perf_pmu perf_cstate_core_pmu = {
	.name = "cstate_core",
	.task_ctx_nr = perf_invalid_context,
	.probe = cstate_core_probe,
	.event_init = cstate_core_event_init,
};

const struct perf_pmu perf_cstate_pkg_pmu = {
	.name = "cstate_pkg",
	.task_ctx_nr = perf_invalid_context,
	.probe = cstate_pkg_probe,
	.event_init = cstate_pkg_event_init,
};
