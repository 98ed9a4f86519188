/*
 * trace.c - the scheduler's trace: every sched-in, sched-out, rotation and
 * pinned-group error with its simulated time, kept when the core was
 * created with cfg.trace (pmusim sched --trace, teaching tools).
 */
#include <stdlib.h>
#include <string.h>
#include "sim/core/core_types.h"
#include "sim/core/sched_trace.h"

void perf_trace(struct perf_cpu *cpu, enum perf_trace_kind kind, const struct perf_event *event)
{
	struct perf_core *core = cpu->core;

	if (!core->cfg.trace)
		return;
	if (core->trace_len == core->trace_cap) {
		size_t cap = core->trace_cap ? core->trace_cap * 2 : 256;
		struct perf_trace_entry *t = perf_zalloc(core, cap * sizeof(*t));

		if (!t)
			return; /* the trace is best effort; scheduling goes on */
		if (core->trace_len)
			memcpy(t, core->trace, core->trace_len * sizeof(*t));
		perf_kfree(core, core->trace);
		core->trace = t;
		core->trace_cap = cap;
	}
	core->trace[core->trace_len++] = (struct perf_trace_entry){
		.time_ns = perf_cpu_time_ns(cpu),
		.cpu = cpu->num,
		.kind = kind,
		.event_id = event ? event->id : 0,
		.handle = event ? event->handle : -1,
		.hw_idx = event ? event->hw_idx : -1,
	};
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
	}
	return "?";
}
