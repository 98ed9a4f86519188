/*
 * futex.c - futex(2), set_tid_address(2) and the robust-list calls for the
 * guest. Guest addresses are host addresses and every guest thread is a host
 * thread, so futex operations pass straight to the host kernel: waiters and
 * wakers meet on the same host page whichever engine they run in. The only
 * work here is keeping the guest from naming pmusim's own memory.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sim/linux/futex.h"
#include "sim/linux/guest.h"
#include "sim/linux/signal.h"

/* Does op read or write the second address (uaddr2)? (do_futex()) */
static bool futex_uses_uaddr2(int cmd)
{
	switch (cmd) {
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
	case FUTEX_WAKE_OP:
	case FUTEX_CMP_REQUEUE_PI:
	case FUTEX_WAIT_REQUEUE_PI:
		return true;
	default:
		return false;
	}
}

/* Does op's fourth argument point to a timespec (rather than carry val2)? */
static bool futex_has_timeout(int cmd)
{
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_WAIT_REQUEUE_PI:
		return true;
	default:
		return false;
	}
}

/*
 * futex(uaddr, op, val, timeout|val2, uaddr2, val3). Every op goes to the
 * host with the guest's pointers; a uaddr outside the guest's memory gets
 * -EFAULT as an unmapped address does from get_futex_key().
 */
long sys_futex(struct guest_thread *t, const uint64_t a[6])
{
	int cmd = (int)a[1] & FUTEX_CMD_MASK;
	long r;

	if (!guest_mm_access_ok(&t->proc->mm, a[0] & ~3ull, 4, PROT_READ))
		return -EFAULT;
	if (futex_uses_uaddr2(cmd) &&
	    !guest_mm_access_ok(&t->proc->mm, a[4] & ~3ull, 4, PROT_READ))
		return -EFAULT;
	if (futex_has_timeout(cmd) && a[3] &&
	    !guest_mm_access_ok(&t->proc->mm, a[3], 16, PROT_READ))
		return -EFAULT;
	r = signal_host_syscall(t, SYS_futex, a);
	return r;
}

/* set_tid_address(tidptr): remembered for the thread's exit; returns the tid. */
long sys_set_tid_address(struct guest_thread *t, const uint64_t a[6])
{
	t->clear_child_tid = a[0];
	return t->tid;
}

/*
 * mm_release() at thread exit: with clear_child_tid set, a 0 is stored there
 * and one waiter is woken (the kernel's FUTEX_WAKE is shared, which also
 * reaches private waiters of a private mapping).
 */
void futex_clear_child_tid(struct guest_thread *t)
{
	uint64_t addr = t->clear_child_tid;

	if (!addr)
		return;
	t->clear_child_tid = 0;
	if (!guest_mm_access_ok(&t->proc->mm, addr, 4, PROT_WRITE))
		return;
	__atomic_store_n((int *)(uintptr_t)addr, 0, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, addr, FUTEX_WAKE, 1, NULL, NULL, 0);
}
