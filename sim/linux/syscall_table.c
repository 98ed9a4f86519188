/*
 * syscall_table.c - the x86-64 syscall dispatch table, indexed by syscall
 * number (designated initialisers), and the dispatcher with its generic
 * helpers (passthrough, guest string copy, one-time ENOSYS warnings).
 *
 * Rows are grouped by the file that holds the handler: sys_file.c,
 * sys_mem.c, sys_time.c, sys_misc.c, signal*.c, thread*.c, futex*.c,
 * process*.c. A row of
 * PASS() goes straight to the host: guest pointers are host pointers and
 * guest fds are host fds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sim/linux/futex.h"
#include "sim/linux/guest.h"
#include "sim/linux/linux_arch.h"
#include "sim/linux/process.h"
#include "sim/linux/procfs.h"
#include "sim/linux/signal.h"
#include "sim/linux/sys_handlers.h"
#include "sim/linux/sys_perf.h"
#include "sim/linux/thread.h"

#define ROW(name, fn) [__NR_##name] = { #name, fn }
#define PASS(name) ROW(name, sys_pass)
#define OWN(name) ROW(name, sys_##name)

const struct guest_syscall_entry guest_syscall_table[GUEST_NR_SYSCALLS] = {
	/* ---- files, pipes, sockets, poll (sys_file.c or host) ---- */
	ROW(read, sys_perf_read), OWN(write), OWN(open), ROW(close, sys_perf_close), OWN(stat), PASS(fstat),
	OWN(lstat), ROW(poll, sys_perf_poll), ROW(lseek, sys_perf_no_op), ROW(ioctl, sys_perf_ioctl), ROW(pread64, sys_perf_no_op),
	ROW(pwrite64, sys_perf_no_op), ROW(readv, sys_perf_readv), ROW(writev, sys_perf_no_op), OWN(access), PASS(pipe),
	ROW(select, sys_perf_select), ROW(dup, sys_perf_dup), ROW(dup2, sys_perf_dup2), PASS(sendfile), PASS(socket),
	PASS(connect), PASS(accept), PASS(sendto), PASS(recvfrom), ROW(sendmsg, sys_perf_sendmsg),
	ROW(recvmsg, sys_perf_recvmsg), PASS(shutdown), PASS(bind), PASS(listen), PASS(getsockname),
	PASS(getpeername), PASS(socketpair), PASS(setsockopt), PASS(getsockopt),
	ROW(fcntl, sys_perf_fcntl), PASS(flock), ROW(fsync, sys_perf_no_op), ROW(fdatasync, sys_perf_no_op), OWN(truncate),
	OWN(ftruncate), ROW(getdents, procfs_getdents), PASS(getcwd), PASS(chdir), PASS(fchdir),
	PASS(rename), PASS(mkdir), PASS(rmdir), OWN(creat), PASS(link),
	PASS(unlink), PASS(symlink), OWN(readlink), PASS(chmod), PASS(fchmod),
	PASS(chown), PASS(fchown), PASS(lchown), PASS(umask), PASS(utime),
	PASS(mknod), PASS(statfs), PASS(fstatfs), PASS(readahead),
	PASS(setxattr), PASS(lsetxattr), PASS(fsetxattr), PASS(getxattr),
	PASS(lgetxattr), PASS(fgetxattr), PASS(listxattr), PASS(llistxattr),
	PASS(flistxattr), PASS(removexattr), PASS(lremovexattr), PASS(fremovexattr),
	PASS(epoll_create), ROW(getdents64, procfs_getdents), PASS(fadvise64),
	ROW(epoll_wait, sys_perf_epoll_wait), ROW(epoll_ctl, sys_perf_epoll_ctl), PASS(utimes),
	PASS(inotify_init), PASS(inotify_add_watch),
	PASS(inotify_rm_watch), OWN(openat), PASS(mkdirat), PASS(mknodat),
	PASS(fchownat), PASS(futimesat), OWN(newfstatat), PASS(unlinkat),
	PASS(renameat), PASS(linkat), PASS(symlinkat), OWN(readlinkat),
	PASS(fchmodat), OWN(faccessat), ROW(pselect6, sys_perf_pselect6), ROW(ppoll, sys_perf_ppoll), PASS(splice),
	PASS(tee), PASS(sync_file_range), PASS(vmsplice), PASS(utimensat),
	ROW(epoll_pwait, sys_perf_epoll_wait), PASS(timerfd_create), PASS(eventfd), PASS(fallocate),
	PASS(timerfd_settime), PASS(timerfd_gettime), PASS(accept4), PASS(eventfd2),
	PASS(epoll_create1), ROW(dup3, sys_perf_dup3), PASS(pipe2), PASS(inotify_init1),
	ROW(preadv, sys_perf_no_op), ROW(pwritev, sys_perf_no_op), ROW(recvmmsg, sys_perf_recvmmsg), PASS(fanotify_init),
	PASS(fanotify_mark), PASS(name_to_handle_at), PASS(open_by_handle_at),
	PASS(syncfs), ROW(sendmmsg, sys_perf_sendmmsg), PASS(renameat2), PASS(memfd_create),
	PASS(copy_file_range), ROW(preadv2, sys_perf_readv), ROW(pwritev2, sys_perf_no_op), OWN(statx),
	ROW(close_range, sys_perf_close_range), OWN(openat2), OWN(faccessat2), ROW(epoll_pwait2, sys_perf_epoll_wait),
	PASS(sync), PASS(msync), PASS(mincore), PASS(mlock), PASS(munlock),
	PASS(mlockall), PASS(munlockall), PASS(mlock2),

	/* ---- memory (sys_mem.c) ---- */
	ROW(mmap, sys_perf_mmap), ROW(munmap, sys_perf_munmap), OWN(mprotect), OWN(mremap), OWN(brk), OWN(madvise),
	OWN(pkey_mprotect), OWN(shmat), OWN(shmdt),
	/* NUMA policy: of the host memory that is the guest's (perf reads it) */
	PASS(get_mempolicy), PASS(set_mempolicy), PASS(mbind),

	/* ---- time (sys_time.c or host) ---- */
	OWN(clock_gettime), OWN(gettimeofday), OWN(time), PASS(clock_getres),
	PASS(nanosleep), PASS(clock_nanosleep), PASS(times), PASS(timer_create),
	PASS(timer_settime), PASS(timer_gettime), PASS(timer_getoverrun),
	PASS(timer_delete), PASS(adjtimex), PASS(clock_adjtime),

	/* ---- identity, limits, random, scheduling, system ---- */
	PASS(getpid), PASS(getppid), PASS(getuid), PASS(geteuid), PASS(getgid),
	PASS(getegid), PASS(setuid), PASS(setgid), PASS(setpgid), PASS(getpgrp),
	PASS(setsid), PASS(setreuid), PASS(setregid), PASS(getgroups),
	PASS(setgroups), PASS(setresuid), PASS(getresuid), PASS(setresgid),
	PASS(getresgid), PASS(getpgid), PASS(setfsuid), PASS(setfsgid), PASS(getsid),
	PASS(capget), PASS(capset), PASS(uname), PASS(sysinfo), PASS(getrlimit),
	PASS(setrlimit), PASS(prlimit64), PASS(getrusage), PASS(getpriority),
	PASS(setpriority), PASS(sched_yield), PASS(sched_setparam),
	PASS(sched_getparam), PASS(sched_setscheduler), PASS(sched_getscheduler),
	PASS(sched_get_priority_max), PASS(sched_get_priority_min),
	PASS(sched_rr_get_interval), ROW(sched_setaffinity, sys_perf_sched_setaffinity),
	ROW(sched_getaffinity, sys_perf_sched_getaffinity),
	PASS(sched_setattr), PASS(sched_getattr), PASS(getrandom), ROW(getcpu, sys_perf_getcpu),
	PASS(personality), PASS(syslog), PASS(sethostname), PASS(setdomainname),
	PASS(ioprio_set), PASS(ioprio_get), PASS(membarrier), PASS(pidfd_open),
	ROW(pidfd_getfd, sys_perf_pidfd_getfd), PASS(process_vm_readv), PASS(process_vm_writev),
	PASS(kcmp), PASS(getitimer), PASS(semget), PASS(semop), PASS(semctl),
	PASS(semtimedop), PASS(msgget), PASS(msgsnd), PASS(msgrcv), PASS(msgctl),
	PASS(shmget), PASS(shmctl), PASS(mq_open), PASS(mq_unlink),
	PASS(mq_timedsend), PASS(mq_timedreceive), PASS(mq_notify),
	PASS(mq_getsetattr), PASS(chroot), PASS(acct), PASS(unshare),
	PASS(setns), PASS(mount), PASS(umount2), PASS(settimeofday),
	PASS(clock_settime), PASS(vhangup), PASS(quotactl), PASS(ustat),
	OWN(arch_prctl), ROW(prctl, sys_perf_prctl),
	ROW(ptrace, sys_eperm), ROW(seccomp, sys_enosys), ROW(bpf, sys_enosys),
	ROW(userfaultfd, sys_enosys), ROW(set_thread_area, sys_enosys),
	ROW(get_thread_area, sys_enosys), ROW(io_uring_setup, sys_enosys),
	ROW(modify_ldt, sys_enosys), ROW(pkey_alloc, sys_enosys),
	/* rseq: glibc then runs without restartable sequences */
	ROW(rseq, sys_enosys),

	/* ---- signals (signal*.c) ---- */
	OWN(rt_sigaction), OWN(rt_sigprocmask), OWN(rt_sigreturn), OWN(sigaltstack),
	OWN(rt_sigpending), OWN(rt_sigsuspend), OWN(rt_sigtimedwait), OWN(pause),
	OWN(kill), OWN(tgkill), OWN(tkill), OWN(rt_sigqueueinfo),
	OWN(rt_tgsigqueueinfo), OWN(setitimer), OWN(alarm),
	OWN(signalfd4), OWN(signalfd),

	/* ---- threads and futexes (thread*.c, futex*.c) ---- */
	OWN(exit), ROW(clone, sys_perf_clone), OWN(clone3), OWN(gettid), OWN(futex),
	OWN(set_tid_address), OWN(set_robust_list), OWN(get_robust_list),

	/* ---- processes (process*.c) ---- */
	ROW(fork, sys_perf_fork), ROW(vfork, sys_perf_vfork), OWN(execve), OWN(execveat), OWN(wait4), OWN(waitid),
	OWN(exit_group),

	/* ---- perf_event (sys_perf.c; the read, write(v), pread/pwrite,
	 * lseek, ioctl, close(_range), dup*, fcntl, send(m)msg, recv(m)msg,
	 * pidfd_getfd, mmap, munmap, poll, ppoll and prctl rows above go
	 * there too) ---- */
	ROW(perf_event_open, sys_perf_event_open),
};

