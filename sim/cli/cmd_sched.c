/*
 * cmd_sched.c - `pmusim sched`: the core's scheduler multiplexing a list of
 * events on a model's counters while a synthetic steady stream runs, with
 * each event's count, time_enabled, time_running and scaled estimate next
 * to the true count the stream's arithmetic gives.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/cli/event_spec.h"
#include "sim/cli/trace_json.h"
#include "sim/core/sched_trace.h"
#include "sim/synthetic/synthetic_machine.h"
#include <json-c/json.h>

static void sched_usage(FILE *out)
{
	fprintf(out,
		"usage: pmusim sched [options] -e EVENTS\n\n"
		"Runs the simulated kernel's scheduler on a steady synthetic workload and\n"
		"shows how the events were multiplexed onto the model's counters.\n\n"
		"  -e, --events LIST      perf-style list: cycles,{branches,branch-misses},r01c2,...\n"
		"  -m, --model NAME       PMU model (default: %s; see `pmusim models`)\n"
		"  -c, --counters N       general-purpose counters (default: the model's)\n"
		"  -i, --mux-interval MS  rotation interval (default: the model's, 4 ms)\n"
		"  -d, --duration-ms MS   simulated run time (default 24)\n"
		"  -a, --cpu-wide         open the events on CPU 0 instead of on the task\n"
		"  -p, --phase-ms MS      alternate busy and quiet phases of MS ms (a quiet\n"
		"                         phase retires a quarter of everything but cycles)\n"
		"  -t, --trace            print every sched-in, sched-out and rotation\n"
		"  -o, --trace-out FILE   write the schedule as Chrome trace-event JSON\n"
		"                         (Perfetto UI, chrome://tracing; pmusim timeline)\n"
		"  -h, --help\n",
		pmu_model_default()->name);
}

/* What the stream produced of the event's source while it was enabled
 * (produced: each source's total over the run). */
static uint64_t true_count(const struct perf_event *e, const uint64_t *produced, uint64_t time_ns)
{
	if (perf_event_is_software(e))
		return perf_event_counts_time(e) ? time_ns : 0;
	if (perf_event_attr(e)->exclude_user)
		return 0;
	return produced[perf_event_source(e)];
}

/*
 * Runs the stream on cpu 0 until end_ns, adding what it produced to
 * produced[]. With phase_ns, busy and quiet phases alternate: a quiet
 * phase takes the same cycles but retires a quarter of every other source
 * (a program waiting on memory), so an event that ran in only some phases
 * is scaled wrongly.
 */
static void run_stream(struct synthetic_machine *sm, uint64_t end_ns, uint64_t phase_ns,
		       uint64_t *produced)
{
	struct perf_cpu *cpu = perf_core_cpu(sm->core, 0);
	struct synthetic_profile quiet = synthetic_default_profile;
	bool busy = true;

	for (unsigned s = 0; s < SIM_SRC_NR; s++)
		if (s != SIM_SRC_CYCLES && s != SIM_SRC_REF_CYCLES && s != SIM_SRC_BUS_CYCLES)
			quiet.per_block[s] /= 4;
	for (uint64_t t = 0; t < end_ns; busy = !busy) {
		uint64_t next = phase_ns && t + phase_ns < end_ns ? t + phase_ns : end_ns;
		uint64_t c0 = perf_cpu_cycles(cpu), blocks;

		sm->profile = busy ? synthetic_default_profile : quiet;
		synthetic_run_until(sm, 0, next);
		blocks = (perf_cpu_cycles(cpu) - c0) / sm->profile.block_cycles;
		for (unsigned s = 0; s < SIM_SRC_NR; s++)
			produced[s] += sm->profile.per_block[s] * blocks;
		t = next;
	}
}

/* The spec name of a traced event: its own or, for an inherited child,
 * none (the stream has no children). */
static const char *spec_name(const struct event_spec_list *specs, const int *handles, int handle)
{
	for (unsigned j = 0; j < specs->n; j++)
		if (handles[j] >= 0 && handles[j] == handle)
			return specs->ev[j].name;
	return "-";
}

struct sched_names {
	const struct event_spec_list *specs;
	const int *handles;
};

static void name_by_handle(void *ctx, const struct perf_trace_entry *e, char *buf, size_t len)
{
	const struct sched_names *n = ctx;

	snprintf(buf, len, "%s", spec_name(n->specs, n->handles, e->handle));
}

