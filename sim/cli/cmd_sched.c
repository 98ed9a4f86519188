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
#include "sim/cli/event_spec.h"
#include "sim/core/sched_trace.h"
#include "sim/synthetic/synthetic_machine.h"

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
		"  -t, --trace            print every sched-in, sched-out and rotation\n"
		"  -h, --help\n",
		pmu_model_default()->name);
}

/* What the stream produced of the event's source while it was enabled. */
static uint64_t true_count(const struct perf_event *e, const struct synthetic_profile *p,
			   uint64_t blocks, uint64_t time_ns)
{
	if (perf_event_is_software(e))
		return perf_event_counts_time(e) ? time_ns : 0;
	if (perf_event_attr(e)->exclude_user)
		return 0;
	return p->per_block[perf_event_source(e)] * blocks;
}

static void print_trace(struct perf_core *core, const struct event_spec_list *specs,
			const int *handles)
{
	const struct perf_trace_entry *t;
	size_t n;

	t = perf_core_trace(core, &n);
	printf("\nscheduler trace (simulated time):\n");
	for (size_t i = 0; i < n; i++) {
		const char *name = "-";

		for (unsigned j = 0; j < specs->n; j++)
			if (handles[j] >= 0 && handles[j] == t[i].handle)
				name = specs->ev[j].name;
		if (t[i].kind == TRACE_ROTATE)
			printf("  %10.3f ms  cpu%u  rotate\n", t[i].time_ns / 1e6, t[i].cpu);
		else if (t[i].hw_idx >= 0)
			printf("  %10.3f ms  cpu%u  %-9s %-24s counter %d\n", t[i].time_ns / 1e6,
			       t[i].cpu, perf_trace_kind_name(t[i].kind), name, t[i].hw_idx);
		else
			printf("  %10.3f ms  cpu%u  %-9s %s\n", t[i].time_ns / 1e6, t[i].cpu,
			       perf_trace_kind_name(t[i].kind), name);
	}
}

int cmd_sched(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "model", required_argument, NULL, 'm' },
		{ "counters", required_argument, NULL, 'c' },
		{ "mux-interval", required_argument, NULL, 'i' },
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "cpu-wide", no_argument, NULL, 'a' },
		{ "trace", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct pmu_model *model = pmu_model_default();
	struct perf_core_config cfg = { 0 };
	struct synthetic_machine sm = { .profile = synthetic_default_profile };
	static struct event_spec_list specs;
	struct perf_machine machine;
	struct perf_core *core;
	struct perf_task *task;
	unsigned long duration_ms = 24;
	const char *events = NULL;
	bool cpu_wide = false;
	long v;
	int handles[EVENT_SPEC_MAX];
	char err[256];
	int c, status = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:m:c:i:d:ath", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = optarg;
			break;
		case 'm':
			model = pmu_model_find(optarg);
			if (!model)
				return cli_usage_error("unknown model '%s' (see pmusim models)", optarg);
			break;
		case 'c':
			if (!cli_parse_long(optarg, 1, 32, &v))
				return cli_usage_error("--counters: '%s' is not a number in 1..32", optarg);
			cfg.nr_gp_counters = (unsigned)v;
			break;
		case 'i':
			if (!cli_parse_long(optarg, 1, 1000000, &v))
				return cli_usage_error("--mux-interval: '%s' is not a number of ms", optarg);
			cfg.mux_interval_ms = (unsigned)v;
			break;
		case 'd':
			if (!cli_parse_long(optarg, 1, 3600000, &v))
				return cli_usage_error("--duration-ms: '%s' is not a number in 1..3600000",
						       optarg);
			duration_ms = (unsigned long)v;
			break;
		case 'a':
			cpu_wide = true;
			break;
		case 't':
			cfg.trace = true;
			break;
		case 'h':
			sched_usage(stdout);
			return 0;
		default:
			return cli_usage_error("sched: unknown option '%s' (see pmusim sched --help)",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("sched: unexpected argument '%s'", argv[optind]);
	if (!events)
		return cli_usage_error("sched: no events; give them with -e (see pmusim sched --help)");
	specs.n = 0;
	if (event_spec_parse(events, model, &specs, err, sizeof(err)))
		return cli_usage_error("sched: %s", err);

	cfg.model = model;
	cfg.nr_cpus = 1;
	cfg.paranoid = -1;
	machine = synthetic_machine_ops(&sm);
	if (perf_core_create(&cfg, &machine, &core))
		return cli_usage_error("sched: cannot create the simulated kernel");
	sm.core = core;
	task = perf_task_create(core, 1000, 1000, (struct perf_cred){ .uid = 0, .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(core, 0), task);

	printf("model %s: %u general-purpose counters (%u-bit)", model->name,
	       perf_core_config(core)->nr_gp_counters, model->gp_width);
	if (model->nr_fixed_counters)
		printf(" + %u fixed", model->nr_fixed_counters);
	if (model->has_cycle_counter)
		printf(" + cycle counter");
	printf(", mux interval %u ms, %lu ms of a steady stream at %.3f GHz (%s)\n\n",
	       perf_core_config(core)->mux_interval_ms, duration_ms,
	       perf_core_config(core)->freq_hz / 1e9,
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
			printf("%-28s cannot be opened: %s\n", s->name, strerror(-handles[i]));
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

	synthetic_run_until(&sm, 0, (uint64_t)duration_ms * 1000000);

	printf("%-28s %14s %14s %14s %8s %16s %16s\n", "event", "count", "time_enabled",
	       "time_running", "running", "scaled", "true count");
	for (unsigned i = 0; i < specs.n; i++) {
		uint64_t v[3];
		struct perf_event *e;
		uint64_t blocks = perf_cpu_cycles(perf_core_cpu(core, 0)) / sm.profile.block_cycles;

		if (handles[i] < 0)
			continue;
		e = perf_file_event(core, handles[i]);
		if (perf_sys_read(core, handles[i], v, sizeof(v)) != (ssize_t)sizeof(v)) {
			printf("%-28s %14s\n", specs.ev[i].name, "<not counted>");
			continue;
		}
		printf("%-28s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.2f%% %16.0f %16" PRIu64 "\n",
		       specs.ev[i].name, v[0], v[1], v[2], v[1] ? 100.0 * v[2] / v[1] : 0.0,
		       v[2] ? (double)v[0] * v[1] / v[2] : 0.0,
		       true_count(e, &sm.profile, blocks, perf_cpu_time_ns(perf_core_cpu(core, 0))));
	}
	if (cfg.trace)
		print_trace(core, &specs, handles);
	perf_core_destroy(core);
	return status;
}
