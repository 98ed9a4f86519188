/*
 * trace_json.c - the scheduler trace as Chrome trace-event JSON, written and
 * read back with json-c (the format is described in trace_json.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "pmu_models/pmu_model.h"
#include "sim/cli/event_spec.h"
#include "sim/cli/trace_json.h"
#include "sim/core/perf_core.h"
#include "sim/core/sched_trace.h"

/* ---- writing ---- */

/* An exact decimal of ns in microseconds ("4000.001"), as trace-event ts. */
static struct json_object *json_us(uint64_t ns)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	return json_object_new_double_s((double)ns / 1000.0, s);
}

static struct json_object *json_ms(uint64_t ns)
{
	char s[40];

	snprintf(s, sizeof(s), "%" PRIu64 ".%06u", ns / 1000000, (unsigned)(ns % 1000000));
	return json_object_new_double_s((double)ns / 1e6, s);
}

/* One trace event with the fields every one has. */
static struct json_object *trace_event(struct json_object *list, const char *ph,
				       const char *name, uint64_t ts_ns, unsigned pid, int tid)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "ph", json_object_new_string(ph));
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "ts", json_us(ts_ns));
	json_object_object_add(o, "pid", json_object_new_int((int)pid));
	json_object_object_add(o, "tid", json_object_new_int(tid));
	json_object_array_add(list, o);
	return o;
}

static void metadata(struct json_object *list, const char *what, unsigned pid, int tid,
		     const char *key, struct json_object *value)
{
	struct json_object *o = trace_event(list, "M", what, 0, pid, tid);
	struct json_object *args = json_object_new_object();

	json_object_object_add(args, key, value);
	json_object_object_add(o, "args", args);
}

/* The counter at hw.idx as the model numbers it: "gp0", "fixed1",
 * "cycle counter", "counter0". */
static void counter_name(const struct pmu_model *m, int idx, char *buf, size_t len)
{
	if (m->arch == PMU_ARCH_ARM_PMUV3) {
		if (idx == PMU_IDX_ARM_CYCLE)
			snprintf(buf, len, "cycle counter");
		else
			snprintf(buf, len, "counter%d", idx - 1);
	} else if (idx >= PMU_IDX_FIXED) {
		snprintf(buf, len, "fixed%d", idx - PMU_IDX_FIXED);
	} else {
		snprintf(buf, len, "gp%d", idx);
	}
}

/* The counters of the model with --counters applied, in display order. */
static unsigned model_counters(const struct perf_core *core, int *idx)
{
	const struct pmu_model *m = perf_core_model(core);
	unsigned n = 0, nr_gp = perf_core_config(core)->nr_gp_counters;

	/* --counters lowers the count; the allocators never use more than the
	 * model has (x86_assign, pmuv3_assign) */
	if (nr_gp > m->nr_gp_counters)
		nr_gp = m->nr_gp_counters;
	if (m->arch == PMU_ARCH_ARM_PMUV3) {
		if (m->has_cycle_counter)
			idx[n++] = PMU_IDX_ARM_CYCLE;
		for (unsigned i = 0; i < nr_gp; i++)
			idx[n++] = (int)i + 1;
		return n;
	}
	for (unsigned i = 0; i < nr_gp; i++)
		idx[n++] = (int)i;
	for (unsigned i = 0; i < m->nr_fixed_counters; i++)
		idx[n++] = PMU_IDX_FIXED + (int)i;
	return n;
}

/* One row of the events table per event id the trace saw. */
static struct json_object *event_row(struct json_object *events, const struct perf_trace_entry *e,
				     trace_json_namer namer, void *ctx, const struct pmu_model *m)
{
	size_t n = json_object_array_length(events);
	struct json_object *row;
	char name[64];

	for (size_t i = 0; i < n; i++) {
		row = json_object_array_get_idx(events, i);
		if ((uint64_t)json_object_get_int64(json_object_object_get(row, "id")) == e->event_id)
			return row;
	}
	if (namer)
		namer(ctx, e, name, sizeof(name));
	else
		event_spec_name(m, e->attr_type, e->attr_config, name, sizeof(name));
	row = json_object_new_object();
	json_object_object_add(row, "id", json_object_new_int64((int64_t)e->event_id));
	json_object_object_add(row, "name", json_object_new_string(name));
	json_object_object_add(row, "group", json_object_new_int64((int64_t)e->leader_id));
	json_object_object_add(row, "primary", json_object_new_int64((int64_t)e->primary_id));
	json_object_object_add(row, "task", json_object_new_int(e->tid));
	json_object_object_add(row, "pinned", json_object_new_boolean(e->pinned));
	json_object_object_add(row, "exclusive", json_object_new_boolean(e->exclusive));
	json_object_array_add(events, row);
	return row;
}

