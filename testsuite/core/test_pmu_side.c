/*
 * test_pmu_side.c - the Skylake model's PMUs beside "cpu": "msr"
 * (arch/x86/events/msr.c), "cstate_core" and "cstate_pkg"
 * (arch/x86/events/intel/cstate.c) and "uncore_arb" (intel/uncore.c over
 * uncore_snb.c's arb box): their types, their event_init errnos, and what
 * their events count on the synthetic machine.
 *
 * Expected values come from the kernel's sources, not from our output:
 * - types: perf_pmu_register(pmu, name, -1) takes the next free idr id; with
 *   cpu_clock 6 and task_clock 7 taken, drivers registering one after the
 *   other in link order (msr.o, then intel/'s uncore, then cstate) get 8,
 *   9, 10, 11;
 * - msr_event_init(): other type -ENOENT, sample_period -EINVAL, config not
 *   in msr_mask (Skylake: tsc 0, aperf 1, mperf 2, pperf 3, smi 4; not ptsc
 *   5, irperf 6; therm 7 needs DTHERM, not modelled) -EINVAL; it is
 *   task-capable (perf_sw_context);
 * - cstate_pmu_event_init(): sample_period -EINVAL, cpu < 0 -EINVAL, config
 *   past the PMU's events or not in snb_cstates' masks (core C3/C6/C7, not
 *   C1; package C2/C3/C6/C7, not C8-C10) -EINVAL;
 * - uncore_pmu_event_init(): sample_period -EINVAL, cpu < 0 -EINVAL, the
 *   event moves to the box's CPU, config masked with the event_mask (not
 *   refused); uncore_validate_group(): a group must fit the arb box's two
 *   counters, its occupancy events on counter 0 (snb_uncore_arb_constraints);
 * - perf_event_alloc(): an invalid-context PMU with a task -EINVAL;
 * - perf_try_init_event(): PERF_PMU_CAP_NO_EXCLUDE and any exclude_* -EINVAL;
 * - perf_event_set_clock(): none has PERF_PMU_CAP_NO_NMI, so a clock that is
 *   not NMI-safe (CLOCK_REALTIME) is -EINVAL;
 * - perf_event_open(): "Don't allow group of multiple hw events from
 *   different pmus" -EINVAL.
 * Counts: the synthetic machine runs 1,000-cycle blocks at 3 GHz with 3 LLC
 * misses each; the model's TSC runs at 3 GHz too, so a millisecond is
 * 3,000,000 ticks (docs/models.md, "The C-state model").
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "testsuite/core/core_fixture.h"
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"

enum { T_MSR = 8, T_ARB = 9, T_CORE = 10, T_PKG = 11 };
#define TICKS_PER_MS UINT64_C(3000000)

struct attr_row {
	const char *what;
	uint32_t type;
	uint64_t config;
	int cpu;                /* -1: the task's */
	bool task;              /* pid given (the fixture's task) */
	uint64_t period;
	bool freq, excl_user, excl_kernel, excl_idle;
	int err;                /* expected: 0 or -errno */
};

