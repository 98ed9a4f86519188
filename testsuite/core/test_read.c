/*
 * test_read.c - read(2) layouts for every read_format combination, checked
 * against the layout perf_event_open(2) documents (struct read_format),
 * built independently here; ENOSPC for short buffers (__perf_read).
 */
#include "testsuite/core/core_fixture.h"

#define BLOCKS 3000

/* The documented layout of struct read_format, from known values. */
static size_t expected_layout(uint64_t rf, bool group, const uint64_t *val, const uint64_t *id,
			      unsigned n, uint64_t enabled, uint64_t running, uint64_t *out,
			      unsigned self)
{
	size_t k = 0;

	if (group) {
		out[k++] = n;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			out[k++] = enabled;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			out[k++] = running;
		for (unsigned i = 0; i < n; i++) {
			out[k++] = val[i];
			if (rf & PERF_FORMAT_ID)
				out[k++] = id[i];
			if (rf & PERF_FORMAT_LOST)
				out[k++] = 0;
		}
	} else {
		out[k++] = val[self];
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			out[k++] = enabled;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			out[k++] = running;
		if (rf & PERF_FORMAT_ID)
			out[k++] = id[self];
		if (rf & PERF_FORMAT_LOST)
			out[k++] = 0;
	}
	return k * sizeof(uint64_t);
}

static void test_every_read_format(void **state)
{
	static const uint64_t configs[3] = { 0x00c4, 0x00c5, 0x412e };
	static const uint64_t per_block[3] = { 160, 8, 3 };

	(void)state;
	for (uint64_t rf = 0; rf < PERF_FORMAT_MAX; rf++) {
		struct fixture f;
		uint64_t id[3], val[3], buf[64], want[64];
		int h[3];
		size_t size;

		fixture_init(&f, "skylake", 0, 1);
		for (int i = 0; i < 3; i++) {
			struct perf_event_attr a = raw_attr(configs[i]);

			a.read_format = rf;
			h[i] = fixture_open(&f, &a, -1, i ? h[0] : -1);
			assert_true(h[i] >= 0);
			assert_int_equal(fixture_ioctl(&f, h[i], PERF_EVENT_IOC_ID,
						       (unsigned long)&id[i]), 0);
			val[i] = per_block[i] * BLOCKS;
		}
		synthetic_run_blocks(&f.sm, 0, BLOCKS);
		for (int self = 0; self < 3; self++) {
			uint64_t t = perf_cpu_time_ns(perf_core_cpu(f.core, 0));

			size = expected_layout(rf, rf & PERF_FORMAT_GROUP, val, id, 3, t, t, want, self);
			/* one byte short: ENOSPC */
			assert_int_equal(perf_sys_read(f.core, h[self], buf, size - 1), -ENOSPC);
			memset(buf, 0xa5, sizeof(buf));
			assert_int_equal(perf_sys_read(f.core, h[self], buf, sizeof(buf)), (ssize_t)size);
			if (memcmp(buf, want, size))
				fail_msg("read_format %#llx through member %d differs",
					 (unsigned long long)rf, self);
		}
		fixture_fini(&f);
	}
}

/* IDs are unique and PERF_EVENT_IOC_ID writes the primary id. */
static void test_ids_unique(void **state)
{
	struct fixture f;
	uint64_t a_id, b_id;
	struct perf_event_attr a = raw_attr(0xc4), b = raw_attr(0xc5);
	int ha, hb;

	(void)state;
	fixture_init(&f, "skylake", 0, 1);
	ha = fixture_open(&f, &a, -1, -1);
	hb = fixture_open(&f, &b, -1, -1);
	assert_int_equal(fixture_ioctl(&f, ha, PERF_EVENT_IOC_ID, (unsigned long)&a_id), 0);
	assert_int_equal(fixture_ioctl(&f, hb, PERF_EVENT_IOC_ID, (unsigned long)&b_id), 0);
	assert_int_not_equal(a_id, b_id);
	/* a bad pointer faults (copy_to_user) */
	assert_int_equal(fixture_ioctl(&f, ha, PERF_EVENT_IOC_ID, 0), -EFAULT);
	/* an unknown ioctl is ENOTTY */
	assert_int_equal(fixture_ioctl(&f, ha, _IO('$', 99), 0), -ENOTTY);
	fixture_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_read_format),
		cmocka_unit_test(test_ids_unique),
	};
	return cmocka_run_group_tests_name("core_read", tests, NULL, NULL);
}
