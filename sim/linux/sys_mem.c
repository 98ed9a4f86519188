/*
 * sys_mem.c - the memory syscalls: mmap, munmap, mprotect, mremap, brk and
 * madvise, mirrored into every engine by mm.c.
 *
 * A change of the map updates every engine of the process in place, so it
 * must not race with another thread's engine running guest code: the
 * changing calls hold the emulator lock (thread_lock.h; a no-op while the
 * process has one thread), which no thread holds while it runs code. This
 * is the kernel's TLB shootdown, done by waiting instead of interrupting.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sim/linux/guest.h"
#include "sim/linux/sys_handlers.h"
#if __has_include("sim/linux/thread_lock.h")
#include "sim/linux/thread_lock.h"
#else
#define thread_lock_acquire(t) ((void)(t))
#define thread_lock_release(t) ((void)(t))
#endif

/* Runs expr with the emulator lock held. */
#define LOCKED(t, expr) ({ long _r; thread_lock_acquire(t); _r = (expr); \
			   thread_lock_release(t); _r; })

long sys_mmap(struct guest_thread *t, const uint64_t a[6])
{
	/* ksys_mmap_pgoff(): offset must be page aligned */
	if (a[5] & 0xfff)
		return -EINVAL;
	return LOCKED(t, guest_mmap(&t->proc->mm, a[0], a[1], (int)a[2], (int)a[3], (int)a[4], a[5]));
}

long sys_munmap(struct guest_thread *t, const uint64_t a[6])
{
	return LOCKED(t, guest_munmap(&t->proc->mm, a[0], a[1]));
}

long sys_mprotect(struct guest_thread *t, const uint64_t a[6])
{
	return LOCKED(t, guest_mprotect(&t->proc->mm, a[0], a[1], (int)a[2]));
}

/* Without protection keys only pkey -1 is accepted (mm/mprotect.c). */
long sys_pkey_mprotect(struct guest_thread *t, const uint64_t a[6])
{
	if ((int)a[3] != -1)
		return -EINVAL;
	return LOCKED(t, guest_mprotect(&t->proc->mm, a[0], a[1], (int)a[2]));
}

long sys_mremap(struct guest_thread *t, const uint64_t a[6])
{
	return LOCKED(t, guest_mremap(&t->proc->mm, a[0], a[1], a[2], (int)a[3], a[4]));
}

long sys_brk(struct guest_thread *t, const uint64_t a[6])
{
	return LOCKED(t, guest_brk(&t->proc->mm, a[0]));
}

/* madvise() reaches the host only for guest memory; an unmapped part gives
 * -ENOMEM as madvise_walk_vmas() does. */
long sys_madvise(struct guest_thread *t, const uint64_t a[6])
{
	uint64_t len = (a[1] + 0xfff) & ~0xfffull;

	if (a[0] & 0xfff)
		return -EINVAL;
	if (!len)
		return 0;
	if (!guest_mm_access_ok(&t->proc->mm, a[0], len, 0))
		return -ENOMEM;
	return madvise((void *)(uintptr_t)a[0], len, (int)a[2]) ? -errno : 0;
}
