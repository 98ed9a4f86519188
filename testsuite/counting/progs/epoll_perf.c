/*
 * epoll_perf.c - guest program of the epoll tests (testsuite/counting):
 * epoll on perf fds as the kernel answers it (ep_item_poll -> perf_poll),
 * in sets that also hold an ordinary pipe. Prints "key=value" lines; a mask
 * key has bit i set when the i-th epoll_wait of that check reported.
 *
 * Modes:
 *   pipe   the ordinary-fd half alone: level and edge triggered,
 *          EPOLLONESHOT, timeouts, EINTR, the errnos, fork. Run natively it
 *          is the oracle of the same half run under pmusim.
 *   perf P W   the same half in sets that also hold a sampling perf fd
 *          (period P instructions, wakeup_events W), then the perf half:
 *          steps of 3P instructions (3 samples each) with an epoll_wait
 *          after each, level triggered then EPOLLET; EPOLLONESHOT; a fd
 *          without a ring (EPOLLHUP); a child's event after the child exits
 *          (EPOLLHUP); the epoll fd across fork.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include "region.h"

#define PIPE_TAG 0x5049504500000001ull
#define PERF_TAG 0x5045524600000002ull
#define NOMAP_TAG 0x4e4f4d4100000003ull
#define CHILD_TAG 0x4348494c00000004ull

static int pipefd[2];
static int perf_fd = -1;
static unsigned long step_n;    /* loop_region(perf_fd, step_n): 3P instructions */
static int bad_data;            /* reports whose data is not the registered one */

static void add(int ep, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		printf("ctl_add_errno=%d\n", errno);
}

/* One epoll_wait(ep, timeout): the events reported for tag (0: none);
 * every reported event must carry one of the registered tags. */
static uint32_t wait_tag(int ep, int timeout, uint64_t tag)
{
	struct epoll_event evs[8];
	uint32_t got = 0;
	int n = epoll_wait(ep, evs, 8, timeout);

	for (int i = 0; i < n; i++) {
		uint64_t d = evs[i].data.u64;

		if (d != PIPE_TAG && d != PERF_TAG && d != NOMAP_TAG && d != CHILD_TAG)
			bad_data++;
		if (d == tag)
			got |= evs[i].events;
	}
	return got;
}

/* The mask of k waits(0) reporting tag. */
static unsigned mask_of(int ep, int k, uint64_t tag)
{
	unsigned m = 0;

	for (int i = 0; i < k; i++)
		if (wait_tag(ep, 0, tag))
			m |= 1u << i;
	return m;
}

/* The epoll fd across fork: KEY_child=1 when the child's wait(0) on the
 * inherited ep reported EPOLLIN for tag, then KEY_parent the mask of the
 * parent's wait(0) after the child's exit. */
static void fork_check(int ep, uint64_t tag, const char *key)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(wait_tag(ep, 0, tag) == EPOLLIN);
	waitpid(pid, &st, 0);
	printf("%s_child=%d\n", key, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	printf("%s_parent=%u\n", key, mask_of(ep, 1, tag));
}

static void put(void)
{
	if (write(pipefd[1], "x", 1) != 1)
		printf("write=failed\n");
}

static void drain(void)
{
	char buf[64];

	while (read(pipefd[0], buf, sizeof(buf)) > 0)
		;
}

/* An epoll fd with the pipe (events | EPOLLIN) and, in perf mode, the
 * sampler (EPOLLIN, no wakeup pending: the sets' pipe answers must be those
 * of the pipe alone). */