static const struct attr_row attr_rows[] = {
	{ "msr/tsc/ CPU-wide", T_MSR, 0, 0, false, 0, false, false, false, false, 0 },
	{ "msr/tsc/ per task", T_MSR, 0, -1, true, 0, false, false, false, false, 0 },
	{ "msr/tsc/ task on a CPU", T_MSR, 0, 0, true, 0, false, false, false, false, 0 },
	{ "msr/aperf/", T_MSR, 1, 0, false, 0, false, false, false, false, 0 },
	{ "msr/mperf/", T_MSR, 2, -1, true, 0, false, false, false, false, 0 },
	{ "msr/pperf/", T_MSR, 3, 0, false, 0, false, false, false, false, 0 },
	{ "msr/smi/", T_MSR, 4, 0, false, 0, false, false, false, false, 0 },
	{ "msr ptsc (AMD)", T_MSR, 5, 0, false, 0, false, false, false, false, -EINVAL },
	{ "msr irperf (AMD)", T_MSR, 6, 0, false, 0, false, false, false, false, -EINVAL },
	{ "msr cpu_thermal_margin (no DTHERM)", T_MSR, 7, 0, false, 0, false, false, false, false, -EINVAL },
	{ "msr past PERF_MSR_EVENT_MAX", T_MSR, 8, 0, false, 0, false, false, false, false, -EINVAL },
	{ "msr config 2^32", T_MSR, UINT64_C(1) << 32, 0, false, 0, false, false, false, false, -EINVAL },
	{ "msr sampling", T_MSR, 0, 0, false, 100000, false, false, false, false, -EINVAL },
	{ "msr freq", T_MSR, 0, -1, true, 1000, true, false, false, false, -EINVAL },
	{ "msr exclude_kernel", T_MSR, 0, -1, true, 0, false, false, true, false, -EINVAL },
	{ "msr exclude_user", T_MSR, 0, 0, false, 0, false, true, false, false, -EINVAL },
	{ "msr exclude_idle", T_MSR, 0, 0, false, 0, false, false, false, true, -EINVAL },
	{ "cstate_core/c6-residency/ CPU 0", T_CORE, 2, 0, false, 0, false, false, false, false, 0 },
	{ "cstate_core/c6-residency/ CPU 1", T_CORE, 2, 1, false, 0, false, false, false, false, 0 },
	{ "cstate_core/c3-residency/", T_CORE, 1, 0, false, 0, false, false, false, false, 0 },
	{ "cstate_core/c7-residency/", T_CORE, 3, 0, false, 0, false, false, false, false, 0 },
	{ "cstate_core c1 (not SKL)", T_CORE, 0, 0, false, 0, false, false, false, false, -EINVAL },
	{ "cstate_core past the max", T_CORE, 4, 0, false, 0, false, false, false, false, -EINVAL },
	{ "cstate_core per task", T_CORE, 2, -1, true, 0, false, false, false, false, -EINVAL },
	{ "cstate_core task on a CPU", T_CORE, 2, 0, true, 0, false, false, false, false, -EINVAL },
	{ "cstate_core sampling", T_CORE, 2, 0, false, 4000, false, false, false, false, -EINVAL },
	{ "cstate_core sampling per task", T_CORE, 2, -1, true, 4000, false, false, false, false, -EINVAL },
	{ "cstate_core exclude_user", T_CORE, 2, 0, false, 0, false, true, false, false, -EINVAL },
	{ "cstate_pkg/c2-residency/", T_PKG, 0, 0, false, 0, false, false, false, false, 0 },
	{ "cstate_pkg/c6-residency/ CPU 1", T_PKG, 2, 1, false, 0, false, false, false, false, 0 },
	{ "cstate_pkg/c7-residency/", T_PKG, 3, 0, false, 0, false, false, false, false, 0 },
	{ "cstate_pkg c8 (not SKL client)", T_PKG, 4, 0, false, 0, false, false, false, false, -EINVAL },
	{ "cstate_pkg c10", T_PKG, 6, 0, false, 0, false, false, false, false, -EINVAL },
	{ "cstate_pkg per task", T_PKG, 2, -1, true, 0, false, false, false, false, -EINVAL },
	{ "cstate_pkg freq", T_PKG, 2, 0, false, 1, true, false, false, false, -EINVAL },
	{ "cstate_pkg exclude_kernel", T_PKG, 2, 0, false, 0, false, false, true, false, -EINVAL },
	{ "uncore_arb TRK_REQUESTS.ALL", T_ARB, 0x0181, 0, false, 0, false, false, false, false, 0 },
	{ "uncore_arb on CPU 1", T_ARB, 0x0181, 1, false, 0, false, false, false, false, 0 },
	{ "uncore_arb bits past event_mask", T_ARB, (UINT64_C(1) << 40) | 0x0181, 0, false, 0, false,
	  false, false, false, 0 },
	{ "uncore_arb unknown selection", T_ARB, 0x00ff, 0, false, 0, false, false, false, false, 0 },
	{ "uncore_arb per task", T_ARB, 0x0181, -1, true, 0, false, false, false, false, -EINVAL },
	{ "uncore_arb task on a CPU", T_ARB, 0x0181, 0, true, 0, false, false, false, false, -EINVAL },
	{ "uncore_arb sampling", T_ARB, 0x0181, 0, false, 1000, false, false, false, false, -EINVAL },
	{ "uncore_arb exclude_kernel", T_ARB, 0x0181, 0, false, 0, false, false, true, false, -EINVAL },
	{ "no PMU past cstate_pkg", T_PKG + 1, 0, 0, false, 0, false, false, false, false, -ENOENT },
};

static int open_row(struct fixture *f, const struct attr_row *r, int group)
{
	struct perf_event_attr a = { .type = r->type, .size = sizeof(a), .config = r->config };

	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.sample_period = r->period;
	a.freq = r->freq;
	a.exclude_user = r->excl_user;
	a.exclude_kernel = r->excl_kernel;
	a.exclude_idle = r->excl_idle;
	return perf_sys_event_open(f->core, f->task, &perf_uaccess_direct, (uint64_t)(uintptr_t)&a,
				   r->task ? 0 : -1, r->cpu, group, 0);
}

