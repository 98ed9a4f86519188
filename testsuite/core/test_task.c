/*
 * test_task.c - what a task's life does to events: inheritance across
 * fork (perf_event_init_task), counts summed on read and folded in at exit
 * (sync_child_event), enable_on_exec, prctl enable/disable, EXIT state and
 * POLLHUP (is_event_hup), closing a group leader (perf_group_detach).
 */
#include <poll.h>
#include "testsuite/core/core_fixture.h"

static void run_task(struct fixture *f, struct perf_task *t, uint64_t blocks)
{
	perf_cpu_switch_to(perf_core_cpu(f->core, 0), t);
	synthetic_run_blocks(&f->sm, 0, blocks);
}

static void test_inherit_sums_children(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c0);
	struct perf_task *child, *grandchild;
	uint64_t v[3];
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	a.inherit = 1;
	h = fixture_open(&f, &a, -1, -1);
	run_task(&f, f.task, 100);
	assert_int_equal(perf_task_fork(f.core, f.task, 200, 200, &child), 0);
	run_task(&f, child, 50);
	/* a live child's count is summed on read (__perf_event_read_value) */
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 150 * 800);
	/* grandchildren hang off the original event (inherit_event) */
	assert_int_equal(perf_task_fork(f.core, child, 300, 300, &grandchild), 0);
	run_task(&f, grandchild, 25);
	perf_task_exit(f.core, grandchild);
	perf_task_exit(f.core, child);
	run_task(&f, f.task, 10);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], (100 + 50 + 25 + 10) * 800);
	/* children's times are added: each task's own enabled time */
	assert_true(v[1] >= v[2]);
	assert_true(list_empty(&perf_file_event(f.core, h)->child_list));
	fixture_fini(&f);
}

static void test_no_inherit(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c0);
	struct perf_task *child;
	uint64_t v[3];
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	h = fixture_open(&f, &a, -1, -1);
	assert_int_equal(perf_task_fork(f.core, f.task, 200, 200, &child), 0);
	run_task(&f, child, 50);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 0);
	fixture_fini(&f);
}

/* enable_on_exec: OFF until exec, then counting (perf_event_enable_on_exec) */
static void test_enable_on_exec(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c4);
	uint64_t v[3];
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	a.disabled = 1;
	a.enable_on_exec = 1;
	h = fixture_open(&f, &a, -1, -1);
	run_task(&f, f.task, 100);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 0);
	perf_task_exec(f.core, f.task, "workload");
	synthetic_run_blocks(&f.sm, 0, 30);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 30 * 160);
	assert_int_equal(v[1], v[2]);
	assert_int_equal(v[1], 30 * 1000 / 3);
	fixture_fini(&f);
}

/* prctl(PR_TASK_PERF_EVENTS_DISABLE/ENABLE): the caller's own events */
static void test_prctl(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c4);
	uint64_t v[3];
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	h = fixture_open(&f, &a, -1, -1);
	synthetic_run_blocks(&f.sm, 0, 10);
	assert_int_equal(perf_sys_prctl_events(f.core, f.task, false), 0);
	synthetic_run_blocks(&f.sm, 0, 10);
	assert_int_equal(perf_sys_prctl_events(f.core, f.task, true), 0);
	synthetic_run_blocks(&f.sm, 0, 10);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 20 * 160);
	fixture_fini(&f);
}

/* A task's own event goes to EXIT when it exits: counts stay readable and
 * poll says POLLHUP (perf_event_exit_event, is_event_hup). */
static void test_exit_state(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c4);
	uint64_t v[3];
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	h = fixture_open(&f, &a, -1, -1);
	synthetic_run_blocks(&f.sm, 0, 10);
	perf_task_exit(f.core, f.task);
	assert_int_equal(perf_file_event(f.core, h)->state, PERF_EVENT_STATE_EXIT);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 10 * 160);
	assert_true(perf_sys_poll(f.core, h) & POLLHUP);
	/* opening on the dead task: ESRCH (find_lively_task_by_vpid) */
	{
		struct perf_event_attr b = raw_attr(0x00c4);
		b.size = sizeof(b);
		assert_int_equal(perf_sys_event_open(f.core, f.task, &perf_uaccess_direct,
						     (uint64_t)(uintptr_t)&b, 100, -1, -1, 0), -ESRCH);
	}
	fixture_fini(&f);
}

