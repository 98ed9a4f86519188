/*
 * futex.c - futex(2), set_tid_address(2) and the robust-list calls for the
 * guest. Guest addresses are host addresses and every guest thread is a host
 * thread, so futex operations pass straight to the host kernel: waiters and
 * wakers meet on the same host page whichever engine they run in. The work
 * here is keeping the guest from naming pmusim's own memory, and the robust
 * lists: the host thread's registration stays glibc's, for pmusim's own
 * robust lock (the core lock shared by a session's processes, which a
 * process killed while holding it must release), and the guest's list is
 * kept here and walked as the kernel's exit_robust_list() would, at the
 * thread's exit, the process's exit or fatal signal, and exec.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
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

/* ---- robust lists ------------------------------------------------------------ */

/* set_robust_list(head, len): only the size of struct robust_list_head. */
long sys_set_robust_list(struct guest_thread *t, const uint64_t a[6])
{
	if (a[1] != sizeof(struct robust_list_head))
		return -EINVAL;
	t->robust_list = a[0];
	t->robust_len = a[1];
	return 0;
}

/*
 * get_robust_list(pid, head_ptr, len_ptr) of the caller or another thread
 * of its process; other processes' threads are the host's to answer (which
 * knows only pmusim's own lists).
 */
long sys_get_robust_list(struct guest_thread *t, const uint64_t a[6])
{
	struct guest_process *p = t->proc;
	struct guest_thread *o, *found = a[0] ? NULL : t;
	uint64_t head = 0;

	if (!found) {
		pthread_mutex_lock(&p->lock);
		list_for_each_entry(o, &p->threads, node)
			if (o->tid == (int)a[0])
				found = o;
		if (found)
			head = found->robust_list;
		pthread_mutex_unlock(&p->lock);
		if (!found)
			return signal_host_syscall(t, SYS_get_robust_list, a);
	} else {
		head = t->robust_list;
	}
	/* put_user(sizeof(*head), len_ptr), then put_user(head, head_ptr) */
	if (!guest_mm_access_ok(&p->mm, a[2], 8, PROT_WRITE))
		return -EFAULT;
	*(uint64_t *)(uintptr_t)a[2] = sizeof(struct robust_list_head);
	if (!guest_mm_access_ok(&p->mm, a[1], 8, PROT_WRITE))
		return -EFAULT;
	*(uint64_t *)(uintptr_t)a[1] = head;
	return 0;
}

/* Whether the guest may access [addr, addr+len): without waiting for the
 * address space's lock in a signal handler (no_wait). */
static bool robust_access_ok(struct guest_thread *t, uint64_t addr, uint64_t len, int prot,
			     bool no_wait)
{
	return no_wait ? guest_mm_access_ok_try(&t->proc->mm, addr, len, prot) :
	       guest_mm_access_ok(&t->proc->mm, addr, len, prot);
}

/* A guest word of the list, if readable. */
static bool robust_fetch(struct guest_thread *t, uint64_t addr, uint64_t *v, bool no_wait)
{
	if (!robust_access_ok(t, addr, 8, PROT_READ, no_wait))
		return false;
	*v = *(const uint64_t *)(uintptr_t)addr;
	return true;
}

/*
 * handle_futex_death(): the futex at uaddr, if t owns it, becomes
 * FUTEX_OWNER_DIED (keeping FUTEX_WAITERS) and one waiter is woken; a
 * pending non-PI operation on a free futex wakes one too. false: stop.
 */
static bool robust_futex_death(struct guest_thread *t, uint64_t uaddr, bool pi, bool pending,
			       bool no_wait)
{
	uint32_t *w = (uint32_t *)(uintptr_t)uaddr, uval, mval;

	if ((uaddr & 3) || !robust_access_ok(t, uaddr, 4, PROT_READ | PROT_WRITE, no_wait))
		return false;
	uval = __atomic_load_n(w, __ATOMIC_SEQ_CST);
	do {
		if (pending && !pi && !uval) {
			syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
			return true;
		}
		if ((uval & FUTEX_TID_MASK) != (uint32_t)t->tid)
			return true;
		mval = (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
	} while (!__atomic_compare_exchange_n(w, &uval, mval, false, __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
	if (!pi && (uval & FUTEX_WAITERS))
		syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
	return true;
}

/* exit_robust_list() of t's list (no_wait: see futex_exit_robust_lists). */
static void exit_robust_list(struct guest_thread *t, bool no_wait)
{
	uint64_t head = t->robust_list, entry, next, pending, off;
	unsigned limit = ROBUST_LIST_LIMIT;
	bool pi, next_pi, pip;

	t->robust_list = 0;
	if (!head || !robust_fetch(t, head, &entry, no_wait) || !robust_fetch(t, head + 8, &off, no_wait) ||
	    !robust_fetch(t, head + 16, &pending, no_wait))
		return;
	pi = entry & 1;
	entry &= ~1ull;
	pip = pending & 1;
	pending &= ~1ull;
	while (entry != head) {
		bool ok = robust_fetch(t, entry, &next, no_wait);

		next_pi = next & 1;
		next &= ~1ull;
		if (entry != pending && !robust_futex_death(t, entry + off, pi, false, no_wait))
			return;
		if (!ok)
			return;
		entry = next;
		pi = next_pi;
		if (!--limit)
			break;
	}
	if (pending)
		robust_futex_death(t, pending + off, pip, true, no_wait);
}

void futex_exit_robust_list(struct guest_thread *t)
{
	exit_robust_list(t, false);
}

void futex_exit_robust_lists(struct guest_process *p, struct guest_thread *self, bool no_wait)
{
	struct guest_thread *o;

	if (self)
		exit_robust_list(self, no_wait);
	/* the others die with the process (it may be held by a thread that
	 * dies in the middle of changing the list: then theirs are lost) */
	if (pthread_mutex_trylock(&p->lock))
		return;
	list_for_each_entry(o, &p->threads, node)
		if (o != self)
			exit_robust_list(o, no_wait);
	pthread_mutex_unlock(&p->lock);
}
