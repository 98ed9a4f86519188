/*
 * test_arena.c - the arena the core lives in: allocation, alignment,
 * coalescing, exhaustion; and a core in a shared arena read by another
 * process that attached to it at the same address, with the CPUs' locks.
 */
#include <sched.h>
#include <signal.h>
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

/* A core in a shared arena with one task running on CPU 0 and one
 * branches event open on it (handle h). */
struct shared {
	struct perf_arena *arena;
	struct perf_core *core;
	struct synthetic_machine sm;
	struct perf_machine machine;
	int h, memfd;
};

static void shared_init(struct shared *s)
{
	struct perf_core_config cfg = { .model = pmu_model_find("skylake"), .nr_cpus = 1 };
	struct perf_event_attr attr = raw_attr(0x00c4);
	struct perf_task *t;

	s->sm = (struct synthetic_machine){ .profile = synthetic_default_profile };
	s->machine = synthetic_machine_ops(&s->sm);
	assert_int_equal(perf_arena_create(8 << 20, ARENA_ADDR, &s->arena), 0);
	cfg.arena = s->arena;
	assert_int_equal(perf_core_create(&cfg, &s->machine, &s->core), 0);
	s->sm.core = s->core;
	t = perf_task_create(s->core, 1, 1, (struct perf_cred){ .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(s->core, 0), t);
	attr.size = sizeof(attr);
	s->h = perf_sys_event_open(s->core, t, &perf_uaccess_direct, (uint64_t)(uintptr_t)&attr,
				   0, -1, -1, 0);
	assert_true(s->h >= 0);
	s->memfd = perf_arena_memfd(s->arena);
}

static void shared_fini(struct shared *s)
{
	perf_core_destroy(s->core);
	assert_int_equal(perf_arena_used(s->arena), 0); /* everything went back */
	close(s->memfd);
	perf_arena_detach(s->arena);
}

/* In a forked child: drop the inherited view and attach by memfd, as an
 * exec'd process would. */
static struct perf_arena *child_attach(struct shared *s)
{
	struct perf_arena *b;

	munmap(ARENA_ADDR, perf_arena_size(s->arena));
	if (perf_arena_attach(s->memfd, &b) || b != s->arena)
		_exit(10);
	return b;
}

/* A core created in a shared arena; a child process that attaches by
 * memfd reads the same event's values through the core's read(), and its
 * writes are seen back. */
static void test_shared_core(void **state)
{
	struct shared s;
	uint64_t v[3];
	int status;
	pid_t pid;

	(void)state;
	shared_init(&s);
	synthetic_run_blocks(&s.sm, 0, 100);
	pid = fork();
	if (pid == 0) {
		struct perf_core *c = perf_core_attach(child_attach(&s), &s.machine);

		if (c != s.core || perf_core_model(c) != pmu_model_find("skylake") ||
		    perf_sys_read(c, s.h, v, sizeof(v)) != 24 || v[0] != 100 * 160)
			_exit(11);
		/* the child's CPU runs more of the task: the parent sees it */
		synthetic_run_blocks(&s.sm, 0, 50);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(perf_sys_read(s.core, s.h, v, sizeof(v)), 24);
	assert_int_equal(v[0], 150 * 160);
	shared_fini(&s);
}

/* Two processes share a core: the parent runs its CPU holding the lock
 * and yields when someone waits (perf_core_should_yield); the child's
 * reads get through and see monotonic counts. A process that dies
 * holding the lock does not wedge the core (robust mutex). */
static void test_shared_lock(void **state)
{
	struct shared s;
	uint64_t v[3];
	int status;
	pid_t pid;

	(void)state;
	shared_init(&s);
	pid = fork();
	if (pid == 0) {
		struct perf_core *c = perf_core_attach(child_attach(&s), &s.machine);
		uint64_t last = 0;

		for (int i = 0; i < 200; i++) {
			if (perf_sys_read(c, s.h, v, sizeof(v)) != 24 || v[0] < last)
				_exit(11);
			last = v[0];
		}
		if (!last)
			_exit(12); /* the parent never ran in between */
		perf_core_lock(c); /* and die holding the lock */
		_exit(0);
	}
	perf_core_lock(s.core);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		synthetic_run_blocks(&s.sm, 0, 10);
		if (perf_core_should_yield(s.core))
			perf_core_yield(s.core);
	}
	perf_core_unlock(s.core);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* the child died holding it: the next lock still gets it */
	assert_int_equal(perf_sys_read(s.core, s.h, v, sizeof(v)), 24);
	shared_fini(&s);
}

/* A process killed while it waits for a CPU's lock (perf test kills its
 * workloads so) leaves the count of waiters: the holder's next hand-over
 * finds no one to take the lock, sees the waiter is gone (a zombie here,
 * not reaped yet) and takes it out, so later checks no longer yield. Run
 * twice: once with the waiter reaped first, once a zombie. */
static void test_dead_waiter(void **state)
{
	struct shared s;
	struct perf_cpu *cpu;

	(void)state;
	shared_init(&s);
	cpu = perf_core_cpu(s.core, 0);
	for (int reaped = 0; reaped < 2; reaped++) {
		int status;
		pid_t pid;

		perf_cpu_lock(cpu);
		pid = fork();
		if (pid == 0) {
			struct perf_core *c = perf_core_attach(child_attach(&s), &s.machine);

			perf_cpu_lock(perf_core_cpu(c, 0));     /* blocks: the parent holds it */
			_exit(3);
		}
		assert_true(pid > 0);
		while (!perf_cpu_should_yield(cpu))
			sched_yield();
		kill(pid, SIGKILL);
		if (reaped) {
			assert_int_equal(waitpid(pid, &status, 0), pid);
		} else {
			siginfo_t si;

			/* a zombie: exited, not reaped */
			assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
		}
		assert_true(perf_cpu_should_yield(cpu));
		perf_cpu_yield(cpu);                  /* 1 ms: no one takes it */
		assert_false(perf_cpu_should_yield(cpu));
		assert_int_equal(cpu->lock.handing, 0);
		perf_cpu_unlock(cpu);
		if (!reaped)
			assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	}
	shared_fini(&s);
}

/* Two processes run two simulated CPUs of one core at once: the parent
 * holds CPU 0's lock while it runs, and the child takes CPU 1's without
 * waiting for it (the kernel's CPUs run their own contexts). The child's
 * read, a cross-CPU operation (the core lock), gets in at the parent's
 * next check (perf_cpu_should_yield) and sees exactly what its CPU ran. */
static void test_cpu_locks(void **state)
{
	struct perf_core_config cfg = { .model = pmu_model_find("skylake"), .nr_cpus = 2 };
	struct perf_event_attr attr = raw_attr(0x00c4);
	volatile int *flags;
	struct shared s;
	struct perf_task *t2;
	uint64_t v[3];
	int status, h2;
	pid_t pid;

	(void)state;
	flags = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(flags != MAP_FAILED);
	s.sm = (struct synthetic_machine){ .profile = synthetic_default_profile };
	s.machine = synthetic_machine_ops(&s.sm);
	assert_int_equal(perf_arena_create(8 << 20, ARENA_ADDR, &s.arena), 0);
	cfg.arena = s.arena;
	assert_int_equal(perf_core_create(&cfg, &s.machine, &s.core), 0);
	s.sm.core = s.core;
	s.memfd = perf_arena_memfd(s.arena);
	{
		struct perf_task *t1 = perf_task_create(s.core, 1, 1, (struct perf_cred){ .cap_perfmon = true });

		perf_cpu_switch_to(perf_core_cpu(s.core, 0), t1);
		s.h = perf_sys_event_open(s.core, t1, &perf_uaccess_direct, (uint64_t)(uintptr_t)&attr,
					  0, -1, -1, 0);
		assert_true(s.h >= 0);
	}
	t2 = perf_task_create(s.core, 2, 2, (struct perf_cred){ .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(s.core, 1), t2);
	h2 = perf_sys_event_open(s.core, t2, &perf_uaccess_direct, (uint64_t)(uintptr_t)&attr,
				 0, -1, -1, 0);
	assert_true(h2 >= 0);
	pid = fork();
	if (pid == 0) {
		struct perf_core *c = perf_core_attach(child_attach(&s), &s.machine);
		struct perf_cpu *cpu1 = perf_core_cpu(c, 1);

		alarm(20);                  /* a single lock: CPU 1 never comes */
		perf_cpu_lock(cpu1);
		flags[0] = 1;               /* CPU 1 is mine ... */
		while (!flags[1])           /* ... while the parent runs CPU 0 */
			sched_yield();
		s.sm.core = c;
		synthetic_run_blocks(&s.sm, 1, 50);
		perf_cpu_unlock(cpu1);
		if (perf_sys_read(c, h2, v, sizeof(v)) != 24 || v[0] != 50 * 160)
			_exit(11);
		_exit(0);
	}
	assert_true(pid > 0);
	perf_cpu_lock(perf_core_cpu(s.core, 0));
	while (waitpid(pid, &status, WNOHANG) == 0) {
		synthetic_run_blocks(&s.sm, 0, 10);
		if (flags[0])
			flags[1] = 1;       /* both CPUs held at once */
		if (perf_cpu_should_yield(perf_core_cpu(s.core, 0)))
			perf_cpu_yield(perf_core_cpu(s.core, 0));
	}
	perf_cpu_unlock(perf_core_cpu(s.core, 0));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(perf_sys_read(s.core, s.h, v, sizeof(v)), 24);
	assert_true(v[0] > 0 && v[0] % 160 == 0);
	munmap((void *)flags, 4096);
	shared_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_free),
		cmocka_unit_test(test_shared_core),
		cmocka_unit_test(test_shared_lock),
		cmocka_unit_test(test_cpu_locks),
		cmocka_unit_test(test_dead_waiter),
	};
	return cmocka_run_group_tests_name("core_arena", tests, NULL, NULL);
}
