/*
 * sched_trace.h - the scheduler trace as the outside sees it: the core's
 * own decisions (sched-in, sched-out, counter moves, rotations, groups that
 * could not go on and why), recorded when the core was created with
 * cfg.trace. In a shared arena the buffer lives in the arena, so every
 * process that runs the core appends to the same trace under the core lock.
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
	TRACE_ERROR,                /* a pinned group could not go on: ERROR state */
	TRACE_GROUP_FAIL,           /* a flexible group could not go on this time */
};

/* Why a group could not go on (merge_sched_in's failure branch). */
enum perf_trace_reason {
	TRACE_WHY_NONE,
	TRACE_WHY_CONSTRAINT,       /* enough counters, but not ones its events may use */
	TRACE_WHY_TOO_MANY,         /* more events than free counters */
	TRACE_WHY_EXCLUSIVE_ON,     /* an exclusive group holds the PMU */
	TRACE_WHY_EXCLUSIVE_WAITS,  /* it is exclusive and other groups are on */
	TRACE_WHY_EARLIER_FAILED,   /* an earlier group of this pass did not fit
	                             * (merge_sched_in clears can_add_hw) */
};

struct perf_trace_entry {
	uint64_t time_ns;               /* the CPU's simulated time */
	unsigned cpu;
	enum perf_trace_kind kind;
	enum perf_trace_reason reason;  /* TRACE_ERROR, TRACE_GROUP_FAIL */
	uint64_t event_id;              /* the event (for a failure: the leader) */
	uint64_t primary_id;            /* the id perf reads: the parent's for a child */
	uint64_t leader_id;             /* its group leader's primary id */
	int handle;                     /* file handle, -1 for children/rotations */
	int hw_idx;                     /* counter it was on (sched-in/out/move) */
	int tid;                        /* the context's task, -1: a CPU context */
	uint32_t attr_type;             /* what the event counts, for naming */
	uint64_t attr_config;
	uint8_t pinned, exclusive;
	uint64_t enabled_ns, running_ns; /* its times at this point */
};

const struct perf_trace_entry *perf_core_trace(const struct perf_core *core, size_t *len);
const char *perf_trace_kind_name(enum perf_trace_kind kind);
/* A few words for a reason: "counter constraint", "too many events", ... */
const char *perf_trace_reason_name(enum perf_trace_reason why);

#endif
