/*
 * test_pmu.c - the PMU registry (sim/core/pmu.h): the PMUs the simulated
 * kernel registers, in perf_event_init() order, with the types and
 * contexts the kernel gives them, and the cpu PMU's own event_init errnos.
 *
 * Expected values come from the kernel's sources: perf_event_init()
 * registers perf_swevent as PERF_TYPE_SOFTWARE, then "cpu_clock" and
 * "task_clock" with dynamic types, the first ids from PERF_TYPE_MAX (6, 7),
 * then perf_tp_register() the "tracepoint" PMU as PERF_TYPE_TRACEPOINT;
 * init_hw_perf_events() registers the x86 core PMU as PERF_TYPE_RAW;
 * armpmu_register() takes a dynamic type; perf_swevent, cpu_clock and
 * task_clock and tracepoint have task_ctx_nr = perf_sw_context and
 * PERF_PMU_CAP_NO_NMI; armv8pmu_event_init() returns -EINVAL for a user
 * access (config1:1) event not attached to a task.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testsuite/core/core_fixture.h"
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"
#include "sim/core/tracepoints.h"

static void test_registration_order(void **state)
{
	/* then the model's PMUs beside cpu (device initcalls: msr.o, then
	 * intel/'s uncore and cstate drivers), which never sample */
	static const char *const names[] = { "software", "cpu_clock", "task_clock", "tracepoint",
					     "breakpoint", "cpu", "msr", "uncore", "cstate_core",
					     "cstate_pkg" };

	(void)state;
	assert_int_equal(perf_nr_pmus, 10);
	for (unsigned i = 0; i < 10; i++) {
		assert_string_equal(perf_pmus[i]->name, names[i]);
		assert_int_equal(perf_pmu_index(perf_pmus[i]), i);
		/* every PMU can take events and says what it registered as */
		assert_non_null(perf_pmus[i]->event_init);
		assert_non_null(perf_pmus[i]->probe);
		if (i < 6)
			assert_non_null(perf_pmus[i]->handle_overflow);
		else
			assert_null(perf_pmus[i]->handle_overflow);
	}
}

static void test_types_and_contexts(void **state)
{
	struct fixture f;
	unsigned caps;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	assert_int_equal(perf_pmu_find_type(f.core, PERF_TYPE_SOFTWARE), perf_pmu_index(&perf_swevent_pmu));
	assert_int_equal(perf_pmu_find_type(f.core, 6), perf_pmu_index(&perf_cpu_clock_pmu));
	assert_int_equal(perf_pmu_find_type(f.core, 7), perf_pmu_index(&perf_task_clock_pmu));
	assert_int_equal(perf_pmu_find_type(f.core, PERF_TYPE_RAW), perf_pmu_index(&perf_cpu_pmu));
	assert_int_equal(perf_pmu_find_type(f.core, PERF_TYPE_TRACEPOINT),
			 perf_pmu_index(&perf_tracepoint_pmu));
	assert_int_equal(perf_pmu_find_type(f.core, PERF_TYPE_BREAKPOINT),
			 perf_pmu_index(&perf_bp_pmu));
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(perf_pmus[i]->task_ctx_nr, perf_sw_context);
		assert_true(perf_pmu_probe(f.core, perf_pmus[i], NULL, &caps));
		assert_true(caps & PERF_PMU_CAP_SIM_NO_NMI);
	}
	assert_int_equal(perf_cpu_pmu.task_ctx_nr, perf_hw_context);
	assert_true(perf_pmu_probe(f.core, &perf_cpu_pmu, NULL, &caps));
	assert_false(caps & PERF_PMU_CAP_SIM_NO_NMI);
	fixture_fini(&f);

	/* arm64: the core PMU has a dynamic type, RAW finds nothing by idr */
	fixture_init(&f, "pmuv3", 0, 1);
	assert_int_equal(perf_pmu_find_type(f.core, perf_core_model(f.core)->pmu_type),
			 perf_pmu_index(&perf_cpu_pmu));
	assert_int_equal(perf_pmu_find_type(f.core, PERF_TYPE_RAW), -1);
	fixture_fini(&f);
}

/* The cpu PMU's event_init decides its own errnos, whoever calls it. */
static void test_cpu_pmu_event_init_errnos(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_RAW, .size = sizeof(a), .config = 0x08,
				     .config1 = 0x2 };
	struct perf_event_init init;
	struct fixture f;

	(void)state;
	fixture_init(&f, "pmuv3", 0, 1);
	a.type = perf_core_model(f.core)->pmu_type;
	assert_int_equal(perf_event_init_attr(f.core, &a, 0, false, &init), -EINVAL);
	assert_int_equal(perf_event_init_attr(f.core, &a, -1, true, &init), 0);
	assert_ptr_equal(init.pmu, &perf_cpu_pmu);
	fixture_fini(&f);
}

static struct perf_event_attr tp_attr(const char *system, const char *name, uint64_t st)
{
	const struct tp_event *tp = tp_find_name(system, name);
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a),
				     .sample_period = st ? 1 : 0, .sample_type = st };

	assert_non_null(tp);
	a.config = tp_id(tp);
	return a;
}

/* perf_trace_event_perm() under perf_event_paranoid 2 for a task without
 * CAP_PERFMON (the host's answers as an ordinary account, measured):
 * counting is allowed, raw records of a syscall event on a task too
 * (TRACE_EVENT_FL_CAP_ANY), of sched_switch not (-EPERM). */
