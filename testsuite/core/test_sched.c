/*
 * test_sched.c - scheduling and multiplexing, table-driven. Each row opens
 * events on the synthetic machine's task, runs a steady stream and checks
 * every event's time_enabled, time_running and count against values worked
 * out by hand from the kernel's rules (named per row).
 *
 * The stream: 1,000 cycles per block at the model's 3 GHz, so 4 ms is
 * 12,000 blocks and rotations fall on block boundaries. An event running
 * R ms counts R * 3,000 blocks of its source (branches: 160 per block).
 */
#include "testsuite/core/core_fixture.h"

#define MAX_EV 10

/* SKL encodings with no constraint beyond the 4 GP counters. */
#define BR_INST   0x00c4  /* branches: 160/block */
#define BR_MISP   0x00c5  /* branch-misses: 8/block */
#define LLC_REF   0x4f2e  /* cache-references: 13/block */
#define LLC_MISS  0x412e  /* cache-misses: 3/block */
#define BUS_CYC   0x013c  /* bus-cycles: 10/block */
#define INST      0x00c0  /* instructions: fixed0 or GP, 800/block */
#define CYC       0x003c  /* cycles: fixed1 or GP, 1000/block */
#define REF_CYC   0x0300  /* ref-cycles: fixed2 only, 1000/block */

struct ev_row {
	uint64_t config;
	int group;               /* index of leader, -1: its own leader */
	unsigned pinned : 1, exclusive : 1;
	uint64_t running_ms;     /* expected time_running */
	uint64_t per_block;      /* source amount per block */
};

struct sched_row {
	int line;
	const char *why;         /* the kernel behaviour */
	unsigned counters;       /* 0: the model's */
	uint64_t duration_ms;
	unsigned n;
	struct ev_row ev[MAX_EV];
	int expect_error_ev;     /* event that ends in ERROR (read = 0), or -1 */
};

static const struct sched_row rows[] = {
	{ __LINE__, "6 flexible groups on 4 counters, rotated every 4 ms: "
	  "perf_rotate_context moves the first active group to the tail", 0, 24, 6,
	  { { BR_INST, -1, 0, 0, 16, 160 }, { BR_MISP, -1, 0, 0, 16, 8 },
	    { LLC_REF, -1, 0, 0, 16, 13 }, { LLC_MISS, -1, 0, 0, 16, 3 },
	    { BUS_CYC, -1, 0, 0, 16, 10 }, { 0x01c2, -1, 0, 0, 16, 0 } }, -1 },
	{ __LINE__, "pinned group always on; 3 flexible share the last counter "
	  "(ctx_sched_in: pinned before flexible)", 0, 24, 6,
	  { { BR_INST, -1, 1, 0, 24, 160 }, { BR_MISP, 0, 0, 0, 24, 8 }, { LLC_REF, 0, 0, 0, 24, 13 },
	    { LLC_MISS, -1, 0, 0, 8, 3 }, { BUS_CYC, -1, 0, 0, 8, 10 }, { 0x01c2, -1, 0, 0, 8, 0 } }, -1 },
	{ __LINE__, "a pinned group that cannot go on goes to ERROR (merge_sched_in); "
	  "flexible groups get their own pass", 0, 24, 6,
	  { { BR_INST, -1, 1, 0, 24, 160 }, { BR_MISP, 0, 0, 0, 24, 8 }, { LLC_REF, 0, 0, 0, 24, 13 },
	    { LLC_MISS, -1, 1, 0, 0, 3 }, { BUS_CYC, 3, 0, 0, 0, 10 },
	    { 0x01c2, -1, 0, 0, 24, 0 } }, 3 },
	{ __LINE__, "exclusive flexible group: alone on the PMU, and only onto an "
	  "empty active list (group_can_go_on)", 0, 24, 3,
	  { { BR_INST, -1, 0, 1, 8, 160 }, { BR_MISP, -1, 0, 0, 8, 8 }, { LLC_REF, -1, 0, 0, 16, 13 } }, -1 },
	{ __LINE__, "instructions, cycles, ref-cycles take the fixed counters, "
	  "leaving 4 GP counters: 7 events never multiplex", 0, 24, 7,
	  { { INST, -1, 0, 0, 24, 800 }, { CYC, -1, 0, 0, 24, 1000 }, { REF_CYC, -1, 0, 0, 24, 1000 },
	    { BR_INST, -1, 0, 0, 24, 160 }, { BR_MISP, -1, 0, 0, 24, 8 }, { LLC_REF, -1, 0, 0, 24, 13 },
	    { LLC_MISS, -1, 0, 0, 24, 3 } }, -1 },
	{ __LINE__, "--counters 2: 3 flexible events rotate over 2 counters", 2, 24, 3,
	  /* t0: a b | 4: rot a -> b c | 8: rot b -> c a | 12: rot c -> a b | 16: b c | 20: c a */
	  { { BR_INST, -1, 0, 0, 16, 160 }, { BR_MISP, -1, 0, 0, 16, 8 }, { LLC_REF, -1, 0, 0, 16, 13 } }, -1 },
	{ __LINE__, "a 2-event group and 3 singles on 4 counters: the group goes on "
	  "all or nothing (group_sched_in) and rotates as one", 0, 16, 5,
	  /* order G(2) s1 s2 s3: t0 G s1 s2 on, s3 fails | 4: rot G -> s1 s2 s3 G: s1 s2 s3 on, G fails
	   * | 8: rot s1 -> s2 s3 G s1: s2 s3 G on | 12: rot s2 -> s3 G s1 s2: s3 G s1 on, s2 fails */
	  { { BR_INST, -1, 0, 0, 12, 160 }, { BR_MISP, 0, 0, 0, 12, 8 }, { LLC_MISS, -1, 0, 0, 12, 3 },
	    { BUS_CYC, -1, 0, 0, 12, 10 }, { 0x01c2, -1, 0, 0, 12, 0 } }, -1 },
};

