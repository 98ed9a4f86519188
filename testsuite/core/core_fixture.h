/*
 * core_fixture.h - a simulated kernel on the synthetic machine for the core
 * suites: one task running on CPU 0, events opened on it with raw attrs.
 */
#ifndef PMUSIM_CORE_FIXTURE_H
#define PMUSIM_CORE_FIXTURE_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "pmu_models/pmu_model.h"
#include "sim/core/core_types.h"
#include "sim/synthetic/synthetic_machine.h"

#define MS UINT64_C(1000000)

struct fixture {
	struct perf_core *core;
	struct perf_task *task;
	struct synthetic_machine sm;
	unsigned fasync_signals[PERF_CORE_MAX_FILES];
	int last_si_code[PERF_CORE_MAX_FILES];
};

static struct fixture *fixture_current;

static void fixture_fasync(void *ctx, int handle, int si_code)
{
	(void)ctx;
	fixture_current->fasync_signals[handle]++;
	fixture_current->last_si_code[handle] = si_code;
}

static struct perf_machine_ops fixture_ops;

/* Creates the kernel for model (counters 0 = the model's). */
static inline void fixture_init(struct fixture *f, const char *model, unsigned counters,
				unsigned nr_cpus)
{
	struct perf_core_config cfg = {
		.model = pmu_model_find(model),
		.nr_cpus = nr_cpus,
		.paranoid = -1,
		.nr_gp_counters = counters,
		.trace = true,
	};
	struct perf_machine m;

	memset(f, 0, sizeof(*f));
	fixture_current = f;
	assert_non_null(cfg.model);
	f->sm.profile = synthetic_default_profile;
	m = synthetic_machine_ops(&f->sm);
	fixture_ops = *m.ops;
	fixture_ops.fasync = fixture_fasync;
	m.ops = &fixture_ops;
	assert_int_equal(perf_core_create(&cfg, &m, &f->core), 0);
	f->sm.core = f->core;
	f->task = perf_task_create(f->core, 100, 100, (struct perf_cred){ .uid = 0, .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(f->core, 0), f->task);
}

static inline void fixture_fini(struct fixture *f)
{
	perf_core_destroy(f->core);
}

/* Opens attr on the fixture's task (cpu -1), or CPU-wide when cpu >= 0. */
static inline int fixture_open(struct fixture *f, struct perf_event_attr *attr, int cpu, int group)
{
	attr->size = sizeof(*attr);
	return perf_sys_event_open(f->core, f->task, &perf_uaccess_direct,
				   (uint64_t)(uintptr_t)attr, cpu >= 0 ? -1 : 0, cpu, group, 0);
}

static inline struct perf_event_attr raw_attr(uint64_t config)
{
	struct perf_event_attr a = { .type = PERF_TYPE_RAW, .size = sizeof(a), .config = config };

	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return a;
}

static inline long fixture_ioctl(struct fixture *f, int h, unsigned cmd, unsigned long arg)
{
	return perf_sys_ioctl(f->core, f->task, &perf_uaccess_direct, h, cmd, arg);
}

/* Reads {value, enabled, running}. */
static inline void fixture_read3(struct fixture *f, int h, uint64_t v[3])
{
	assert_int_equal(perf_sys_read(f->core, h, v, 3 * sizeof(uint64_t)), 3 * sizeof(uint64_t));
}

#endif
