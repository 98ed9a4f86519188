/*
 * test_ioctl.c - perf ioctls and open flags, table-driven: each row is one
 * ioctl on a fresh group (a sampling leader with a counting sibling), its
 * expected return, the state it leaves, and the kernel function it
 * follows (_perf_ioctl and friends).
 */
#include <sys/ioctl.h>
#include "testsuite/core/core_fixture.h"
#include "sim/core/pmu.h"

enum target { LEADER, SIBLING, COUNTING };

struct ioctl_row {
	int line;
	const char *kernel_fn;
	enum target on;
	unsigned long cmd;
	unsigned long arg;          /* ARG_PTR: a pointer to value */
	uint64_t value;
	long ret;
	int leader_state, sibling_state; /* after; 99: don't check */
};

#define ARG_PTR (1UL << 40) /* the row passes a pointer to value */
#define ANY 99

static const struct ioctl_row rows[] = {
	{ __LINE__, "__perf_event_disable: the leader goes OFF, group_sched_out "
	  "leaves its sibling INACTIVE", LEADER,
	  PERF_EVENT_IOC_DISABLE, 0, 0, 0, PERF_EVENT_STATE_OFF, PERF_EVENT_STATE_INACTIVE },
	{ __LINE__, "perf_event_for_each: DISABLE|FLAG_GROUP through a sibling", SIBLING,
	  PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP, 0, 0, PERF_EVENT_STATE_OFF, PERF_EVENT_STATE_OFF },
	{ __LINE__, "__perf_event_disable: a sibling alone", SIBLING,
	  PERF_EVENT_IOC_DISABLE, 0, 0, 0, PERF_EVENT_STATE_ACTIVE, PERF_EVENT_STATE_OFF },
	{ __LINE__, "_perf_event_enable: already on", LEADER,
	  PERF_EVENT_IOC_ENABLE, 0, 0, 0, PERF_EVENT_STATE_ACTIVE, PERF_EVENT_STATE_ACTIVE },
	{ __LINE__, "_perf_event_reset", LEADER, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP, 0, 0, ANY, ANY },
	{ __LINE__, "_perf_event_refresh: inherit or counting -> EINVAL", COUNTING,
	  PERF_EVENT_IOC_REFRESH, 1, 0, -EINVAL, ANY, ANY },
	{ __LINE__, "_perf_event_refresh on a sampling leader", LEADER,
	  PERF_EVENT_IOC_REFRESH, 2, 0, 0, PERF_EVENT_STATE_ACTIVE, ANY },
	{ __LINE__, "_perf_event_period: counting event", COUNTING,
	  PERF_EVENT_IOC_PERIOD, ARG_PTR, 1000, -EINVAL, ANY, ANY },
	{ __LINE__, "_perf_event_period: 0", LEADER, PERF_EVENT_IOC_PERIOD, ARG_PTR, 0, -EINVAL, ANY, ANY },
	{ __LINE__, "_perf_event_period: bit 63", LEADER,
	  PERF_EVENT_IOC_PERIOD, ARG_PTR, UINT64_C(1) << 63, -EINVAL, ANY, ANY },
	{ __LINE__, "_perf_event_period: unreadable", LEADER, PERF_EVENT_IOC_PERIOD, 0, 0, -EFAULT, ANY, ANY },
	{ __LINE__, "_perf_event_period", LEADER, PERF_EVENT_IOC_PERIOD, ARG_PTR, 5000, 0, ANY, ANY },
	{ __LINE__, "_perf_event_period: 1 on an ordinary event", LEADER,
	  PERF_EVENT_IOC_PERIOD, ARG_PTR, 1, 0, ANY, ANY },
	{ __LINE__, "PERF_EVENT_IOC_ID: unwritable", LEADER, PERF_EVENT_IOC_ID, 0, 0, -EFAULT, ANY, ANY },
	{ __LINE__, "perf_event_set_filter: not a tracepoint", LEADER,
	  PERF_EVENT_IOC_SET_FILTER, ARG_PTR, 0, -EINVAL, ANY, ANY },
	{ __LINE__, "perf_event_query_prog_array: not a tracepoint", LEADER,
	  PERF_EVENT_IOC_QUERY_BPF, ARG_PTR, 0, -EINVAL, ANY, ANY },
	{ __LINE__, "PAUSE_OUTPUT: no ring buffer", LEADER,
	  PERF_EVENT_IOC_PAUSE_OUTPUT, 1, 0, -EINVAL, ANY, ANY },
	{ __LINE__, "SET_OUTPUT to a bad fd", LEADER, PERF_EVENT_IOC_SET_OUTPUT, 4000, 0, -EBADF, ANY, ANY },
	{ __LINE__, "SET_OUTPUT -1: no redirection", LEADER,
	  PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)-1, 0, 0, ANY, ANY },
	{ __LINE__, "_perf_ioctl default: ENOTTY", LEADER, _IO('$', 42), 0, 0, -ENOTTY, ANY, ANY },
	{ __LINE__, "_perf_ioctl: PERIOD with another size is another command", LEADER,
	  _IOW('$', 4, uint32_t), ARG_PTR, 1000, -ENOTTY, ANY, ANY },
};

