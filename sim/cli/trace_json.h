/*
 * trace_json.h - the core's scheduler trace as Chrome trace-event JSON (what
 * the Perfetto UI and chrome://tracing open), and the schedule read back
 * from such a file for `pmusim timeline` and `pmusim explain`.
 *
 * The file, in simulated time (ts in microseconds):
 *  - a process per simulated CPU (pid = CPU number), a thread per counter
 *    (tid = the kernel's counter index, hw.idx) and one for the scheduler
 *    (tid TRACE_JSON_SCHED_TID);
 *  - an "X" slice for each stretch an event held a counter (args: event_id,
 *    group, pinned, exclusive, start_ns, dur_ns, seq: the trace order of
 *    its sched-in, so the order groups were tried can be told);
 *  - "i" instants on the scheduler thread: "rotate", and "not on: EVENT"
 *    or "error: EVENT" with args.reason for a group that failed to go on;
 *  - "C" counter samples "times: EVENT" of time_enabled and time_running
 *    (ms) whenever the trace saw the event;
 *  - otherData.pmusim: the model, its counters, the mux interval, the end
 *    time and a table of the events (name, group, final count and times,
 *    the true count when the workload's arithmetic knows it).
 */
#ifndef PMUSIM_TRACE_JSON_H
#define PMUSIM_TRACE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_core;
struct perf_trace_entry;
struct json_object;

#define TRACE_JSON_SCHED_TID 1000
#define TRACE_JSON_MAX_CPUS 256         /* what `pmusim exec --cpus` allows */

/* Names an event of the trace into buf (e.g. by its file handle). */
typedef void (*trace_json_namer)(void *ctx, const struct perf_trace_entry *e,
				 char *buf, size_t len);

/* Builds the JSON of core's trace (its CPUs' clocks give the end). namer
 * NULL: perf's name of the event's type/config. The caller holds the
 * core lock or is the core's only user. Returns NULL when out of memory. */
struct json_object *trace_json_build(struct perf_core *core, trace_json_namer namer, void *ctx);
/* The final read of an event. */
struct trace_json_result {
	uint64_t id, leader;            /* event and group leader ids */
	const char *name;
	bool pinned, exclusive;
	bool counted;                   /* the read returned its values */
	uint64_t count, enabled, running;
	bool has_true;                  /* the workload knows the true count */
	uint64_t true_count;
};
/* Records a final read in the events table (adding the event if the trace
 * never saw it). */
void trace_json_set_result(struct json_object *trace, const struct trace_json_result *r);
/* Writes the JSON to path ("-": stdout). Returns 0, or -1 with the reason
 * printed. */
int trace_json_write(struct json_object *trace, const char *path);

/* Builds and writes core's trace to path under the core lock (a shared
 * core whose other users may still run). Returns 0 or -1 (reason printed). */
int trace_json_write_core(struct perf_core *core, const char *path);

/* ---- the schedule read back ---- */

struct sched_counter {
	unsigned cpu;
	int idx;                        /* hw.idx */
	char name[24];                  /* "gp0", "fixed1", "cycle counter" */
};

struct sched_event {
	uint64_t id, leader;
	char name[64];
	bool pinned, exclusive;
	bool counted;                   /* a final read is known */
	bool has_true;
	uint64_t count, enabled_ns, running_ns, true_count;
};

struct sched_slice {
	unsigned cpu;
	int idx;
	unsigned ev;                    /* index into events */
	uint64_t start_ns, end_ns;
	uint64_t seq;                   /* trace order of its sched-in */
};

enum sched_mark_kind { MARK_ROTATE, MARK_NOT_ON, MARK_ERROR };

struct sched_mark {
	unsigned cpu;
	enum sched_mark_kind kind;
	uint64_t t_ns;
	int ev;                         /* the group's leader, -1 for a rotation */
	char reason[48];
	uint64_t seq;                   /* trace order */
};

struct sched_view {
	char model[32];
	unsigned nr_cpus;
	uint64_t mux_ns, end_ns;
	struct sched_counter *counters;
	size_t nr_counters;
	struct sched_event *events;
	size_t nr_events;
	struct sched_slice *slices;     /* by start time */
	size_t nr_slices;
	struct sched_mark *marks;       /* by time, in trace order */
	size_t nr_marks;
};

/* Reads a trace made by trace_json_build (parsed or from path). Returns 0,
 * or -1 with a one-line reason in err. */
int sched_view_from_json(struct json_object *trace, struct sched_view *v, char *err, size_t len);
int sched_view_load(const char *path, struct sched_view *v, char *err, size_t len);
void sched_view_free(struct sched_view *v);
/* The event whose name or id is key, -1 if none. */
int sched_view_event(const struct sched_view *v, uint64_t id);

#endif
