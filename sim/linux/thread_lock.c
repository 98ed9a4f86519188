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
 *    thread that spins without syscalls keeps the CPU;
 *  - the waiter times the holder's slice (the holder reads no clock), and
 *    a slice run over comes off the thread's next one (turn_lag_ns);
 *  - lending and taking back a turn for a call that cannot sleep is one
 *    atomic operation each; waiters spin through a hand-over they expect.
 * See docs/machine-signals-threads.md.
 *
 * A process with one thread never takes the lock (enabled at the first
 * clone of a thread). Fork leaves the child with one thread: reset.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "sim/cpu/safe_stop.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/sys_perf.h"
#include "sim/linux/thread_lock.h"

/*
 * The state. Under bql_mu: the tickets, holder and its turn's start, the
 * lent call that may sleep (sleep_seq, away_since) and the sleepers count.
 * Lock-free, for the holder's lend and take-back:
 *  - lend_seq: odd while the holder is in a syscall (its turn lent). The
 *    holder makes it odd at the lend and even again at the take-back, both
 *    with one atomic operation; a waiter that takes a lent turn makes it
 *    even with a compare-and-swap under bql_mu, so exactly one of them
 *    ends the lend;
 *  - resched: the holder's slice is over and another thread waits (set by
 *    that waiter: need_resched); the holder gives the turn at its next
 *    take-back, or in the run loop after a kick;
 *  - now_serving: read by waiters that spin for their turn.
 */
static pthread_mutex_t bql_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bql_cv;                 /* on CLOCK_MONOTONIC */
static unsigned long next_ticket;
/* on a cache line of its own: a spinning waiter reads it while the holder
 * writes lend_seq at every call */
static _Alignas(64) _Atomic unsigned long now_serving;
static struct guest_thread *holder;           /* whose turn it is (ticket now_serving) */
static uint64_t turn_since;                   /* CLOCK_MONOTONIC ns */
static _Alignas(64) _Atomic uint64_t lend_seq;   /* odd: the turn is lent */
static uint64_t sleep_seq, away_since;        /* the lent call that may sleep, since */
static _Atomic bool resched;
static unsigned sleepers;                     /* waiters in pthread_cond_*wait */
static volatile bool bql_enabled;
static __thread bool bql_held;                /* this thread runs guest code */
static __thread bool bql_lent;                /* this thread lent its turn ... */
static __thread uint64_t bql_lent_seq;        /* ... in call lend_seq == bql_lent_seq */

/* a time slice: a 4 ms scheduler tick */
#define THREAD_SLICE_NS 4000000ull
/* what a thread's turns ran over is paid back up to this much a turn (a
 * slice stays 1 ms at least), and remembered up to 4 slices */
#define THREAD_LAG_STEP_NS (THREAD_SLICE_NS * 3 / 4)
#define THREAD_LAG_MAX_NS (THREAD_SLICE_NS * 4)
/* a lent turn unused this long while another thread waits: the call sleeps
 * (a call that cannot sleep has a slice: the host may preempt it) */
#define THREAD_GRACE_NS 100000ull
/* a waiter spins rather than sleeps this close to its deadline, and this
 * long for a turn it asked for (a host wake-up takes longer) */
#define THREAD_SPIN_NS 50000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
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

/* Sleeps on the lock's condition until ns (CLOCK_MONOTONIC; 0: until
 * woken), bql_mu held. */
static void sleep_until(uint64_t ns)
{
	struct timespec until = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	sleepers++;
	if (ns)
		pthread_cond_timedwait(&bql_cv, &bql_mu, &until);
	else
		pthread_cond_wait(&bql_cv, &bql_mu);
	sleepers--;
}

/* Spins until the turn moves or ns passes, or (lent: a call that may
 * sleep) the holder is back from that call (bql_mu held, released
 * meanwhile): a host wake-up would take longer than the hand-over. */