static void test_attr_rows(void **state)
{
	struct fixture f;
	bool bad = false;

	(void)state;
	fixture_init(&f, "skylake", 0, 2);
	for (unsigned i = 0; i < sizeof(attr_rows) / sizeof(attr_rows[0]); i++) {
		const struct attr_row *r = &attr_rows[i];
		int h = open_row(&f, r, -1);
		int got = h < 0 ? h : 0;

		if (got != r->err) {
			fprintf(stderr, "row '%s': got %d, want %d\n", r->what, got, r->err);
			bad = true;
		}
		if (h >= 0)
			perf_file_put(f.core, h);
	}
	assert_false(bad);
	fixture_fini(&f);
}

/* Types, contexts and capabilities as registered (msr_init(),
 * cstate_init(): NO_INTERRUPT | NO_EXCLUDE; uncore_pmu_register():
 * NO_EXCLUDE); no side PMU on a model without them. */
static void test_types(void **state)
{
	enum { NI = PERF_PMU_CAP_SIM_NO_INTERRUPT, NE = PERF_PMU_CAP_SIM_NO_EXCLUDE };
	static const struct {
		const struct perf_pmu *pmu;
		uint32_t type;
		int ctx;
		unsigned caps;
	} rows[] = {
		{ &perf_msr_pmu, T_MSR, perf_sw_context, NI | NE },
		{ &perf_uncore_pmu, T_ARB, perf_invalid_context, NE },
		{ &perf_cstate_core_pmu, T_CORE, perf_invalid_context, NI | NE },
		{ &perf_cstate_pkg_pmu, T_PKG, perf_invalid_context, NI | NE },
	};
	struct perf_event_attr a = { .type = T_MSR, .size = sizeof(a) };
	struct perf_event_init init;
	struct fixture f;
	uint32_t type;
	unsigned caps;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(perf_pmu_probe(f.core, rows[i].pmu, &type, &caps));
		assert_int_equal(type, rows[i].type);
		assert_int_equal(rows[i].pmu->task_ctx_nr, rows[i].ctx);
		assert_int_equal(perf_pmu_find_type(f.core, rows[i].type), perf_pmu_index(rows[i].pmu));
		assert_int_equal(caps & (NI | NE), rows[i].caps);
		assert_true(perf_core_is_side_type(f.core, rows[i].type));
	}
	assert_false(perf_core_is_side_type(f.core, T_PKG + 1));
	/* perf_event_set_clock(): CLOCK_REALTIME is not NMI-safe, and none of
	 * them registers PERF_PMU_CAP_NO_NMI: -EINVAL; CLOCK_MONOTONIC is */
	a.use_clockid = 1;
	a.clockid = CLOCK_REALTIME;
	assert_int_equal(perf_event_init_attr(f.core, &a, 0, false, &init), -EINVAL);
	a.clockid = CLOCK_MONOTONIC;
	assert_int_equal(perf_event_init_attr(f.core, &a, 0, false, &init), 0);
	a.type = T_PKG;
	a.config = 2;
	a.clockid = CLOCK_REALTIME;
	assert_int_equal(perf_event_init_attr(f.core, &a, 0, false, &init), -EINVAL);
	a = (struct perf_event_attr){ .type = T_MSR, .size = sizeof(a) };
	assert_false(perf_core_is_side_type(f.core, PERF_TYPE_RAW));
	fixture_fini(&f);

	fixture_init(&f, "pmuv3", 0, 1);
	for (unsigned i = 0; i < 4; i++)
		assert_false(perf_pmu_probe(f.core, rows[i].pmu, NULL, NULL));
	assert_int_equal(perf_event_init_attr(f.core, &a, 0, false, &init), -ENOENT);
	fixture_fini(&f);
}

/* The uncore event moves to the box's CPU (event->cpu = box->cpu). */
static void test_uncore_moves_to_box_cpu(void **state)
{
	const struct attr_row r = { "arb", T_ARB, 0x0181, 1, false, 0, false, false, false, false, 0 };
	struct fixture f;
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 2);
	h = open_row(&f, &r, -1);
	assert_true(h >= 0);
	assert_int_equal(f.core->files[h].event->cpu, 0);
	perf_file_put(f.core, h);
	fixture_fini(&f);
}

