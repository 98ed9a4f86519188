/*
 * sys_perf.h - the guest's perf_event interface under `pmusim exec`: one
 * simulated perf core per pmusim process (sim/core), core tasks for the
 * guest's threads, the vCPU accounting of each thread (sim/cpu/pmu_machine.h),
 * and the perf syscalls (perf_event_open, read, ioctl, close, dup, mmap,
 * munmap, poll, fcntl, prctl) on guest fds that are real host fds (a memfd
 * per perf file) mapped to core file handles.
 *
 * CPU assignment: the k-th guest thread created in a process (k = 0 for the
 * first) runs on simulated CPU k mod --cpus.
 */
#ifndef PMUSIM_SYS_PERF_H
#define PMUSIM_SYS_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct guest_thread;
struct perf_core;
struct perf_machine;
struct guest_process;
struct pmu_model;

/* Creates the core (heap arena) for model with nr_cpus simulated CPUs, and
 * the core task of the first guest thread t (comm: the program's name). */
int perf_guest_start(struct guest_process *p, struct guest_thread *t,
		     const struct pmu_model *model, unsigned nr_cpus, const char *comm);
/* The same over a core that exists (a `pmusim run` session's, joined by
 * the caller with perf_guest_machine()): the task of t's tid if the core
 * knows it (enable_on_exec events then start), else a new one. path is
 * the program as execve named it (sched_process_exec's filename); the
 * comm is its last component. */
int perf_guest_start_core(struct guest_process *p, struct guest_thread *t,
			  struct perf_core *core, const char *path);
/* A core in a shared arena at addr (every process of the emulated tree
 * maps it there: fork shares it, execve re-attaches through the memfd
 * duplicated at the highest free *fd in [fd_lo, fd_hi), inheritable). */
int perf_guest_arena_create(const struct pmu_model *model, unsigned nr_cpus, void *addr,
			    size_t size, int fd_lo, int fd_hi, struct perf_core **core, int *fd);
/* A process after execve: the core of the arena whose memfd is fd. */
int perf_guest_arena_attach(int fd, void *addr, struct perf_core **core);
/* The machine hooks of this process's guest (fill_sample, wakeup, fasync). */
const struct perf_machine *perf_guest_machine(void);
/* The core this process's guest drives, or NULL before it has one. */
struct perf_core *perf_guest_core(void);

/* A `pmusim run` session's pieces, which live in the pmusim executable
 * (syscall_shim/session.c): files of native clients are woken and signalled
 * through the session; adopt makes the task's exit POLLHUP their fds. */
struct perf_guest_session_hooks {
	bool (*owns)(int handle);
	void (*wakeup)(void *ctx, int handle);
	void (*fasync)(void *ctx, int handle, int si_code);
	int (*adopt)(pid_t tid);
};
void perf_guest_set_session(const struct perf_guest_session_hooks *hooks);
/* Whether the core is a session's (shared with other processes). */
bool perf_guest_shared(void);

/* guest_thread_new() on the creating thread: t's vCPU gets its pmu state. */
void perf_guest_thread_prepare(struct guest_thread *t);
/* A new guest thread t (host thread running it, tid known): its core task
 * inherits from the thread that created it (perf_event_init_task). */
int perf_guest_thread_start(struct guest_thread *t);
/* Thread t's guest code ended (exit, exit_group, death by signal). */
/* The thread gives its turn away between blocks (thread_lock_yield): it
 * drops the perf core lock its running engine keeps. */
void perf_guest_thread_yield(struct guest_thread *t);
void perf_guest_thread_exit(struct guest_thread *t);
/* Thread t dies by a signal's default action (pmusim is killed next):
 * its task exits first, as do_exit() runs perf_event_exit_task(). */
void perf_guest_thread_killed(struct guest_thread *t);
/* A SIGKILL was sent to process pid: once it is dead (it must be a child
 * of this process to be waited for), its task exits in a session's core. */
void perf_guest_process_killed(struct guest_thread *t, pid_t pid);
/* execve, just before the host exec: the rings are unmapped and the
 * close-on-exec perf fds closed (the new image finds the others when it
 * starts, perf_guest_start_core); perf_guest_exec_failed() when the host
 * exec failed: those fds are perf fds again. */
void perf_guest_exec_begin(void);
void perf_guest_exec_failed(void);

long sys_perf_event_open(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_sched_setaffinity(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_sched_getaffinity(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_getcpu(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_read(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_readv(struct guest_thread *t, const uint64_t a[6]);  /* and preadv2 */
long sys_perf_ioctl(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_close(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_close_range(struct guest_thread *t, const uint64_t a[6]);
/* write, writev, pread64, pwrite64, preadv, pwritev, pwritev2, lseek,
 * fsync, fdatasync, ftruncate */
long sys_perf_no_op(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_sendmsg(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_sendmmsg(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_recvmsg(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_recvmmsg(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_pidfd_getfd(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_dup(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_dup2(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_dup3(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_fcntl(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_mmap(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_munmap(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_poll(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_ppoll(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_select(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_pselect6(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_epoll_ctl(struct guest_thread *t, const uint64_t a[6]);
/* epoll_wait, epoll_pwait and epoll_pwait2 (t->syscall_nr tells them apart) */
long sys_perf_epoll_wait(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_prctl(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_fork(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_vfork(struct guest_thread *t, const uint64_t a[6]);
long sys_perf_clone(struct guest_thread *t, const uint64_t a[6]);

#endif
