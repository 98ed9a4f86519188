/*
 * trace.c - the scheduler's trace: every sched-in, sched-out, counter move,
 * rotation and group that could not go on (with the reason), each with its
 * simulated time and the event's time_enabled/time_running at that point.
 * Kept when the core was created with cfg.trace (pmusim sched --trace,
 * --trace-out, pmusim explain). The buffer comes from the core's arena, so
 * in a shared arena every process that runs the core appends to it under
 * the trace's own lock (CPUs run at once), and whoever created the core
 * reads it at the end.
 */
#include <stdlib.h>
#include <string.h>
#include "sim/core/core_types.h"
#include "sim/core/sched_trace.h"

/* Appends one entry; the caller checked cfg.trace (perf_trace). */
void perf_trace_record(struct perf_cpu *cpu, enum perf_trace_kind kind,
		       const struct perf_event *event, enum perf_trace_reason why)
{
	struct perf_core *core = cpu->core;
	struct perf_trace_entry *e;

	perf_trace_lock(core);
	if (core->trace_len == core->trace_cap) {
		size_t cap = core->trace_cap ? core->trace_cap * 2 : 256;
		struct perf_trace_entry *t = perf_zalloc(core, cap * sizeof(*t));

		if (!t) {
			perf_trace_unlock(core);
			return; /* the trace is best effort; scheduling goes on */
		}
		if (core->trace_len)
			memcpy(t, core->trace, core->trace_len * sizeof(*t));
		perf_kfree(core, core->trace);
		core->trace = t;
		core->trace_cap = cap;
	}
	e = &core->trace[core->trace_len++];
	*e = (struct perf_trace_entry){
		.time_ns = perf_cpu_time_ns(cpu),
		.cpu = cpu->num,
		.kind = kind,
		.reason = why,
		.handle = -1,
		.hw_idx = -1,
		.tid = -1,
	};
	if (!event) {
		perf_trace_unlock(core);
		return;
	}
	e->event_id = event->id;
	e->primary_id = perf_primary_event_id(event);
	e->leader_id = perf_primary_event_id(event->group_leader);
	e->handle = event->handle;
	e->hw_idx = event->hw_idx;
	e->tid = event->ctx && event->ctx->task ? event->ctx->task->tid : -1;
	e->attr_type = event->attr.type;
	e->attr_config = event->attr.config;
	e->pinned = event->group_leader->attr.pinned;
	e->exclusive = event->group_leader->attr.exclusive;
	if (event->ctx)
		perf_event_times_now(event, &e->enabled_ns, &e->running_ns);
	perf_trace_unlock(core);
}

/*
 * The allocator could not place req[0..n): was it the number of events or
 * their constraints? Asks the allocator again with every request allowed
 * on any general-purpose counter as well: if that fits, the constraints
 * were the reason. Only runs when tracing.
 */
void perf_trace_assign_failed(struct perf_cpu *cpu, const struct pmu_hw_request *req, unsigned n)
{
	const struct pmu_model *m = perf_core_model(cpu->core);
	unsigned nr_gp = cpu->core->cfg.nr_gp_counters;
	struct pmu_hw_request relaxed[PMU_MAX_COUNTERS];
	int assign[PMU_MAX_COUNTERS];
	uint64_t gp = nr_gp >= 63 ? ~UINT64_C(0) : (UINT64_C(1) << nr_gp) - 1;

	if (!cpu->core->cfg.trace)
		return;
	cpu->trace_why = TRACE_WHY_TOO_MANY;
	if (n > PMU_MAX_COUNTERS)
		return;
	if (m->arch == PMU_ARCH_ARM_PMUV3)
		gp <<= 1; /* event counter i is idx i + 1 (ARMV8_IDX_COUNTER0) */
	for (unsigned i = 0; i < n; i++) {
		relaxed[i] = req[i];
		relaxed[i].counter_mask |= gp;
	}
	if (!m->ops->assign(m, nr_gp, relaxed, n, assign))
		cpu->trace_why = TRACE_WHY_CONSTRAINT;
}

void perf_core_set_trace(struct perf_core *core, bool on)
{
	PERF_CORE_GUARD(core);

	core->cfg.trace = on;
}

const struct perf_trace_entry *perf_core_trace(const struct perf_core *core, size_t *len)
{
	*len = core->trace_len;
	return core->trace;
}

const char *perf_trace_kind_name(enum perf_trace_kind kind)
{
	switch (kind) {
	case TRACE_SCHED_IN:
		return "sched-in";
	case TRACE_SCHED_OUT:
		return "sched-out";
	case TRACE_MOVE:
		return "move";
	case TRACE_ROTATE:
		return "rotate";
	case TRACE_ERROR:
		return "error";
	case TRACE_GROUP_FAIL:
		return "not-on";
	}
	return "?";
}

const char *perf_trace_reason_name(enum perf_trace_reason why)
{
	switch (why) {
	case TRACE_WHY_NONE:
		return "-";
	case TRACE_WHY_CONSTRAINT:
		return "counter constraint";
	case TRACE_WHY_TOO_MANY:
		return "too many events";
	case TRACE_WHY_EXCLUSIVE_ON:
		return "an exclusive group is on";
	case TRACE_WHY_EXCLUSIVE_WAITS:
		return "exclusive group, others are on";
	case TRACE_WHY_EARLIER_FAILED:
		return "an earlier group failed";
	}
	return "?";
}
