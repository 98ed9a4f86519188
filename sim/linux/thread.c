/*
 * thread.c - guest threads: clone(2) with CLONE_VM|CLONE_THREAD (what
 * glibc's pthread_create() passes), clone3(2) (ENOSYS, so glibc falls back
 * to clone, as under qemu-user), exit(2) of one thread, and the thread exit
 * path (clear_child_tid, the last thread ending the process).
 *
 * Each guest thread runs on its own host thread with its own vCPU (Unicorn
 * engine) over the process's one address space (mm.h mirrors every map
 * change into every engine). The guest tid is the host thread's tid, so
 * tgkill, futexes and /proc/self/task need no translation.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sim/cpu/vcpu.h"
#include "sim/linux/futex.h"
#include "sim/linux/guest.h"
#include "sim/linux/process.h"
#include "sim/linux/signal.h"
#include "sim/linux/linux_arch.h"
#include "sim/linux/signal_frame.h"
#include "sim/linux/thread.h"
#include "sim/linux/thread_lock.h"

/* The start of a cloned thread, handed from the parent's host thread. */
struct thread_start {
	struct guest_thread *t;
	struct guest_regs regs;        /* the child's registers at its start */
	uint64_t flags, ptid, ctid;
	sem_t started;                 /* the child's tid is known, ptid written */
	int tid;
	int err;
};

static void *thread_main(void *arg);

/* The host thread that started the process (its leader's). */
static pthread_t leader_thread;
static bool leader_known;

void thread_set_leader(void)
{
	leader_thread = pthread_self();
	leader_known = true;
}

/*
 * clone(flags, newsp, parent_tid, child_tid, tls) for a new thread in the
 * same process (CLONE_VM with CLONE_THREAD or not: a CLONE_VM sibling that
 * is not a thread is run the same way, it shares memory and gets its own
 * tid). Returns the new tid, or a negative errno (copy_process() checks).
 */
long thread_clone(struct guest_thread *t, uint64_t flags, uint64_t newsp,
		  uint64_t ptid, uint64_t ctid, uint64_t tls)
{
	struct guest_process *p = t->proc;
	struct thread_start *ts;
	struct guest_thread *nt;
	pthread_attr_t attr;
	pthread_t th;
	long ret;
	int e;

	/* copy_process(): CLONE_THREAD needs CLONE_SIGHAND, which needs CLONE_VM */
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;

	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -ENOMEM;
	nt = guest_thread_new(p);
	if (!nt) {
		ret = -ENOMEM;
		goto err_free;
	}
	if (sem_init(&ts->started, 0, 0)) {
		ret = -ENOMEM;
		goto err_thread;
	}
	ts->t = nt;
	ts->flags = flags;
	ts->ptid = ptid;
	ts->ctid = ctid;

	/* the child resumes after the SYSCALL with RAX 0 on its own stack */
	signal_regs_read(t, &ts->regs);
	p->arch->regs_clone_child(&ts->regs, newsp);
	nt->fs_base = (flags & CLONE_SETTLS) ? tls : t->fs_base;
	nt->gs_base = t->gs_base;
	nt->clear_child_tid = (flags & CLONE_CHILD_CLEARTID) ? ctid : 0;
	nt->sigmask = t->sigmask;
	/* copy_process(): a CLONE_VM child without CLONE_VFORK gets no altstack */
	memset(&nt->altstack, 0, sizeof(nt->altstack));
	nt->altstack.ss_flags = SS_DISABLE;

	if (pthread_attr_init(&attr)) {
		ret = -ENOMEM;
		goto err_sem;
	}
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 1u << 20);
	guest_thread_attach(nt);
	if (thread_lock_enable()) {
		guest_thread_detach(nt);
		pthread_attr_destroy(&attr);
		ret = -EAGAIN;
		goto err_sem;
	}
	/* the host thread inherits this thread's host mask = the guest mask */
	e = pthread_create(&th, &attr, thread_main, ts);
	pthread_attr_destroy(&attr);
	if (e) {
		guest_thread_detach(nt);
		ret = -EAGAIN;   /* copy_process() out of resources */
		goto err_sem;
	}
	while (sem_wait(&ts->started) && errno == EINTR)
		;
	ret = ts->err ? ts->err : ts->tid;
	sem_destroy(&ts->started);
	free(ts);
	return ret;

err_sem:
	sem_destroy(&ts->started);
