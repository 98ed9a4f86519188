/*
 * thread_lock.c - the big emulator lock: one guest thread executes guest
 * code at a time.
 *
 * Why: Unicorn 2.0.1 translates LOCK-prefixed instructions (lock cmpxchg,
 * xadd, ...) without CF_PARALLEL, as plain load/compute/store sequences. Two
 * engines running at once over the same memory break every guest mutex
 * (glibc's assertion "mutex->__data.__owner == 0" fired in testing). So a
 * thread holds the lock while its engine runs, and lends it around each
 * syscall handler (the kernel side, where it may block: futex waits, reads,
 * sleeps run concurrently as on a real kernel). Calls that change the
 * address space keep it: they update every thread's engine.
 *
 * Turns are time slices (THREAD_SLICE_NS), handed over in FIFO order (a
 * ticket lock), as the scheduler shares one CPU between runnable tasks:
 *  - a syscall lends the turn, it does not give it away: the thread takes
 *    it back on return, unless the call sleeps (the turn stayed unused for
 *    THREAD_GRACE_NS, or a slice for a call that cannot sleep, while
 *    another thread waited: that one takes it, as a task that blocks
 *    leaves its CPU) or the slice is used up with another thread waiting
 *    (need_resched on the way back to user mode). Giving the
 *    turn away at every syscall let a thread that computes take it at once
 *    and keep it for a whole slice, so a thread making syscalls got one
 *    call per slice;
 *  - where engine stops are safe (sim/cpu/safe_stop.h), a waiter kicks the
 *    holder's engine when its slice is used up; it stops at its next block
 *    start and gives the lock up in the run loop (thread_lock_yield), as
 *    the scheduler tick preempts a task that spins. Without safe stops a
 *    stop may re-run half a block, so turns change only at syscalls and a
 *    thread that spins without syscalls keeps the CPU.
 * See docs/machine-signals-threads.md.
 *
 * A process with one thread never takes the lock (enabled at the first
 * clone of a thread). Fork leaves the child with one thread: reset.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "sim/cpu/safe_stop.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/sys_perf.h"
#include "sim/linux/thread_lock.h"

static pthread_mutex_t bql_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bql_cv;                 /* on CLOCK_MONOTONIC */
static unsigned long next_ticket, now_serving;
static struct guest_thread *holder;           /* whose turn it is (ticket now_serving) */
static bool holder_away;                      /* it is in a syscall, the turn lent */
static uint64_t turn_since, away_since;       /* CLOCK_MONOTONIC ns */
static uint64_t away_grace;                   /* how long the lent turn waits */
static volatile bool bql_enabled;
static __thread bool bql_held;                /* this thread runs guest code */

/* a time slice: a 4 ms scheduler tick */
#define THREAD_SLICE_NS 4000000ull
/* a lent turn unused this long while another thread waits: the call sleeps
 * (a call that cannot sleep has a slice: the host may preempt it) */
#define THREAD_GRACE_NS 100000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void cv_init(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&bql_cv, &a);
	pthread_condattr_destroy(&a);
}

static void __attribute__((constructor)) thread_lock_init(void)
{
	cv_init();
}

/* Sleeps on the lock's condition until ns (CLOCK_MONOTONIC) at the latest. */
static void wait_until(uint64_t ns)
{
	struct timespec until = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	pthread_cond_timedwait(&bql_cv, &bql_mu, &until);
}

/* Another thread holds a ticket (bql_mu held). */
static bool others_wait(void)
{
	return next_ticket - now_serving > (holder ? 1 : 0);
}

/* The turn goes to the next ticket (bql_mu held). */
static void pass_turn(void)
{
	holder = NULL;
	holder_away = false;
	now_serving++;
	pthread_cond_broadcast(&bql_cv);
}

int thread_lock_enable(void)
{
	pthread_mutex_lock(&bql_mu);
	bql_enabled = true;
	pthread_mutex_unlock(&bql_mu);
	return 0;
}

/*
 * Waits for ticket my (bql_mu held): a lent turn unused for the grace
 * period is taken from its sleeping holder; a holder that ran its whole
 * slice is kicked (the tick), again every slice until it yields.
 */
static void wait_turn(unsigned long my)
{
	uint64_t next_kick = 0;

	while (my != now_serving) {
		uint64_t now = now_ns();

		if (holder && holder_away) {
			if (now >= away_since + away_grace) {
				pass_turn();   /* schedule(): it sleeps in its call */
				continue;
			}
			wait_until(away_since + away_grace);
		} else if (holder && safe_stop_on()) {
			if (!next_kick)
				next_kick = turn_since + THREAD_SLICE_NS;
			if (now >= next_kick) {
				if (holder->cpu)
					vcpu_kick(holder->cpu);
				next_kick = now + THREAD_SLICE_NS;
			}
			wait_until(next_kick);
		} else {
			/* no stops: the holder gives the turn at a syscall; or
			 * the turn is on its way to an earlier ticket */
			pthread_cond_wait(&bql_cv, &bql_mu);
		}
	}
}

void thread_lock_acquire(struct guest_thread *t)
{
	unsigned long my;

	if (!bql_enabled || bql_held)
		return;
	pthread_mutex_lock(&bql_mu);
	if (holder == t && holder_away) {
		/* back from a syscall that kept the turn */
		holder_away = false;
		if (!others_wait() || now_ns() < turn_since + THREAD_SLICE_NS) {
			bql_held = true;
			pthread_mutex_unlock(&bql_mu);
			return;
		}
		pass_turn();   /* need_resched: the slice is used up */
	}
	my = next_ticket++;
	wait_turn(my);
	holder = t;
	holder_away = false;
	turn_since = now_ns();
	bql_held = true;
	if (others_wait())
		pthread_cond_broadcast(&bql_cv);   /* they time this slice */
	pthread_mutex_unlock(&bql_mu);
}

void thread_lock_lend(struct guest_thread *t, bool may_sleep)
{
	if (!bql_held)
		return;
	pthread_mutex_lock(&bql_mu);
	(void)t;   /* bql_held: holder == t */
	holder_away = true;
	away_since = now_ns();
	away_grace = may_sleep ? THREAD_GRACE_NS : THREAD_SLICE_NS;
	/* waiters time the grace; for a call that cannot sleep they notice
	 * at their next wake-up (the slice's end at the latest), and a futex
	 * wake per call would cost as much as the call */
	if (may_sleep)
		pthread_cond_broadcast(&bql_cv);
	bql_held = false;
	pthread_mutex_unlock(&bql_mu);
}

void thread_lock_release(struct guest_thread *t)
{
	if (!bql_enabled)
		return;
	pthread_mutex_lock(&bql_mu);
	/* invariant: only the holder releases, running or lent */
	if (holder == t || bql_held)
		pass_turn();
	bql_held = false;
	pthread_mutex_unlock(&bql_mu);
}

void thread_lock_yield(struct guest_thread *t)
{
	bool waiters;

	if (!bql_held)
		return;
	pthread_mutex_lock(&bql_mu);
	waiters = others_wait();
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
	cv_init();
	next_ticket = now_serving = 0;
	holder = NULL;
	holder_away = false;
	bql_enabled = false;
	bql_held = false;
}
