/*
 * perf_fileops.c - the calls perf_fops has no entry for, and the ones the
 * VFS answers for every file, on a perf fd (write, pread/pwrite, lseek,
 * fsync/fdatasync/ftruncate,
 * a short read, readv and the p*v family, negative poll/select timeouts, poll
 * sets up to and past RLIMIT_NOFILE, FIONBIO/FIOCLEX/FIONCLEX/FIOASYNC, FIONREAD, mmap with
 * PROT_EXEC or MAP_PRIVATE), and perf_event_open's attr checks before its
 * group fd. The native run on a software event is the oracle (of the
 * same program with "hw" under pmusim run too: the shim's answers on a
 * core event).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/select.h>
#include <poll.h>
#include <unistd.h>
#include <fcntl.h>
static int peo(struct perf_event_attr *a, int group) { return syscall(SYS_perf_event_open, a, 0, -1, group, 0); }
#define SHOW(name, expr) do { errno = 0; long r_ = (long)(expr); printf("%s: %ld %s\n", name, r_, r_ < 0 ? strerror(errno) : ""); } while (0)
int main(int argc, char **argv)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.exclude_kernel = 1, .exclude_hv = 1 };
	/* "hw": a hardware event, the simulated core's under pmusim run */
	if (argc > 1 && !strcmp(argv[1], "hw")) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
	}
	int fd = peo(&a, -1);
	char buf[64];
	printf("fd ok %d\n", fd >= 0);
	SHOW("write", write(fd, buf, 8));
	SHOW("write_badptr", syscall(SYS_write, fd, (void *)0, 8));
	SHOW("pread_negpos", pread(fd, buf, 8, -1));
	SHOW("lseek_badwhence", lseek(fd, 0, 77));
	SHOW("write0", write(fd, buf, 0));
	SHOW("pread", pread(fd, buf, 8, 0));
	SHOW("pwrite", pwrite(fd, buf, 8, 0));
	SHOW("lseek", lseek(fd, 0, SEEK_SET));
	SHOW("lseek_cur", lseek(fd, 0, SEEK_CUR));
	/* perf_fops has no .fsync (vfs_fsync_range), and an anon inode is no
	 * regular file (do_sys_ftruncate): EINVAL */
	SHOW("fsync", fsync(fd));
	SHOW("fdatasync", fdatasync(fd));
	SHOW("ftruncate", ftruncate(fd, 0));
	SHOW("read4", read(fd, buf, 4));
	{
		/* perf_fops has .read only: readv is one perf_read per segment
		 * (do_loop_readv_writev), a short one ENOSPC; preadv at a
		 * position ESPIPE; preadv2 at -1 is readv */
		struct iovec one = { buf, 8 }, two[2] = { { buf, 8 }, { buf + 8, 8 } }, shrt = { buf, 4 };

		SHOW("readv", readv(fd, &one, 1));
		SHOW("readv_two", readv(fd, two, 2));
		SHOW("readv_short", readv(fd, &shrt, 1));
		SHOW("preadv", preadv(fd, &one, 1, 0));
		SHOW("preadv_negpos", syscall(SYS_preadv, fd, &one, 1, -2L, 0L));
		SHOW("preadv2_cur", preadv2(fd, &one, 1, -1, 0));
		SHOW("preadv2_pos", preadv2(fd, &one, 1, 0, 0));
		SHOW("pwritev", pwritev(fd, &one, 1, 0));
		SHOW("pwritev2_cur", pwritev2(fd, &one, 1, -1, 0));
	}
	{
		/* poll_select_set_timeout(): a negative timeout is EINVAL */
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec neg = { -1, 0 };
		struct timeval tneg = { 0, -1 };
		fd_set rs;

		FD_ZERO(&rs);
		FD_SET(fd < FD_SETSIZE ? fd : 0, &rs);
		SHOW("ppoll_negtimeout", ppoll(&pfd, 1, &neg, NULL));
		SHOW("select_negtimeout", select(fd + 1 < FD_SETSIZE ? fd + 1 : 1, &rs, NULL, NULL, &tneg));
		/* kern_select(): the microseconds carry into the seconds
		 * before the check, so this timeout is zero */
		struct timeval tcarry = { -1, 1000000 };

		SHOW("select_carrytimeout", syscall(SYS_select, 0, NULL, NULL, NULL, &tcarry));
		/* the same over the perf fd: a bitmap of its own, as the
		 * shim's perf fds lie above FD_SETSIZE */
		unsigned long bits[64] = { 0 };

		if (fd >= 0 && fd < 64 * 64) {
			bits[fd / 64] = 1ul << (fd % 64);
			tcarry = (struct timeval){ -1, 1000000 };
			SHOW("select_perf_carrytimeout", syscall(SYS_select, fd + 1, bits, NULL, NULL, &tcarry));
		}
	}
	{
		/* do_sys_poll(): a set up to RLIMIT_NOFILE is polled, one
		 * entry longer is EINVAL (the soft limit set to 5000 where the
		 * hard one allows) */
		enum { N = 5000 };
		static struct pollfd set[N + 1];
		struct rlimit rl;

		for (int i = 0; i <= N; i++)
			set[i] = (struct pollfd){ .fd = -1 };
		set[N - 1] = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max >= N) {
			struct rlimit lim = { N, rl.rlim_max };

			setrlimit(RLIMIT_NOFILE, &lim);
			SHOW("poll_rlimit", poll(set, N, 0));
			printf("poll_rlimit_revents: %#x\n", set[N - 1].revents);
			SHOW("poll_over_rlimit", poll(set, N + 1, 0));
			setrlimit(RLIMIT_NOFILE, &rl);
		} else {
			printf("poll_rlimit: hard limit below %d\n", N);
		}
	}
	int on = 1;
	SHOW("fionbio", ioctl(fd, FIONBIO, &on));
	SHOW("getfl", fcntl(fd, F_GETFL) & O_NONBLOCK);
	SHOW("fioclex", ioctl(fd, FIOCLEX));
	SHOW("getfd", fcntl(fd, F_GETFD));
	SHOW("fionclex", ioctl(fd, FIONCLEX));
	SHOW("getfd", fcntl(fd, F_GETFD));
	SHOW("fioasync", ioctl(fd, FIOASYNC, &on));
	SHOW("getfl_async", (fcntl(fd, F_GETFL) & O_ASYNC) != 0);
	on = 0; ioctl(fd, FIOASYNC, &on);
	SHOW("fionread", ioctl(fd, FIONREAD, &on));
	SHOW("fiqsize", ioctl(fd, FIOQSIZE, &on));
	void *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED, fd, 0);
	printf("mmap_exec: %s\n", p == MAP_FAILED ? strerror(errno) : "ok");
	if (p != MAP_FAILED) munmap(p, 2 * 4096);
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	printf("mmap_rx: %s\n", p == MAP_FAILED ? strerror(errno) : "ok");
	if (p != MAP_FAILED) munmap(p, 2 * 4096);
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	printf("mmap_private: %s\n", p == MAP_FAILED ? strerror(errno) : "ok");
	/* dup2 of a pipe over a perf fd: a pipe's fd from then on */
	{
		int p[2], g = peo(&a, -1);

		if (pipe(p) || write(p[1], "hi", 2) != 2)
			return 1;
		SHOW("dup2_over", dup2(p[0], g) == g);
		SHOW("read_pipe", read(g, buf, 2));
		close(g);
		close(p[0]);
		close(p[1]);
	}
	/* attr before group fd */
	struct perf_event_attr bad = a;
	bad.size = 0; bad.type = 1000; 
	SHOW("badtype_badgroup", peo(&bad, 0));
	bad = a; bad.sample_period = 1ULL << 63; bad.freq = 0;
	SHOW("badperiod_badgroup", peo(&bad, 0));
	bad = a; bad.read_format = 1 << 20;
	SHOW("badread_badgroup", peo(&bad, 0));
	SHOW("good_badgroup", peo(&a, 0));
	SHOW("good_closedgroup", peo(&a, 999));
	SHOW("pid_absent", syscall(SYS_perf_event_open, &a, 0x3ffffff0, -1, -1, 0));
	SHOW("pid_neg", syscall(SYS_perf_event_open, &a, -2, -1, -1, 0));
	return 0;
}