static void test_ioctl_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct ioctl_row *r = &rows[i];
		struct perf_event_attr a = raw_attr(0x00c0), b = raw_attr(0x00c4), c = raw_attr(0x00c5);
		struct fixture f;
		uint64_t value = r->value;
		int h[3];
		long ret;

		fixture_init(&f, "skylake", 0, 1);
		a.sample_period = 100000;
		h[LEADER] = fixture_open(&f, &a, -1, -1);
		h[SIBLING] = fixture_open(&f, &b, -1, h[LEADER]);
		h[COUNTING] = fixture_open(&f, &c, -1, -1);
		ret = fixture_ioctl(&f, h[r->on], (unsigned)r->cmd,
				    r->arg == ARG_PTR ? (unsigned long)&value : r->arg);
		if (ret != r->ret)
			fail_msg("line %d (%s): returned %ld, expected %ld", r->line, r->kernel_fn,
				 ret, r->ret);
		if ((r->leader_state != ANY &&
		     perf_file_event(f.core, h[LEADER])->state != r->leader_state) ||
		    (r->sibling_state != ANY &&
		     perf_file_event(f.core, h[SIBLING])->state != r->sibling_state))
			fail_msg("line %d (%s): states %d %d, expected %d %d", r->line, r->kernel_fn,
				 perf_file_event(f.core, h[LEADER])->state,
				 perf_file_event(f.core, h[SIBLING])->state, r->leader_state,
				 r->sibling_state);
		fixture_fini(&f);
	}
}

/* intel_pmu_check_period(): period 1 on branch-instructions needs BTS */
static void test_bts_period(void **state)
{
	struct fixture f;
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
				     .sample_period = 1000 };
	uint64_t p = 1;
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	h = fixture_open(&f, &a, -1, -1);
	assert_true(h >= 0);
	assert_int_equal(fixture_ioctl(&f, h, PERF_EVENT_IOC_PERIOD, (unsigned long)&p), -EINVAL);
	p = 2;
	assert_int_equal(fixture_ioctl(&f, h, PERF_EVENT_IOC_PERIOD, (unsigned long)&p), 0);
	fixture_fini(&f);
}

/* intel_pmu_hw_config(): AnyThread needs perf_allow_cpu; armv8pmu: user
 * access (config1:1) only on task events. */
static void test_event_init_permissions(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c4 | (UINT64_C(1) << 21));

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	f.task->cred.cap_perfmon = false;
	f.task->cred.uid = 1000;
	f.core->cfg.paranoid = 1;
	assert_int_equal(fixture_open(&f, &a, -1, -1), -EACCES);
	f.core->cfg.paranoid = 0;
	assert_true(fixture_open(&f, &a, -1, -1) >= 0);
	fixture_fini(&f);

	fixture_init(&f, "pmuv3", 0, 1);
	{
		struct perf_event_attr b = { .type = PERF_TYPE_RAW, .config = 0x08, .config1 = 2 };
		assert_int_equal(fixture_open(&f, &b, 0, -1), -EINVAL); /* CPU-wide */
		assert_true(fixture_open(&f, &b, -1, -1) >= 0);       /* on the task */
	}
	fixture_fini(&f);
}