static int mixed_set(uint32_t flags)
{
	int ep = epoll_create1(0);

	add(ep, pipefd[0], EPOLLIN | flags, PIPE_TAG);
	if (perf_fd >= 0)
		add(ep, perf_fd, EPOLLIN, PERF_TAG);
	return ep;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static volatile int got_usr1, got_chld;

static void on_chld(int sig)
{
	(void)sig;
	got_chld = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

/* ---- the ordinary-fd half ---- */

static void pipe_half(void)
{
	struct epoll_event evs[4];
	struct sigaction sa;
	int ep, r, st;
	int64_t t0;
	pid_t pid;

	/* level triggered: reported while readable */
	ep = mixed_set(0);
	put();
	printf("pipe_lt=%u\n", mask_of(ep, 3, PIPE_TAG));
	drain();
	printf("pipe_lt_empty=%u\n", mask_of(ep, 2, PIPE_TAG));
	/* the epoll fd across fork: the child's wait sees the same set */
	put();
	fork_check(ep, PIPE_TAG, "pipe_fork");
	drain();
	/* timeouts: nothing ready */
	t0 = now_ms();
	r = epoll_wait(ep, evs, 4, 30);
	printf("timeout_ok=%d\n", r == 0 && now_ms() - t0 >= 30);
	{
		struct timespec ts = { 0, 20000000 };

		t0 = now_ms();
		r = (int)syscall(SYS_epoll_pwait2, ep, evs, 4, &ts, NULL, 8);
		printf("pwait2_timeout_ok=%d\n", r == 0 && now_ms() - t0 >= 20);
		ts.tv_nsec = 1000000000;
		r = (int)syscall(SYS_epoll_pwait2, ep, evs, 4, &ts, NULL, 8);
		printf("pwait2_bad_ts_errno=%d\n", r < 0 ? errno : 0);
	}
	r = epoll_wait(ep, evs, 0, 0);
	printf("maxevents_errno=%d\n", r < 0 ? errno : 0);
	{
		uint64_t mask = 0;

		r = (int)syscall(SYS_epoll_pwait, ep, evs, 4, 0, &mask, 4);
		printf("sigsetsize_errno=%d\n", r < 0 ? errno : 0);
	}
	/* a caught signal ends an endless wait: EINTR, also with SA_RESTART
	 * (ep_poll: -EINTR, never restarted after a handler) */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	pid = fork();
	if (pid == 0) {
		/* again and again: one may come before the wait begins */
		struct timespec ts = { 0, 20000000 };

		for (;;) {
			nanosleep(&ts, NULL);
			kill(getppid(), SIGUSR1);
		}
	}
	r = epoll_wait(ep, evs, 4, -1);
	printf("eintr=%d\n", r < 0 && errno == EINTR && got_usr1);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	close(ep);

	/* edge triggered: one report per write */
	ep = mixed_set(EPOLLET);
	put();
	r = (int)mask_of(ep, 2, PIPE_TAG);
	put();
	printf("pipe_et=%u\n", r | mask_of(ep, 1, PIPE_TAG) << 2);
	drain();
	close(ep);

	/* EPOLLONESHOT: one report, then none until EPOLL_CTL_MOD re-arms */
	ep = mixed_set(EPOLLONESHOT);
	put();
	r = (int)mask_of(ep, 2, PIPE_TAG);
	{
		struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT, .data.u64 = PIPE_TAG };

		epoll_ctl(ep, EPOLL_CTL_MOD, pipefd[0], &ev);
	}
	printf("pipe_oneshot=%u\n", r | mask_of(ep, 2, PIPE_TAG) << 2);
	drain();
	close(ep);
}

/* ---- the perf half ---- */

static int open_sampler(unsigned long long period, unsigned wakeup_events, int map, pid_t pid)
{
	struct perf_event_attr a;
	int fd;

	sampler_attr(&a, period);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a.disabled = pid == 0;
	a.wakeup_events = wakeup_events;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
	/* 16 data pages: the samples (24 bytes each) stay under the default
	 * watermark (half the buffer), so only wakeup_events wakes */
	if (fd >= 0 && map && mmap(NULL, 17 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
			      MAP_FAILED)
		printf("mmap_errno=%d\n", errno);
	return fd;
}

/* k steps, an epoll_wait(0) after each: the mask of the steps after which
 * the sampler reported EPOLLIN */
static unsigned steps(int ep, int k)
{
	unsigned m = 0;

	for (int i = 0; i < k; i++) {
		loop_region(perf_fd, step_n);
		if (wait_tag(ep, 0, PERF_TAG) == EPOLLIN)
			m |= 1u << i;
	}
	return m;
}

static void perf_half(unsigned long long period, unsigned w)
{
	int ep, nomap, child_fd, st, go[2];
	unsigned m;
	pid_t pid;

	/* level triggered, in a set with the pipe, written every 4th step */
	ep = mixed_set(0);
	m = 0;
	for (int i = 0; i < 12; i++) {
		uint32_t pe = 0, pp = 0;
		struct epoll_event evs[8];
		int n;

		loop_region(perf_fd, step_n);
		if (i % 4 == 3)
			put();
		n = epoll_wait(ep, evs, 8, 0);
		for (int j = 0; j < n; j++) {
			if (evs[j].data.u64 == PERF_TAG)
				pe |= evs[j].events;
			else if (evs[j].data.u64 == PIPE_TAG)
				pp |= evs[j].events;
			else
				bad_data++;
		}
		if (pe == EPOLLIN)
			m |= 1u << i;
		if (pp == EPOLLIN)
			m |= 1u << (16 + i);
		drain();
	}
	printf("lt_in=%u\nlt_pipe=%u\n", m & 0xffff, m >> 16);
	/* perf_poll() consumed rb->poll: nothing more */
	printf("lt_again=%u\n", mask_of(ep, 2, PERF_TAG));
	epoll_ctl(ep, EPOLL_CTL_DEL, perf_fd, NULL);
	close(ep);

	/* edge triggered: the same steps on */
	ep = epoll_create1(0);
	add(ep, perf_fd, EPOLLIN | EPOLLET, PERF_TAG);
	printf("et_in=%u\n", steps(ep, 12));
	/* several wakeups before a wait: one report */
	for (int i = 0; i < 4; i++)
		loop_region(perf_fd, step_n);
	printf("et_batch=%u\n", mask_of(ep, 2, PERF_TAG));

	/* the epoll fd across fork: the child's wait consumes the wakeup of
	 * the shared file; the parent's then finds nothing */
	loop_region(perf_fd, step_n);
	loop_region(perf_fd, step_n);   /* 6 samples: at least one wakeup */
	fork_check(ep, PERF_TAG, "perf_fork");
	close(ep);

	/* EPOLLONESHOT: a wakeup reported, the next not (disarmed); MOD
	 * re-arms, and its poll (ep_modify -> ep_item_poll) consumes the
	 * pending POLLIN; the wakeup after that is reported */
	ep = epoll_create1(0);
	add(ep, perf_fd, EPOLLIN | EPOLLONESHOT, PERF_TAG);
	m = 0;
	for (int i = 0; i < 4; i++) {
		loop_region(perf_fd, step_n);
		loop_region(perf_fd, step_n);
		if (i == 2) {
			struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT,
						  .data.u64 = PERF_TAG };

			epoll_ctl(ep, EPOLL_CTL_MOD, perf_fd, &ev);
		}
		if (wait_tag(ep, 0, PERF_TAG) == EPOLLIN)
			m |= 1u << i;
	}
	printf("oneshot=%u\n", m);
	close(ep);

	/* no ring: perf_poll() answers EPOLLHUP, whatever was asked */
	nomap = open_sampler(period, w, 0, 0);
	ep = epoll_create1(0);
	add(ep, nomap, EPOLLIN, NOMAP_TAG);
	printf("nomap_events=%u\n", wait_tag(ep, 0, NOMAP_TAG));
	printf("nomap_lt=%u\n", mask_of(ep, 3, NOMAP_TAG));
	close(ep);
	ep = epoll_create1(0);
	add(ep, nomap, EPOLLIN | EPOLLET, NOMAP_TAG);
	printf("nomap_et=%u\n", mask_of(ep, 3, NOMAP_TAG));
	close(ep);

	/* a child's event: EPOLLHUP once the child exited
	 * (perf_event_exit_task, before the parent's wait4 returns) */
	if (pipe(go))
		printf("pipe=failed\n");
	pid = fork();
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(go[0]);
	child_fd = open_sampler(period, w, 1, pid);
	ep = epoll_create1(0);
	add(ep, child_fd, EPOLLIN, CHILD_TAG);
	{
		int ep_et = epoll_create1(0);

		add(ep_et, child_fd, EPOLLIN | EPOLLET, CHILD_TAG);
		uint32_t hup;

		printf("child_before=%u\n", wait_tag(ep, 0, CHILD_TAG));
		signal(SIGCHLD, on_chld);
		close(go[1]);           /* the child exits */
		/* EPOLLHUP from perf_event_exit_task(), then exit_notify():
		 * SIGCHLD, and wait4 finds the zombie (polled without sleeping,
		 * as perf test 24 does) */
		while (!(hup = wait_tag(ep, 0, CHILD_TAG)))
			;
		printf("child_hup_first=%u\n", hup);
		printf("child_sigchld_with_hup=%d\n", got_chld && waitpid(pid, &st, WNOHANG) == pid);
		printf("child_hup=%u\n", wait_tag(ep, 0, CHILD_TAG));
		printf("child_hup_lt=%u\n", mask_of(ep, 2, CHILD_TAG));
		printf("child_hup_et=%u\n", mask_of(ep_et, 2, CHILD_TAG));
		close(ep_et);
	}
	close(ep);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || pipe2(pipefd, O_NONBLOCK))
		return 2;
	if (!strcmp(argv[1], "perf") && argc > 3) {
		unsigned long long period = strtoull(argv[2], NULL, 0);
		unsigned w = (unsigned)strtoul(argv[3], NULL, 0);

		/* 3P instructions a step: mov + N x (dec, jnz) + 5 = 2N + 6 */
		step_n = (3 * period - 6) / 2;
		perf_fd = open_sampler(period, w, 1, 0);
		if (perf_fd < 0) {
			printf("open_errno=%d\n", errno);
			return 1;
		}
	} else if (strcmp(argv[1], "pipe")) {
		return 2;
	}
	pipe_half();
	if (perf_fd >= 0)
		perf_half(strtoull(argv[2], NULL, 0), (unsigned)strtoul(argv[3], NULL, 0));
	printf("bad_data=%d\n", bad_data);
	return 0;
}
