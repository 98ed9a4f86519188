/*
 * sched_trace.h - the scheduler trace as the outside sees it.
 */
#ifndef PMUSIM_SCHED_TRACE_H
#define PMUSIM_SCHED_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct perf_core;

enum perf_trace_kind {
	TRACE_SCHED_IN,             /* event went on counter hw_idx */
	TRACE_SCHED_OUT,            /* event left counter hw_idx */
	TRACE_MOVE,                 /* the allocator moved an active event to hw_idx */
	TRACE_ROTATE,               /* the mux timer rotated flexible groups */
	TRACE_ERROR,                /* a pinned group could not go on */
};

struct perf_trace_entry {
	uint64_t time_ns;
	unsigned cpu;
	enum perf_trace_kind kind;
	uint64_t event_id;
	int handle;                     /* file handle, -1 for children/rotations */
	int hw_idx;                     /* counter it was on (sched-in/out) */
};

const struct perf_trace_entry *perf_core_trace(const struct perf_core *core, size_t *len);
const char *perf_trace_kind_name(enum perf_trace_kind kind);

#endif
