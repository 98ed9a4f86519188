/*
 * test_arena.c - the arena the core lives in: allocation, alignment,
 * coalescing, exhaustion; and a core in a shared arena read by another
 * process that attached to it at the same address.
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sim/core/arena.h"
#include "testsuite/core/core_fixture.h"

#define ARENA_ADDR ((void *)0x6f0000000000)

static void test_alloc_free(void **state)
{
	struct perf_arena *a;
	void *p[64];

	(void)state;
	assert_int_equal(perf_arena_create(1 << 20, ARENA_ADDR, &a), 0);
	assert_ptr_equal(a, ARENA_ADDR);
	for (int i = 0; i < 64; i++) {
		size_t align = (size_t)1 << (4 + i % 9); /* 16 .. 4096 */

		p[i] = perf_arena_alloc(a, 100 + i * 37, align);
		assert_non_null(p[i]);
		assert_int_equal((uintptr_t)p[i] % align, 0);
		for (int j = 0; j < 100 + i * 37; j++)
			assert_int_equal(((unsigned char *)p[i])[j], 0);
		memset(p[i], 0xff, 100 + i * 37);
	}
	for (int i = 0; i < 64; i += 2)
		perf_arena_free(a, p[i]);
	for (int i = 1; i < 64; i += 2)
		perf_arena_free(a, p[i]);
	/* everything coalesced back: one allocation of almost all of it fits */
	assert_int_equal(perf_arena_used(a), 0);
	p[0] = perf_arena_alloc(a, (1 << 20) - 3 * 4096, 4096);
	assert_non_null(p[0]);
	assert_null(perf_arena_alloc(a, 1 << 20, 16)); /* full */
	perf_arena_free(a, p[0]);
	/* the address is taken now: a second arena there is refused */
	{
		struct perf_arena *b;
		assert_int_equal(perf_arena_create(1 << 20, ARENA_ADDR, &b), -EEXIST);
	}
	close(perf_arena_memfd(a));
	perf_arena_detach(a);
}

/* A core created in a shared arena; a child process that unmaps its
 * inherited view and attaches by memfd reads the same event's values
 * through the core's read(), and its writes are seen back. */
static void test_shared_core(void **state)
{
	struct perf_core_config cfg = { .model = pmu_model_find("skylake"), .nr_cpus = 1 };
	struct synthetic_machine sm = { .profile = synthetic_default_profile };
	struct perf_machine m = synthetic_machine_ops(&sm);
	struct perf_event_attr attr = raw_attr(0x00c4);
	struct perf_arena *a;
	struct perf_core *core;
	struct perf_task *t;
	uint64_t v[3];
	int h, status, fd;
	pid_t pid;

	(void)state;
	assert_int_equal(perf_arena_create(8 << 20, ARENA_ADDR, &a), 0);
	cfg.arena = a;
	assert_int_equal(perf_core_create(&cfg, &m, &core), 0);
	sm.core = core;
	t = perf_task_create(core, 1, 1, (struct perf_cred){ .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(core, 0), t);
	attr.size = sizeof(attr);
	h = perf_sys_event_open(core, t, &perf_uaccess_direct, (uint64_t)(uintptr_t)&attr, 0, -1, -1, 0);
	assert_true(h >= 0);
	synthetic_run_blocks(&sm, 0, 100);
	fd = perf_arena_memfd(a);

	pid = fork();
	if (pid == 0) {
		struct perf_arena *b;
		struct perf_core *c;

		munmap(ARENA_ADDR, perf_arena_size(a));
		if (perf_arena_attach(fd, &b) || b != a)
			_exit(10);
		c = perf_core_attach(b, &m);
		if (c != core || perf_core_model(c) != pmu_model_find("skylake") ||
		    perf_sys_read(c, h, v, sizeof(v)) != 24 || v[0] != 100 * 160)
			_exit(11);
		/* the child's CPU runs more of the task: the parent sees it */
		synthetic_run_blocks(&sm, 0, 50);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(perf_sys_read(core, h, v, sizeof(v)), 24);
	assert_int_equal(v[0], 150 * 160);
	perf_core_destroy(core);
	assert_int_equal(perf_arena_used(a), 0); /* everything went back */
	close(fd);
	perf_arena_detach(a);
}

/* Two processes share a core: the parent runs its CPU holding the lock
 * and yields when someone waits (perf_core_should_yield); the child's
 * reads get through and see monotonic counts. A process that dies
 * holding the lock does not wedge the core (robust mutex). */
static void test_shared_lock(void **state)
{
	struct perf_core_config cfg = { .model = pmu_model_find("skylake"), .nr_cpus = 1 };
	struct synthetic_machine sm = { .profile = synthetic_default_profile };
	struct perf_machine m = synthetic_machine_ops(&sm);
	struct perf_event_attr attr = raw_attr(0x00c4);
	struct perf_arena *a;
	struct perf_core *core;
	struct perf_task *t;
	int h, status, fd;
	pid_t pid;

	(void)state;
	assert_int_equal(perf_arena_create(8 << 20, ARENA_ADDR, &a), 0);
	cfg.arena = a;
	assert_int_equal(perf_core_create(&cfg, &m, &core), 0);
	sm.core = core;
	t = perf_task_create(core, 1, 1, (struct perf_cred){ .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(core, 0), t);
	attr.size = sizeof(attr);
	h = perf_sys_event_open(core, t, &perf_uaccess_direct, (uint64_t)(uintptr_t)&attr, 0, -1, -1, 0);
	fd = perf_arena_memfd(a);

	pid = fork();
	if (pid == 0) {
		struct perf_arena *b;
		uint64_t v[3], last = 0;

		munmap(ARENA_ADDR, perf_arena_size(a));
		if (perf_arena_attach(fd, &b))
			_exit(10);
		for (int i = 0; i < 200; i++) {
			if (perf_sys_read(perf_core_of_arena(b), h, v, sizeof(v)) != 24 || v[0] < last)
				_exit(11);
			last = v[0];
		}
		if (!last)
			_exit(12); /* the parent never ran in between */
		/* die holding the lock */
		perf_core_lock(perf_core_of_arena(b));
		_exit(0);
	}
	perf_core_lock(core);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		synthetic_run_blocks(&sm, 0, 10);
		if (perf_core_should_yield(core))
			perf_core_yield(core);
	}
	perf_core_unlock(core);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* the child died holding it: the next lock still gets it */
	{
		uint64_t v[3];
		assert_int_equal(perf_sys_read(core, h, v, sizeof(v)), 24);
	}
	perf_core_destroy(core);
	close(fd);
	perf_arena_detach(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_free),
		cmocka_unit_test(test_shared_core),
		cmocka_unit_test(test_shared_lock),
	};
	return cmocka_run_group_tests_name("core_arena", tests, NULL, NULL);
}
