/*
 * futex.h - futex(2) and set_tid_address(2) for the guest (futex.c).
 */
#ifndef PMUSIM_FUTEX_H
#define PMUSIM_FUTEX_H

#include <stdint.h>

struct guest_thread;

long sys_futex(struct guest_thread *t, const uint64_t a[6]);
long sys_set_tid_address(struct guest_thread *t, const uint64_t a[6]);

/* mm_release(): store 0 at clear_child_tid and wake one waiter. */
void futex_clear_child_tid(struct guest_thread *t);

#endif