static void print_trace(struct perf_core *core, const struct event_spec_list *specs,
			const int *handles)
{
	const struct perf_trace_entry *t;
	size_t n;

	t = perf_core_trace(core, &n);
	printf("\nscheduler trace (simulated time):\n");
	for (size_t i = 0; i < n; i++) {
		const char *name = spec_name(specs, handles, t[i].handle);

		if (t[i].kind == TRACE_ROTATE)
			printf("  %10.3f ms  cpu%u  rotate\n", t[i].time_ns / 1e6, t[i].cpu);
		else if (t[i].hw_idx >= 0)
			printf("  %10.3f ms  cpu%u  %-9s %-24s counter %d\n", t[i].time_ns / 1e6,
			       t[i].cpu, perf_trace_kind_name(t[i].kind), name, t[i].hw_idx);
		else if (t[i].kind == TRACE_ERROR || t[i].kind == TRACE_GROUP_FAIL)
			printf("  %10.3f ms  cpu%u  %-9s %-24s (%s)\n", t[i].time_ns / 1e6, t[i].cpu,
			       perf_trace_kind_name(t[i].kind), name, perf_trace_reason_name(t[i].reason));
		else
			printf("  %10.3f ms  cpu%u  %-9s %s\n", t[i].time_ns / 1e6, t[i].cpu,
			       perf_trace_kind_name(t[i].kind), name);
	}
}

/* sched's own options (the ones of struct cli_common_options aside) */
struct sched_options {
	const char *events;
	unsigned long duration_ms, phase_ms;
	bool cpu_wide, text_trace;
};

static int sched_option(void *ctx, int c, const char *arg)
{
	struct sched_options *so = ctx;
	long v;

	switch (c) {
	case 'e':
		so->events = arg;
		break;
	case 'd':
		if (!cli_parse_long(arg, 1, 3600000, &v))
			return cli_usage_error("--duration-ms: '%s' is not a number in 1..3600000", arg);
		so->duration_ms = (unsigned long)v;
		break;
	case 'a':
		so->cpu_wide = true;
		break;
	case 'p':
		if (!cli_parse_long(arg, 1, 3600000, &v))
			return cli_usage_error("--phase-ms: '%s' is not a number in 1..3600000", arg);
		so->phase_ms = (unsigned long)v;
		break;
	case 't':
		so->text_trace = true;
		break;
	}
	return -1;
}

/*
 * Parses sched's options, runs the stream and, unless quiet, prints the
 * table (and the text trace with --trace). With trace non-NULL the core
 * keeps its trace and *trace gets its JSON (with the final reads and true
 * counts); --trace-out writes it too. Returns the exit status.
 */
