/*
 * shim_client.c - a native perf client for the shim's tests and bench,
 * run as `pmusim run -- shim_client MODE`. Each mode exercises one part of
 * the perf fd contract against what the kernel does (the kernel function
 * is named beside each check) and prints "ok MODE" or "FAIL: why" lines;
 * the exit status is the number of failures.
 *
 * Modes: read, ioctl, fdops, passthrough, mmap, pollhup, inherit, range,
 * threads, exec, select, fasync, epoll, munmap, scm, sharedring, spawn
 * (children of system(), popen() and posix_spawn(), compared with a native
 * run), selfcount (a native program counting itself), efault (bad
 * pointers, compared with a native run), vfork (a vfork child closing its
 * fds),
 * bench-read (timed trapped reads), bench-bare (a bare SIGSYS round trip,
 * run outside pmusim).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/wait.h>

static int failures;

/* select() bitmaps that reach the perf fd range (glibc's fd_set stops at
 * 1024): the kernel takes nfds bits of unsigned longs */
#define SHIM_SET_LONGS (2048 / (8 * sizeof(unsigned long)))
#define SET_BIT(set, fd) ((set)[(fd) / (8 * sizeof(unsigned long))] |= \
			  1ul << ((fd) % (8 * sizeof(unsigned long))))
#define IS_BIT(set, fd) (((set)[(fd) / (8 * sizeof(unsigned long))] >> \
			  ((fd) % (8 * sizeof(unsigned long)))) & 1)

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		failures++; \
		printf("FAIL: line %d: ", __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
	} \
} while (0)

static int peo(struct perf_event_attr *a, pid_t pid, int cpu, int group, unsigned long flags)
{
	long r = syscall(SYS_perf_event_open, a, pid, cpu, group, flags);

	return r < 0 ? -errno : (int)r;
}

static void hw_attr(struct perf_event_attr *a, uint64_t config, uint64_t read_format)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = config;
	a->read_format = read_format;
	a->disabled = 1;
	a->exclude_kernel = 1;
}

static bool is_perf_fd(int fd)
{
	return fd >= 1024 && fd < 2048;
}

/* perf_read_one() / perf_read_group(): sizes from perf_event__read_size() */
static void mode_read(void)
{
	static const struct { uint64_t fmt; size_t size; } rows[] = {
		{ 0, 8 },
		{ PERF_FORMAT_TOTAL_TIME_ENABLED, 16 },
		{ PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING, 24 },
		{ PERF_FORMAT_ID, 16 },
		{ PERF_FORMAT_ID | PERF_FORMAT_LOST, 24 },
		{ PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
		  PERF_FORMAT_ID | PERF_FORMAT_LOST, 40 },
	};
	struct perf_event_attr a;
	uint64_t buf[16];

	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int fd;

		hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, rows[i].fmt);
		fd = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		CHECK(is_perf_fd(fd), "format %#llx: fd %d", (unsigned long long)rows[i].fmt, fd);
		if (fd < 0)
			continue;
		/* perf_read(): a buffer shorter than the layout is ENOSPC */
		CHECK(read(fd, buf, rows[i].size - 1) == -1 && errno == ENOSPC,
		      "short read of format %#llx", (unsigned long long)rows[i].fmt);
		CHECK(read(fd, buf, sizeof(buf)) == (ssize_t)rows[i].size,
		      "read size of format %#llx", (unsigned long long)rows[i].fmt);
		CHECK(buf[0] == 0, "a disabled event counts nothing");
		close(fd);
	}
	/* a group leader with ID|GROUP|times and one sibling: nr, enabled,
	 * running, then value+id per member = 8*3 + 16*2 = 56 (perf stat's) */
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, PERF_FORMAT_GROUP | PERF_FORMAT_ID |
		PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	int lead = peo(&a, 0, -1, -1, 0);
	a.disabled = 0;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	int sib = peo(&a, 0, -1, lead, 0);
	uint64_t id0 = 0, id1 = 0;

	CHECK(is_perf_fd(lead) && is_perf_fd(sib), "group fds %d %d", lead, sib);
	CHECK(read(lead, buf, sizeof(buf)) == 56, "group read size");
	CHECK(buf[0] == 2, "group nr %llu", (unsigned long long)buf[0]);
	CHECK(ioctl(lead, PERF_EVENT_IOC_ID, &id0) == 0 && ioctl(sib, PERF_EVENT_IOC_ID, &id1) == 0,
	      "IOC_ID");
	CHECK(buf[4] == id0 && buf[6] == id1, "group ids %llu %llu vs %llu %llu",
	      (unsigned long long)buf[4], (unsigned long long)buf[6],
	      (unsigned long long)id0, (unsigned long long)id1);
	close(sib);
	close(lead);
	if (!failures)
		printf("ok read\n");
}

static void mode_ioctl(void)
{
	struct perf_event_attr a;
	uint64_t id;
	int fd, fd2, p[2];

	hw_attr(&a, PERF_COUNT_HW_CPU_CYCLES, PERF_FORMAT_ID);
	fd = peo(&a, 0, -1, -1, 0);
	fd2 = peo(&a, 0, -1, -1, 0);
	CHECK(is_perf_fd(fd) && is_perf_fd(fd2), "fds %d %d", fd, fd2);
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE");
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0, "RESET");
	CHECK(ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0, "ID");
	/* perf_ioctl(): an unknown command is ENOTTY */
	CHECK(ioctl(fd, _IO('$', 0x7f), 0) == -1 && errno == ENOTTY, "unknown ioctl: %d", errno);
	/* _perf_ioctl(PERF_EVENT_IOC_SET_OUTPUT): perf_fget_light() of a
	 * file that is not a perf file is EBADF */
	CHECK(pipe(p) == 0, "pipe");
	CHECK(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, p[0]) == -1 && errno == EBADF,
	      "SET_OUTPUT to a pipe: %d", errno);
	/* perf_event_set_output(): ring_buffer_get() of a target without a
	 * ring fails: EINVAL */
	CHECK(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fd2) == -1 && errno == EINVAL,
	      "SET_OUTPUT to a perf fd without a ring: %d", errno);
	/* _perf_ioctl(): arg != -1 compares all 64 bits; -1L detaches */
	CHECK(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, -1L) == 0, "SET_OUTPUT -1L: %d", errno);
	CHECK(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)0xffffffffu) == -1 &&
	      errno == EBADF, "SET_OUTPUT 0xffffffff: %d", errno);
	/* prctl(PR_TASK_PERF_EVENTS_DISABLE/ENABLE): perf_event_task_disable() */
	CHECK(prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0) == 0, "prctl disable");
	CHECK(prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0) == 0, "prctl enable");
	close(fd);
	close(fd2);
	if (!failures)
		printf("ok ioctl\n");
}