/* MODIFY_ATTRIBUTES: a different type is EINVAL, the same type EOPNOTSUPP
 * for anything but breakpoints (perf_event_modify_attr). */
static void test_modify_attributes(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c0), m = raw_attr(0x00c4);
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	h = fixture_open(&f, &a, -1, -1);
	assert_int_equal(fixture_ioctl(&f, h, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, (unsigned long)&m),
			 -EOPNOTSUPP);
	m.type = PERF_TYPE_SOFTWARE;
	assert_int_equal(fixture_ioctl(&f, h, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, (unsigned long)&m),
			 -EINVAL);
	fixture_fini(&f);
}

/* PERF_FLAG_FD_NO_GROUP: group_fd only names the output, the event is a
 * group of its own (sys_perf_event_open). */
static void test_fd_no_group(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x00c0), b = raw_attr(0x00c4);
	int l, h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	l = fixture_open(&f, &a, -1, -1);
	b.size = sizeof(b);
	h = perf_sys_event_open(f.core, f.task, &perf_uaccess_direct, (uint64_t)(uintptr_t)&b,
				0, -1, l, PERF_FLAG_FD_NO_GROUP);
	assert_true(h >= 0);
	assert_ptr_equal(perf_file_event(f.core, h)->group_leader, perf_file_event(f.core, h));
	assert_int_equal(perf_file_event(f.core, l)->nr_siblings, 0);
	/* a sibling cannot lead: EINVAL (no recursive hierarchy) */
	{
		struct perf_event_attr s = raw_attr(0x00c5), t = raw_attr(0x412e);
		int sib = fixture_open(&f, &s, -1, l);
		assert_true(sib >= 0);
		assert_int_equal(fixture_open(&f, &t, -1, sib), -EINVAL);
	}
	/* a pinned or exclusive sibling: EINVAL */
	{
		struct perf_event_attr s = raw_attr(0x00c5);
		s.pinned = 1;
		assert_int_equal(fixture_open(&f, &s, -1, l), -EINVAL);
	}
	/* a group across CPU and task contexts: EINVAL */
	{
		struct perf_event_attr s = raw_attr(0x00c5);
		s.size = sizeof(s);
		assert_int_equal(perf_sys_event_open(f.core, f.task, &perf_uaccess_direct,
						     (uint64_t)(uintptr_t)&s, -1, 0, l, 0), -EINVAL);
	}
	/* group_fd that is no perf file: EBADF */
	assert_int_equal(fixture_open(&f, &b, -1, 4000), -EBADF);
	fixture_fini(&f);
}

/* A software leader with a hardware sibling: the group moves to the
 * hardware context (move_group) and takes part in rotation. */
static void test_move_group(void **state)
{
	struct fixture f;
	struct perf_event_attr sw = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK };
	struct perf_event_attr hw = raw_attr(0x00c4);
	int l, h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	l = fixture_open(&f, &sw, -1, -1);
	assert_int_equal(perf_group_ctx_nr(perf_file_event(f.core, l)), perf_sw_context);
	h = fixture_open(&f, &hw, -1, l);
	assert_true(h >= 0);
	assert_int_equal(perf_group_ctx_nr(perf_file_event(f.core, l)), perf_hw_context);
	assert_int_equal(perf_file_event(f.core, h)->state, PERF_EVENT_STATE_ACTIVE);
	assert_int_equal(perf_file_event(f.core, l)->nr_siblings, 1);
	fixture_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ioctl_rows),
		cmocka_unit_test(test_modify_attributes),
		cmocka_unit_test(test_bts_period),
		cmocka_unit_test(test_event_init_permissions),
		cmocka_unit_test(test_fd_no_group),
		cmocka_unit_test(test_move_group),
	};
	return cmocka_run_group_tests_name("core_ioctl", tests, NULL, NULL);
}