int sched_simulate(int argc, char **argv, bool quiet, struct json_object **trace)
{
	static const struct option own[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "cpu-wide", no_argument, NULL, 'a' },
		{ "phase-ms", required_argument, NULL, 'p' },
		{ "trace", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct sched_options so = { .duration_ms = 24 };
	const struct cli_options_spec spec = {
		.command = "sched",
		.common = CLI_OPT_MODEL | CLI_OPT_COUNTERS | CLI_OPT_MUX_INTERVAL | CLI_OPT_TRACE_OUT,
		.shorts = "e:m:c:i:d:ap:to:h",
		.max_counters = 32,
		.own = own,
		.own_option = sched_option,
		.ctx = &so,
		.usage = sched_usage,
	};
	struct cli_common_options common = { .model = pmu_model_default() };
	const struct pmu_model *model;
	struct perf_core_config cfg = { 0 };
	struct synthetic_machine sm = { .profile = synthetic_default_profile };
	static struct event_spec_list specs;
	struct perf_machine machine;
	struct perf_core *core;
	struct perf_task *task;
	unsigned long duration_ms, phase_ms;
	uint64_t produced[SIM_SRC_NR] = { 0 };
	const char *events, *trace_out;
	struct json_object *json = NULL;
	bool text_trace, cpu_wide;
	int handles[EVENT_SPEC_MAX];
	struct sched_names names = { &specs, handles };
	char err[256];
	int status = 0;
	FILE *out = stdout;

	status = cli_parse_options(&spec, argc, argv, &common);
	if (status >= 0)
		return status;
	status = 0;
	model = common.model;
	cfg.nr_gp_counters = common.nr_gp_counters;
	cfg.mux_interval_ms = common.mux_interval_ms;
	trace_out = common.trace_out;
	events = so.events;
	duration_ms = so.duration_ms;
	phase_ms = so.phase_ms;
	cpu_wide = so.cpu_wide;
	text_trace = so.text_trace;
	if (optind < argc)
		return cli_usage_error("sched: unexpected argument '%s'", argv[optind]);
	if (!events)
		return cli_usage_error("sched: no events; give them with -e (see pmusim sched --help)");
	specs.n = 0;
	if (event_spec_parse(events, model, &specs, err, sizeof(err)))
		return cli_usage_error("sched: %s", err);

	cfg.trace = text_trace || trace_out || trace;
	cfg.model = model;
	cfg.nr_cpus = 1;
	cfg.paranoid = -1;
	machine = synthetic_machine_ops(&sm);
	if (perf_core_create(&cfg, &machine, &core))
		return cli_usage_error("sched: cannot create the simulated kernel");
	sm.core = core;
	task = perf_task_create(core, 1000, 1000, (struct perf_cred){ .uid = 0, .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(core, 0), task);

	if (quiet)
		out = fopen("/dev/null", "we");
	if (!out)
		return 1;
	fprintf(out, "model %s: %u general-purpose counters (%u-bit)", model->name,
	       perf_core_config(core)->nr_gp_counters, model->gp_width);
	if (model->nr_fixed_counters)
		fprintf(out, " + %u fixed", model->nr_fixed_counters);
	if (model->has_cycle_counter)
		fprintf(out, " + cycle counter");
	fprintf(out, ", mux interval %u ms, %lu ms of a %s at %.3f GHz (%s)\n\n",
		perf_core_config(core)->mux_interval_ms, duration_ms,
		phase_ms ? "stream of busy and quiet phases" : "steady stream", perf_core_config(core)->freq_hz / 1e9,
	       cpu_wide ? "CPU-wide events on cpu0" : "events on the task");

	for (unsigned i = 0; i < specs.n; i++) {
		struct event_spec *s = &specs.ev[i];
		bool leader = s->group == (int)i;

		/* as perf stat does: disabled leaders that exec enables */
		s->attr.disabled = leader;
		s->attr.enable_on_exec = leader;
		s->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		handles[i] = perf_sys_event_open(core, task, &perf_uaccess_direct,
						 (uint64_t)(uintptr_t)&s->attr, cpu_wide ? -1 : 0,
						 cpu_wide ? 0 : -1, leader ? -1 : handles[s->group], 0);
		if (handles[i] < 0) {
			fprintf(out, "%-28s cannot be opened: %s\n", s->name, strerror(-handles[i]));
			status = 1;
		}
	}
	if (cpu_wide) {
		for (unsigned i = 0; i < specs.n; i++)
			if (specs.ev[i].group == (int)i && handles[i] >= 0)
				perf_sys_ioctl(core, task, &perf_uaccess_direct, handles[i],
					       PERF_EVENT_IOC_ENABLE, 0);
	} else {
		perf_task_exec(core, task, "workload");
	}

	run_stream(&sm, (uint64_t)duration_ms * 1000000, (uint64_t)phase_ms * 1000000, produced);

	if (cfg.trace)
		json = trace_json_build(core, name_by_handle, &names);
	fprintf(out, "%-28s %14s %14s %14s %8s %16s %16s\n", "event", "count", "time_enabled",
	       "time_running", "running", "scaled", "true count");
	for (unsigned i = 0; i < specs.n; i++) {
		uint64_t v[3], truth;
		bool counted;
		struct perf_event *e;

		if (handles[i] < 0)
			continue;
		e = perf_file_event(core, handles[i]);
		truth = true_count(e, produced, perf_cpu_time_ns(perf_core_cpu(core, 0)));
		counted = perf_sys_read(core, handles[i], v, sizeof(v)) == (ssize_t)sizeof(v);
		if (json) {
			struct trace_json_result r = {
				.id = perf_event_id(e),
				.leader = perf_event_id(perf_event_group_leader(e)),
				.name = specs.ev[i].name,
				.pinned = perf_event_attr(perf_event_group_leader(e))->pinned,
				.exclusive = perf_event_attr(perf_event_group_leader(e))->exclusive,
				.counted = counted,
				.count = counted ? v[0] : 0, .enabled = counted ? v[1] : 0,
				.running = counted ? v[2] : 0, .has_true = true, .true_count = truth,
			};

			trace_json_set_result(json, &r);
		}
		if (!counted) {
			fprintf(out, "%-28s %14s\n", specs.ev[i].name, "<not counted>");
			continue;
		}
		if (!v[2]) { /* perf stat's CNTR_NOT_COUNTED: enabled, never ran */
			fprintf(out, "%-28s %14s %14" PRIu64 " %14" PRIu64 " %7.2f%% %16s %16" PRIu64 "\n",
				specs.ev[i].name, "<not counted>", v[1], v[2], 0.0, "-", truth);
			continue;
		}
		fprintf(out, "%-28s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.2f%% %16.0f %16" PRIu64 "\n",
			specs.ev[i].name, v[0], v[1], v[2], v[1] ? 100.0 * v[2] / v[1] : 0.0,
			v[2] ? (double)v[0] * v[1] / v[2] : 0.0, truth);
	}
	if (text_trace && !quiet)
		print_trace(core, &specs, handles);
	perf_core_destroy(core);
	if (quiet && out)
		fclose(out);
	if (cfg.trace && !json) {
		fprintf(stderr, "pmusim: out of memory for the trace\n");
		return 1;
	}
	if (trace_out && trace_json_write(json, trace_out))
		status = 1;
	if (trace)
		*trace = json;
	else if (json)
		json_object_put(json);
	return status;
}

int cmd_sched(int argc, char **argv)
{
	return sched_simulate(argc, argv, false, NULL);
}