long sys_pass(struct guest_thread *t, const uint64_t a[6])
{
	long r = guest_uptr_check(t, a);

	if (r)
		return r;
	/* signal.c's safe host call: no sleep with a caught signal waiting */
	return signal_host_syscall(t, (long)t->syscall_nr, a);
}

bool guest_access_ok(struct guest_thread *t, uint64_t addr, uint64_t len, int prot)
{
	return guest_mm_access_ok_hint(&t->proc->mm, addr, len, prot, &t->uptr_hint);
}

long guest_copy_str(struct guest_thread *t, uint64_t addr, char *buf, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint64_t a = addr + i;
		uint64_t page_end = (a | 0xfff) + 1;
		size_t chunk = (size_t)(page_end - a);

		if (!guest_access_ok(t, a, 1, PROT_READ))
			return -EFAULT;
		if (chunk > n - i)
			chunk = n - i;
		const char *src = (const char *)(uintptr_t)a;
		const char *z = memchr(src, 0, chunk);

		if (z) {
			memcpy(buf + i, src, (size_t)(z - src) + 1);
			return (long)(i + (size_t)(z - src));
		}
		memcpy(buf + i, src, chunk);
		i += chunk;
	}
	return -ENAMETOOLONG;
}

int guest_copy_from(struct guest_thread *t, void *dst, uint64_t src, size_t n)
{
	if (!n)
		return 0;
	if (!guest_mm_access_ok(&t->proc->mm, src, n, PROT_READ))
		return -EFAULT;
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

int guest_copy_to(struct guest_thread *t, uint64_t dst, const void *src, size_t n)
{
	if (!n)
		return 0;
	if (!guest_mm_access_ok(&t->proc->mm, dst, n, PROT_WRITE))
		return -EFAULT;
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}

long guest_syscall(struct guest_thread *t, unsigned long nr, const uint64_t a[6])
{
	long ret;

	const struct guest_syscall_entry *ovr = t->proc->arch->overrides;

	t->syscall_nr = nr;
	if (nr < GUEST_NR_SYSCALLS && guest_syscall_table[nr].fn) {
		/* a signal already queued is taken before the call runs */
		if (signal_syscall_enter(t))
			ret = -SIG_ERESTARTNOINTR;
		else if (ovr && ovr[nr].fn)
			ret = ovr[nr].fn(t, a);
		else
			ret = guest_syscall_table[nr].fn(t, a);
		signal_syscall_exit(t);
	} else {
		/* one warning per syscall number and process */
		if (nr < GUEST_NR_SYSCALLS) {
			uint64_t bit = 1ull << (nr % 64);

			if (!(__atomic_fetch_or(&t->proc->warned[nr / 64], bit, __ATOMIC_RELAXED) & bit)) {
				const char *name = guest_syscall_name(nr);

				if (name)
					fprintf(stderr, "pmusim: unsupported syscall %s (%lu): ENOSYS\n", name, nr);
				else
					fprintf(stderr, "pmusim: unsupported syscall %lu: ENOSYS\n", nr);
			}
		} else {
			fprintf(stderr, "pmusim: unsupported syscall %lu: ENOSYS\n", nr);
		}
		ret = -ENOSYS;
	}
	/* -EINTR from an interrupted host call: the kernel's restart rules */
	return signal_syscall_restart(t, nr, a, ret);
}