static const char *row_name(struct json_object *row)
{
	return json_object_get_string(json_object_object_get(row, "name"));
}

/* A stretch of an event on a counter, open until its sched-out. */
struct residency {
	uint64_t id;
	uint64_t seq;                   /* the trace entry of its sched-in */
	unsigned cpu;
	int idx;
	uint64_t start;
	struct json_object *row;
	uint64_t leader;
	bool pinned, exclusive;
};

static void close_residency(struct json_object *list, struct residency *r, uint64_t end)
{
	struct json_object *o = trace_event(list, "X", row_name(r->row), r->start, r->cpu, r->idx);
	struct json_object *args = json_object_new_object();

	json_object_object_add(o, "cat", json_object_new_string("counter"));
	json_object_object_add(o, "dur", json_us(end - r->start));
	json_object_object_add(args, "event_id", json_object_new_int64((int64_t)r->id));
	json_object_object_add(args, "group", json_object_new_int64((int64_t)r->leader));
	json_object_object_add(args, "pinned", json_object_new_boolean(r->pinned));
	json_object_object_add(args, "exclusive", json_object_new_boolean(r->exclusive));
	json_object_object_add(args, "start_ns", json_object_new_int64((int64_t)r->start));
	json_object_object_add(args, "dur_ns", json_object_new_int64((int64_t)(end - r->start)));
	json_object_object_add(args, "seq", json_object_new_int64((int64_t)r->seq));
	json_object_object_add(o, "args", args);
	r->id = 0;
}

static struct residency *find_open(struct residency *open, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (open[i].id == id)
			return &open[i];
	return NULL;
}

/* time_enabled / time_running of the entry's event, as a counter sample. */
static void times_sample(struct json_object *list, const struct perf_trace_entry *e,
			 struct json_object *row)
{
	char name[96];
	struct json_object *o, *args = json_object_new_object();

	snprintf(name, sizeof(name), "times: %s", row_name(row));
	o = trace_event(list, "C", name, e->time_ns, e->cpu, 0);
	if (e->event_id != e->primary_id) /* an inherited child's own track */
		json_object_object_add(o, "id", json_object_new_int64((int64_t)e->event_id));
	json_object_object_add(args, "time_enabled_ms", json_ms(e->enabled_ns));
	json_object_object_add(args, "time_running_ms", json_ms(e->running_ns));
	json_object_object_add(o, "args", args);
}

struct json_object *trace_json_build(struct perf_core *core, trace_json_namer namer, void *ctx)
{
	const struct pmu_model *m = perf_core_model(core);
	struct json_object *root = json_object_new_object();
	struct json_object *list = json_object_new_array();
	struct json_object *meta = json_object_new_object();
	struct json_object *events = json_object_new_array();
	struct json_object *counters = json_object_new_array();
	struct json_object *other = json_object_new_object();
	const struct perf_trace_entry *t;
	struct residency *open;
	size_t n, nopen = 0;
	uint64_t end = 0;
	int idx[PMU_MAX_COUNTERS];
	unsigned ncnt = model_counters(core, idx);
	char name[64];