/* Groups: one hardware PMU per group; software events join any. */
static void test_groups(void **state)
{
	const struct attr_row core_c6 = { "c6", T_CORE, 2, 0, false, 0, false, false, false, false, 0 };
	const struct attr_row tsc = { "tsc", T_MSR, 0, 0, false, 0, false, false, false, false, 0 };
	const struct attr_row arb = { "arb", T_ARB, 0x0181, 0, false, 0, false, false, false, false, 0 };
	struct perf_event_attr cyc = raw_attr(0x003c);
	struct fixture f;
	int c6, cpu, h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	c6 = open_row(&f, &core_c6, -1);
	assert_true(c6 >= 0);
	/* a cpu event, an uncore event in a cstate group: EINVAL */
	assert_int_equal(fixture_open(&f, &cyc, 0, c6), -EINVAL);
	assert_int_equal(open_row(&f, &arb, c6), -EINVAL);
	/* msr (software context) joins it */
	h = open_row(&f, &tsc, c6);
	assert_true(h >= 0);
	perf_file_put(f.core, h);
	/* a cstate event in a cpu group: EINVAL */
	cpu = fixture_open(&f, &cyc, 0, -1);
	assert_true(cpu >= 0);
	assert_int_equal(open_row(&f, &core_c6, cpu), -EINVAL);
	/* a cstate event joins an msr group: the group moves to cstate_core */
	h = open_row(&f, &tsc, -1);
	assert_true(h >= 0);
	assert_true(open_row(&f, &core_c6, h) >= 0);
	fixture_fini(&f);
}

/* uncore_validate_group() on the arb box: two counters, the occupancy
 * events (0x80, 0x83) on counter 0 only (snb_uncore_arb_constraints). */
static void test_uncore_group_validation(void **state)
{
	static const struct { uint64_t cfg[3]; unsigned n; int err; } rows[] = {
		{ { 0x0181, 0x0180 }, 2, 0 },            /* requests + occupancy */
		{ { 0x0180, 0x0181 }, 2, 0 },
		{ { 0x0181, 0x0281 }, 2, 0 },            /* two requests */
		{ { 0x0180, 0x0280 }, 2, -EINVAL },      /* two on counter 0 */
		{ { 0x0180, 0x01000280 }, 2, -EINVAL },  /* cmask does not free it */
		{ { 0x0183, 0x0180 }, 2, -EINVAL },
		{ { 0x0181, 0x0281, 0x2081 }, 3, -EINVAL }, /* three on two counters */
		{ { 0x0181, 0x00ff }, 2, 0 },            /* an unknown event takes any */
	};
	struct fixture f;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int lead = -1, h = -1;

		for (unsigned j = 0; j < rows[i].n; j++) {
			const struct attr_row r = { "arb", T_ARB, rows[i].cfg[j], 0, false, 0, false,
						    false, false, false, 0 };

			h = open_row(&f, &r, lead);
			if (j + 1 < rows[i].n)
				assert_true(h >= 0);
			if (j == 0)
				lead = h;
		}
		if ((h < 0 ? h : 0) != rows[i].err)
			fail_msg("arb group row %u: last open %d, want %d", i, h, rows[i].err);
		perf_file_put(f.core, lead);
	}
	fixture_fini(&f);
}

struct count_row {
	const char *what;
	uint32_t type;
	uint64_t config;
	int cpu;                /* -1: the fixture's task */
	uint64_t want;
};

/*
 * The task runs on CPU 0 for 2 ms (6,000 blocks), then sleeps: CPU 0 idles
 * to 5 ms; CPU 1 never runs anything and catches up at the read. Events
 * opened at 0. By the model: TSC counts all 5 ms (15,000,000 ticks),
 * APERF/MPERF the 2 busy ms, core C6 the idle 3 ms on CPU 0 and all 5 on
 * CPU 1, package C6 the 3 ms when neither CPU ran anything; per task, TSC
 * counts only while the task runs (2 ms); arb requests are CPU 0's LLC
 * misses (3 per block), its occupancy the tracker cycles the machine
 * reports (set to 153 a miss here), with a threshold of 1 the same (the
 * model's requests never overlap), of 2 or with edge none; the states the
 * model never enters read 0.
 */
