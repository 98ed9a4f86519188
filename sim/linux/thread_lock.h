/*
 * thread_lock.h - the big emulator lock (thread_lock.c): one guest thread
 * runs guest code at a time; syscalls run outside it.
 */
#ifndef PMUSIM_THREAD_LOCK_H
#define PMUSIM_THREAD_LOCK_H

#include <stdbool.h>

struct guest_thread;

/* Turns the lock on for the process (first thread clone). */
int thread_lock_enable(void);
/* No-ops while the lock is off or (acquire) already held by the caller.
 * acquire takes back a turn the caller lent; release gives the caller's
 * turn away (running or lent). */
void thread_lock_acquire(struct guest_thread *t);
void thread_lock_release(struct guest_thread *t);
/* Around a syscall: the turn is kept for the caller's return unless the call
 * sleeps (then a waiting thread takes it); may_sleep: the call can block. */
void thread_lock_lend(struct guest_thread *t, bool may_sleep);
/* After an engine stop: the holder goes to the back of the queue if its
 * slice is over and another thread waits (a preempted time slice). */
void thread_lock_yield(struct guest_thread *t);
void thread_lock_after_fork_child(void);

/* Runs expr (a long) with the emulator lock held: from a syscall handler,
 * for a change every engine of the process must see at once. */
#define LOCKED(t, expr) ({ long _r; thread_lock_acquire(t); _r = (expr); \
			   thread_lock_release(t); _r; })

#endif