static void spin_until(uint64_t ns, uint64_t lent)
{
	unsigned long serving = atomic_load(&now_serving);

	pthread_mutex_unlock(&bql_mu);
	while (atomic_load_explicit(&now_serving, memory_order_relaxed) == serving &&
	       (!lent || atomic_load_explicit(&lend_seq, memory_order_relaxed) == lent) &&
	       now_ns() < ns)
		cpu_relax();
	pthread_mutex_lock(&bql_mu);
}

/*
 * The holder's slice (bql_mu held): THREAD_SLICE_NS less what its earlier
 * turns ran over, up to THREAD_LAG_STEP_NS. A waiter that wakes late (a
 * loaded host) lets the holder run on; without the lag, which thread's
 * waiter woke later would decide the shares, as CFS's vruntime keeps them
 * exact over ticks of any length.
 */
static uint64_t slice_end(void)
{
	uint64_t lag = holder->turn_lag_ns;

	return turn_since + THREAD_SLICE_NS - (lag < THREAD_LAG_STEP_NS ? lag : THREAD_LAG_STEP_NS);
}

/* The turn goes to the next ticket (bql_mu held); a lent turn's lend ends.
 * The lag only counts slices run over (up to THREAD_LAG_MAX_NS): a turn
 * that ended early (the thread slept) earns no longer one later. */
static void pass_turn(void)
{
	uint64_t s = atomic_load(&lend_seq);

	if (s & 1)
		atomic_compare_exchange_strong(&lend_seq, &s, s + 1);
	if (holder) {
		int64_t lag = (int64_t)holder->turn_lag_ns +
			      (int64_t)(now_ns() - turn_since) - (int64_t)THREAD_SLICE_NS;

		holder->turn_lag_ns = lag < 0 ? 0 :
			lag > (int64_t)THREAD_LAG_MAX_NS ? THREAD_LAG_MAX_NS : (uint64_t)lag;
	}
	holder = NULL;
	atomic_fetch_add(&now_serving, 1);
	if (sleepers)
		pthread_cond_broadcast(&bql_cv);
}

/* A waiter takes the turn lent in call s (bql_mu held): schedule(), the
 * holder sleeps in its call. Its take-back fails if this succeeds. */
static void take_lent(uint64_t s)
{
	if (atomic_compare_exchange_strong(&lend_seq, &s, s + 1))
		pass_turn();
}

int thread_lock_enable(void)
{
	pthread_mutex_lock(&bql_mu);
	bql_enabled = true;
	pthread_mutex_unlock(&bql_mu);
	return 0;
}

/*
 * Waits for ticket my (bql_mu held). A turn lent for a call that may sleep
 * and unused for the grace period is taken from its sleeping holder. When
 * the holder's slice is over: resched (it gives the turn at its next
 * take-back); running, it is kicked (the tick), again every slice until it
 * yields; lent for one call that cannot sleep a whole slice more, the turn
 * is taken. The next in line sleeps to within THREAD_SPIN_NS of a
 * deadline, then spins, and spins for the hand-over it asked for.
 */
