/*
 * lock.c - the simulated kernel's locks: one per simulated CPU, and the
 * core's over them all. One core may be shared by several processes (a
 * shared arena) and threads.
 *
 * As in the kernel, a CPU's state (its contexts while scheduled in, its
 * counters, clock and timers, the rings its events write) belongs to the
 * CPU: the thread that runs a simulated CPU holds that CPU's lock while it
 * executes guest code and accounts it, so tasks on other CPUs run guest
 * code at the same time. Everything else (perf_event_open, read, ioctl,
 * close, tasks' fork and exit: every syscall-shaped entry point) takes the
 * core lock, which takes every CPU's lock after the core's own: a running
 * CPU lets it in at its next block boundary (perf_cpu_should_yield), as
 * the kernel's event_function_call() runs a cross-CPU operation on the
 * event's CPU through an IPI (cpu_function_call()) and changes a context
 * that is not running under ctx->lock.
 *
 * Lock order: the core's, then the CPUs' by number. A thread that holds a
 * CPU's lock and takes the core's lets its CPU go first and gets it back in
 * order (perf_core_lock). Each lock is recursive per thread (a guest's perf
 * syscalls enter the core from the thread that runs the CPU) and robust (a
 * process that dies holding it does not wedge the others).
 *
 * Invariants: l->depth > 0 exactly when l->owner holds l->mu; a thread
 * that holds the core lock holds every CPU's, each with one level of depth
 * for it. l->waiters and l->handing count live threads, and threads that
 * died counted until a hand-over that timed out takes them out
 * (lock_reap): a process killed while it waited must not make every
 * later holder yield for nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sim/core/core_types.h"

/* How long a CPU that yields waits for a waiter to take its lock: a woken
 * waiter on another host CPU needs tens of microseconds; one that died
 * waiting must not stall the yielder for long. */
#define PERF_HANDOVER_NS 1000000
/* A task's turn on a CPU another task of it waits for: a 4 ms tick. */
#define PERF_CPU_SLICE_NS 4000000
/* How often a task waiting for its turn looks at the CPU. */
#define PERF_TURN_STEP_NS 200000

static __thread pid_t cached_tid;

static void forget_tid(void)
{
	cached_tid = 0;
}

static pid_t my_tid(void)
{
	if (!cached_tid)
		cached_tid = (pid_t)syscall(SYS_gettid);
	return cached_tid;
}

static void __attribute__((constructor)) lock_init_atfork(void)
{
	/* a forked child is another thread: its cached tid is stale */
	pthread_atfork(NULL, NULL, forget_tid);
}

static void robust_shared_mutex_init(pthread_mutex_t *mu)
{
	pthread_mutexattr_t ma;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(mu, &ma);
	pthread_mutexattr_destroy(&ma);
}

static void lock_init(struct perf_lock *l)
{
	robust_shared_mutex_init(&l->mu);
	l->owner = 0;
	l->depth = 0;
	l->waiters = 0;
	l->gen = 0;
	l->handing = 0;
	for (unsigned i = 0; i < PERF_LOCK_TIDS; i++)
		l->waiter_tid[i] = l->handing_tid[i] = 0;
}

void perf_core_lock_init(struct perf_core *core)
{
	lock_init(&core->lock);
	robust_shared_mutex_init(&core->trace_lock);
}

void perf_cpu_lock_init(struct perf_cpu *cpu)
{
	lock_init(&cpu->lock);
}

static void mutex_lock_robust(pthread_mutex_t *mu)
{
	if (pthread_mutex_lock(mu) == EOWNERDEAD) {
		/* its holder died mid-operation; the core may be inconsistent
		 * in what that operation touched, but it is usable */
		pthread_mutex_consistent(mu);
	}
}

/* Counts me in *count and names me in a free slot of tids; returns the
 * slot, or -1 when all are taken (then a death cannot be taken out). */