static void mode_fdops(void)
{
	struct perf_event_attr a;
	uint64_t v;
	struct rlimit rl;
	int fd, d, d2, fl, hi;

	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	fd = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	/* perf_event_open(PERF_FLAG_FD_CLOEXEC): O_CLOEXEC on the fd */
	CHECK(fcntl(fd, F_GETFD) == FD_CLOEXEC, "FD_CLOEXEC");
	/* perf_fops: no llseek, no write, no pread */
	CHECK(lseek(fd, 0, SEEK_SET) == -1 && errno == ESPIPE, "lseek: %d", errno);
	CHECK(write(fd, &v, 8) == -1 && errno == EINVAL, "write: %d", errno);
	CHECK(pread(fd, &v, 8, 0) == -1 && errno == ESPIPE, "pread: %d", errno);
	/* O_NONBLOCK via F_SETFL is the file's own */
	fl = fcntl(fd, F_GETFL);
	CHECK(fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 && (fcntl(fd, F_GETFL) & O_NONBLOCK),
	      "O_NONBLOCK");
	/* setfl(): O_ASYNC on and off, as F_GETFL reports it */
	CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) == 0 &&
	      (fcntl(fd, F_GETFL) & O_ASYNC), "O_ASYNC on");
	CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_ASYNC) == 0 &&
	      !(fcntl(fd, F_GETFL) & O_ASYNC), "O_ASYNC off");
	CHECK(fcntl(fd, F_SETOWN, getpid()) == 0 && fcntl(fd, F_GETOWN) == getpid(), "F_SETOWN");
	CHECK(fcntl(fd, F_SETSIG, SIGRTMIN + 1) == 0 && fcntl(fd, F_GETSIG) == SIGRTMIN + 1,
	      "F_SETSIG");
	d = dup(fd);
	CHECK(is_perf_fd(d), "dup: %d", d);
	CHECK(fcntl(d, F_GETFD) == 0, "dup clears CLOEXEC");
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur <= 1800) {
		/* an ordinary account's soft limit (1024): f_dupfd() and
		 * ksys_dup3() refuse numbers at or above it, as here */
		CHECK(fcntl(fd, F_DUPFD_CLOEXEC, 1500) == -1 && errno == EINVAL,
		      "F_DUPFD_CLOEXEC above the soft limit: %d", errno);
		CHECK(dup2(fd, 1800) == -1 && errno == EBADF, "dup2 above the soft limit: %d", errno);
		d2 = dup(fd);
		hi = d;
	} else {
		d2 = fcntl(fd, F_DUPFD_CLOEXEC, 1500);
		CHECK(d2 >= 1500 && d2 < 2048, "F_DUPFD_CLOEXEC: %d", d2);
		hi = 1800;
	}
	close(fd);
	/* the file lives while any fd holds it (fput) */
	CHECK(read(d, &v, 8) == 8, "read after closing the original: %d", errno);
	CHECK(hi == d || dup2(d, hi) == hi, "dup2");
	if (hi != d)
		close(d);
	close(d2);
	CHECK(read(hi, &v, 8) == 8, "read through the dup2 copy");
	close(hi);
	CHECK(read(hi, &v, 8) == -1 && errno == EBADF, "read after the last close: %d", errno);
	CHECK(close(hi) == -1 && errno == EBADF, "double close");
	if (!failures)
		printf("ok fdops\n");
}

/* A software event on a native task: the host kernel serves it (its fd in
 * the perf range, where its mmap and SET_OUTPUT can meet the core's). */
static void mode_passthrough(void)
{
	struct perf_event_attr a;
	volatile uint64_t x = 0;
	uint64_t v = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	/* user space only: what perf_event_paranoid 2 allows anyone */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd), "host fd %d", fd);
	for (int i = 0; i < 10000000; i++)
		x += (uint64_t)i;
	CHECK(read(fd, &v, 8) == 8 && v > 1000000, "host task-clock %llu ns", (unsigned long long)v);
	close(fd);
	if (!failures)
		printf("ok passthrough\n");
}

/* A dummy software event with COMM side band of task pid (the host's,
 * for a task without core events; the core's for a pid with core events),
 * sample_id_all with TID and TIME; watermark: a wakeup at every record. */
