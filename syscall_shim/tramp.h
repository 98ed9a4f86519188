/*
 * tramp.h - the trampoline page and the seccomp filter of the shim.
 *
 * The filter (installed once per process tree; it survives fork and exec)
 * traps perf_event_open, prctl(PR_TASK_PERF_EVENTS_*), execve/execveat,
 * close_range, munmap of an address in the ring region (PMUSIM_RING_ADDR),
 * and the fd syscalls (read, ioctl, mmap, close, fcntl, dup*,
 * ...) only when their fd lies in [SHIM_FD_BASE, SHIM_FD_END), and
 * answers rt_sigaction(SIGSYS, act != NULL) with 0 without running it (the
 * shim's handler stays). Syscalls made from the trampoline page at
 * PMUSIM_TRAMP_ADDR always pass: the SIGSYS handler makes its real
 * syscalls through tramp_syscall().
 */
#ifndef PMUSIM_SHIM_TRAMP_H
#define PMUSIM_SHIM_TRAMP_H

#include <signal.h>
#include <stdbool.h>

/* Maps the trampoline at its fixed address (or checks the one there).
 * Returns 0 or -errno. */
int tramp_map(void);
/* A raw syscall from the trampoline: returns the kernel's value (-errno on
 * failure, no errno set). */
long tramp_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
/* Installs handler for sig (SA_SIGINFO, flags, the first 64 signals of
 * mask blocked while it runs) with a raw rt_sigaction from the trampoline:
 * the filter answers any other rt_sigaction of SIGSYS with 0 and leaves
 * the action alone. Returns 0 or -errno. */
int tramp_sigaction(int sig, void (*handler)(int, siginfo_t *, void *), int flags,
		    const sigset_t *mask);
/* Whether this process tree already runs under the shim's filter. */
bool tramp_filter_present(void);
/* Installs the filter on every thread; fd syscalls trap on the first
 * window of perf fds and on the second at fd_base2 (0: none). Returns 0
 * or -errno. */
int tramp_filter_install(unsigned fd_base2);
/* The second filter, trapping poll and ppoll, for processes that hold perf
 * fds (they answer poll as perf_poll does). Same conventions. */
bool tramp_poll_filter_present(void);
int tramp_poll_filter_install(void);

#define TSYS0(nr) tramp_syscall((nr), 0, 0, 0, 0, 0, 0)
#define TSYS1(nr, a) tramp_syscall((nr), (long)(a), 0, 0, 0, 0, 0)
#define TSYS2(nr, a, b) tramp_syscall((nr), (long)(a), (long)(b), 0, 0, 0, 0)
#define TSYS3(nr, a, b, c) tramp_syscall((nr), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define TSYS4(nr, a, b, c, d) tramp_syscall((nr), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define TSYS6(nr, a, b, c, d, e, f) \
	tramp_syscall((nr), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

#endif
