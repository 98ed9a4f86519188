/*
 * fdstress.c - a native program that stresses where descriptors go, for
 * fd_limits.sh; also run emulated under `pmusim exec`.
 *
 *   fdstress hog N -- CMD ARGS     open N fds of /dev/null (inherited), exec CMD
 *   fdstress open N                open N fds, then perf_event_open
 *                                  instructions:u on itself: prints
 *                                  "next F perf P read R count C" (F: the fd a
 *                                  dup would have got just before) and its
 *                                  soft RLIMIT_NOFILE after that, closes
 *                                  every fd it opened and says if all closes
 *                                  succeeded
 *   fdstress closerange -- CMD     close_range(3, ~0U, 0), exec CMD
 *   fdstress sweep -- CMD          close every fd /proc/self/fd lists but
 *                                  0-2, exec CMD
 *   fdstress cloexec -- CMD        set FD_CLOEXEC on every fd /proc/self/fd
 *                                  lists but 0-2, exec CMD
 *   fdstress dup2top -- CMD        raise the soft limit to 4096 (or the
 *                                  hard), dup2 stdin onto 1024..2047, exec CMD
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

static int open_many(int n, int *fds)
{
	for (int i = 0; i < n; i++) {
		fds[i] = open("/dev/null", O_RDONLY);
		if (fds[i] < 0) {
			fprintf(stderr, "fdstress: open #%d: %s\n", i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int run(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "fdstress: %s: %s\n", argv[0], strerror(errno));
	return 127;
}

static int self_open(int n)
{
	struct perf_event_attr a;
	int *fds = calloc((size_t)n + 1, sizeof(int)), next, fd, bad = 0;
	uint64_t count = 0;
	struct rlimit rl;
	ssize_t r;

	if (!fds || open_many(n, fds))
		return 1;
	next = dup(0);
	close(next);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("next %d perf -1 errno %s\n", next, strerror(errno));
		return 1;
	}
	for (volatile int i = 0; i < 100000; i++)
		;
	r = read(fd, &count, sizeof(count));
	printf("next %d perf %d read %zd count %s\n", next, fd, r, count ? "nonzero" : "0");
	/* the program's own limit, after a perf fd went above it */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		printf("soft limit %llu\n", (unsigned long long)rl.rlim_cur);
	if (close(fd))
		bad++;
	for (int i = 0; i < n; i++)
		if (close(fds[i]))
			bad++;
	printf("closes %s\n", bad ? "failed" : "ok");
	return bad || r != (ssize_t)sizeof(count);
}

/* Closes (or marks close-on-exec) every fd /proc/self/fd lists but 0-2. */
static int sweep(bool cloexec)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fds[65536], n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < 65536) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd > 2 && fd != dirfd(d))
			fds[n++] = fd;
	}
	closedir(d);
	for (int i = 0; i < n; i++) {
		if (cloexec)
			fcntl(fds[i], F_SETFD, FD_CLOEXEC);
		else
			close(fds[i]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "hog") && !strcmp(argv[3], "--")) {
		int n = atoi(argv[2]), *fds = calloc((size_t)n + 1, sizeof(int));

		if (!fds || open_many(n, fds))
			return 1;
		return run(argv + 4);
	}
	if (argc == 3 && !strcmp(argv[1], "open"))
		return self_open(atoi(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "closerange") && !strcmp(argv[2], "--")) {
		if (syscall(SYS_close_range, 3, ~0U, 0))
			perror("fdstress: close_range");
		return run(argv + 3);
	}
	if (argc >= 4 && (!strcmp(argv[1], "sweep") || !strcmp(argv[1], "cloexec")) &&
	    !strcmp(argv[2], "--")) {
		if (sweep(!strcmp(argv[1], "cloexec")))
			perror("fdstress: /proc/self/fd");
		return run(argv + 3);
	}
	if (argc >= 4 && !strcmp(argv[1], "dup2top") && !strcmp(argv[2], "--")) {
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		/* every number of [1024, 2048) the program's own */
		for (int fd = 1024; fd < 2048; fd++)
			if (dup2(0, fd) != fd)
				fprintf(stderr, "fdstress: dup2 onto %d: %s\n", fd, strerror(errno));
		return run(argv + 3);
	}
	fprintf(stderr, "usage: fdstress hog N -- CMD | open N | closerange|sweep|cloexec|dup2top -- CMD\n");
	return 2;
}