static const struct count_row count_rows[] = {
	{ "msr/tsc/ CPU 0", T_MSR, 0, 0, 5 * TICKS_PER_MS },
	{ "msr/tsc/ CPU 1", T_MSR, 0, 1, 5 * TICKS_PER_MS },
	{ "msr/tsc/ task", T_MSR, 0, -1, 2 * TICKS_PER_MS },
	{ "msr/aperf/ CPU 0", T_MSR, 1, 0, 2 * TICKS_PER_MS },
	{ "msr/mperf/ CPU 0", T_MSR, 2, 0, 2 * TICKS_PER_MS },
	{ "msr/aperf/ CPU 1", T_MSR, 1, 1, 0 },
	{ "msr/aperf/ task", T_MSR, 1, -1, 2 * TICKS_PER_MS },
	{ "msr/smi/", T_MSR, 4, 0, 0 },
	{ "cstate_core/c6-residency/ CPU 0", T_CORE, 2, 0, 3 * TICKS_PER_MS },
	{ "cstate_core/c6-residency/ CPU 1", T_CORE, 2, 1, 5 * TICKS_PER_MS },
	{ "cstate_core/c3-residency/", T_CORE, 1, 0, 0 },
	{ "cstate_core/c7-residency/", T_CORE, 3, 1, 0 },
	{ "cstate_pkg/c6-residency/ CPU 0", T_PKG, 2, 0, 3 * TICKS_PER_MS },
	{ "cstate_pkg/c6-residency/ CPU 1", T_PKG, 2, 1, 3 * TICKS_PER_MS },
	{ "cstate_pkg/c2-residency/", T_PKG, 0, 0, 0 },
	{ "uncore_arb TRK_REQUESTS.ALL", T_ARB, 0x0181, 0, 3 * 6000 },
	{ "uncore_arb TRK_OCCUPANCY.ALL", T_ARB, 0x0180, 0, 3 * 153 * 6000 },
	{ "uncore_arb TRK_OCCUPANCY.ALL cmask=1", T_ARB, 0x01000180, 0, 3 * 153 * 6000 },
	{ "uncore_arb TRK_OCCUPANCY.ALL cmask=2", T_ARB, 0x02000180, 0, 0 },
	{ "uncore_arb TRK_OCCUPANCY.ALL edge", T_ARB, 0x01040180, 0, 0 },
	{ "uncore_arb TRK_REQUESTS.WRITES", T_ARB, 0x2081, 0, 0 },
};

static void test_counts(void **state)
{
	enum { N = sizeof(count_rows) / sizeof(count_rows[0]) };
	int h[N];
	struct fixture f;
	bool bad = false;

	(void)state;
	fixture_init(&f, "skylake", 0, 2);
	/* the machine's tracker cycles: 153 a miss (what pmu_machine.c reports) */
	f.sm.profile.per_block[SIM_SRC_MEM_REQ_OCCUPANCY] = 3 * 153;
	for (unsigned i = 0; i < N; i++) {
		const struct count_row *c = &count_rows[i];
		struct attr_row r = { c->what, c->type, c->config, c->cpu, c->cpu < 0, 0, false,
				      false, false, false, 0 };

		h[i] = open_row(&f, &r, -1);
		assert_true(h[i] >= 0);
	}
	synthetic_run_until(&f.sm, 0, 2 * MS);
	perf_cpu_switch_to(perf_core_cpu(f.core, 0), NULL);
	perf_cpu_idle_until(perf_core_cpu(f.core, 0), 5 * MS);
	for (unsigned i = 0; i < N; i++) {
		uint64_t v[3];

		fixture_read3(&f, h[i], v);
		if (v[0] != count_rows[i].want) {
			fprintf(stderr, "row '%s': counted %llu, want %llu\n", count_rows[i].what,
				(unsigned long long)v[0], (unsigned long long)count_rows[i].want);
			bad = true;
		}
	}
	assert_false(bad);
	fixture_fini(&f);
}

/* Two CPUs idle past each other: the package's idle time is their union,
 * counted once (the later sleeper gets only its part past the other's). */
static void test_pkg_union(void **state)
{
	const struct attr_row pkg = { "pkg", T_PKG, 2, 0, false, 0, false, false, false, false, 0 };
	struct perf_task *t2;
	struct fixture f;
	uint64_t v[3];
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 2);
	t2 = perf_task_create(f.core, 101, 101, (struct perf_cred){ .uid = 0, .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(f.core, 1), t2);
	h = open_row(&f, &pkg, -1);
	assert_true(h >= 0);
	synthetic_run_until(&f.sm, 0, 1 * MS);
	synthetic_run_until(&f.sm, 1, 1 * MS);
	/* CPU 0 sleeps to 4 ms while CPU 1's task is still on: nothing */
	perf_cpu_switch_to(perf_core_cpu(f.core, 0), NULL);
	perf_cpu_idle_until(perf_core_cpu(f.core, 0), 4 * MS);
	/* CPU 1's task sleeps to 6 ms: 4-6 ms is the package's */
	perf_cpu_switch_to(perf_core_cpu(f.core, 1), NULL);
	perf_cpu_idle_until(perf_core_cpu(f.core, 1), 6 * MS);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 2 * TICKS_PER_MS);
	fixture_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_attr_rows),
		cmocka_unit_test(test_uncore_moves_to_box_cpu),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_uncore_group_validation),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_pkg_union),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
