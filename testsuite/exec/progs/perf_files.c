/*
 * perf_files.c - a perf fd is the kernel's file in every process: across
 * an execve (the program execs itself), received over a socketpair with
 * SCM_RIGHTS, inherited by fork, and with its ring mmapped after close().
 * It prints what reads and ioctls give, with no counts (the native run is
 * the oracle: a software task-clock event natively, the simulated one
 * under `pmusim exec`). Usage: perf_files exec|scm|mmap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile unsigned long sink;

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static int open_clock(int disabled, int enable_on_exec, int cloexec, uint64_t period)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK, .exclude_kernel = 1, .exclude_hv = 1,
		.disabled = disabled, .enable_on_exec = enable_on_exec, .sample_period = period,
		.sample_type = PERF_SAMPLE_IP };

	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    cloexec ? PERF_FLAG_FD_CLOEXEC : 0);
}

static uint64_t count(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		printf("read fd %d: %s\n", fd, strerror(errno));
	return v;
}

static uint64_t id_of(int fd)
{
	uint64_t id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		printf("IOC_ID fd %d: %s\n", fd, strerror(errno));
	return id;
}

/* the new image: fds and what the old image saw are in argv */
static int after_exec(char **argv)
{
	int counting = atoi(argv[2]), on_exec = atoi(argv[3]), cloexec = atoi(argv[4]);
	uint64_t before = strtoull(argv[5], NULL, 10), id = strtoull(argv[6], NULL, 10);
	uint64_t v1, v2, v3;

	spin(200000);
	v1 = count(counting);
	printf("counting carried on: %d\n", v1 > before);
	printf("same event: %d\n", id_of(counting) == id);
	printf("enable_on_exec counted: %d\n", count(on_exec) > 0);
	printf("cloexec fd closed: %d\n", fcntl(cloexec, F_GETFD) < 0 && errno == EBADF);
	printf("disable: %d\n", ioctl(counting, PERF_EVENT_IOC_DISABLE, 0));
	v2 = count(counting);
	spin(200000);
	v3 = count(counting);
	printf("stopped: %d\n", v2 == v3);
	printf("reset: %d\n", ioctl(counting, PERF_EVENT_IOC_RESET, 0));
	printf("reset to 0: %d\n", count(counting) == 0);
	printf("close: %d %d\n", close(counting), close(on_exec));
	return 0;
}

static int test_exec(char **argv)
{
	int counting = open_clock(0, 0, 0, 0);
	int on_exec = open_clock(1, 1, 0, 0);
	int cloexec = open_clock(0, 0, 1, 0);
	char a[5][32];
	uint64_t v;

	spin(200000);
	v = count(counting);
	printf("before exec: counting %d, on_exec %llu\n", v > 0,
	       (unsigned long long)count(on_exec));
	fflush(stdout);
	snprintf(a[0], 32, "%d", counting);
	snprintf(a[1], 32, "%d", on_exec);
	snprintf(a[2], 32, "%d", cloexec);
	snprintf(a[3], 32, "%llu", (unsigned long long)v);
	snprintf(a[4], 32, "%llu", (unsigned long long)id_of(counting));
	execl("/proc/self/exe", argv[0], "after-exec", a[0], a[1], a[2], a[3], a[4], (char *)NULL);
	perror("execl");
	return 1;
}

static int send_fd(int sock, int fd)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return (int)sendmsg(sock, &m, 0);
}

/* recvmsg, or recvmmsg of one message with many */
static int recv_fd(int sock, int many)
{
	char c;
	struct iovec iov = { &c, 1 };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } u;
	struct mmsghdr mm = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
					   .msg_controllen = sizeof(u.buf) } };
	struct msghdr m = mm.msg_hdr;
	int fd = -1;

	if (many) {
		if (recvmmsg(sock, &mm, 1, 0, NULL) != 1)
			return -1;
		m = mm.msg_hdr;
	} else if (recvmsg(sock, &m, 0) != 1) {
		return -1;
	}
	if (!CMSG_FIRSTHDR(&m))
		return -1;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	return fd;
}

/* The child gets a perf fd it did not inherit over a socketpair, reads it,
 * disables it and closes it and its inherited copy of another; the parent
 * sees the disable and still reads both. */
static int test_scm(void)
{
	int sv[2], st, fd = open_clock(0, 0, 0, 0), kept, fd2;
	pid_t pid;
	uint64_t v1, v2;

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	kept = open_clock(0, 0, 0, 0);
	pid = fork();
	fd2 = pid ? open_clock(0, 0, 0, 0) : -1;
	if (pid == 0) {
		int got = recv_fd(sv[1], 0), got2 = recv_fd(sv[1], 1);
		uint64_t id = 0;

		printf("child: received perf fds: %d %d\n", got >= 0, got2 >= 0);
		spin(100000);
		printf("child: counts: %d %d\n", count(got) > 0, count(got2) > 0);
		if (read(sv[1], &id, sizeof(id)) != sizeof(id))
			return 1;
		printf("child: same event: %d\n", id_of(got) == id);
		printf("child: disable: %d\n", ioctl(got, PERF_EVENT_IOC_DISABLE, 0));
		errno = 0;
		printf("child: write: %zd", write(got, &id, 8));
		printf(" %s\n", strerror(errno));
		printf("child: close: %d %d\n", close(got), close(kept));
		fflush(stdout);
		return 0;
	}
	spin(100000);
	send_fd(sv[0], fd);
	send_fd(sv[0], fd2);
	close(fd2);
	{
		uint64_t id = id_of(fd);

		write(sv[0], &id, sizeof(id));
	}
	close(fd);      /* the child's copy keeps the file */
	waitpid(pid, &st, 0);
	printf("parent: child status %d\n", st);
	v1 = count(kept);
	spin(100000);
	v2 = count(kept);
	printf("parent: inherited fd still counts: %d\n", v2 > v1);
	return 0;
}

/* close() with the ring mmapped: the mapping holds the event, which keeps
 * sampling until munmap; a forked child's munmap of its copy is its own. */
static int test_mmap(void)
{
	int fd = open_clock(0, 0, 0, 100000);
	size_t len = 9 * 4096;
	struct perf_event_mmap_page *pg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	uint64_t h1, h2;
	int st;

	if (pg == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* a child's copy of the mapping is its own: its munmap leaves the
	 * parent's (perf_mmap_open, perf_mmap_close) */
	if (fork() == 0)
		_exit(munmap(pg, len) ? 1 : 0);
	wait(&st);
	printf("child munmap: %d\n", st);
	/* a posix_spawn child (clone CLONE_VM|CLONE_VFORK) execs: its copies go */
	{
		char *args[] = { "true", NULL };
		pid_t pid;

		printf("spawn: %d", posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ));
		printf(" %d\n", waitpid(pid, &st, 0) == pid && st == 0);
	}
	printf("close: %d\n", close(fd));
	spin(2000000);
	h1 = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	spin(2000000);
	h2 = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	printf("samples after close: %d, still sampling: %d\n", h1 > 0, h2 > h1);
	printf("munmap: %d\n", munmap(pg, len));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 6 && !strcmp(argv[1], "after-exec"))
		return after_exec(argv);
	if (argc > 1 && !strcmp(argv[1], "exec"))
		return test_exec(argv);
	if (argc > 1 && !strcmp(argv[1], "scm"))
		return test_scm();
	if (argc > 1 && !strcmp(argv[1], "mmap"))
		return test_mmap();
	fprintf(stderr, "usage: perf_files exec|scm|mmap\n");
	return 2;
}