static void test_tracepoint_perm(void **state)
{
	struct perf_core_config cfg = { .model = pmu_model_find("skylake"), .paranoid = 2 };
	struct perf_core *core;
	struct perf_task *user;
	struct perf_event_init_hooks hooks = { 0 };
	struct perf_event_init init;
	struct perf_event_attr a;

	(void)state;
	assert_int_equal(perf_core_create(&cfg, NULL, &core), 0);
	user = perf_task_create(core, 200, 200, (struct perf_cred){ .uid = 1000 });
	hooks.current = user;
	a = tp_attr("syscalls", "sys_enter_getpid", PERF_SAMPLE_RAW);
	assert_int_equal(perf_event_init_attr_hooks(core, &a, -1, true, -1, &hooks, &init), 0);
	assert_ptr_equal(init.pmu, &perf_tracepoint_pmu);
	a = tp_attr("raw_syscalls", "sys_enter", PERF_SAMPLE_RAW);
	assert_int_equal(perf_event_init_attr_hooks(core, &a, -1, true, -1, &hooks, &init), 0);
	a = tp_attr("sched", "sched_switch", PERF_SAMPLE_RAW);
	assert_int_equal(perf_event_init_attr_hooks(core, &a, -1, true, -1, &hooks, &init), -EPERM);
	a = tp_attr("sched", "sched_switch", 0);
	assert_int_equal(perf_event_init_attr_hooks(core, &a, -1, true, -1, &hooks, &init), 0);
	perf_core_destroy(core);
}

/* Counting by arithmetic: N switches of the task off its CPU give N
 * sched_switch (its own context's event sees each switch-out, not the
 * switch-in); N sys_enter of getpid give N, none through a filter on
 * another number; exclude_kernel never counts (perf_tp_event_match). */
static void test_tracepoint_counts(void **state)
{
	enum { N = 17 };
	struct perf_event_attr sw = tp_attr("sched", "sched_switch", 0);
	struct perf_event_attr en = tp_attr("syscalls", "sys_enter_getpid", 0);
	struct perf_event_attr ex = en;
	const uint64_t args[6] = { 0 };
	struct fixture f;
	struct perf_cpu *cpu;
	int hs, he, hf, hx;
	uint64_t v[3];

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	cpu = perf_core_cpu(f.core, 0);
	ex.exclude_kernel = 1;
	hs = fixture_open(&f, &sw, -1, -1);
	he = fixture_open(&f, &en, -1, -1);
	hf = fixture_open(&f, &en, -1, -1);
	hx = fixture_open(&f, &ex, -1, -1);
	assert_true(hs >= 0 && he >= 0 && hf >= 0 && hx >= 0);
	assert_int_equal(fixture_ioctl(&f, hf, PERF_EVENT_IOC_SET_FILTER,
				       (unsigned long)(uintptr_t)"__syscall_nr == 40"), 0);
	assert_true(perf_cpu_traces(cpu));
	for (int i = 0; i < N; i++) {
		perf_tp_sys_enter(cpu, 39, args);
		perf_cpu_switch_to(cpu, NULL);
		perf_cpu_switch_to(cpu, f.task);
	}
	assert_int_equal(perf_sys_read(f.core, hs, v, 8), 8);
	assert_int_equal(v[0], N);
	assert_int_equal(perf_sys_read(f.core, he, v, 8), 8);
	assert_int_equal(v[0], N);
	assert_int_equal(perf_sys_read(f.core, hf, v, 8), 8);
	assert_int_equal(v[0], 0);
	assert_int_equal(perf_sys_read(f.core, hx, v, 8), 8);
	assert_int_equal(v[0], 0);
	fixture_fini(&f);
}

/* The ids follow the host's tracefs: perf opens the number it read there,
 * whatever kernel built the catalogue. A tracefs where sys_enter_getpid
 * has id 60001 moves that event there; events without a file keep the
 * catalogue's number. */
static void test_tracepoint_host_ids(void **state)
{
	char root[] = "/tmp/pmusim-tracefs-XXXXXX", dir[4][160], id[200];
	const struct tp_event *getpid = tp_find_name("syscalls", "sys_enter_getpid");
	const struct tp_event *sw = tp_find_name("sched", "sched_switch");
	FILE *f;

	(void)state;
	assert_non_null(getpid);
	assert_non_null(sw);
	assert_non_null(mkdtemp(root));
	snprintf(dir[0], sizeof(dir[0]), "%s/events", root);
	snprintf(dir[1], sizeof(dir[1]), "%s/events/syscalls", root);
	snprintf(dir[2], sizeof(dir[2]), "%s/events/syscalls/sys_enter_getpid", root);
	for (int i = 0; i < 3; i++)
		assert_int_equal(mkdir(dir[i], 0755), 0);
	snprintf(id, sizeof(id), "%s/id", dir[2]);
	f = fopen(id, "w");
	assert_non_null(f);
	fprintf(f, "60001\n");
	fclose(f);

	tp_ids_load(root);
	assert_int_equal(tp_id(getpid), 60001);
	assert_ptr_equal(tp_find_id(60001), getpid);
	assert_int_equal(tp_id(sw), sw->id);
	assert_ptr_equal(tp_find_id(sw->id), sw);
	assert_null(tp_find_id(getpid->id));

	tp_ids_load(NULL);      /* the catalogue's */
	assert_int_equal(tp_id(getpid), getpid->id);
	assert_ptr_equal(tp_find_id(getpid->id), getpid);
	unlink(id);
	for (int i = 2; i >= 0; i--)
		rmdir(dir[i]);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registration_order),
		cmocka_unit_test(test_types_and_contexts),
		cmocka_unit_test(test_cpu_pmu_event_init_errnos),
		cmocka_unit_test(test_tracepoint_perm),
		cmocka_unit_test(test_tracepoint_counts),
		cmocka_unit_test(test_tracepoint_host_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