	t = perf_core_trace(core, &n);
	open = calloc(PMU_MAX_COUNTERS * perf_core_nr_cpus(core) + 1, sizeof(*open));
	if (!open)
		return NULL;
	for (unsigned c = 0; c < perf_core_nr_cpus(core); c++) {
		uint64_t now = perf_cpu_time_ns(perf_core_cpu(core, c));

		if (now > end)
			end = now;
		snprintf(name, sizeof(name), "cpu%u", c);
		metadata(list, "process_name", c, 0, "name", json_object_new_string(name));
		metadata(list, "thread_name", c, TRACE_JSON_SCHED_TID, "name",
			 json_object_new_string("scheduler"));
		metadata(list, "thread_sort_index", c, TRACE_JSON_SCHED_TID, "sort_index",
			 json_object_new_int(-1));
		for (unsigned i = 0; i < ncnt; i++) {
			counter_name(m, idx[i], name, sizeof(name));
			metadata(list, "thread_name", c, idx[i], "name", json_object_new_string(name));
			metadata(list, "thread_sort_index", c, idx[i], "sort_index",
				 json_object_new_int((int)i));
			if (c == 0) {
				struct json_object *co = json_object_new_object();

				json_object_object_add(co, "idx", json_object_new_int(idx[i]));
				json_object_object_add(co, "name", json_object_new_string(name));
				json_object_array_add(counters, co);
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct perf_trace_entry *e = &t[i];
		struct json_object *row = NULL, *o, *args;
		struct residency *r;
		uint64_t seq;

		if (e->kind != TRACE_ROTATE) {
			row = event_row(events, e, namer, ctx, m);
			times_sample(list, e, row);
			/* the last times seen; a final read replaces them */
			json_object_object_add(row, "enabled_ns", json_object_new_int64((int64_t)e->enabled_ns));
			json_object_object_add(row, "running_ns", json_object_new_int64((int64_t)e->running_ns));
		}
		switch (e->kind) {
		case TRACE_SCHED_IN:
		case TRACE_MOVE:
			r = find_open(open, nopen, e->event_id);
			seq = r && e->kind == TRACE_MOVE ? r->seq : i; /* a move keeps its sched-in's */
			if (r)
				close_residency(list, r, e->time_ns);
			else
				r = find_open(open, nopen, 0);
			if (!r)
				r = &open[nopen++];
			*r = (struct residency){ .id = e->event_id, .seq = seq, .cpu = e->cpu, .idx = e->hw_idx,
						 .start = e->time_ns, .row = row, .leader = e->leader_id,
						 .pinned = e->pinned, .exclusive = e->exclusive };
			if (e->hw_idx < 0)
				r->id = 0; /* a software event holds no counter */
			break;
		case TRACE_SCHED_OUT:
			r = find_open(open, nopen, e->event_id);
			if (r)
				close_residency(list, r, e->time_ns);
			break;
		case TRACE_ROTATE:
			o = trace_event(list, "i", "rotate", e->time_ns, e->cpu, TRACE_JSON_SCHED_TID);
			json_object_object_add(o, "s", json_object_new_string("t"));
			json_object_object_add(o, "cat", json_object_new_string("rotation"));
			args = json_object_new_object();
			json_object_object_add(args, "t_ns", json_object_new_int64((int64_t)e->time_ns));
			json_object_object_add(o, "args", args);
			break;
		case TRACE_ERROR:
		case TRACE_GROUP_FAIL:
			snprintf(name, sizeof(name), "%s: %s",
				 e->kind == TRACE_ERROR ? "error" : "not on", row_name(row));
			o = trace_event(list, "i", name, e->time_ns, e->cpu, TRACE_JSON_SCHED_TID);
			json_object_object_add(o, "s", json_object_new_string("t"));
			json_object_object_add(o, "cat", json_object_new_string("failure"));
			args = json_object_new_object();
			json_object_object_add(args, "event_id", json_object_new_int64((int64_t)e->event_id));
			json_object_object_add(args, "group", json_object_new_int64((int64_t)e->leader_id));
			json_object_object_add(args, "reason", json_object_new_string(
				e->kind == TRACE_ERROR ? "pinned group in error" :
				perf_trace_reason_name(e->reason)));
			json_object_object_add(args, "t_ns", json_object_new_int64((int64_t)e->time_ns));
			json_object_object_add(args, "seq", json_object_new_int64((int64_t)i));
			json_object_object_add(args, "cause", json_object_new_string(
				perf_trace_reason_name(e->reason)));
			json_object_object_add(o, "args", args);
			if (e->kind == TRACE_ERROR)
				json_object_object_add(row, "error", json_object_new_boolean(1));
			break;
		}
	}
	for (size_t i = 0; i < nopen; i++)
		if (open[i].id)
			close_residency(list, &open[i], end);
	free(open);

	json_object_object_add(meta, "format", json_object_new_int(1));
	json_object_object_add(meta, "model", json_object_new_string(m->name));
	json_object_object_add(meta, "cpus", json_object_new_int((int)perf_core_nr_cpus(core)));
	json_object_object_add(meta, "gp_counters", json_object_new_int((int)perf_core_config(core)->nr_gp_counters));
	json_object_object_add(meta, "mux_interval_ns", json_object_new_int64((int64_t)perf_core_mux_interval_ns(core)));
	json_object_object_add(meta, "end_ns", json_object_new_int64((int64_t)end));
	json_object_object_add(meta, "counters", counters);
	json_object_object_add(meta, "events", events);
	json_object_object_add(other, "pmusim", meta);
	json_object_object_add(root, "traceEvents", list);
	json_object_object_add(root, "displayTimeUnit", json_object_new_string("ns"));
	json_object_object_add(root, "otherData", other);
	return root;
}

static struct json_object *meta_of(struct json_object *trace)
{
	return json_object_object_get(json_object_object_get(trace, "otherData"), "pmusim");
}

void trace_json_set_result(struct json_object *trace, const struct trace_json_result *r)
{
	struct json_object *events = json_object_object_get(meta_of(trace), "events");
	size_t n = json_object_array_length(events);
	struct json_object *row = NULL;

	for (size_t i = 0; i < n && !row; i++) {
		row = json_object_array_get_idx(events, i);
		if ((uint64_t)json_object_get_int64(json_object_object_get(row, "id")) != r->id)
			row = NULL;
	}
	if (!row) { /* an event the scheduler never tried (a sibling of a group that failed) */
		row = json_object_new_object();
		json_object_object_add(row, "id", json_object_new_int64((int64_t)r->id));
		json_object_object_add(row, "name", json_object_new_string(r->name));
		json_object_object_add(row, "group", json_object_new_int64((int64_t)r->leader));
		json_object_object_add(row, "primary", json_object_new_int64((int64_t)r->id));
		json_object_object_add(row, "pinned", json_object_new_boolean(r->pinned));
		json_object_object_add(row, "exclusive", json_object_new_boolean(r->exclusive));
		json_object_array_add(events, row);
	}
	json_object_object_add(row, "counted", json_object_new_boolean(r->counted));
	json_object_object_add(row, "count", json_object_new_int64((int64_t)r->count));
	json_object_object_add(row, "enabled_ns", json_object_new_int64((int64_t)r->enabled));
	json_object_object_add(row, "running_ns", json_object_new_int64((int64_t)r->running));
	if (r->has_true)
		json_object_object_add(row, "true_count", json_object_new_int64((int64_t)r->true_count));
}

int trace_json_write(struct json_object *trace, const char *path)
{
	const char *s = json_object_to_json_string_ext(trace, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f || fputs(s, f) < 0 || fputc('\n', f) < 0 || (f != stdout && fclose(f))) {
		fprintf(stderr, "pmusim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int trace_json_write_core(struct perf_core *core, const char *path)
{
	struct json_object *trace;
	int r;

	perf_core_lock(core); /* robust: a process that died holding it is fine */
	trace = trace_json_build(core, NULL, NULL);
	perf_core_unlock(core);
	if (!trace) {
		fprintf(stderr, "pmusim: out of memory for the trace\n");
		return -1;
	}
	r = trace_json_write(trace, path);
	json_object_put(trace);
	return r;
}

/* ---- reading ---- */

static int64_t get_i64(struct json_object *o, const char *key)
{
	return json_object_get_int64(json_object_object_get(o, key));
}

static const char *get_str(struct json_object *o, const char *key)
{
	const char *s = json_object_get_string(json_object_object_get(o, key));

	return s ? s : "";
}

int sched_view_event(const struct sched_view *v, uint64_t id)
{
	for (size_t i = 0; i < v->nr_events; i++)
		if (v->events[i].id == id)
			return (int)i;
	return -1;
}

static int by_start(const void *a, const void *b)
{
	const struct sched_slice *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->idx - y->idx;
}

int sched_view_from_json(struct json_object *trace, struct sched_view *v, char *err, size_t len)
{
	struct json_object *meta = meta_of(trace), *list, *a;
	size_t n;

	memset(v, 0, sizeof(*v));
	list = json_object_object_get(trace, "traceEvents");
	if (!json_object_is_type(meta, json_type_object) || !json_object_is_type(list, json_type_array) ||
	    !json_object_is_type(json_object_object_get(meta, "counters"), json_type_array) ||
	    !json_object_is_type(json_object_object_get(meta, "events"), json_type_array)) {
		snprintf(err, len, "not a pmusim schedule trace (otherData.pmusim with counters "
			 "and events, and traceEvents)");
		return -1;
	}
	snprintf(v->model, sizeof(v->model), "%s", get_str(meta, "model"));
	v->nr_cpus = (unsigned)get_i64(meta, "cpus");
	v->mux_ns = (uint64_t)get_i64(meta, "mux_interval_ns");
	v->end_ns = (uint64_t)get_i64(meta, "end_ns");
	a = json_object_object_get(meta, "counters");
	n = json_object_array_length(a);
	if (get_i64(meta, "cpus") < 1 || get_i64(meta, "cpus") > TRACE_JSON_MAX_CPUS ||
	    n > PMU_MAX_COUNTERS) {
		snprintf(err, len, "a trace of %" PRId64 " CPUs and %zu counters each: not pmusim's",
			 get_i64(meta, "cpus"), n);
		return -1;
	}
	v->counters = calloc(n * (v->nr_cpus ? v->nr_cpus : 1) + 1, sizeof(*v->counters));
	for (unsigned c = 0; c < v->nr_cpus; c++) {
		for (size_t i = 0; i < n; i++) {
			struct json_object *o = json_object_array_get_idx(a, i);
			struct sched_counter *sc = &v->counters[v->nr_counters++];

			sc->cpu = c;
			sc->idx = (int)get_i64(o, "idx");
			snprintf(sc->name, sizeof(sc->name), "%s", get_str(o, "name"));
		}
	}
	a = json_object_object_get(meta, "events");
	n = json_object_array_length(a);
	v->events = calloc(n + 1, sizeof(*v->events));
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(a, i), *x;
		struct sched_event *e = &v->events[v->nr_events++];

		e->id = (uint64_t)get_i64(o, "id");
		e->leader = (uint64_t)get_i64(o, "group");
		snprintf(e->name, sizeof(e->name), "%s", get_str(o, "name"));
		e->pinned = json_object_get_boolean(json_object_object_get(o, "pinned"));
		e->exclusive = json_object_get_boolean(json_object_object_get(o, "exclusive"));
		e->counted = json_object_get_boolean(json_object_object_get(o, "counted"));
		e->count = (uint64_t)get_i64(o, "count");
		e->enabled_ns = (uint64_t)get_i64(o, "enabled_ns");
		e->running_ns = (uint64_t)get_i64(o, "running_ns");
		e->has_true = json_object_object_get_ex(o, "true_count", &x);
		e->true_count = (uint64_t)json_object_get_int64(x);
	}
	n = json_object_array_length(list);
	v->slices = calloc(n + 1, sizeof(*v->slices));
	v->marks = calloc(n + 1, sizeof(*v->marks));
	if (!v->counters || !v->events || !v->slices || !v->marks) {
		sched_view_free(v);
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(list, i);
		struct json_object *args = json_object_object_get(o, "args");
		const char *ph = get_str(o, "ph"), *cat = get_str(o, "cat");
		unsigned cpu = (unsigned)get_i64(o, "pid");

		if (!strcmp(ph, "X") && !strcmp(cat, "counter")) {
			int ev = sched_view_event(v, (uint64_t)get_i64(args, "event_id"));
			uint64_t start = (uint64_t)get_i64(args, "start_ns");

			if (ev < 0)
				continue;
			v->slices[v->nr_slices++] = (struct sched_slice){
				.cpu = cpu, .idx = (int)get_i64(o, "tid"), .ev = (unsigned)ev,
				.start_ns = start, .end_ns = start + (uint64_t)get_i64(args, "dur_ns"),
				.seq = (uint64_t)get_i64(args, "seq"),
			};
		} else if (!strcmp(ph, "i")) {
			struct sched_mark *mk = &v->marks[v->nr_marks++];
			mk->cpu = cpu;
			mk->t_ns = (uint64_t)get_i64(args, "t_ns");
			mk->ev = -1;
			if (!strcmp(cat, "rotation")) {
				mk->kind = MARK_ROTATE;
			} else {
				mk->kind = !strncmp(get_str(o, "name"), "error", 5) ? MARK_ERROR : MARK_NOT_ON;
				mk->ev = sched_view_event(v, (uint64_t)get_i64(args, "event_id"));
				mk->seq = (uint64_t)get_i64(args, "seq");
				snprintf(mk->reason, sizeof(mk->reason), "%s", get_str(args, "reason"));
			}
		}
	}
	qsort(v->slices, v->nr_slices, sizeof(*v->slices), by_start);
	return 0;
}

int sched_view_load(const char *path, struct sched_view *v, char *err, size_t len)
{
	struct json_object *trace = json_object_from_file(path);
	int r;

	if (!trace) {
		const char *why = json_util_get_last_err();

		/* json-c's message ends with a newline */
		snprintf(err, len, "%s: %.*s", path, why ? (int)strcspn(why, "\n") : 0, why ? why : "");
		return -1;
	}
	r = sched_view_from_json(trace, v, err, len);
	json_object_put(trace);
	return r;
}

void sched_view_free(struct sched_view *v)
{
	free(v->counters);
	free(v->events);
	free(v->slices);
	free(v->marks);
	memset(v, 0, sizeof(*v));
}
