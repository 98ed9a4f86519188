/*
 * cmd_explain.c - `pmusim explain`: tells in plain words why each event of
 * a schedule got its share of the counters. The schedule is a trace file
 * (--trace-out) or a run with `pmusim sched`'s options. It walks the
 * scheduling points (the start, each rotation) saying which groups went
 * on, stayed, went off and which could not go on and why, then per event
 * its time_enabled and time_running, the stretches it held a counter, and
 * perf's scaled estimate (count x enabled / running) against the true
 * count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "sim/cli/commands.h"
#include "sim/cli/trace_json.h"

#define SHOWN_POINTS 12
#define SHOWN_STRETCHES 6

/* A reason of the trace in plain words. */
static const char *reason_words(const char *reason)
{
	static const struct {
		const char *reason, *words;
	} words[] = {
		{ "too many events", "every counter it could use was taken by the groups "
		  "before it in the list" },
		{ "counter constraint", "counters were free, but none its events are "
		  "allowed on (a counter constraint)" },
		{ "an earlier group failed", "an earlier flexible group did not fit, and the "
		  "kernel tries no later group until the next rotation (merge_sched_in)" },
		{ "an exclusive group is on", "an exclusive group holds the PMU alone" },
		{ "exclusive group, others are on", "it is exclusive and other groups were "
		  "already on" },
		{ "pinned group in error", "a pinned group that cannot go on is put in "
		  "ERROR state and reads <not counted> until enabled again" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(reason, words[i].reason))
			return words[i].words;
	return reason;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A group as perf writes it: "{a,b,c}", or the event alone. */
static const char *group_name(const struct sched_view *v, unsigned leader, char *buf, size_t len)
{
	size_t n = 0;
	unsigned members = 0;

	for (unsigned i = 0; i < v->nr_events; i++)
		members += v->events[i].leader == v->events[leader].id;
	if (members <= 1)
		return v->events[leader].name;
	for (unsigned i = 0; i < v->nr_events && n < len; i++)
		if (v->events[i].leader == v->events[leader].id)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "{", v->events[i].name);
	if (n < len)
		snprintf(buf + n, len - n, "}");
	return buf;
}

/* The counter name of cpu's idx. */
static const char *counter_of(const struct sched_view *v, unsigned cpu, int idx)
{
	for (size_t i = 0; i < v->nr_counters; i++)
		if (v->counters[i].cpu == cpu && v->counters[i].idx == idx)
			return v->counters[i].name;
	return "?";
}

/* Whether ev holds a counter on cpu just after (after) or just before t. */
static const struct sched_slice *held_at(const struct sched_view *v, unsigned cpu, unsigned ev,
					  uint64_t t, bool after)
{
	for (size_t i = 0; i < v->nr_slices; i++) {
		const struct sched_slice *s = &v->slices[i];

		if (s->cpu != cpu || s->ev != ev || s->start_ns == s->end_ns)
			continue;
		if (after ? s->start_ns <= t && t < s->end_ns : s->start_ns < t && t <= s->end_ns)
			return s;
	}
	return NULL;
}

/* The order groups were tried at t: sched-ins and failures in trace order
 * (every flexible group leaves one or the other, in list order). */
static void explain_order(const struct sched_view *v, unsigned cpu, uint64_t t)
{
	uint64_t best_seq = 0;
	int printed = 0;
	char name[256];

	printf("               tried in this order:");
	for (;;) {
		const char *what = NULL;
		uint64_t seq = UINT64_MAX;
		int ev = -1;

		for (size_t i = 0; i < v->nr_slices; i++) {
			const struct sched_slice *s = &v->slices[i];

			if (s->cpu == cpu && s->start_ns == t && s->seq < seq &&
			    (printed == 0 || s->seq > best_seq) &&
			    v->events[s->ev].id == v->events[s->ev].leader) {
				seq = s->seq;
				ev = (int)s->ev;
				what = "";
			}
		}
		for (size_t i = 0; i < v->nr_marks; i++) {
			const struct sched_mark *m = &v->marks[i];

			if (m->cpu == cpu && m->t_ns == t && m->kind != MARK_ROTATE && m->ev >= 0 &&
			    m->seq < seq && (printed == 0 || m->seq > best_seq)) {
				seq = m->seq;
				ev = m->ev;
				what = !strcmp(m->reason, "an earlier group failed") ? " (not tried)" :
				       m->kind == MARK_ERROR ? " (error)" : " (fails)";
			}
		}
		if (ev < 0)
			break;
		printf("%s %s%s", printed ? "," : "", group_name(v, (unsigned)ev, name, sizeof(name)), what);
		best_seq = seq;
		printed++;
	}
	printf("%s\n", printed ? "" : " nothing");
}

/* One scheduling point of cpu at t: who went on, stayed, went off, and
 * who could not go on. */
static void explain_point(const struct sched_view *v, unsigned cpu, uint64_t t)
{
	bool rotated = false, any;
	char name[256];

	for (size_t i = 0; i < v->nr_marks; i++)
		if (v->marks[i].cpu == cpu && v->marks[i].t_ns == t && v->marks[i].kind == MARK_ROTATE)
			rotated = true;
	printf("  %9.3f ms  %s%s\n", t / 1e6, t == 0 ? "start" : rotated ? "rotation" : "reschedule",
	       t >= v->end_ns ? " (the run ends here)" : "");
	explain_order(v, cpu, t);
	for (int pass = 0; pass < 3 && t < v->end_ns; pass++) {
		static const char *const what[] = { "on", "stays on", "goes off" };

		any = false;
		for (unsigned ev = 0; ev < v->nr_events; ev++) {
			const struct sched_slice *before = held_at(v, cpu, ev, t, false);
			const struct sched_slice *after = held_at(v, cpu, ev, t, true);
			bool show = pass == 0 ? after && !before : pass == 1 ? after && before : before && !after;

			if (!show)
				continue;
			printf("%s %s (%s)", any ? "," : "              ", v->events[ev].name,
			       counter_of(v, cpu, (after ? after : before)->idx));
			any = true;
		}
		if (any)
			printf(": %s\n", what[pass]);
	}
	for (size_t i = 0; i < v->nr_marks; i++) {
		const struct sched_mark *m = &v->marks[i];

		if (m->cpu != cpu || m->t_ns != t || m->kind == MARK_ROTATE || m->ev < 0)
			continue;
		printf("               %s: %s, because %s\n",
		       group_name(v, (unsigned)m->ev, name, sizeof(name)),
		       m->kind == MARK_ERROR ? "ERROR" : "not on", reason_words(m->reason));
	}
}

static void explain_points(const struct sched_view *v, bool all)
{
	for (unsigned cpu = 0; cpu < v->nr_cpus; cpu++) {
		uint64_t *t = calloc(2 * v->nr_slices + v->nr_marks + 1, sizeof(*t));
		size_t n = 0, shown = 0;

		if (!t)
			return;
		for (size_t i = 0; i < v->nr_slices; i++) {
			if (v->slices[i].cpu != cpu || v->slices[i].start_ns == v->slices[i].end_ns)
				continue;
			t[n++] = v->slices[i].start_ns;
			if (v->slices[i].end_ns < v->end_ns)
				t[n++] = v->slices[i].end_ns;
		}
		for (size_t i = 0; i < v->nr_marks; i++)
			if (v->marks[i].cpu == cpu)
				t[n++] = v->marks[i].t_ns;
		qsort(t, n, sizeof(*t), cmp_u64);
		printf("\nWhat the scheduler did on cpu%u, in simulated time:\n", cpu);
		for (size_t i = 0; i < n; i++) {
			if (i && t[i] == t[i - 1])
				continue;
			if (!all && shown == SHOWN_POINTS) {
				size_t rest = 0;

				for (size_t j = i; j < n; j++)
					rest += !j || t[j] != t[j - 1];
				printf("  ... %zu more scheduling points (--all shows them)\n", rest);
				break;
			}
			explain_point(v, cpu, t[i]);
			shown++;
		}
		free(t);
	}
}

static void explain_event(const struct sched_view *v, unsigned ev)
{
	const struct sched_event *e = &v->events[ev];
	unsigned stretches = 0, fails = 0;
	const char *first_reason = NULL;

	printf("\n%s%s%s\n", e->name, e->pinned ? " (pinned)" : "", e->exclusive ? " (exclusive)" : "");
	if (e->id != e->leader) {
		int l = sched_view_event(v, e->leader);

		printf("  in the group of %s: it goes on and off with its group, all or nothing\n",
		       l >= 0 ? v->events[l].name : "?");
	}
	for (size_t i = 0; i < v->nr_slices; i++) {
		const struct sched_slice *s = &v->slices[i];

		if (s->ev != ev || s->start_ns == s->end_ns)
			continue;
		if (stretches < SHOWN_STRETCHES)
			printf("  held %s of cpu%u from %.3f to %.3f ms\n", counter_of(v, s->cpu, s->idx),
			       s->cpu, s->start_ns / 1e6, s->end_ns / 1e6);
		stretches++;
	}
	if (stretches > SHOWN_STRETCHES)
		printf("  ... and %u more stretches\n", stretches - SHOWN_STRETCHES);
	if (!stretches)
		printf("  never held a counter\n");
	for (size_t i = 0; i < v->nr_marks; i++) {
		const struct sched_mark *m = &v->marks[i];

		if (m->ev < 0 || v->events[m->ev].id != e->leader)
			continue;
		if (!first_reason)
			first_reason = m->reason;
		fails++;
	}
	if (fails)
		printf("  its group could not go on %u time%s; first because %s\n", fails,
		       fails == 1 ? "" : "s", reason_words(first_reason));
	if (!e->counted) {
		/* a run's trace: the times it last saw, no count */
		printf("  time_enabled %.3f ms, time_running %.3f ms when the trace last saw it "
		       "(%.2f%%); the trace holds no count to scale\n", e->enabled_ns / 1e6,
		       e->running_ns / 1e6, e->enabled_ns ? 100.0 * e->running_ns / e->enabled_ns : 0.0);
		return;
	}
	printf("  time_enabled %.3f ms, time_running %.3f ms: it ran %.2f%% of the time it was enabled\n",
	       e->enabled_ns / 1e6, e->running_ns / 1e6,
	       e->enabled_ns ? 100.0 * e->running_ns / e->enabled_ns : 0.0);
	if (!e->running_ns) {
		printf("  it never ran: perf prints <not counted> (nothing to scale)\n");
		return;
	}
	{
		double scaled = (double)e->count * e->enabled_ns / e->running_ns;

		printf("  perf scales: count x enabled / running = %" PRIu64 " x %.3f / %.3f = %.0f\n",
		       e->count, e->enabled_ns / 1e6, e->running_ns / 1e6, scaled);
		if (e->has_true)
			printf("  true count %" PRIu64 ": the estimate is off by %+.0f (%+.2f%%)\n",
			       e->true_count, scaled - (double)e->true_count,
			       e->true_count ? 100.0 * (scaled - e->true_count) / e->true_count : 0.0);
	}
}

int cmd_explain(int argc, char **argv)
{
	struct json_object *trace = NULL;
	struct sched_view v;
	char err[512];
	bool all = false;
	int r, n = 0;

	/* --all is explain's own; the rest is a trace file or sched's options */
	for (int i = 0; i < argc; i++) {
		if (i && !strcmp(argv[i], "--all"))
			all = true;
		else
			argv[n++] = argv[i];
	}
	argc = n;
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: pmusim explain [--all] TRACE\n"
		       "       pmusim explain [--all] [pmusim sched options] -e EVENTS\n\n"
		       "Says why each event got its share of the counters: the scheduling\n"
		       "points (start, rotations) with the groups that went on and off and\n"
		       "why a group could not go on, then per event its times and perf's\n"
		       "scaled estimate against the true count.\n");
		return 0;
	}
	if (argc == 2 && argv[1][0] != '-') {
		r = sched_view_load(argv[1], &v, err, sizeof(err));
	} else {
		r = sched_simulate(argc, argv, true, &trace);
		if (!trace)
			return r ? r : 1;
		r = sched_view_from_json(trace, &v, err, sizeof(err));
		json_object_put(trace);
	}
	if (r) {
		fprintf(stderr, "pmusim: %s\n", err);
		return 1;
	}
	printf("Model %s, %zu counters per CPU, mux interval %.3f ms, %.3f ms of simulated time.\n"
	       "Groups go on in list order, pinned before flexible; each rotation moves the\n"
	       "first flexible group that was on to the end of the list (perf_rotate_context).\n",
	       v.model, v.nr_counters / (v.nr_cpus ? v.nr_cpus : 1), v.mux_ns / 1e6, v.end_ns / 1e6);
	explain_points(&v, all);
	printf("\nWhy each event got its share:\n");
	for (unsigned i = 0; i < v.nr_events; i++)
		explain_event(&v, i);
	sched_view_free(&v);
	return 0;
}
