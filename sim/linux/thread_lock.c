/*
 * thread_lock.c - the big emulator lock: one guest thread executes guest
 * code at a time.
 *
 * Why: Unicorn 2.0.1 translates LOCK-prefixed instructions (lock cmpxchg,
 * xadd, ...) without CF_PARALLEL, as plain load/compute/store sequences. Two
 * engines running at once over the same memory break every guest mutex
 * (glibc's assertion "mutex->__data.__owner == 0" fired in testing). So a
 * thread holds the lock while its engine runs, and drops it around each
 * syscall handler (the kernel side, where it may block: futex waits, reads,
 * sleeps run concurrently as on a real kernel). Calls that change the
 * address space keep it: they update every thread's engine.
 *
 * Turns change at syscalls, in FIFO order (a ticket lock), and, where
 * engine stops are safe (sim/cpu/safe_stop.h), when a thread has waited a
 * whole time slice (THREAD_SLICE_NS): it kicks the holder's engine, which
 * stops at its next block start and gives the lock up in the run loop
 * (thread_lock_yield), as the scheduler tick preempts a task that spins.
 * Without safe stops a stop may re-run half a block, so turns change only
 * at syscalls and a thread that spins without syscalls keeps the CPU.
 * See docs/machine-signals-threads.md.
 *
 * A process with one thread never takes the lock (enabled at the first
 * clone of a thread). Fork leaves the child with one thread: reset.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#include "sim/cpu/safe_stop.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/sys_perf.h"
#include "sim/linux/thread_lock.h"

static pthread_mutex_t bql_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bql_cv = PTHREAD_COND_INITIALIZER;
static unsigned long next_ticket, now_serving;
static struct guest_thread *holder;
static volatile bool bql_enabled;
static __thread bool bql_held;

/* how long a waiter lets a spinning holder run: a 4 ms scheduler tick */
#define THREAD_SLICE_NS 4000000L

int thread_lock_enable(void)
{
	pthread_mutex_lock(&bql_mu);
	bql_enabled = true;
	pthread_mutex_unlock(&bql_mu);
	return 0;
}

void thread_lock_acquire(struct guest_thread *t)
{
	unsigned long my;

	if (!bql_enabled || bql_held)
		return;
	pthread_mutex_lock(&bql_mu);
	my = next_ticket++;
	while (my != now_serving) {
		struct timespec until;

		if (!safe_stop_on()) {
			pthread_cond_wait(&bql_cv, &bql_mu);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += THREAD_SLICE_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		/* the tick: preempt a holder that ran a whole slice meanwhile */
		if (pthread_cond_timedwait(&bql_cv, &bql_mu, &until) == ETIMEDOUT &&
		    my != now_serving && holder && holder->cpu)
			vcpu_kick(holder->cpu);
	}
	holder = t;
	bql_held = true;
	pthread_mutex_unlock(&bql_mu);
}

void thread_lock_release(struct guest_thread *t)
{
	if (!bql_held)
		return;
	pthread_mutex_lock(&bql_mu);
	/* invariant: only the holder releases */
	if (holder == t)
		holder = NULL;
	now_serving++;
	bql_held = false;
	pthread_cond_broadcast(&bql_cv);
	pthread_mutex_unlock(&bql_mu);
}

void thread_lock_yield(struct guest_thread *t)
{
	bool waiters;

	if (!bql_held)
		return;
	pthread_mutex_lock(&bql_mu);
	waiters = next_ticket != now_serving + 1;
	pthread_mutex_unlock(&bql_mu);
	if (waiters) {
		perf_guest_thread_yield(t);
		thread_lock_release(t);
		thread_lock_acquire(t);
	}
}

void thread_lock_after_fork_child(void)
{
	/* every other thread is gone; the forking thread held no lock (fork
	 * runs in a syscall that keeps it: reset it all) */
	pthread_mutex_init(&bql_mu, NULL);
	pthread_cond_init(&bql_cv, NULL);
	next_ticket = now_serving = 0;
	holder = NULL;
	bql_enabled = false;
	bql_held = false;
}
