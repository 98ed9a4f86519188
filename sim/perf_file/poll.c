/*
 * poll.c - poll, ppoll, select and pselect6 over sets holding perf fds:
 * each perf fd answers what perf_poll() returns (through the host, which
 * knows what its fd object adds: a task gone, a wakeup's byte), the other
 * fds what the host says; select's bitmaps go through the same loop as
 * do_select() reads them; the arguments of the epoll waits.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include "sim/perf_file/perf_file.h"

int64_t perf_fd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

long perf_fd_timeout_ns(int64_t sec, int64_t sub, bool usec, int64_t *ns)
{
	int64_t nsec = sub;

	*ns = -1;
	if (usec) {
		/* kern_select(): the microseconds carry into the seconds
		 * first, with the kernel's wrapping arithmetic */
		sec = (int64_t)((uint64_t)sec + (uint64_t)(sub / 1000000));
		nsec = (sub % 1000000) * 1000;
	}
	/* poll_select_set_timeout(): timespec64_valid() */
	if (sec < 0 || nsec < 0 || nsec >= 1000000000)
		return -EINVAL;
	/* longer than int64 ns: timespec64_add_safe() saturates the end to
	 * one that never comes */
	if (sec < INT64_MAX / 1000000000)
		*ns = sec * 1000000000 + nsec;
	return 0;
}

long perf_fd_poll_fds(struct perf_files *pf, void *ctx, struct pollfd *fds, unsigned long n,
		      const int *hs, int64_t timeout_ns)
{
	const struct perf_file_host *host = pf->host;
	int64_t deadline = timeout_ns > 0 ? perf_fd_now_ns() + timeout_ns : 0;

	for (;;) {
		struct timespec zero = { 0, 0 };
		int64_t left = timeout_ns;
		int count = 0;
		long r;

		/* a signal the host took during this look (the shim's poke,
		 * which its handler mask lets in) leaves the answer due: ask
		 * again; the waits below end on the program's signals */
		do
			r = host->sys(SYS_ppoll, (long)fds, (long)n, (long)&zero, 0, 8, 0);
		while (r == -EINTR);
		if (r < 0)
			return r;
		for (unsigned long i = 0; i < n; i++) {
			unsigned ev;

			if (hs[i] < 0) {
				count += fds[i].revents != 0;
				continue;
			}
			ev = host->poll(ctx, fds[i].fd, hs[i], fds[i].revents);
			fds[i].revents = (short)(ev & ((unsigned)fds[i].events | POLLERR | POLLHUP));
			count += fds[i].revents != 0;
		}
		if (count || timeout_ns == 0)
			return count;
		if (timeout_ns > 0) {
			left = deadline - perf_fd_now_ns();
			if (left <= 0)
				return 0;
		}
		r = host->poll_wait(ctx, fds, n, left);
		if (r < 0)
			return r;       /* EINTR: a signal came */
	}
}

static bool bit_isset(const unsigned long *set, int fd)
{
	return set && (set[(unsigned)fd / PERF_FD_LONG_BITS] >> ((unsigned)fd % PERF_FD_LONG_BITS) & 1);
}

static void bit_set(unsigned long *set, int fd)
{
	set[(unsigned)fd / PERF_FD_LONG_BITS] |= 1ul << ((unsigned)fd % PERF_FD_LONG_BITS);
}

bool perf_fd_select_any(struct perf_files *pf, void *ctx, int nfds, unsigned long *sets[3])
{
	for (int fd = 0; fd < nfds; fd++)
		if ((bit_isset(sets[0], fd) || bit_isset(sets[1], fd) || bit_isset(sets[2], fd)) &&
		    pf->host->slot(fd) >= 0 && perf_fd_handle(pf, ctx, fd) >= 0)
			return true;
	return false;
}

unsigned long perf_fd_select_to_poll(struct perf_files *pf, void *ctx, int nfds,
				     unsigned long *sets[3], struct pollfd *fds, int *hs)
{
	unsigned long n = 0;

	for (int fd = 0; fd < nfds; fd++) {
		short ev = 0;

		if (bit_isset(sets[0], fd))
			ev |= POLLIN | POLLRDNORM | POLLRDBAND;
		if (bit_isset(sets[1], fd))
			ev |= POLLOUT | POLLWRNORM | POLLWRBAND;
		if (bit_isset(sets[2], fd))
			ev |= POLLPRI;
		if (!ev)
			continue;
		fds[n].fd = fd;
		fds[n].events = ev;
		fds[n].revents = 0;
		hs[n] = perf_fd_handle(pf, ctx, fd);
		n++;
	}
	return n;
}

long perf_fd_poll_to_select(int nfds, unsigned long *sets[3], const struct pollfd *fds,
			    unsigned long n)
{
	long r = 0;

	for (unsigned long i = 0; i < n; i++)
		if (fds[i].revents & POLLNVAL)
			return -EBADF;
	/* the user's bitmaps are nfds bits long (core_sys_select) */
	for (int k = 0; k < 3; k++)
		if (sets[k])
			memset(sets[k], 0, PERF_FD_BITS_BYTES(nfds));
	for (unsigned long i = 0; i < n; i++) {
		short ev = fds[i].revents, want = fds[i].events;

		/* POLLIN_SET, POLLOUT_SET, POLLEX_SET */
		if ((want & POLLIN) && (ev & (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR))) {
			bit_set(sets[0], fds[i].fd);
			r++;
		}
		if ((want & POLLOUT) && (ev & (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR))) {
			bit_set(sets[1], fds[i].fd);
			r++;
		}
		if ((want & POLLPRI) && (ev & POLLPRI)) {
			bit_set(sets[2], fds[i].fd);
			r++;
		}
	}
	return r;
}

long perf_fd_epoll_args(struct perf_files *pf, void *ctx, long nr, const long a[6],
			int64_t *timeout_ns, uint64_t *mask, bool *has_mask)
{
	*timeout_ns = -1;
	*has_mask = false;
	if (nr == SYS_epoll_pwait2) {
		struct timespec ts;

		/* epoll_pwait2(): get_timespec64() before the mask */
		if (a[3]) {
			if (pf->host->copy_from(ctx, &ts, (uint64_t)a[3], sizeof(ts)))
				return -EFAULT;
			if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
				return -EINVAL;
			*timeout_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		}
	} else if ((int)a[3] >= 0) {
		*timeout_ns = (int64_t)(int)a[3] * 1000000;
	}
	if (nr == SYS_epoll_wait || !a[4])
		return 0;
	/* set_user_sigmask(): sigsetsize, then the copy */
	if (a[5] != sizeof(*mask))
		return -EINVAL;
	if (pf->host->copy_from(ctx, mask, (uint64_t)a[4], sizeof(*mask)))
		return -EFAULT;
	*has_mask = true;
	return 0;
}

void perf_fd_select_finish(struct perf_files *pf, void *ctx, long nr, uint64_t utimeout,
			   int64_t timeout_ns, int64_t start_ns)
{
	int64_t left = timeout_ns - (perf_fd_now_ns() - start_ns);
	struct timespec ts;
	struct timeval tv;

	if (timeout_ns <= 0 || !utimeout)
		return;
	if (left < 0)
		left = 0;
	/* a timeout that cannot be written back is left as it was, without
	 * an error */
	if (nr == SYS_select) {
		tv.tv_sec = left / 1000000000;
		tv.tv_usec = left % 1000000000 / 1000;
		(void)pf->host->copy_to(ctx, utimeout, &tv, sizeof(tv));
	} else {
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		(void)pf->host->copy_to(ctx, utimeout, &ts, sizeof(ts));
	}
}
