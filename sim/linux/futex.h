/*
 * futex.h - futex(2), set_tid_address(2) and the robust lists for the guest
 * (futex.c).
 */
#ifndef PMUSIM_FUTEX_H
#define PMUSIM_FUTEX_H

#include <stdbool.h>
#include <stdint.h>

struct guest_thread;
struct guest_process;

long sys_futex(struct guest_thread *t, const uint64_t a[6]);
long sys_set_tid_address(struct guest_thread *t, const uint64_t a[6]);

/* mm_release(): store 0 at clear_child_tid and wake one waiter. */
void futex_clear_child_tid(struct guest_thread *t);

long sys_set_robust_list(struct guest_thread *t, const uint64_t a[6]);
long sys_get_robust_list(struct guest_thread *t, const uint64_t a[6]);
/* exit_robust_list() of t's guest list (at its exit or exec): the futexes
 * it still owns become FUTEX_OWNER_DIED. The list is forgotten. */
void futex_exit_robust_list(struct guest_thread *t);
/* The same for every thread of p, self first (the process ends); no_wait
 * in a signal handler: no lock is waited for, a busy one loses the lists
 * it guards. */
void futex_exit_robust_lists(struct guest_process *p, struct guest_thread *self, bool no_wait);

#endif
