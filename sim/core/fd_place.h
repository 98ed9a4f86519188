/*
 * fd_place.h - host descriptors that pmusim keeps out of a program's way:
 * placed at chosen numbers (a window above the numbers programs use),
 * whatever the caller's soft RLIMIT_NOFILE. fcntl(F_DUPFD, arg) fails with
 * EINVAL when arg is at or above the soft limit (f_dupfd()), so the soft
 * limit is raised for the moment of the dup and put back at once: an open
 * fd above the soft limit stays valid, and the program's own limit, as
 * getrlimit shows it, is what it was before and after.
 */
#ifndef PMUSIM_FD_PLACE_H
#define PMUSIM_FD_PLACE_H

#include <stdbool.h>

/* How the placement makes its syscalls: syscall(2)'s shape (nr, six
 * arguments). The shim passes its trampoline (a dup of a perf fd must not
 * trap again); NULL: the plain system calls. */
typedef long (*fd_place_sys)(long nr, long a1, long a2, long a3, long a4, long a5, long a6);

/* Dups fd to the lowest (top: the highest) free number in [lo, hi), close
 * on exec or not. The soft limit (and, for a caller allowed to, the hard
 * limit: CAP_SYS_RESOURCE) is raised to hi for the duration of the call
 * and restored. fd itself stays open. Returns the new fd, or -EMFILE when
 * [lo, hi) is full, -EPERM when the hard limit is below hi and may not be
 * raised, another -errno otherwise. */
int fd_place(fd_place_sys sys, int fd, int lo, int hi, bool top, bool cloexec);

/* Calls fn(ctx, fd) for each fd open in [lo, hi), in order. One
 * zero-timeout ppoll tells which (POLLNVAL: not open), in pieces no longer
 * than the soft limit (do_sys_poll(): nfds above it is EINVAL). Returns 0
 * or -errno. */
int fd_scan_open(fd_place_sys sys, int lo, int hi, void (*fn)(void *ctx, int fd), void *ctx);

/* The soft and the hard RLIMIT_NOFILE (RLIM_INFINITY as INT_MAX), or
 * -errno. */
long fd_soft_limit(void);
long fd_hard_limit(void);

#endif