static int counted_enter(unsigned *count, pid_t *tids, pid_t me)
{
	__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < PERF_LOCK_TIDS; i++) {
		pid_t none = 0;

		if (__atomic_compare_exchange_n(&tids[i], &none, me, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return i;
	}
	return -1;
}

/* Undoes counted_enter(): one decrement per entry, by whoever clears its
 * slot (reap_counted() may have, taking a live thread for gone when
 * /proc cannot tell). */
static void counted_leave(unsigned *count, pid_t *tids, int slot, pid_t me)
{
	if (slot < 0 || __atomic_compare_exchange_n(&tids[slot], &me, 0, false, __ATOMIC_ACQ_REL,
						    __ATOMIC_RELAXED))
		__atomic_sub_fetch(count, 1, __ATOMIC_SEQ_CST);
}

/* Whether thread tid is gone: no such task, or a zombie (its process was
 * killed and not reaped yet). Raw calls: this may run in the shim's
 * SIGSYS handler. */
static bool tid_gone(pid_t tid)
{
	char path[32] = "/proc/", buf[256], *p;
	unsigned n = 6, k = 0;
	char digits[12];
	long fd, len;

	for (pid_t t = tid; t && k < sizeof(digits); t /= 10)
		digits[k++] = (char)('0' + t % 10);
	while (k)
		path[n++] = digits[--k];
	memcpy(path + n, "/stat", 6);
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	len = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	if (len <= 0)
		return false;
	buf[len] = 0;
	p = strrchr(buf, ')');          /* "pid (comm) S ..." */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* Takes the threads of tids that are gone out of *count. */
static void reap_counted(unsigned *count, pid_t *tids)
{
	for (unsigned i = 0; i < PERF_LOCK_TIDS; i++) {
		pid_t t = __atomic_load_n(&tids[i], __ATOMIC_ACQUIRE);

		if (t && tid_gone(t) &&
		    __atomic_compare_exchange_n(&tids[i], &t, 0, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			__atomic_sub_fetch(count, 1, __ATOMIC_SEQ_CST);
	}
}

/* A hand-over of l timed out with waiters counted: those that died
 * waiting, or handing over, leave the counts (a live one stays). */
static void lock_reap(struct perf_lock *l)
{
	reap_counted(&l->waiters, l->waiter_tid);
	reap_counted(&l->handing, l->handing_tid);
}

/* l is now me's, first level: a yielder waiting for the hand-over learns
 * (gen is written by the holder only). */
static void lock_got(struct perf_lock *l, pid_t me)
{
	l->owner = me;
	l->depth = 1;
	__atomic_store_n(&l->gen, l->gen + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->handing, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &l->gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* The mutex if it is free now (the common case costs no count of waiters). */
static bool mutex_trylock_robust(pthread_mutex_t *mu)
{
	int r = pthread_mutex_trylock(mu);

	if (r == EOWNERDEAD)
		pthread_mutex_consistent(mu);
	return r == 0 || r == EOWNERDEAD;
}

static bool lock_trytake(struct perf_lock *l, pid_t me)
{
	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) {
		l->depth++;
		return true;
	}
	if (!mutex_trylock_robust(&l->mu))
		return false;
	lock_got(l, me);
	return true;
}

/* As lock_trytake, then waits as a counted waiter (perf_*_should_yield). */
static void lock_take(struct perf_lock *l, pid_t me)
{
	int slot;

	if (lock_trytake(l, me))
		return;
	slot = counted_enter(&l->waiters, l->waiter_tid, me);
	mutex_lock_robust(&l->mu);
	counted_leave(&l->waiters, l->waiter_tid, slot, me);
	lock_got(l, me);
}

static void lock_put(struct perf_lock *l)
{
	assert(l->owner == my_tid() && l->depth > 0);
	if (--l->depth)
		return;
	__atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&l->mu);
}

/* The depth of cpu's lock the core lock accounts for in this thread. */
static unsigned core_share(const struct perf_cpu *cpu)
{
	return __atomic_load_n(&cpu->core->lock.owner, __ATOMIC_RELAXED) == my_tid();
}

struct perf_core *perf_core_lock(struct perf_core *core)
{
	unsigned kept[PERF_CORE_MAX_CPUS] = { 0 };
	pid_t me = my_tid();
	unsigned i;

	if (__atomic_load_n(&core->lock.owner, __ATOMIC_RELAXED) == me) {
		core->lock.depth++;
		return core;
	}
	/* the order is the core's lock, then the CPUs': a CPU held now goes
	 * first (its runner waits for the core as any thread does) */
	for (i = 0; i < core->nr_cpus; i++)
		if (__atomic_load_n(&core->cpus[i].lock.owner, __ATOMIC_RELAXED) == me)
			kept[i] = perf_cpu_unlock_all(&core->cpus[i]);
	lock_take(&core->lock, me);
	for (i = 0; i < core->nr_cpus; i++) {
		lock_take(&core->cpus[i].lock, me);
		core->cpus[i].lock.depth += kept[i];
	}
	return core;
}

void perf_core_unlock(struct perf_core *core)
{
	assert(core->lock.owner == my_tid() && core->lock.depth > 0);
	if (core->lock.depth > 1) {
		core->lock.depth--;
		return;
	}
	for (unsigned i = core->nr_cpus; i-- > 0;)
		lock_put(&core->cpus[i].lock);
	lock_put(&core->lock);
}

void perf_core_unlock_cleanup(struct perf_core **core)
{
	perf_core_unlock(*core);
}

void perf_cpu_lock(struct perf_cpu *cpu)
{
	lock_take(&cpu->lock, my_tid());
}

bool perf_cpu_trylock(struct perf_cpu *cpu)
{
	return lock_trytake(&cpu->lock, my_tid());
}

void perf_cpu_unlock(struct perf_cpu *cpu)
{
	lock_put(&cpu->lock);
}

void perf_cpu_unlock_cleanup(struct perf_cpu **cpu)
{
	perf_cpu_unlock(*cpu);
}

bool perf_cpu_should_yield(const struct perf_cpu *cpu)
{
	return __atomic_load_n(&cpu->lock.waiters, __ATOMIC_RELAXED) != 0;
}

bool perf_core_should_yield(const struct perf_core *core)
{
	return __atomic_load_n(&core->lock.waiters, __ATOMIC_RELAXED) != 0;
}

/* Nanoseconds of CLOCK_MONOTONIC since t0. */
static long elapsed_ns(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000000000L + (now.tv_nsec - t0->tv_nsec);
}

/* Waits until l changed hands since generation g, no one waits any more,
 * or the hand-over time passed. */
static void wait_handover(struct perf_lock *l, unsigned g)
{
	struct timespec t0, left;
	long ns;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(&l->gen, __ATOMIC_ACQUIRE) == g &&
	       __atomic_load_n(&l->waiters, __ATOMIC_RELAXED)) {
		ns = elapsed_ns(&t0);
		if (ns >= PERF_HANDOVER_NS)
			break;
		left.tv_sec = 0;
		left.tv_nsec = PERF_HANDOVER_NS - ns;
		syscall(SYS_futex, &l->gen, FUTEX_WAIT, g, &left, NULL, 0);
	}
	if (__atomic_load_n(&l->gen, __ATOMIC_ACQUIRE) == g &&
	    __atomic_load_n(&l->waiters, __ATOMIC_RELAXED))
		lock_reap(l);       /* no one took it: are the waiters alive? */
}

/*
 * A task that got the CPU from one that yielded keeps it for a slice, as
 * the scheduler gives each runnable task of a CPU its turn (a 4 ms tick,
 * the emulator lock's slice too). The yielder waits that long, or until
 * the CPU goes idle (the task blocked, switched out), its lock stayed free
 * for a whole step (the task sleeps in a call the machine does not switch
 * out for, a pipe read say, as schedule() would leave the CPU), or the
 * core's lock wants it.
 */
static void wait_turn(struct perf_cpu *cpu)
{
	struct perf_lock *l = &cpu->lock;
	struct timespec t0, step = { 0, PERF_TURN_STEP_NS };
	unsigned free_gen = 0;
	bool was_free = false;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		unsigned g = __atomic_load_n(&l->gen, __ATOMIC_ACQUIRE);
		bool is_free = !__atomic_load_n(&l->owner, __ATOMIC_RELAXED);

		if (!__atomic_load_n(&cpu->task, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&cpu->core->lock.owner, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&cpu->core->lock.waiters, __ATOMIC_RELAXED) ||
		    (is_free && was_free && g == free_gen))
			return;
		was_free = is_free;
		free_gen = g;
		if (elapsed_ns(&t0) >= PERF_CPU_SLICE_NS)
			return;
		syscall(SYS_futex, &l->gen, FUTEX_WAIT, g, &step, NULL, 0);
	}
}

/*
 * Gives cpu's lock up to its waiters and takes it back at the same depth.
 * The mutex is not fair, and a woken waiter on another host CPU takes a
 * while to run: the yielder waits until one of them has had the lock (or
 * the hand-over time passed). A cross-CPU operation (the core's lock) is
 * then let through and the yielder queues behind it; another task of this
 * CPU gets its turn first (wait_turn).
 */
static void cpu_handover(struct perf_cpu *cpu)
{
	struct perf_lock *l = &cpu->lock;
	unsigned depth = l->depth, g = __atomic_load_n(&l->gen, __ATOMIC_ACQUIRE);
	pid_t me = my_tid();
	int slot = counted_enter(&l->handing, l->handing_tid, me);

	l->depth = 1;
	lock_put(l);
	wait_handover(l, g);
	counted_leave(&l->handing, l->handing_tid, slot, me);
	if (__atomic_load_n(&l->gen, __ATOMIC_ACQUIRE) != g)
		wait_turn(cpu);
	lock_take(l, me);
	l->depth = depth;
}

void perf_cpu_yield(struct perf_cpu *cpu)
{
	if (core_share(cpu)) {
		/* the core lock holds it too: the waiters need the core's */
		perf_core_yield(cpu->core);
		return;
	}
	cpu_handover(cpu);
}

/* Gives the core's lock (and with it every CPU's) up to its waiters and
 * takes it back at the same depth; as cpu_handover, the generation is read
 * and the hand-over announced while the lock is still held, so a waiter
 * that takes it at once is seen and wakes the yielder. */
void perf_core_yield(struct perf_core *core)
{
	struct perf_lock *l = &core->lock;
	unsigned depth = l->depth, g = __atomic_load_n(&l->gen, __ATOMIC_ACQUIRE);
	pid_t me = my_tid();
	int slot = counted_enter(&l->handing, l->handing_tid, me);

	l->depth = 1;
	perf_core_unlock(core);
	wait_handover(l, g);
	counted_leave(&l->handing, l->handing_tid, slot, me);
	perf_core_lock(core);
	l->depth = depth;
}

unsigned perf_cpu_unlock_all(struct perf_cpu *cpu)
{
	unsigned base, depth;

	if (__atomic_load_n(&cpu->lock.owner, __ATOMIC_RELAXED) != my_tid())
		return 0;
	base = core_share(cpu);
	depth = cpu->lock.depth - base;
	if (!depth)
		return 0;
	cpu->lock.depth = base + 1;
	lock_put(&cpu->lock);
	return depth;
}

void perf_cpu_relock(struct perf_cpu *cpu, unsigned depth)
{
	if (!depth)
		return;
	lock_take(&cpu->lock, my_tid());
	cpu->lock.depth += depth - 1;
}

void perf_trace_lock(struct perf_core *core)
{
	mutex_lock_robust(&core->trace_lock);
}

void perf_trace_unlock(struct perf_core *core)
{
	pthread_mutex_unlock(&core->trace_lock);
}
