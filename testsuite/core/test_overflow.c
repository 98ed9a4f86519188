/*
 * test_overflow.c - sampling periods, IOC_REFRESH limits, throttling and
 * freq mode, counted through the fasync signals the core asks the machine
 * to deliver (one per overflow, __perf_event_overflow), with expected
 * numbers from arithmetic on the synthetic stream.
 */
#include <signal.h>
#include "testsuite/core/core_fixture.h"

static int open_sampling(struct fixture *f, uint64_t config, uint64_t period, bool disabled)
{
	struct perf_event_attr a = raw_attr(config);
	int h;

	a.sample_period = period;
	a.disabled = disabled;
	h = fixture_open(f, &a, -1, -1);
	assert_true(h >= 0);
	assert_int_equal(perf_sys_fasync(f->core, h, true), 0);
	return h;
}

/* Period P over N instructions: floor(N / P) overflows
 * (x86_perf_event_set_period restarts each period). */
static void test_period_overflows(void **state)
{
	static const struct { int line; uint64_t period, blocks; } rows[] = {
		{ __LINE__, 100000, 1000 },   /* 800,000 instr: 8 */
		{ __LINE__, 8000, 1234 },     /* 987,200 / 8000 = 123 */
		{ __LINE__, 800, 400 },       /* one per block: 400, the most a tick allows */
		{ __LINE__, 1000000, 999 },   /* 799,200: none */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fixture f;
		int h;

		fixture_init(&f, "skylake", 0, 1);
		h = open_sampling(&f, 0x00c0, rows[i].period, false);
		synthetic_run_blocks(&f.sm, 0, rows[i].blocks);
		if (f.fasync_signals[h] != rows[i].blocks * 800 / rows[i].period)
			fail_msg("line %d: %u signals, expected %llu", rows[i].line,
				 f.fasync_signals[h],
				 (unsigned long long)(rows[i].blocks * 800 / rows[i].period));
		assert_int_equal(f.last_si_code[h], rows[i].blocks * 800 >= rows[i].period ? POLL_IN : 0);
		fixture_fini(&f);
	}
}

/* A CPU-wide cpu-clock sampling every 1 ms on an idle CPU for 10 ms: the
 * hrtimer fires 10 times (perf_swevent_hrtimer), each in the idle task in
 * kernel mode, so an event excluding the kernel or idle samples none of
 * them (perf_exclude_event(), is_idle_task()). */
static void test_cpu_clock_on_idle_cpu(void **state)
{
	static const struct { int line; bool exclude_kernel, exclude_idle; unsigned want; } rows[] = {
		{ __LINE__, false, false, 10 },
		{ __LINE__, true, false, 0 },
		{ __LINE__, false, true, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fixture f;
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
			.sample_period = 1000000,
			.exclude_kernel = rows[i].exclude_kernel, .exclude_idle = rows[i].exclude_idle,
		};
		struct perf_cpu *cpu;
		int h;

		fixture_init(&f, "skylake", 0, 2);
		h = fixture_open(&f, &a, 1, -1);
		assert_true(h >= 0);
		assert_int_equal(perf_sys_fasync(f.core, h, true), 0);
		cpu = perf_core_cpu(f.core, 1);
		perf_cpu_lock(cpu);
		perf_cpu_idle_until(cpu, 10 * MS);
		perf_cpu_unlock(cpu);
		if (f.fasync_signals[h] != rows[i].want)
			fail_msg("line %d: %u samples, expected %u", rows[i].line,
				 f.fasync_signals[h], rows[i].want);
		fixture_fini(&f);
	}
}

/* IOC_REFRESH(n): n-1 POLL_IN, then POLL_HUP and the event is disabled
 * (_perf_event_refresh, __perf_event_overflow's event_limit). */
static void test_refresh(void **state)
{
	struct fixture f;
	uint64_t v[3], before;
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	h = open_sampling(&f, 0x00c0, 8000, true);
	/* refresh on a counting or inherited event is EINVAL */
	{
		struct perf_event_attr a = raw_attr(0xc4);
		int c = fixture_open(&f, &a, -1, -1);
		assert_int_equal(fixture_ioctl(&f, c, PERF_EVENT_IOC_REFRESH, 1), -EINVAL);
	}
	assert_int_equal(fixture_ioctl(&f, h, PERF_EVENT_IOC_REFRESH, 3), 0);
	synthetic_run_blocks(&f.sm, 0, 100); /* 80,000 instructions: 10 periods */
	assert_int_equal(f.fasync_signals[h], 3);
	assert_int_equal(f.last_si_code[h], POLL_HUP);
	assert_int_equal(perf_file_event(f.core, h)->state, PERF_EVENT_STATE_OFF);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 3 * 8000); /* counting stopped at the third overflow */
	before = v[0];
	synthetic_run_blocks(&f.sm, 0, 100);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], before);
	fixture_fini(&f);
}