err_thread:
	guest_thread_free(nt);
err_free:
	free(ts);
	return ret;
}

static void *thread_main(void *arg)
{
	struct thread_start *ts = arg;
	struct guest_thread *t = ts->t;
	struct guest_regs *regs;
	enum guest_run_state st;
	int tid = (int)syscall(SYS_gettid);

	t->tid = tid;
	regs = malloc(sizeof(*regs));
	if (!regs || signal_thread_init(t)) {
		free(regs);
		ts->err = -ENOMEM;
		sem_post(&ts->started);
		thread_exit(t, 0);
	}
	*regs = ts->regs;
	/* copy_process(): parent_tid is written before the child runs;
	 * schedule_tail(): the child writes child_tid itself */
	if ((ts->flags & CLONE_PARENT_SETTID) &&
	    guest_mm_access_ok(&t->proc->mm, ts->ptid, 4, PROT_WRITE))
		*(int *)(uintptr_t)ts->ptid = tid;
	if ((ts->flags & CLONE_CHILD_SETTID) &&
	    guest_mm_access_ok(&t->proc->mm, ts->ctid, 4, PROT_WRITE))
		*(int *)(uintptr_t)ts->ctid = tid;
	ts->tid = tid;
	sem_post(&ts->started);   /* ts belongs to the parent from here */

	/* the engine is set up under the emulator lock: address-space calls
	 * of other threads change every engine, this one included (the
	 * parent holds the lock until its clone returns) */
	thread_lock_acquire(t);
	signal_regs_write(t, regs);
	free(regs);
	vcpu_set_tls(t->cpu, t->fs_base);
	if (t->gs_base)
		vcpu_set_gs(t->cpu, t->gs_base);
	guest_mm_sync(&t->proc->mm, t->cpu);

	st = guest_thread_run(t);
	thread_finish(t, st);
	return NULL;
}

void thread_finish(struct guest_thread *t, enum guest_run_state st)
{
	switch (st) {
	case GUEST_EXIT_GROUP:
		process_exit_group(t, t->exit_code);
	case GUEST_KILLED:
		futex_exit_robust_lists(t->proc, t, false);
		signal_die(t->term_sig);
	default:
		thread_exit(t, t->exit_code);
	}
}

/*
 * do_exit() for one thread: the robust list, clear_child_tid and its wake
 * (exit_mm_release()),
 * then the thread is gone. The last thread of the process ends it with its
 * own status, as the kernel's group exit with that code does. The leader's
 * host thread leaves with a bare exit so the process lives on (glibc's
 * pthread_exit() would end the process with status 0 when it counts no
 * other host thread of its own).
 */
__attribute__((noreturn)) void thread_exit(struct guest_thread *t, int code)
{
	futex_exit_robust_list(t);      /* exit_mm_release(): robust list first */
	futex_clear_child_tid(t);
	if (guest_last_thread(t))
		process_exit_group(t, code);
	guest_thread_detach(t);
	signal_thread_fini(t);
	thread_lock_release(t);
	/* the engine is not freed: another thread may be reading p->threads */
	if (leader_known && pthread_equal(pthread_self(), leader_thread))
		for (;;)
			syscall(SYS_exit, 0);
	pthread_exit(NULL);
}

/* exit(code): this thread only. */
long sys_exit(struct guest_thread *t, const uint64_t a[6])
{
	t->exit_code = (int)(a[0] & 0xff);
	t->state = GUEST_EXITED;
	vcpu_stop(t->cpu);
	return 0;
}

/* clone(flags, newsp, parent_tid, child_tid, tls): the x86-64 argument order. */
long sys_clone(struct guest_thread *t, const uint64_t a[6])
{
	uint64_t flags = a[0];

	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		return thread_clone(t, flags, a[1], a[2], a[3], a[4]);
	/* fork-like: CLONE_VM|CLONE_VFORK (posix_spawn) runs as a vfork with
	 * its own copy of memory, as qemu-user does */
	return process_fork(t, flags, a[1], a[2], a[3], a[4]);
}

/* clone3(): ENOSYS, so glibc falls back to clone() (qemu-user 7.2 does not
 * implement it either). */
long sys_clone3(struct guest_thread *t, const uint64_t a[6])
{
	(void)t; (void)a;
	return -ENOSYS;
}

long sys_gettid(struct guest_thread *t, const uint64_t a[6])
{
	(void)a;
	return t->tid;
}
