/*
 * thread.h - guest threads (thread.c): clone of a thread, thread exit.
 */
#ifndef PMUSIM_THREAD_H
#define PMUSIM_THREAD_H

#include <stdint.h>
#include "sim/linux/guest.h"

/* Records the calling host thread as the process leader's (guest_boot_and_run). */
void thread_set_leader(void);

long thread_clone(struct guest_thread *t, uint64_t flags, uint64_t newsp,
		  uint64_t ptid, uint64_t ctid, uint64_t tls);

/* What a thread's host thread does when its run loop returns st:
 * exit_group, death by signal, or the thread's own exit. Never returns. */
__attribute__((noreturn)) void thread_finish(struct guest_thread *t, enum guest_run_state st);
__attribute__((noreturn)) void thread_exit(struct guest_thread *t, int code);

long sys_exit(struct guest_thread *t, const uint64_t a[6]);
long sys_clone(struct guest_thread *t, const uint64_t a[6]);
long sys_clone3(struct guest_thread *t, const uint64_t a[6]);
long sys_gettid(struct guest_thread *t, const uint64_t a[6]);

#endif