/* More than max_samples_per_tick = DIV_ROUND_UP(100000, HZ=250) = 400
 * overflows in one tick throttle the event until the next tick: with one
 * overflow per block (3,000 per ms), each 4 ms tick window gives 401. */
static void test_throttle(void **state)
{
	struct fixture f;
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	h = open_sampling(&f, 0x003c, 1000, false);
	synthetic_run_until(&f.sm, 0, 12 * MS);
	assert_int_equal(f.fasync_signals[h], 3 * 401);
	fixture_fini(&f);
}

/* Linux 6.16+ throttles the whole group (perf_event_throttle_group): a
 * counting sibling stops with its sampling leader until the tick. */
static void test_throttle_group(void **state)
{
	struct fixture f;
	struct perf_event_attr s = raw_attr(0x00c4);
	uint64_t v[3];
	int l, h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	l = open_sampling(&f, 0x003c, 1000, false);
	h = fixture_open(&f, &s, -1, l);
	assert_true(h >= 0);
	synthetic_run_until(&f.sm, 0, 12 * MS);
	assert_int_equal(f.fasync_signals[l], 3 * 401);
	fixture_read3(&f, h, v);
	assert_int_equal(v[0], 3 * 401 * 160); /* counted only in the 401 blocks of each tick */
	assert_int_equal(v[2], 12 * MS);        /* but ACTIVE all along */
	fixture_fini(&f);
}

/* Freq mode starts at period 1 and converges on freq_hz / sample_freq
 * (perf_adjust_period's low-pass filter, per overflow and per tick). */
static void test_freq_converges(void **state)
{
	struct fixture f;
	struct perf_event_attr a = raw_attr(0x003c);
	struct perf_event *e;
	int h;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	a.freq = 1;
	a.sample_freq = 1000;
	h = fixture_open(&f, &a, -1, -1);
	assert_true(h >= 0);
	e = perf_file_event(f.core, h);
	assert_int_equal(e->sample_period, 1);
	synthetic_run_until(&f.sm, 0, 1000 * MS);
	/* 3 GHz cycles at 1000 samples/s: 3,000,000 */
	if (e->sample_period < 2970000 || e->sample_period > 3030000)
		fail_msg("period %llu after 1 s", (unsigned long long)e->sample_period);
	fixture_fini(&f);
}

/* IOC_PERIOD: EINVAL for counting events, 0 and bit 63; the new period
 * starts at once (__perf_event_period resets period_left). */
static void test_ioc_period(void **state)
{
	struct fixture f;
	uint64_t p;
	int h, c;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	h = open_sampling(&f, 0x00c0, 1000000, false);
	{
		struct perf_event_attr a = raw_attr(0xc4);
		c = fixture_open(&f, &a, -1, -1);
	}
	p = 8000;
	assert_int_equal(fixture_ioctl(&f, c, PERF_EVENT_IOC_PERIOD, (unsigned long)&p), -EINVAL);
	p = 0;
	assert_int_equal(fixture_ioctl(&f, h, PERF_EVENT_IOC_PERIOD, (unsigned long)&p), -EINVAL);
	p = UINT64_C(1) << 63;
	assert_int_equal(fixture_ioctl(&f, h, PERF_EVENT_IOC_PERIOD, (unsigned long)&p), -EINVAL);
	assert_int_equal(fixture_ioctl(&f, h, PERF_EVENT_IOC_PERIOD, 0), -EFAULT);
	synthetic_run_blocks(&f.sm, 0, 5); /* 4000 of the old period gone */
	p = 8000;
	assert_int_equal(fixture_ioctl(&f, h, PERF_EVENT_IOC_PERIOD, (unsigned long)&p), 0);
	synthetic_run_blocks(&f.sm, 0, 100); /* 80,000: 10 new periods */
	assert_int_equal(f.fasync_signals[h], 10);
	fixture_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_period_overflows),
		cmocka_unit_test(test_cpu_clock_on_idle_cpu),
		cmocka_unit_test(test_refresh),
		cmocka_unit_test(test_throttle),
		cmocka_unit_test(test_throttle_group),
		cmocka_unit_test(test_freq_converges),
		cmocka_unit_test(test_ioc_period),
	};
	return cmocka_run_group_tests_name("core_overflow", tests, NULL, NULL);
}
