/*
 * lock.c - the simulated kernel's lock. One core may be shared by several
 * processes (a shared arena) and threads; every syscall-shaped entry point
 * takes the core lock, and a thread that runs a simulated CPU holds it
 * while it executes guest code, giving it up at blocking syscalls and
 * whenever another thread is waiting (perf_core_should_yield, checked at
 * block boundaries: the design notes' cross-CPU call, as one big lock).
 *
 * The lock is recursive per thread (a guest's perf syscalls enter the
 * core from the thread that already holds it) and robust (a process that
 * dies holding it does not wedge the others).
 *
 * Invariant: lock_depth > 0 exactly when lock_owner holds the mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sim/core/core_types.h"

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

void perf_core_lock_init(struct perf_core *core)
{
	pthread_mutexattr_t ma;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&core->lock, &ma);
	pthread_mutexattr_destroy(&ma);
}

struct perf_core *perf_core_lock(struct perf_core *core)
{
	pid_t me = my_tid();

	if (__atomic_load_n(&core->lock_owner, __ATOMIC_RELAXED) == me) {
		core->lock_depth++;
		return core;
	}
	__atomic_add_fetch(&core->lock_waiters, 1, __ATOMIC_RELAXED);
	if (pthread_mutex_lock(&core->lock) == EOWNERDEAD) {
		/* its holder died mid-operation; the core may be inconsistent
		 * in what that operation touched, but it is usable */
		pthread_mutex_consistent(&core->lock);
	}
	__atomic_sub_fetch(&core->lock_waiters, 1, __ATOMIC_RELAXED);
	core->lock_owner = me;
	core->lock_depth = 1;
	return core;
}

void perf_core_unlock(struct perf_core *core)
{
	assert(core->lock_owner == my_tid() && core->lock_depth > 0);
	if (--core->lock_depth)
		return;
	core->lock_owner = 0;
	pthread_mutex_unlock(&core->lock);
}

void perf_core_unlock_cleanup(struct perf_core **core)
{
	perf_core_unlock(*core);
}

bool perf_core_should_yield(const struct perf_core *core)
{
	return __atomic_load_n(&core->lock_waiters, __ATOMIC_RELAXED) != 0;
}

/*
 * Lets the waiting threads in and takes the lock back at the same depth.
 * The mutex is not fair, so the yielder stands aside until the waiters
 * are through or a few rounds passed.
 */
void perf_core_yield(struct perf_core *core)
{
	unsigned depth = perf_core_unlock_all(core);

	for (int i = 0; i < 64 && perf_core_should_yield(core); i++)
		sched_yield();
	perf_core_relock(core, depth);
}

/* Gives the lock up entirely (a blocking syscall) and says how deep it
 * was held, for perf_core_relock. */
unsigned perf_core_unlock_all(struct perf_core *core)
{
	unsigned depth = core->lock_depth;

	core->lock_depth = 1;
	perf_core_unlock(core);
	return depth;
}

void perf_core_relock(struct perf_core *core, unsigned depth)
{
	perf_core_lock(core);
	core->lock_depth = depth;
}
