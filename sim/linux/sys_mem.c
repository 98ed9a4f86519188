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
#include <pthread.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>
#include "sim/linux/guest.h"
#include "sim/linux/sys_handlers.h"
#include "sim/linux/thread_lock.h"

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

/*
 * shmat(): the host attaches (at the guest's address with SHM_REMAP only
 * over guest memory), then the segment becomes guest memory; its size is
 * the segment's (shm_segsz, rounded to pages as do_shmat() maps it).
 */
static long do_shmat(struct guest_thread *t, const uint64_t a[6])
{
	struct shmid_ds ds;
	void *p;
	int prot = PROT_READ;

	if (shmctl((int)a[0], IPC_STAT, &ds))
		return -errno;
	if (a[1] && ((int)a[2] & SHM_REMAP) &&
	    !guest_mm_access_ok(&t->proc->mm, a[1] & ~(uint64_t)(SHMLBA - 1), ds.shm_segsz, 0))
		return -EINVAL;
	if (a[1] && !((int)a[2] & SHM_REMAP) &&
	    guest_mm_access_ok(&t->proc->mm, a[1], 1, 0))
		return -EINVAL;   /* do_shmat(): an existing mapping without SHM_REMAP */
	p = shmat((int)a[0], (void *)(uintptr_t)a[1], (int)a[2]);
	if (p == (void *)-1)
		return -errno;
	if (!((int)a[2] & SHM_RDONLY))
		prot |= PROT_WRITE;
	if ((int)a[2] & SHM_EXEC)
		prot |= PROT_EXEC;
	if (guest_mm_adopt(&t->proc->mm, (uint64_t)(uintptr_t)p, ds.shm_segsz, prot, MAP_SHARED)) {
		shmdt(p);
		return -ENOMEM;
	}
	return (long)(uintptr_t)p;
}

long sys_shmat(struct guest_thread *t, const uint64_t a[6])
{
	return LOCKED(t, do_shmat(t, a));
}

/* shmdt(): the segment attached at addr (found in the host's own records by
 * detaching it), then forgotten by every engine. */
static long do_shmdt(struct guest_thread *t, const uint64_t a[6])
{
	struct guest_vma *v = NULL;
	uint64_t len = 0;

	pthread_mutex_lock(&t->proc->mm.lock);
	for (size_t i = 0; i < t->proc->mm.nr; i++)
		if (t->proc->mm.vma[i].start == a[0] && (t->proc->mm.vma[i].flags & MAP_SHARED))
			v = &t->proc->mm.vma[i];
	if (v)
		len = v->end - v->start;
	pthread_mutex_unlock(&t->proc->mm.lock);
	if (!v)
		return -EINVAL;
	guest_mm_forget(&t->proc->mm, a[0], len);
	if (shmdt((void *)(uintptr_t)a[0]))
		return -errno;
	return 0;
}

long sys_shmdt(struct guest_thread *t, const uint64_t a[6])
{
	return LOCKED(t, do_shmdt(t, a));
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
	if (madvise((void *)(uintptr_t)a[0], len, (int)a[2]))
		return -errno;
	switch ((int)a[2]) {
	case MADV_DONTNEED:
	case MADV_REMOVE:
	case 24:    /* MADV_DONTNEED_LOCKED */
		/* zap_page_range(): the next touch faults again */
		LOCKED(t, (guest_mm_zap(&t->proc->mm, a[0], a[0] + len), 0));
		break;
	case 22:    /* MADV_POPULATE_READ: faultin_page(), not a user fault */
	case 23:    /* MADV_POPULATE_WRITE */
		guest_mm_populate(&t->proc->mm, a[0], a[0] + len, (int)a[2] == 23);
		break;
	default:    /* MADV_FREE and the rest leave the pages mapped */
		break;
	}
	return 0;
}