static void run_row(const struct sched_row *r)
{
	struct fixture f;
	int h[MAX_EV];
	unsigned i;

	fixture_init(&f, "skylake", r->counters, 1);
	for (i = 0; i < r->n; i++) {
		struct perf_event_attr a = raw_attr(r->ev[i].config);
		int leader = r->ev[i].group;

		a.disabled = leader < 0;
		a.pinned = r->ev[i].pinned;
		a.exclusive = r->ev[i].exclusive;
		h[i] = fixture_open(&f, &a, -1, leader < 0 ? -1 : h[leader]);
		if (h[i] < 0)
			fail_msg("line %d: open of event %u failed: %d", r->line, i, h[i]);
	}
	for (i = 0; i < r->n; i++)
		if (r->ev[i].group < 0)
			assert_int_equal(fixture_ioctl(&f, h[i], PERF_EVENT_IOC_ENABLE, 0), 0);
	synthetic_run_until(&f.sm, 0, r->duration_ms * MS);
	for (i = 0; i < r->n; i++) {
		uint64_t v[3];
		int leader = r->ev[i].group < 0 ? (int)i : r->ev[i].group;

		if (leader == r->expect_error_ev) {
			if (leader == (int)i) {
				/* __perf_read(): end-of-file in ERROR state */
				assert_int_equal(perf_sys_read(f.core, h[i], v, sizeof(v)), 0);
			} else {
				/* a sibling is as off as its leader: no time, no count
				 * (__perf_effective_state) */
				fixture_read3(&f, h[i], v);
				assert_int_equal(v[0], 0);
				assert_int_equal(v[1], 0);
				assert_int_equal(v[2], 0);
			}
			continue;
		}
		fixture_read3(&f, h[i], v);
		if (v[1] != r->duration_ms * MS || v[2] != r->ev[i].running_ms * MS ||
		    v[0] != r->ev[i].running_ms * 3000 * r->ev[i].per_block)
			fail_msg("line %d (%s): event %u: count %llu enabled %llu running %llu; "
				 "expected count %llu enabled %llu running %llu", r->line, r->why, i,
				 (unsigned long long)v[0], (unsigned long long)v[1],
				 (unsigned long long)v[2],
				 (unsigned long long)(r->ev[i].running_ms * 3000 * r->ev[i].per_block),
				 (unsigned long long)(r->duration_ms * MS),
				 (unsigned long long)(r->ev[i].running_ms * MS));
	}
	fixture_fini(&f);
}

static void test_sched_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_row(&rows[i]);
}

/* Fixed counters: x86 prefers them (perf_sched_find_counter) and
 * ref-cycles can only use fixed2 (INTEL_PMC_IDX_FIXED + 2). */
static void test_fixed_counter_assignment(void **state)
{
	static const struct { uint64_t config; int idx; } want[] = {
		{ INST, PMU_IDX_FIXED + 0 }, { CYC, PMU_IDX_FIXED + 1 },
		{ REF_CYC, PMU_IDX_FIXED + 2 }, { BR_INST, 0 }, { BR_MISP, 1 },
	};
	struct fixture f;
	int h[5];

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	for (unsigned i = 0; i < 5; i++) {
		struct perf_event_attr a = raw_attr(want[i].config);

		h[i] = fixture_open(&f, &a, -1, -1);
		assert_true(h[i] >= 0);
	}
	for (unsigned i = 0; i < 5; i++) {
		struct perf_event *e = perf_file_event(f.core, h[i]);

		assert_int_equal(e->state, PERF_EVENT_STATE_ACTIVE);
		assert_int_equal(e->hw_idx, want[i].idx);
	}
	fixture_fini(&f);
}

