/*
 * fd_place.c - descriptors placed above a program's soft RLIMIT_NOFILE
 * (fd_place.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sim/core/fd_place.h"

static long plain_sys(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long r = syscall(nr, a1, a2, a3, a4, a5, a6);

	return r < 0 ? -errno : r;
}

static long nofile(bool hard)
{
	struct rlimit rl;
	rlim_t v;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	v = hard ? rl.rlim_max : rl.rlim_cur;
	return v > INT_MAX ? INT_MAX : (long)v;
}

long fd_soft_limit(void)
{
	return nofile(false);
}

long fd_hard_limit(void)
{
	return nofile(true);
}

/* F_DUPFD(at) and a check that the result lies below hi (closed if not). */
static long dup_at(fd_place_sys sys, int fd, int at, int hi, bool cloexec)
{
	long r = sys(SYS_fcntl, fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, at, 0, 0, 0);

	if (r >= hi) {
		sys(SYS_close, r, 0, 0, 0, 0, 0);
		return -EMFILE;
	}
	return r;
}

int fd_place(fd_place_sys sys, int fd, int lo, int hi, bool top, bool cloexec)
{
	struct rlimit old, raised;
	bool changed = false;
	long r;

	if (!sys)
		sys = plain_sys;
	if (lo < 0 || hi <= lo)
		return -EINVAL;
	r = sys(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&old, 0, 0);
	if (r < 0)
		return (int)r;
	if (old.rlim_cur < (rlim_t)hi) {
		raised.rlim_cur = (rlim_t)hi;
		raised.rlim_max = old.rlim_max < (rlim_t)hi ? (rlim_t)hi : old.rlim_max;
		/* raising the hard limit needs CAP_SYS_RESOURCE (do_prlimit) */
		r = sys(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&raised, 0, 0, 0);
		if (r < 0)
			return (int)r;
		changed = true;
	}
	if (!top) {
		r = dup_at(sys, fd, lo, hi, cloexec);
	} else {
		/* the highest free number: F_DUPFD gives the lowest at or
		 * above its argument */
		r = -EMFILE;
		for (int at = hi - 1; at >= lo && r == -EMFILE; at--)
			r = dup_at(sys, fd, at, hi, cloexec);
	}
	if (changed)
		sys(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&old, 0, 0, 0);
	return (int)r;
}

int fd_scan_open(fd_place_sys sys, int lo, int hi, void (*fn)(void *ctx, int fd), void *ctx)
{
	struct pollfd pfd[1024];
	struct timespec zero = { 0, 0 };
	long soft = fd_soft_limit(), r;

	if (!sys)
		sys = plain_sys;
	if (soft <= 0)
		return soft < 0 ? (int)soft : -EINVAL;
	while (lo < hi) {
		int n = hi - lo;

		if (n > (int)(sizeof(pfd) / sizeof(pfd[0])))
			n = (int)(sizeof(pfd) / sizeof(pfd[0]));
		if (n > soft)
			n = (int)soft;
		for (int i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = lo + i };
		r = sys(SYS_ppoll, (long)pfd, n, (long)&zero, 0, 8, 0);
		if (r < 0)
			return (int)r;
		for (int i = 0; i < n; i++)
			if (!(pfd[i].revents & POLLNVAL))
				fn(ctx, pfd[i].fd);
		lo += n;
	}
	return 0;
}