static void wait_turn(unsigned long my)
{
	uint64_t next_kick = 0, seen_seq = 0, seen_at = 0, spin_end = 0;

	while (my != atomic_load(&now_serving)) {
		uint64_t now = now_ns(), deadline = 0, s = atomic_load(&lend_seq), lent = 0;

		if (!holder) {
			/* the turn is on its way to an earlier ticket */
		} else if ((s & 1) && s == sleep_seq) {
			if (now >= away_since + THREAD_GRACE_NS) {
				take_lent(s);
				continue;
			}
			deadline = away_since + THREAD_GRACE_NS;
			lent = s;
		} else if (now < slice_end()) {
			deadline = slice_end();
		} else {
			if (!atomic_load(&resched)) {
				atomic_store(&resched, true);   /* need_resched */
				spin_end = now + THREAD_SPIN_NS;
			}
			if (s & 1) {
				/* a call that cannot sleep: only a host
				 * preemption keeps it from returning */
				if (s != seen_seq) {
					seen_seq = s;
					seen_at = now;
				}
				if (now >= seen_at + THREAD_SLICE_NS) {
					take_lent(s);
					continue;
				}
				deadline = seen_at + THREAD_SLICE_NS;
			} else {
				if (safe_stop_on() && now >= next_kick) {
					if (holder->cpu)
						vcpu_kick(holder->cpu);
					next_kick = now + THREAD_SLICE_NS;
					spin_end = now + THREAD_SPIN_NS;
				}
				/* without stops: the turn comes at a syscall */
				deadline = next_kick ? next_kick : now + THREAD_SLICE_NS;
			}
		}
		/* only the next in line spins: more spinners than host CPUs
		 * would take the holder's */
		if (my != atomic_load(&now_serving) + 1)
			sleep_until(deadline);
		else if (now < spin_end)
			spin_until(deadline && deadline < spin_end ? deadline : spin_end, lent);
		else if (deadline && deadline <= now + THREAD_SPIN_NS)
			spin_until(deadline, lent);
		else
			sleep_until(deadline ? deadline - THREAD_SPIN_NS : 0);
	}
}

/*
 * Takes the turn. A thread back from a syscall takes its lent turn back
 * with one compare-and-swap unless a waiter took it or its slice is over
 * (need_resched on the way back to user mode): then it waits in line.
 */
void thread_lock_acquire(struct guest_thread *t)
{
	unsigned long my;

	if (!bql_enabled || bql_held)
		return;
	if (bql_lent) {
		uint64_t s = bql_lent_seq;

		bql_lent = false;
		if (atomic_compare_exchange_strong(&lend_seq, &s, s + 1)) {
			if (!atomic_load(&resched)) {
				bql_held = true;
				return;
			}
			pthread_mutex_lock(&bql_mu);
			pass_turn();   /* holder == t: the slice is used up */
		} else {
			pthread_mutex_lock(&bql_mu);   /* taken while it slept */
		}
	} else {
		pthread_mutex_lock(&bql_mu);
	}
	my = next_ticket++;
	wait_turn(my);
	holder = t;
	turn_since = now_ns();
	atomic_store(&resched, false);
	bql_held = true;
	if (sleepers)
		pthread_cond_broadcast(&bql_cv);   /* they time this slice */
	pthread_mutex_unlock(&bql_mu);
}

/*
 * Lends the turn for a syscall. A call that cannot sleep does it with one
 * atomic operation and wakes no one: waiters notice at their next wake-up
 * (a futex wake per call would cost as much as the call). A call that may
 * sleep records when, and wakes the waiters so they time its grace.
 */
void thread_lock_lend(struct guest_thread *t, bool may_sleep)
{
	(void)t;   /* bql_held: holder == t */
	if (!bql_held)
		return;
	bql_held = false;
	bql_lent = true;
	if (!may_sleep) {
		bql_lent_seq = atomic_fetch_add(&lend_seq, 1) + 1;
		return;
	}
	pthread_mutex_lock(&bql_mu);
	away_since = now_ns();
	sleep_seq = bql_lent_seq = atomic_load(&lend_seq) + 1;
	atomic_store(&lend_seq, sleep_seq);
	if (sleepers)
		pthread_cond_broadcast(&bql_cv);
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
	bql_lent = false;
	pthread_mutex_unlock(&bql_mu);
}

/*
 * Only a slice that is over goes (resched): a kick the holder got late,
 * after it gave that slice up at a take-back, would otherwise cost it its
 * next slice at once.
 */
void thread_lock_yield(struct guest_thread *t)
{
	if (!bql_held)
		return;
	if (atomic_load(&resched)) {
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
	next_ticket = 0;
	atomic_store(&now_serving, 0);
	atomic_store(&lend_seq, 0);
	atomic_store(&resched, false);
	sleep_seq = 0;
	sleepers = 0;
	holder = NULL;
	bql_enabled = false;
	bql_held = false;
	bql_lent = false;
}
