/*
 * exit_hup.c - a native client as perf test 24 is: a forked child execs
 * /bin/true with an enable_on_exec event on it (task=1); the parent polls
 * the event until POLLHUP, then polls on until its SIGCHLD has come, at
 * most 1000 times as the test does. In the kernel exit_notify() follows
 * perf_event_exit_task() at once, so the child is a zombie when POLLHUP is
 * seen. "hw": a hardware event (the simulated core's under pmusim run);
 * else task-clock (the host's, natively).
 */
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t exited;

static void on_chld(int sig)
{
	(void)sig;
	exited = 1;
}

int main(int argc, char **argv)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK, .task = 1, .exclude_kernel = 1,
		.disabled = 1, .enable_on_exec = 1 };
	int go[2], fd, polls = 0, hup = 0;
	pid_t c;
	char b;

	if (argc > 1 && !strcmp(argv[1], "hw")) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_CPU_CYCLES;
	}
	signal(SIGCHLD, on_chld);
	if (pipe(go))
		return 1;
	c = fork();
	if (c == 0) {
		if (read(go[0], &b, 1) != 1)
			_exit(1);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	fd = (int)syscall(SYS_perf_event_open, &a, c, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("perf_event_open");
		return 1;
	}
	/* perf_poll() answers EPOLLHUP at once for an event without a ring */
	if (mmap(NULL, 9 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (write(go[1], "x", 1) != 1)
		return 1;
	while (!exited || !hup) {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLHUP };

		if (poll(&p, 1, 1000) < 0 && !exited)
			continue;
		if (p.revents & POLLHUP)
			hup = 1;
		if (hup && ++polls > 1000)
			break;
	}
	printf("POLLHUP seen %d, SIGCHLD within 1000 polls after it %d\n", hup, polls <= 1000);
	waitpid(c, NULL, 0);
	return 0;
}