/* validate_group(): a group that could never be on the counters at once
 * is refused at open with EINVAL (x86_pmu_event_init). */
static void test_group_never_fits(void **state)
{
	struct fixture f;
	int leader, h, i;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	{
		struct perf_event_attr a = raw_attr(BR_INST);
		leader = fixture_open(&f, &a, -1, -1);
	}
	assert_true(leader >= 0);
	for (i = 0; i < 3; i++) {
		struct perf_event_attr a = raw_attr(BR_MISP);
		h = fixture_open(&f, &a, -1, leader);
		assert_true(h >= 0);
	}
	{
		struct perf_event_attr a = raw_attr(LLC_REF);
		assert_int_equal(fixture_open(&f, &a, -1, leader), -EINVAL);
	}
	/* but ref-cycles goes on fixed2 */
	{
		struct perf_event_attr a = raw_attr(REF_CYC);
		assert_true(fixture_open(&f, &a, -1, leader) >= 0);
	}
	fixture_fini(&f);

	/* --counters 2 */
	fixture_init(&f, "skylake", 2, 1);
	{
		struct perf_event_attr a = raw_attr(BR_INST);
		leader = fixture_open(&f, &a, -1, -1);
	}
	{
		struct perf_event_attr a = raw_attr(BR_MISP);
		assert_true(fixture_open(&f, &a, -1, leader) >= 0);
	}
	{
		struct perf_event_attr a = raw_attr(LLC_REF);
		assert_int_equal(fixture_open(&f, &a, -1, leader), -EINVAL);
	}
	fixture_fini(&f);
}

/* A task's context time runs only while the task is on a CPU
 * (perf_event_context_sched_out stops it). */
static void test_task_time_stops_when_switched_out(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(BR_INST);
	uint64_t v[3];
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	h = fixture_open(&f, &a, -1, -1);
	assert_true(h >= 0);
	synthetic_run_until(&f.sm, 0, 4 * MS);
	perf_cpu_switch_to(perf_core_cpu(f.core, 0), NULL);
	synthetic_run_until(&f.sm, 0, 10 * MS);  /* idle: nothing counted */
	perf_cpu_switch_to(perf_core_cpu(f.core, 0), f.task);
	synthetic_run_until(&f.sm, 0, 12 * MS);
	fixture_read3(&f, h, v);
	assert_int_equal(v[1], 6 * MS);
	assert_int_equal(v[2], 6 * MS);
	assert_int_equal(v[0], 6 * 3000 * 160);
	fixture_fini(&f);
}

/* Three CPU-wide events on an idle CPU 1 with one counter. The kernel's mux
 * hrtimer fires on the idle CPU every 4 ms (perf_mux_hrtimer_handler ->
 * perf_rotate_context, one group to the tail each time): A runs 0-4 ms, B
 * 4-8 ms, C 8-10 ms, each enabled 10 ms. idle_until: the CPU idles to 10 ms
 * itself (a task slept there); otherwise it keeps time with busy CPU 0
 * when read (perf_core_catch_up). Nothing runs there, so nothing counts. */
static void idle_cpu_rotates(bool idle_until)
{
	struct fixture f;
	static const uint64_t cfg[3] = { BR_INST, BR_MISP, LLC_REF };
	static const uint64_t running[3] = { 4 * MS, 4 * MS, 2 * MS };
	int h[3];
	uint64_t v[3];

	fixture_init(&f, "skylake", 1, 2);
	for (unsigned i = 0; i < 3; i++) {
		struct perf_event_attr a = raw_attr(cfg[i]);

		h[i] = fixture_open(&f, &a, 1, -1);
		assert_true(h[i] >= 0);
	}
	if (idle_until) {
		struct perf_cpu *cpu = perf_core_cpu(f.core, 1);

		perf_cpu_lock(cpu);
		perf_cpu_idle_until(cpu, 10 * MS);
		perf_cpu_unlock(cpu);
	} else {
		synthetic_run_until(&f.sm, 0, 10 * MS);
	}
	for (unsigned i = 0; i < 3; i++) {
		fixture_read3(&f, h[i], v);
		assert_int_equal(v[0], 0);
		assert_int_equal(v[1], 10 * MS);
		assert_int_equal(v[2], running[i]);
	}
	fixture_fini(&f);
}

static void test_idle_cpu_rotates_while_it_sleeps(void **state)
{
	(void)state;
	idle_cpu_rotates(true);
}