static int comm_dummy(pid_t pid, int cpu, bool use_clockid, bool watermark)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.comm = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.use_clockid = use_clockid;
	a.clockid = use_clockid ? CLOCK_MONOTONIC : 0;
	a.watermark = watermark;
	a.wakeup_watermark = watermark;
	return peo(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* A thread that says its tid, then names itself "shared-four" 0.2 s after
 * a byte arrives on fd. */
struct renamer {
	int fd;
	pid_t tid;
};

static void *rename_later(void *arg)
{
	struct renamer *r = arg;
	char b;

	__atomic_store_n(&r->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (read(r->fd, &b, 1) == 1) {
		/* the poller is blocked by then */
		nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
		prctl(PR_SET_NAME, "shared-four", 0, 0, 0);
	}
	return NULL;
}

/* A poll that blocks on a core ring fed only by a host event of another
 * thread (both bound to CPU 0, so one ring may take both: per-cpu): the
 * host's wakeup of its record ends the wait at once, well before the
 * timeout (the kernel's perf_output_wakeup() at the 1-byte watermark). */
static void sharedring_blocking_poll(void)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pc;
	struct timespec t0, t1;
	struct pollfd pfd;
	struct renamer rn = { -1, 0 };
	pthread_t th;
	int go[2], h, c, n;
	pid_t tid;

	CHECK(pipe(go) == 0, "pipe");
	rn.fd = go[0];
	CHECK(pthread_create(&th, NULL, rename_later, &rn) == 0, "thread");
	while (!(tid = __atomic_load_n(&rn.tid, __ATOMIC_ACQUIRE)))
		sched_yield();
	h = comm_dummy(tid, 0, false, true);
	hw_attr(&a, PERF_COUNT_HW_CPU_CYCLES, 0);
	a.watermark = 1;
	a.wakeup_watermark = 1;
	c = peo(&a, tid, 0, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(h) && is_perf_fd(c), "fds %d %d", h, c);
	pc = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, c, 0);
	CHECK(pc != MAP_FAILED, "mmap: %d", errno);
	CHECK(ioctl(h, PERF_EVENT_IOC_SET_OUTPUT, c) == 0, "host into core: %d", errno);
	CHECK(ioctl(h, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	pfd = (struct pollfd){ .fd = c, .events = POLLIN };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(write(go[1], "g", 1) == 1, "go");
	n = poll(&pfd, 1, 5000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(n == 1 && pfd.revents == POLLIN, "poll %d %#x", n, pfd.revents);
	CHECK(t1.tv_sec - t0.tv_sec < 2, "woken after %ld s", (long)(t1.tv_sec - t0.tv_sec));
	pthread_join(th, NULL);
	if (pc != MAP_FAILED) {
		const struct perf_event_header *hd = (const void *)((char *)pc + pc->data_offset);

		CHECK(hd->type == PERF_RECORD_COMM &&
		      !strcmp((const char *)(hd + 1) + 8, "shared-four"), "the thread's COMM");
		munmap(pc, 3 * 4096);
	}
	close(h);
	close(c);
	close(go[0]);
	close(go[1]);
}

/* The first record of a ring must be this task's PERF_RECORD_COMM of comm
 * (perf_event_comm_output(): {pid, tid, comm padded to 8} and the
 * sample_id_all trailer {pid, tid} {time}), and the only one. */
static void check_comm_ring(int line, const struct perf_event_mmap_page *pc, const char *comm)
{
	const unsigned char *data = (const unsigned char *)pc + pc->data_offset;
	const struct perf_event_header *h = (const void *)data;
	const uint32_t *ids = (const void *)(h + 1);
	size_t clen = (strlen(comm) + 1 + 7) & ~(size_t)7;
	uint64_t want = sizeof(*h) + 8 + clen + 8 + 8;

	CHECK(__atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE) == want,
	      "line %d: data_head %llu, want %llu", line, (unsigned long long)pc->data_head,
	      (unsigned long long)want);
	CHECK(h->type == PERF_RECORD_COMM && h->misc == 0 && h->size == want,
	      "line %d: record type %u misc %u size %u", line, h->type, h->misc, h->size);
	CHECK(ids[0] == (uint32_t)getpid() && ids[1] == (uint32_t)syscall(SYS_gettid),
	      "line %d: pid/tid %u/%u", line, ids[0], ids[1]);
	CHECK(strcmp((const char *)(ids + 2), comm) == 0, "line %d: comm %s", line,
	      (const char *)(ids + 2));
	ids = (const void *)((const char *)(ids + 2) + clen);
	CHECK(ids[0] == (uint32_t)getpid() && ids[1] == (uint32_t)syscall(SYS_gettid),
	      "line %d: trailer pid/tid %u/%u", line, ids[0], ids[1]);
}

/*
 * Host and core events sharing one ring (perf_event_set_output(),
 * ring_buffer_attach()): a core event into a host event's mapped ring and
 * host events into a core event's ring; the host's COMM records reach the
 * ring the reader maps; the kernel's EINVAL for no ring, an event with its
 * own mmap, another cpu, another clock; POLLIN at the ring's watermark.
 */
static void mode_sharedring(void)
{
	/* host events first: core events make this task the core's */
	int h1 = comm_dummy(0, -1, false, false), h2 = comm_dummy(0, -1, false, false);
	int hcpu = comm_dummy(0, 0, false, false), hclock = comm_dummy(0, -1, true, false);
	int h5 = comm_dummy(0, -1, false, false);
	struct perf_event_attr a;
	struct perf_event_mmap_page *p1, *p2;
	struct pollfd pfd;
	int c1, c2;

	CHECK(is_perf_fd(h1) && is_perf_fd(h2) && is_perf_fd(hcpu) && is_perf_fd(hclock),
	      "host fds %d %d %d %d", h1, h2, hcpu, hclock);
	hw_attr(&a, PERF_COUNT_HW_CPU_CYCLES, 0);
	c1 = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	a.watermark = 1;
	a.wakeup_watermark = 1;
	c2 = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(c1) && is_perf_fd(c2), "core fds %d %d", c1, c2);

	/* a core event into a host event's ring */
	CHECK(ioctl(c1, PERF_EVENT_IOC_SET_OUTPUT, h1) == -1 && errno == EINVAL,
	      "into a host event without a ring: %d", errno);
	p1 = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, h1, 0);
	CHECK(p1 != MAP_FAILED, "mmap of the host event: %d", errno);
	CHECK(mmap(NULL, 5 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, h1, 0) == MAP_FAILED &&
	      errno == EINVAL, "a second mmap of another size: %d", errno);
	if (p1 == MAP_FAILED)
		return;
	CHECK(p1->data_offset == 4096 && p1->data_size == 2 * 4096 && p1->data_head == 0,
	      "the host event's page: offset %llu size %llu", (unsigned long long)p1->data_offset,
	      (unsigned long long)p1->data_size);
	CHECK(ioctl(c1, PERF_EVENT_IOC_SET_OUTPUT, h1) == 0, "core into host: %d", errno);
	CHECK(ioctl(h1, PERF_EVENT_IOC_SET_OUTPUT, c1) == -1 && errno == EINVAL,
	      "an event with its own mmap: %d", errno);
	CHECK(ioctl(h1, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	CHECK(prctl(PR_SET_NAME, "shared-one", 0, 0, 0) == 0, "PR_SET_NAME");
	CHECK(ioctl(h1, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE");
	check_comm_ring(__LINE__, p1, "shared-one");

	/* host events into a core event's ring */
	p2 = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, c2, 0);
	CHECK(p2 != MAP_FAILED, "mmap of the core event: %d", errno);
	if (p2 == MAP_FAILED)
		return;
	CHECK(ioctl(hcpu, PERF_EVENT_IOC_SET_OUTPUT, c2) == -1 && errno == EINVAL,
	      "another cpu: %d", errno);
	CHECK(ioctl(hclock, PERF_EVENT_IOC_SET_OUTPUT, c2) == -1 && errno == EINVAL,
	      "another clock: %d", errno);
	CHECK(ioctl(h2, PERF_EVENT_IOC_SET_OUTPUT, c2) == 0, "host into core: %d", errno);
	pfd = (struct pollfd){ .fd = c2, .events = POLLIN };
	CHECK(poll(&pfd, 1, 0) == 0, "nothing yet: %#x", pfd.revents);
	CHECK(ioctl(h2, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	CHECK(prctl(PR_SET_NAME, "shared-two", 0, 0, 0) == 0, "PR_SET_NAME");
	/* the record passed the 1-byte watermark: perf_output_wakeup() */
	CHECK(poll(&pfd, 1, 1000) == 1 && pfd.revents == POLLIN, "POLLIN: %#x", pfd.revents);
	CHECK(ioctl(h2, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE");
	check_comm_ring(__LINE__, p2, "shared-two");
	CHECK(ioctl(h2, PERF_EVENT_IOC_SET_OUTPUT, -1L) == 0, "back to no ring: %d", errno);
	CHECK(ioctl(h2, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	CHECK(prctl(PR_SET_NAME, "shared-three", 0, 0, 0) == 0, "PR_SET_NAME");
	CHECK(ioctl(h2, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE");
	check_comm_ring(__LINE__, p2, "shared-two");
	/* an enabled host event closed by close_range writes no more (its
	 * last reference went: _free_event()) */
	CHECK(ioctl(h5, PERF_EVENT_IOC_SET_OUTPUT, c2) == 0, "host into core: %d", errno);
	CHECK(ioctl(h5, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	CHECK(syscall(SYS_close_range, h5, h5, 0) == 0, "close_range: %d", errno);
	CHECK(prctl(PR_SET_NAME, "shared-five", 0, 0, 0) == 0, "PR_SET_NAME");
	CHECK(ioctl(c2, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE");
	check_comm_ring(__LINE__, p2, "shared-two");
	munmap(p1, 3 * 4096);
	munmap(p2, 3 * 4096);
	for (int fd = 1024; fd < 2048; fd++)
		if (fd == h1 || fd == h2 || fd == hcpu || fd == hclock || fd == c1 || fd == c2)
			close(fd);
	sharedring_blocking_poll();
	if (!failures)
		printf("ok sharedring\n");
}

/*
 * A native task the core serves (cycles on itself make it the core's, as
 * perf test 35's cycles:u does): its prctl(PR_SET_NAME) is a COMM record
 * in a core event's ring, as __set_task_comm() -> perf_event_comm() writes
 * it, with the name's first 15 bytes; a failed rename (EFAULT) writes none.
 */
static void mode_nativecomm(void)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pc;
	int c, d;

	hw_attr(&a, PERF_COUNT_HW_CPU_CYCLES, 0);
	c = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	/* its own pid, as perf's thread map names it: a task with core events */
	d = comm_dummy(getpid(), -1, false, false);
	CHECK(is_perf_fd(c) && is_perf_fd(d), "fds %d %d", c, d);
	pc = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, d, 0);
	CHECK(pc != MAP_FAILED, "mmap: %d", errno);
	if (pc == MAP_FAILED)
		return;
	CHECK(ioctl(d, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	CHECK(syscall(SYS_prctl, PR_SET_NAME, 0x1000, 0, 0, 0) == -1 && errno == EFAULT,
	      "PR_SET_NAME of a bad pointer: %d", errno);
	/* TASK_COMM_LEN: the first 15 bytes */
	CHECK(prctl(PR_SET_NAME, "native-comm-truncated", 0, 0, 0) == 0, "PR_SET_NAME");
	CHECK(ioctl(d, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE");
	check_comm_ring(__LINE__, pc, "native-comm-tru");
	munmap(pc, 3 * 4096);
	close(d);
	close(c);
	if (!failures)
		printf("ok nativecomm\n");
}

/* perf_mmap() + perf_event_init_userpage() */
static void mode_mmap(void)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pc;
	size_t len = 9 * 4096;
	void *p;
	int fd;

	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	fd = peo(&a, 0, -1, -1, 0);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	/* perf_mmap(): the data part must be a power of two pages */
	p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p == MAP_FAILED && errno == EINVAL, "3 data pages: %d", errno);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap: %d", errno);
	if (p != MAP_FAILED) {
		pc = p;
		CHECK(pc->data_offset == 4096 && pc->data_size == 8 * 4096,
		      "data %llu+%llu", (unsigned long long)pc->data_offset,
		      (unsigned long long)pc->data_size);
		CHECK(pc->data_head == 0, "empty ring");
		pc->data_tail = 0;
		CHECK(munmap(p, len) == 0, "munmap");
	}
	close(fd);
	if (!failures)
		printf("ok mmap\n");
}

/* munmap of a ring reaches the core (perf_mmap_close()): while a ring is
 * mapped another size fails (perf_mmap(): data_page_nr() != nr_pages),
 * the same size shares it (mmap_count); a partial munmap fails
 * (perf_mmap_may_split()); a fork's child has no copy (VM_DONTCOPY), so
 * its munmap of the address changes nothing; once the last mapping is
 * gone the ring is detached and another size maps. */
static void mode_munmap(void)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pc;
	size_t l3 = 3 * 4096, l5 = 5 * 4096;
	void *p, *q;
	int fd, st;
	pid_t c;

	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IP;
	fd = peo(&a, 0, -1, -1, 0);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	p = mmap(NULL, l3, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap 1+2: %d", errno);
	q = mmap(NULL, l5, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(q == MAP_FAILED && errno == EINVAL, "1+4 while 1+2 is mapped: %p %d", q, errno);
	q = mmap(NULL, l3, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(q != MAP_FAILED && q != p, "a second 1+2: %d", errno);
	CHECK(munmap((char *)p + 4096, 4096) == -1 && errno == EINVAL,
	      "partial munmap: %d", errno);
	c = fork();
	if (c == 0)
		exit(munmap(p, l3) == 0 ? 0 : 1); /* exit: the shim drops its references */
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child's munmap: %#x", st);
	pc = p;
	CHECK(pc->data_size == 2 * 4096, "still mapped after the child's munmap");
	CHECK(munmap(p, l3) == 0, "munmap: %d", errno);
	/* one mapping left: the ring stays */
	p = mmap(NULL, l5, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p == MAP_FAILED && errno == EINVAL, "1+4 with one 1+2 left: %d", errno);
	CHECK(munmap(q, l3) == 0, "munmap of the second: %d", errno);
	p = mmap(NULL, l5, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "1+4 once the ring is gone: %d", errno);
	if (p != MAP_FAILED) {
		pc = p;
		CHECK(pc->data_size == 4 * 4096, "data_size %llu",
		      (unsigned long long)pc->data_size);
		/* the file goes first, then its last mapping (perf_mmap_close()
		 * drops the file's last reference) */
		CHECK(close(fd) == 0, "close: %d", errno);
		CHECK(munmap(p, l5) == 0, "munmap after close: %d", errno);
	}
	if (!failures)
		printf("ok munmap\n");
}

/* perf_poll(): POLLHUP once the monitored task exits (perf record's
 * stop condition). The child runs emulated after its exec. */
static void mode_pollhup(void)
{
	struct perf_event_attr a;
	struct pollfd pfd;
	int go[2], fd, st, r;
	pid_t child;

	CHECK(pipe(go) == 0, "pipe");
	child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(99);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	/* perf_poll(): an event without a ring is EPOLLHUP at once */
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	fd = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	CHECK(poll(&pfd, 1, 0) == 1 && pfd.revents == POLLHUP, "ring-less: %#x", pfd.revents);
	close(fd);
	/* perf record's event: a ring on the child, enabled at its exec, on
	 * CPU 0 (perf_mmap() refuses an inherited per-task event on cpu -1) */
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	a.sample_period = 1000000;
	a.enable_on_exec = 1;
	a.inherit = 1;
	fd = peo(&a, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	CHECK(mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == EINVAL, "mmap of an inherited cpu -1 event: %d", errno);
	close(fd);
	fd = peo(&a, child, 0, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	CHECK(mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) != MAP_FAILED,
	      "mmap: %d", errno);
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	/* the ring's poll state is empty, the task lives: nothing, and a
	 * timed wait times out */
	CHECK(poll(&pfd, 1, 0) == 0, "poll before exec: %#x", pfd.revents);
	CHECK(poll(&pfd, 1, 50) == 0, "timed poll before exec: %#x", pfd.revents);
	CHECK(write(go[1], "x", 1) == 1, "go");
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child status %#x", st);
	do {
		r = poll(&pfd, 1, 10000);
	} while (r < 0 && errno == EINTR);
	CHECK(r == 1 && (pfd.revents & POLLHUP), "poll after exit: %d %#x", r, pfd.revents);
	close(fd);
	if (!failures)
		printf("ok pollhup\n");
}

/* do_select(): a perf fd is readable when perf_poll's mask meets
 * POLLIN_SET (EPOLLHUP included): at once without a ring, not while a
 * ring is empty and its task lives; other fds answer as the host's. */
static void mode_select(void)
{
	struct perf_event_attr a;
	struct timeval tv;
	unsigned long rs[SHIM_SET_LONGS];
	int hup, ring, p[2], nfds;

	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	hup = peo(&a, 0, -1, -1, 0);
	a.sample_period = 100000;
	ring = peo(&a, 0, -1, -1, 0);
	CHECK(is_perf_fd(hup) && is_perf_fd(ring), "fds %d %d", hup, ring);
	CHECK(mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ring, 0) != MAP_FAILED,
	      "mmap");
	CHECK(pipe(p) == 0 && write(p[1], "x", 1) == 1, "pipe");
	nfds = (hup > ring ? hup : ring) + 1;
	memset(rs, 0, sizeof(rs));
	SET_BIT(rs, hup);
	SET_BIT(rs, ring);
	SET_BIT(rs, p[0]);
	tv.tv_sec = 5;
	tv.tv_usec = 0;
	CHECK(syscall(SYS_select, nfds, rs, NULL, NULL, &tv) == 2, "select: %d", errno);
	CHECK(IS_BIT(rs, hup) && !IS_BIT(rs, ring) && IS_BIT(rs, p[0]), "readable set");
	memset(rs, 0, sizeof(rs));
	SET_BIT(rs, ring);
	tv.tv_sec = 0;
	tv.tv_usec = 50000;
	CHECK(syscall(SYS_select, nfds, rs, NULL, NULL, &tv) == 0 && !IS_BIT(rs, ring) &&
	      tv.tv_sec == 0 && tv.tv_usec < 50000, "timed select: %ld.%06ld", (long)tv.tv_sec,
	      (long)tv.tv_usec);
	close(hup);
	close(ring);
	if (!failures)
		printf("ok select\n");
}

/* fasync signals from an emulated workload's overflows, as the kernel's
 * kill_fasync() -> send_sigio_to_task() gives them to this (native)
 * owner: F_SETSIG's signal with si_code POLL_IN (POLL_HUP for the overflow
 * that ends an IOC_REFRESH), si_fd, si_band = band_table[reason]; without
 * F_SETSIG a plain SIGIO (SEND_SIG_PRIV, SI_KERNEL). */
#define ASYNC_MAX 64
static volatile sig_atomic_t async_n;
static struct { int signo, code, fd; long band; pid_t tid; } async_got[ASYNC_MAX];

static void on_async(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (async_n < ASYNC_MAX) {
		async_got[async_n].tid = (pid_t)syscall(SYS_gettid);
		async_got[async_n].signo = sig;
		async_got[async_n].code = si->si_code;
		async_got[async_n].fd = si->si_fd;
		async_got[async_n].band = si->si_band;
	}
	async_n++;
}

/* Forks a child that waits for the go byte, then execs the exact-count
 * workload (loop.S: 2N+4 = 2000004 user instructions). */
static pid_t async_child(int go[2])
{
	const char *loop = getenv("RUN_LOOP");
	pid_t child;

	CHECK(loop && pipe(go) == 0, "RUN_LOOP or pipe");
	child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(99);
		execl(loop, "loop", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	return child;
}

/* Runs the child to its end; returns the signals seen. */
static int async_run(pid_t child, int go[2])
{
	int st = 0;
	pid_t r;

	CHECK(write(go[1], "x", 1) == 1, "go");
	close(go[1]);
	do {
		r = waitpid(child, &st, 0);
	} while (r < 0 && errno == EINTR);
	CHECK(r == child && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	return async_n;
}

/* A thread that owns a perf fd's signals (F_OWNER_TID): it tells its
 * tid, then sleeps in read() until told to end (SA_RESTART restarts it
 * after each signal). */
static volatile pid_t async_tid;

static void *async_thread(void *arg)
{
	int *tp = arg;
	char c;

	__atomic_store_n(&async_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (read(tp[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static pid_t async_tid_wait(void)
{
	pid_t t;

	while (!(t = __atomic_load_n(&async_tid, __ATOMIC_ACQUIRE)))
		usleep(1000);
	return t;
}

static void mode_fasync(void)
{
	/* fs/fcntl.c band_table[]: POLL_IN is EPOLLIN|EPOLLRDNORM, POLL_HUP
	 * EPOLLHUP|EPOLLERR (x86 poll bits: 0x001|0x040, 0x010|0x008) */
	const long band_in = 0x41, band_hup = 0x18;
	int sig = SIGRTMIN + 1, go[2], fd, n, refresh = 3;
	struct perf_event_attr a;
	struct sigaction sa;
	pid_t child;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_async;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigaction(SIGIO, &sa, NULL);

	/* 1: one signal per overflow (__perf_event_overflow(): pending_kill =
	 * POLL_IN; perf_pending_irq() -> perf_event_wakeup() -> kill_fasync()):
	 * 2000004 / 100000 = 20 overflows, no ring needed */
	child = async_child(go);
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	a.sample_period = 100000;
	a.enable_on_exec = 1;
	a.disabled = 1;
	fd = peo(&a, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	CHECK(fcntl(fd, F_SETOWN, getpid()) == 0, "F_SETOWN: %d", errno);
	CHECK(fcntl(fd, F_SETSIG, sig) == 0, "F_SETSIG: %d", errno);
	CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) == 0, "O_ASYNC: %d", errno);
	async_n = 0;
	n = async_run(child, go);
	CHECK(n == 20, "POLL_IN signals: %d, want 20", n);
	for (int i = 0; i < n && i < ASYNC_MAX; i++)
		CHECK(async_got[i].signo == sig && async_got[i].code == POLL_IN &&
		      async_got[i].fd == fd && async_got[i].band == band_in,
		      "signal %d: signo %d code %d fd %d band %#lx", i, async_got[i].signo,
		      async_got[i].code, async_got[i].fd, async_got[i].band);
	close(fd);

	/* 2: IOC_REFRESH 3 (_perf_event_refresh(): event_limit += 3, enable):
	 * POLL_IN, POLL_IN, then POLL_HUP as the limit reaches 0 and the event
	 * is disabled: three signals, the last POLL_HUP; through F_SETOWN_EX */
	child = async_child(go);
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	a.sample_period = 100000;
	a.enable_on_exec = 1;
	fd = peo(&a, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	{
		struct f_owner_ex ox = { .type = F_OWNER_PID, .pid = getpid() };

		CHECK(fcntl(fd, F_SETOWN_EX, &ox) == 0, "F_SETOWN_EX: %d", errno);
	}
	CHECK(fcntl(fd, F_SETSIG, sig) == 0, "F_SETSIG: %d", errno);
	CHECK(fcntl(fd, F_SETFL, O_ASYNC) == 0, "O_ASYNC: %d", errno);
	CHECK(ioctl(fd, PERF_EVENT_IOC_REFRESH, refresh) == 0, "IOC_REFRESH: %d", errno);
	async_n = 0;
	n = async_run(child, go);
	CHECK(n == 3, "IOC_REFRESH signals: %d, want 3", n);
	for (int i = 0; i < n && i < ASYNC_MAX; i++) {
		bool last = i == n - 1;

		CHECK(async_got[i].signo == sig && async_got[i].fd == fd &&
		      async_got[i].code == (last ? POLL_HUP : POLL_IN) &&
		      async_got[i].band == (last ? band_hup : band_in),
		      "refresh signal %d: signo %d code %d fd %d band %#lx", i, async_got[i].signo,
		      async_got[i].code, async_got[i].fd, async_got[i].band);
	}
	close(fd);

	/* 3: no F_SETSIG: send_sigio_to_task()'s case 0, SIGIO with
	 * SEND_SIG_PRIV (si_code SI_KERNEL); IOC_REFRESH 1 makes it one */
	child = async_child(go);
	fd = peo(&a, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	CHECK(fcntl(fd, F_SETOWN, getpid()) == 0, "F_SETOWN: %d", errno);
	CHECK(fcntl(fd, F_SETFL, O_ASYNC) == 0, "O_ASYNC: %d", errno);
	CHECK(ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) == 0, "IOC_REFRESH: %d", errno);
	async_n = 0;
	n = async_run(child, go);
	CHECK(n == 1 && async_got[0].signo == SIGIO && async_got[0].code == SI_KERNEL,
	      "plain SIGIO: %d signals, signo %d code %#x", n, async_got[0].signo, async_got[0].code);
	close(fd);

	/* 4: F_SETSIG of a signal with codes of its own (SIGTRAP):
	 * si_code SI_SIGIO, si_fd and si_band still there */
	sigaction(SIGTRAP, &sa, NULL);
	child = async_child(go);
	fd = peo(&a, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	CHECK(fcntl(fd, F_SETOWN, getpid()) == 0, "F_SETOWN: %d", errno);
	CHECK(fcntl(fd, F_SETSIG, SIGTRAP) == 0, "F_SETSIG: %d", errno);
	CHECK(fcntl(fd, F_SETFL, O_ASYNC) == 0, "O_ASYNC: %d", errno);
	CHECK(ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) == 0, "IOC_REFRESH: %d", errno);
	async_n = 0;
	n = async_run(child, go);
	CHECK(n == 1 && async_got[0].signo == SIGTRAP && async_got[0].code == SI_SIGIO &&
	      async_got[0].fd == fd && async_got[0].band == band_hup,
	      "SIGTRAP: %d signals, signo %d code %d fd %d band %#lx", n, async_got[0].signo,
	      async_got[0].code, async_got[0].fd, async_got[0].band);
	close(fd);

	/* 5: F_OWNER_TID (f_setown_ex(): PIDTYPE_PID): the signal goes to
	 * that thread; IOC_REFRESH 2 gives POLL_IN then POLL_HUP, both there */
	{
		struct f_owner_ex ox = { .type = F_OWNER_TID };
		pthread_t th;
		int tp[2];

		CHECK(pipe(tp) == 0, "pipe");
		CHECK(pthread_create(&th, NULL, async_thread, tp) == 0, "pthread_create");
		ox.pid = async_tid_wait();
		child = async_child(go);
		fd = peo(&a, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
		CHECK(is_perf_fd(fd), "fd %d", fd);
		CHECK(fcntl(fd, F_SETOWN_EX, &ox) == 0, "F_SETOWN_EX TID: %d", errno);
		CHECK(fcntl(fd, F_SETSIG, sig) == 0, "F_SETSIG: %d", errno);
		CHECK(fcntl(fd, F_SETFL, O_ASYNC) == 0, "O_ASYNC: %d", errno);
		CHECK(ioctl(fd, PERF_EVENT_IOC_REFRESH, 2) == 0, "IOC_REFRESH: %d", errno);
		async_n = 0;
		n = async_run(child, go);
		CHECK(write(tp[1], "x", 1) == 1, "thread go");
		pthread_join(th, NULL);
		n = async_n;    /* the thread may have taken them after the wait */
		CHECK(n == 2, "thread owner signals: %d, want 2", n);
		for (int i = 0; i < n && i < ASYNC_MAX; i++)
			CHECK(async_got[i].tid == ox.pid && async_got[i].signo == sig &&
			      async_got[i].fd == fd && async_got[i].code == (i ? POLL_HUP : POLL_IN),
			      "thread signal %d: tid %d (want %d) code %d", i, async_got[i].tid,
			      ox.pid, async_got[i].code);
		close(fd);
		close(tp[0]);
		close(tp[1]);
	}
	if (!failures)
		printf("ok fasync\n");
}

/* epoll over perf fds (ep_item_poll() -> perf_poll(), ep_send_events()):
 * EPOLLHUP at once and level for an event without a ring, with the
 * caller's data; nothing before the task runs; EPOLLIN after its wakeups,
 * consumed by the report (perf_poll's xchg of rb->poll); EPOLLHUP when
 * the monitored task exits (is_event_hup()); other fds as the host's. */
static void mode_epoll(void)
{
	struct epoll_event ev, out[8];
	struct perf_event_attr a;
	int ep, hup, ring, p[2], go[2], n, st;
	pid_t child;

	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0, "epoll_create1: %d", errno);
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	hup = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(hup), "fd %d", hup);
	ev.events = EPOLLIN;
	ev.data.u64 = 0x1122334455667788ull;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, hup, &ev) == 0, "ADD: %d", errno);
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, hup, &ev) < 0 && errno == EEXIST, "ADD twice: %d", errno);
	for (int i = 0; i < 2; i++) {
		n = epoll_wait(ep, out, 8, 0);
		CHECK(n == 1 && out[0].events == EPOLLHUP && out[0].data.u64 == 0x1122334455667788ull,
		      "ring-less, wait %d: %d %#x %#llx", i, n, n > 0 ? out[0].events : 0,
		      n > 0 ? (unsigned long long)out[0].data.u64 : 0ull);
	}
	{
		/* a poll() of the same file between waits changes nothing:
		 * EPOLLHUP stays (is_event_hup() / no ring is a state) */
		struct pollfd pfd = { .fd = hup, .events = POLLIN };

		CHECK(poll(&pfd, 1, 0) == 1 && pfd.revents == POLLHUP, "poll: %#x", pfd.revents);
		n = epoll_wait(ep, out, 8, 0);
		CHECK(n == 1 && out[0].events == EPOLLHUP, "after poll: %d", n);
	}
	CHECK(pipe(p) == 0 && write(p[1], "x", 1) == 1, "pipe");
	ev.events = EPOLLIN;
	ev.data.u64 = 7;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "ADD pipe: %d", errno);
	n = epoll_wait(ep, out, 8, 0);
	CHECK(n == 2, "HUP and a pipe: %d", n);
	CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, hup, NULL) == 0, "DEL: %d", errno);
	n = epoll_wait(ep, out, 8, 0);
	CHECK(n == 1 && out[0].data.u64 == 7 && out[0].events == EPOLLIN, "pipe alone: %d", n);
	CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL) == 0, "DEL pipe: %d", errno);
	close(hup);

	/* a ring on a child that runs emulated /bin/sleep 1: a wakeup per
	 * sample (wakeup_events 1) during its start, then quiet */
	CHECK(pipe(go) == 0, "pipe");
	child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(99);
		execl("/bin/sleep", "sleep", "1", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	a.sample_period = 50000;
	a.wakeup_events = 1;
	a.enable_on_exec = 1;
	ring = peo(&a, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(ring), "fd %d", ring);
	CHECK(mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ring, 0) != MAP_FAILED,
	      "mmap: %d", errno);
	ev.events = EPOLLIN;
	ev.data.u64 = 42;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, ring, &ev) == 0, "ADD ring: %d", errno);
	n = epoll_wait(ep, out, 8, 50);
	CHECK(n == 0, "before exec: %d %#x", n, n > 0 ? out[0].events : 0);
	CHECK(write(go[1], "x", 1) == 1, "go");
	/* one wait: the child's exec (it takes its write ends, which pokes
	 * this process) must not end it with EINTR, as no signal of this
	 * program's comes (SIGCHLD is ignored) */
	n = epoll_wait(ep, out, 8, 5000);
	CHECK(n == 1 && out[0].events == EPOLLIN && out[0].data.u64 == 42,
	      "after wakeups: %d %#x (errno %d)", n, n > 0 ? out[0].events : 0, n < 0 ? errno : 0);
	usleep(300000);
	epoll_wait(ep, out, 8, 0);      /* wakeups since, if any */
	n = epoll_wait(ep, out, 8, 0);
	CHECK(n == 0, "consumed: %d %#x", n, n > 0 ? out[0].events : 0);
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child status %#x", st);
	do {
		n = epoll_pwait(ep, out, 8, 5000, NULL);
	} while (n < 0 && errno == EINTR);
	CHECK(n == 1 && (out[0].events & EPOLLHUP) && out[0].data.u64 == 42,
	      "after exit: %d %#x", n, n > 0 ? out[0].events : 0);
	close(ring);
	close(ep);
	if (!failures)
		printf("ok epoll\n");
}

/* fork shares the file (dup_fd): the child closing it keeps the parent's */
static void mode_inherit(void)
{
	struct perf_event_attr a;
	uint64_t v;
	int fd, st;
	pid_t c;

	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	fd = peo(&a, 0, -1, -1, 0);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	c = fork();
	if (c == 0) {
		uint64_t w;
		int ok = read(fd, &w, 8) == 8 && close(fd) == 0;

		exit(ok ? 0 : 1);
	}
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child read+close: %#x", st);
	CHECK(read(fd, &v, 8) == 8, "parent read after the child's close: %d", errno);
	close(fd);
	if (!failures)
		printf("ok inherit\n");
}

/* A perf fd passed to another process over a unix socket (SCM_RIGHTS,
 * scm_detach_fds() -> receive_fd()): the receiver's copy is a perf fd (the
 * shim moves it into the range), names the same event (IOC_ID), reads, and
 * keeps the file alive after the sender's close (the file's references:
 * fput() only releases at the last). */
static void mode_scm(void)
{
	struct perf_event_attr a;
	int sv[2], fd, st;
	uint64_t id = 0, v;
	pid_t c;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair: %d", errno);
	c = fork();
	if (c == 0) {
		char ctl[CMSG_SPACE(sizeof(int))], go;
		uint64_t sent = 0, got = 0, w;
		struct iovec io = { &sent, sizeof(sent) };
		struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };
		struct cmsghdr *cm;
		int rfd = -1, bad = 0;

		close(sv[0]);
		if (recvmsg(sv[1], &m, 0) != sizeof(sent))
			_exit(10);
		cm = CMSG_FIRSTHDR(&m);
		if (!cm || cm->cmsg_type != SCM_RIGHTS)
			_exit(11);
		memcpy(&rfd, CMSG_DATA(cm), sizeof(int));
		if (!is_perf_fd(rfd))
			bad |= 1;
		if (ioctl(rfd, PERF_EVENT_IOC_ID, &got) != 0 || got != sent)
			bad |= 2;
		if (read(rfd, &w, 8) != 8)
			bad |= 4;
		/* the sender closes its fd; ours still holds the file */
		if (write(sv[1], "x", 1) != 1 || read(sv[1], &go, 1) != 1)
			bad |= 8;
		if (read(rfd, &w, 8) != 8 || close(rfd) != 0)
			bad |= 16;
		_exit(bad);
	}
	close(sv[1]);
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	fd = peo(&a, 0, -1, -1, 0);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	CHECK(ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0, "IOC_ID: %d", errno);
	{
		char ctl[CMSG_SPACE(sizeof(int))], go;
		struct iovec io = { &id, sizeof(id) };
		struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

		memset(ctl, 0, sizeof(ctl));
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		CHECK(sendmsg(sv[0], &m, 0) == sizeof(id), "sendmsg: %d", errno);
		CHECK(read(sv[0], &go, 1) == 1, "child's go");
		CHECK(close(fd) == 0, "close: %d", errno);
		CHECK(write(sv[0], "x", 1) == 1, "go");
	}
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "receiver: %#x (1 not a perf fd, 2 IOC_ID, 4 read, 8 sync, 16 read after the sender's close)",
	      st);
	close(sv[0]);
	(void)v;
	if (!failures)
		printf("ok scm\n");
}

static volatile sig_atomic_t alarm_seen;

static void on_alarm(int sig)
{
	(void)sig;
	alarm_seen = 1;
}

/* A non-perf file in the range is the host's: the shim passes it on. */
static void mode_range(void)
{
	struct rlimit rl;
	int p[2];
	char c = 'q';

	/* a program with files of its own there has a soft limit above
	 * them (an ordinary account's 1024 is raised to the hard limit) */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 2048 && rl.rlim_max >= 2048) {
		rl.rlim_cur = 2048;
		CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit: %d", errno);
	}
	CHECK(pipe(p) == 0, "pipe");
	CHECK(dup2(p[0], 1500) == 1500 && dup2(p[1], 1501) == 1501, "dup2 into the range");
	CHECK(write(1501, &c, 1) == 1, "write on a range fd: %d", errno);
	c = 0;
	CHECK(read(1500, &c, 1) == 1 && c == 'q', "read on a range fd");
	CHECK(fcntl(1500, F_GETFD) == 0, "fcntl");
	/* a blocking read on it is interrupted by a signal as natively:
	 * SA_RESTART off, EINTR */
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, NULL);
	ualarm(100000, 0);
	CHECK(read(1500, &c, 1) == -1 && errno == EINTR && alarm_seen, "interrupted read: %d", errno);
	CHECK(close(1500) == 0 && close(1501) == 0, "close");
	if (!failures)
		printf("ok range\n");
}

/* Each thread is its own task (pid 0 means the calling thread). */
static void *thread_main(void *arg)
{
	struct perf_event_attr a;
	uint64_t v[2];
	int fd;

	(void)arg;
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, PERF_FORMAT_ID);
	fd = peo(&a, 0, -1, -1, 0);
	if (!is_perf_fd(fd) || read(fd, v, sizeof(v)) != 16 || close(fd))
		return (void *)1;
	return NULL;
}

static void mode_threads(void)
{
	pthread_t th[8];
	void *ret;

	for (int i = 0; i < 8; i++)
		CHECK(pthread_create(&th[i], NULL, thread_main, NULL) == 0, "pthread_create");
	for (int i = 0; i < 8; i++) {
		CHECK(pthread_join(th[i], &ret) == 0 && ret == NULL, "thread %d", i);
	}
	if (!failures)
		printf("ok threads\n");
}

/* A perf fd without CLOEXEC survives exec (the new image finds it by its
 * pipe); one with CLOEXEC does not (do_close_on_exec). */
static void mode_exec(void)
{
	struct perf_event_attr a;
	char keep[16], gone[16];
	int fd, fdc;

	/* CPU-wide events: this task is not monitored, its exec stays native
	 * (an event on itself would make it run emulated) */
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
	fd = peo(&a, -1, 0, -1, 0);
	fdc = peo(&a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd) && is_perf_fd(fdc), "fds %d %d", fd, fdc);
	snprintf(keep, sizeof(keep), "%d", fd);
	snprintf(gone, sizeof(gone), "%d", fdc);
	execl("/proc/self/exe", "shim_client", "exec-after", keep, gone, (char *)NULL);
	CHECK(0, "execl: %d", errno);
}

static int mode_exec_after(int fd, int gone)
{
	uint64_t v;
	/* before this image touches the fd: a child closing its copy must
	 * leave ours (the fork took a reference: the fd was found at start) */
	pid_t c0 = fork();
	int st0;

	if (c0 == 0)
		_exit(close(fd) == 0 ? 0 : 1);
	CHECK(waitpid(c0, &st0, 0) == c0 && WIFEXITED(st0) && WEXITSTATUS(st0) == 0,
	      "first child close");
	CHECK(read(fd, &v, 8) == 8, "read of the inherited perf fd: %d", errno);
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ioctl of the inherited perf fd");
	CHECK(read(gone, &v, 8) == -1 && errno == EBADF, "the CLOEXEC fd is closed: %d", errno);
	/* the inherited file's references: a child closing its copy leaves
	 * ours (dup_fd at fork, although this image never used the fd before) */
	pid_t c = fork();

	if (c == 0)
		_exit(close(fd) == 0 ? 0 : 1);
	int st;

	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child close");
	CHECK(read(fd, &v, 8) == 8, "read after the child's close: %d", errno);
	if (!failures)
		printf("ok exec\n");
	return failures;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define BENCH_N 100000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* median of 9 batches of BENCH_N/9 calls, ns per call */
static double bench(void (*fn)(void *), void *arg)
{
	uint64_t t[9];

	for (int b = 0; b < 9; b++) {
		uint64_t t0 = now_ns();

		for (int i = 0; i < BENCH_N / 9; i++)
			fn(arg);
		t[b] = now_ns() - t0;
	}
	qsort(t, 9, sizeof(t[0]), cmp_u64);
	return (double)t[4] / (BENCH_N / 9);
}

static void read_once(void *arg)
{
	uint64_t v[3];

	if (read(*(int *)arg, v, sizeof(v)) < 0)
		abort();
}

static void mode_bench_read(void)
{
	struct perf_event_attr a;
	int fd;

	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS,
		PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	fd = peo(&a, 0, -1, -1, 0);
	CHECK(is_perf_fd(fd), "fd %d", fd);
	if (fd >= 0)
		printf("trapped read() on a perf fd: %.2f us\n", bench(read_once, &fd) / 1000);
}

static void sigsys_bare(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_RAX] = 0;
}

static void getppid_once(void *arg)
{
	(void)arg;
	syscall(SYS_getppid);
}

/* SECCOMP_RET_TRAP of getppid to a handler that only sets the result. */
static void mode_bench_bare(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = f };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigsys_bare;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	CHECK(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0, "seccomp: %d", errno);
	printf("bare SIGSYS round trip: %.2f us\n", bench(getppid_once, NULL) / 1000);
}

/*
 * Children started by glibc's system(), popen() and posix_spawn(): the
 * spawn child resets every handled signal to SIG_DFL with all signals
 * blocked before its execve (__spawni_child). Prints what each gave, for
 * the driver to compare with a native run of the same mode.
 */
static void mode_spawn(void)
{
	char *av[] = { (char *)"/bin/echo", (char *)"spawned", NULL };
	char line[64] = "";
	posix_spawnattr_t at;
	sigset_t dfl;
	int st = -1;
	FILE *f;
	pid_t p;

	printf("system %#x\n", system("echo system"));
	f = popen("echo popen", "r");
	if (f && !fgets(line, sizeof(line), f))
		line[0] = 0;
	printf("popen %s", line);
	printf("pclose %#x\n", f ? pclose(f) : -1);
	if (posix_spawn(&p, av[0], NULL, NULL, av, environ) == 0)
		waitpid(p, &st, 0);
	printf("posix_spawn %#x\n", st);
	/* a child told to take SIGSYS's default action itself */
	posix_spawnattr_init(&at);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGSYS);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	st = -1;
	if (posix_spawn(&p, av[0], NULL, &at, av, environ) == 0)
		waitpid(p, &st, 0);
	printf("posix_spawn SETSIGDEF(SIGSYS) %#x\n", st);
	posix_spawnattr_destroy(&at);
}

/* A native program counting its own code, as PAPI's tools or a
 * profiler's self-check do: two events, each enabled and read twice.
 * Prints the counts' sum (0 under pmusim run: its native code is not
 * modelled); the driver looks at stderr. */
static void mode_selfcount(void)
{
	struct perf_event_attr a;
	uint64_t v, sum = 0;
	volatile unsigned x = 0;

	for (int e = 0; e < 2; e++) {
		int fd;

		hw_attr(&a, e ? PERF_COUNT_HW_BRANCH_INSTRUCTIONS : PERF_COUNT_HW_INSTRUCTIONS, 0);
		fd = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		CHECK(fd >= 0, "open: %d", fd);
		if (fd < 0)
			continue;
		for (int k = 0; k < 2; k++) {
			CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "enable");
			for (unsigned i = 0; i < 100000; i++)
				x += i;
			CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0, "disable");
			CHECK(read(fd, &v, sizeof(v)) == sizeof(v), "read");
			sum += v;
		}
		close(fd);
	}
	printf("selfcount %llu\n", (unsigned long long)sum);
}

/*
 * A child that shares the parent's memory until it execs (vfork, as
 * Python's subprocess does) and closes its fds (close_range, close, as
 * _posixsubprocess's close_fds does) closes its own copies: the parent's
 * perf file lives on (the kernel's fd table copy at vfork: copy_files()).
 */
static void mode_vfork(void)
{
	struct perf_event_attr a;
	uint64_t v[3];
	int fd, st = -1;
	pid_t p;

	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS,
		PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	fd = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(is_perf_fd(fd), "open: %d", fd);
	/* perf_read() ignores O_NONBLOCK; a file the shim lost would be
	 * its empty pipe, and EAGAIN rather than a hang */
	if (fd >= 0)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	for (int round = 0; round < 2 && fd >= 0; round++) {
		p = vfork();
		if (p == 0) {
			if (round)
				syscall(SYS_close, fd);
			else
				syscall(SYS_close_range, 3, ~0U, 0);
			_exit(0);
		}
		CHECK(p > 0 && waitpid(p, &st, 0) == p && st == 0, "vfork child: %#x", st);
		CHECK(read(fd, v, sizeof(v)) == sizeof(v), "read after the child's %s: %d",
		      round ? "close" : "close_range", errno);
	}
	if (fd >= 0)
		CHECK(close(fd) == 0, "close");
	if (!failures)
		printf("ok vfork\n");
}

/*
 * Bad pointers in perf calls: each row prints the call's result or
 * -errno. Run natively (a software event, which the host's perf_fops
 * serve) and under pmusim run (a hardware event, which the core serves),
 * the driver compares the two outputs line by line: the kernel is the
 * oracle for every row.
 */
static long ret(long r)
{
	return r < 0 ? -errno : r;
}

static void mode_efault(void)
{
	bool sim = getenv("PMUSIM_SESSION") != NULL;
	char *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *edge = two + 4096;        /* the first byte that cannot be read */
	void *bad = (void *)0x1000;
	struct perf_event_attr a, *pa;
	struct timeval *rtv = (struct timeval *)(ro + 64);
	unsigned long *rset = (unsigned long *)(ro + 1024);
	struct iovec iov;
	struct pollfd pfd;
	int fd, ep;

	if (two == MAP_FAILED || ro == MAP_FAILED)
		return;
	hw_attr(&a, PERF_COUNT_HW_INSTRUCTIONS,
		PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (!sim) {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
	}
	fd = peo(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		printf("open: %d\n", fd);
		return;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	memcpy(ro, &pfd, sizeof(pfd));
	rtv->tv_sec = 0;
	rtv->tv_usec = 1000;
	SET_BIT(rset, fd);
	mprotect(ro, 4096, PROT_READ);
	mprotect(edge, 4096, PROT_NONE);

	printf("perf_event_open(0x1000): %d\n", peo(bad, 0, -1, -1, 0));
	pa = (struct perf_event_attr *)(edge - 4);      /* size lies past the edge */
	printf("perf_event_open(size unreadable): %d\n", peo(pa, 0, -1, -1, 0));
	pa = (struct perf_event_attr *)(edge - 64);     /* 128 bytes, 64 readable */
	memcpy(pa, &a, 64);
	printf("perf_event_open(attr crosses the edge): %d\n", peo(pa, 0, -1, -1, 0));
	pa = (struct perf_event_attr *)(edge - 8);      /* size 8: E2BIG */
	memcpy(pa, &a, 8);
	pa->size = 8;
	printf("perf_event_open(size 8 at the edge): %d\n", peo(pa, 0, -1, -1, 0));

	printf("read(0x1000, 24): %ld\n", ret(read(fd, bad, 24)));
	printf("read(0x1000, 8): %ld\n", ret(read(fd, bad, 8)));
	printf("read(read-only, 24): %ld\n", ret(read(fd, ro, 24)));
	printf("read(crosses the edge, 24): %ld\n", ret(read(fd, edge - 8, 24)));
	printf("readv(iov 0x1000): %ld\n", ret(readv(fd, bad, 1)));
	iov.iov_base = ro;
	iov.iov_len = 24;
	printf("readv(read-only segment): %ld\n", ret(readv(fd, &iov, 1)));
	printf("readv(2 segments, the second 0x1000): %ld\n",
	       ret(readv(fd, (struct iovec *)(edge - sizeof(iov)), 2)));

	printf("ioctl(ID, 0x1000): %ld\n", ret(ioctl(fd, PERF_EVENT_IOC_ID, bad)));
	printf("ioctl(ID, read-only): %ld\n", ret(ioctl(fd, PERF_EVENT_IOC_ID, ro)));
	printf("ioctl(PERIOD, 0x1000): %ld\n", ret(ioctl(fd, PERF_EVENT_IOC_PERIOD, bad)));
	printf("ioctl(SET_FILTER, 0x1000): %ld\n", ret(ioctl(fd, PERF_EVENT_IOC_SET_FILTER, bad)));
	printf("ioctl(QUERY_BPF, 0x1000): %ld\n", ret(ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, bad)));
	printf("ioctl(MODIFY_ATTRIBUTES, 0x1000): %ld\n",
	       ret(ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, bad)));
	printf("ioctl(FIOASYNC, 0x1000): %ld\n", ret(ioctl(fd, FIOASYNC, bad)));
	printf("fcntl(F_SETOWN_EX, 0x1000): %ld\n", ret(fcntl(fd, F_SETOWN_EX, bad)));
	printf("fcntl(F_GETOWN_EX, read-only): %ld\n", ret(fcntl(fd, F_GETOWN_EX, ro)));

	ep = epoll_create1(EPOLL_CLOEXEC);
	printf("epoll_ctl(ADD, 0x1000): %ld\n", ret(epoll_ctl(ep, EPOLL_CTL_ADD, fd, bad)));
	printf("poll(read-only fds): %ld\n", ret(poll((struct pollfd *)ro, 1, 0)));
	printf("ppoll(timeout 0x1000): %ld\n",
	       ret(syscall(SYS_ppoll, &pfd, 1, bad, NULL, 8)));
	printf("ppoll(sigmask 0x1000): %ld\n",
	       ret(syscall(SYS_ppoll, &pfd, 1, NULL, bad, 8)));
	printf("select(read-only set): %ld\n", ret(syscall(SYS_select, fd + 1, rset, 0, 0, 0)));
	{
		unsigned long set[SHIM_SET_LONGS] = { 0 };

		SET_BIT(set, fd);
		/* poll_select_finish(): a timeout it cannot write back is no error */
		printf("select(read-only timeout): %ld\n",
		       ret(syscall(SYS_select, fd + 1, set, 0, 0, rtv)));
		printf("pselect6(sigmask 0x1000): %ld\n",
		       ret(syscall(SYS_pselect6, fd + 1, set, 0, 0, 0, bad)));
	}
	{
		struct epoll_event ev = { .events = EPOLLIN }, out;

		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		printf("epoll_pwait(sigmask 0x1000): %ld\n",
		       ret(syscall(SYS_epoll_pwait, ep, &out, 1, 0, bad, 8)));
		printf("epoll_pwait2(timeout 0x1000): %ld\n",
		       ret(syscall(SYS_epoll_pwait2, ep, &out, 1, bad, NULL, 8)));
	}
	{
		char *argv[] = { (char *)"/bin/true", NULL }, *envp[] = { bad, NULL };

		printf("execve(argv 0x1000): %ld\n", ret(syscall(SYS_execve, "/bin/true", bad, envp)));
		printf("execve(envp string 0x1000): %ld\n",
		       ret(syscall(SYS_execve, "/bin/true", argv, envp)));
	}
	printf("rt_sigaction(SIGSYS, 0x1000): %ld\n",
	       ret(syscall(SYS_rt_sigaction, SIGSYS, bad, NULL, 8)));
	close(ep);
	close(fd);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(void); } modes[] = {
		{ "read", mode_read }, { "ioctl", mode_ioctl }, { "fdops", mode_fdops },
		{ "passthrough", mode_passthrough }, { "mmap", mode_mmap },
		{ "pollhup", mode_pollhup }, { "inherit", mode_inherit }, { "range", mode_range },
		{ "threads", mode_threads }, { "exec", mode_exec }, { "select", mode_select },
		{ "fasync", mode_fasync }, { "epoll", mode_epoll }, { "scm", mode_scm }, { "munmap", mode_munmap },
		{ "sharedring", mode_sharedring }, { "nativecomm", mode_nativecomm },
		{ "spawn", mode_spawn }, { "selfcount", mode_selfcount },
		{ "efault", mode_efault }, { "vfork", mode_vfork },
		{ "bench-read", mode_bench_read }, { "bench-bare", mode_bench_bare },
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "exec-after") == 0)
		return mode_exec_after(atoi(argv[2]), atoi(argv[3]));
	if (argc != 2) {
		fprintf(stderr, "usage: shim_client MODE\n");
		return 2;
	}
	for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(argv[1], modes[i].name) == 0) {
			modes[i].fn();
			return failures;
		}
	}
	fprintf(stderr, "shim_client: unknown mode %s\n", argv[1]);
	return 2;
}