/* Closing a leader turns its siblings into groups of their own that keep
 * counting (perf_group_detach). */
static void test_close_leader(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c4), b = raw_attr(0x00c5);
	uint64_t v[3];
	int l, s;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	l = fixture_open(&f, &a, -1, -1);
	s = fixture_open(&f, &b, -1, l);
	synthetic_run_blocks(&f.sm, 0, 10);
	assert_int_equal(perf_file_put(f.core, l), 0);
	assert_ptr_equal(perf_file_event(f.core, s)->group_leader, perf_file_event(f.core, s));
	synthetic_run_blocks(&f.sm, 0, 10);
	fixture_read3(&f, s, v);
	assert_int_equal(v[0], 20 * 8);
	assert_int_equal(perf_sys_read(f.core, l, v, sizeof(v)), -EBADF);
	fixture_fini(&f);
}

/* Context switches and migrations are counted by the core
 * (perf_sw_event_sched). */
static void test_switches_and_migrations(void **state)
{
	struct fixture f;
	struct perf_event_attr cs = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CONTEXT_SWITCHES };
	struct perf_event_attr mig = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_MIGRATIONS };
	struct perf_event_attr clk = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK };
	uint64_t v[3] = { 0 };
	int hcs, hmig, hclk;

	(void)state;
	fixture_init(&f, "skylake", 0, 2);
	hcs = fixture_open(&f, &cs, -1, -1);
	hmig = fixture_open(&f, &mig, -1, -1);
	hclk = fixture_open(&f, &clk, -1, -1);
	assert_true(hcs >= 0 && hmig >= 0 && hclk >= 0);
	synthetic_run_blocks(&f.sm, 0, 3);                          /* 1 us */
	perf_cpu_switch_to(perf_core_cpu(f.core, 0), NULL);         /* switch 1 */
	perf_cpu_switch_to(perf_core_cpu(f.core, 1), f.task);       /* migration 1 */
	synthetic_run_blocks(&f.sm, 1, 3);                          /* 1 us */
	perf_cpu_switch_to(perf_core_cpu(f.core, 1), NULL);         /* switch 2 */
	assert_int_equal(perf_sys_read(f.core, hcs, v, sizeof(v)), 8);
	assert_int_equal(v[0], 2);
	assert_int_equal(perf_sys_read(f.core, hmig, v, sizeof(v)), 8);
	assert_int_equal(v[0], 1);
	assert_int_equal(perf_sys_read(f.core, hclk, v, sizeof(v)), 8);
	assert_int_equal(v[0], 2000);
	fixture_fini(&f);
}

/* An idle CPU's clock runs on with the session's: a CPU-wide event there
 * is enabled and running all along, counting nothing; a task moving to
 * it does not go back in time (perf_core_catch_up). */
static void test_idle_cpu_keeps_time(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c4);
	uint64_t v[3];
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 2);
	h = fixture_open(&f, &a, 1, -1); /* CPU-wide on cpu1, which stays idle */
	assert_true(h >= 0);
	synthetic_run_until(&f.sm, 0, 4 * MS);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 4 * MS);
	assert_int_equal(v[2], 4 * MS);
	/* the task moves to cpu1 and runs 1 ms there: it counts from 4 ms on */
	perf_cpu_switch_to(perf_core_cpu(f.core, 0), NULL);
	perf_cpu_switch_to(perf_core_cpu(f.core, 1), f.task);
	assert_int_equal(perf_cpu_time_ns(perf_core_cpu(f.core, 1)), 4 * MS);
	synthetic_run_until(&f.sm, 1, 5 * MS);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 3000 * 160);
	assert_int_equal(v[1], 5 * MS);
	fixture_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inherit_sums_children),
		cmocka_unit_test(test_no_inherit),
		cmocka_unit_test(test_enable_on_exec),
		cmocka_unit_test(test_prctl),
		cmocka_unit_test(test_exit_state),
		cmocka_unit_test(test_close_leader),
		cmocka_unit_test(test_switches_and_migrations),
		cmocka_unit_test(test_idle_cpu_keeps_time),
	};
	return cmocka_run_group_tests_name("core_task", tests, NULL, NULL);
}