static void test_idle_cpu_rotates_catching_up(void **state)
{
	(void)state;
	idle_cpu_rotates(false);
}

/* Disabling a leader takes its group off (__perf_event_disable); its
 * siblings' enabled time stops with it (perf_event_update_sibling_time). */
static void test_disable_group(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(BR_INST), b = raw_attr(BR_MISP);
	uint64_t v[3];
	int l, s;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	l = fixture_open(&f, &a, -1, -1);
	s = fixture_open(&f, &b, -1, l);
	synthetic_run_until(&f.sm, 0, 4 * MS);
	assert_int_equal(fixture_ioctl(&f, l, PERF_EVENT_IOC_DISABLE, 0), 0);
	synthetic_run_until(&f.sm, 0, 8 * MS);
	assert_int_equal(fixture_ioctl(&f, l, PERF_EVENT_IOC_ENABLE, 0), 0);
	synthetic_run_until(&f.sm, 0, 12 * MS);
	fixture_read3(&f, s, v);
	assert_int_equal(v[1], 8 * MS);
	assert_int_equal(v[2], 8 * MS);
	assert_int_equal(v[0], 8 * 3000 * 8);
	/* RESET zeroes the count only (_perf_event_reset) */
	assert_int_equal(fixture_ioctl(&f, s, PERF_EVENT_IOC_RESET, 0), 0);
	fixture_read3(&f, s, v);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 8 * MS);
	fixture_fini(&f);
}

/* PMUv3 with 32-bit counters: a 64-bit ("long", config1:0) event takes a
 * chained even/odd pair (armv8pmu_event_is_chained), so 6 counters hold 3
 * of them; CPU_CYCLES takes the dedicated cycle counter. 4 chained events
 * rotate over 3 pairs (perf_rotate_context): worked by hand, over 24 ms
 * e0 runs [0,4)+[8,20), e1 all but [8,12), e2 all but [12,16),
 * e3 [4,16)+[20,24). The stream runs 2,000 blocks per ms at 2 GHz. */
static void test_pmuv3_chained_rotation(void **state)
{
	static const uint64_t running_ms[4] = { 16, 20, 20, 16 };
	struct fixture f;
	uint64_t v[3];
	int h[4], hc;

	(void)state;
	fixture_init(&f, "pmuv3", 0, 1);
	{
		/* pinned: a flexible one would take part in the rotation too */
		struct perf_event_attr a = { .type = PERF_TYPE_RAW, .config = 0x11, .pinned = 1 };
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		hc = fixture_open(&f, &a, -1, -1);
		assert_true(hc >= 0);
		assert_int_equal(perf_file_event(f.core, hc)->hw_idx, PMU_IDX_ARM_CYCLE);
	}
	for (int i = 0; i < 4; i++) {
		struct perf_event_attr a = { .type = PERF_TYPE_RAW, .config = 0x08, .config1 = 1 };

		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = 1;
		h[i] = fixture_open(&f, &a, -1, -1);
		assert_true(h[i] >= 0);
		assert_true(perf_file_event(f.core, h[i])->chained);
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(fixture_ioctl(&f, h[i], PERF_EVENT_IOC_ENABLE, 0), 0);
	for (int i = 0; i < 3; i++) {
		struct perf_event *e = perf_file_event(f.core, h[i]);
		/* the pair is (idx - 1, idx) with idx even (ARMV8_IDX_COUNTER0 = 1) */
		assert_int_equal(e->state, PERF_EVENT_STATE_ACTIVE);
		assert_int_equal(e->hw_idx % 2, 0);
	}
	synthetic_run_until(&f.sm, 0, 24 * MS);
	for (int i = 0; i < 4; i++) {
		fixture_read3(&f, h[i], v);
		assert_int_equal(v[1], 24 * MS);
		assert_int_equal(v[2], running_ms[i] * MS);
		assert_int_equal(v[0], running_ms[i] * 2000 * 800);
	}
	fixture_read3(&f, hc, v);
	assert_int_equal(v[2], 24 * MS);
	assert_int_equal(v[0], 24 * 2000 * 1000);
	fixture_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_rows),
		cmocka_unit_test(test_fixed_counter_assignment),
		cmocka_unit_test(test_group_never_fits),
		cmocka_unit_test(test_task_time_stops_when_switched_out),
		cmocka_unit_test(test_disable_group),
		cmocka_unit_test(test_idle_cpu_rotates_while_it_sleeps),
		cmocka_unit_test(test_idle_cpu_rotates_catching_up),
		cmocka_unit_test(test_pmuv3_chained_rotation),
	};
	return cmocka_run_group_tests_name("core_sched", tests, NULL, NULL);
}
