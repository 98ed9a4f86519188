/*
 * poll_signal.c - a wait on a perf fd ends on a signal: poll() for POLLIN
 * on an event's empty ring, with no timeout, is interrupted by SIGALRM
 * (do_poll(): signal_pending -> -ERESTARTNOHAND -> EINTR after the
 * handler ran). Prints "poll=-1 errno=EINTR handled=1".
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
	(void)sig;
	handled = 1;
}

int main(void)
{
	struct perf_event_attr a;
	struct sigaction sa;
	struct pollfd p;
	void *ring;
	int fd, r;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	a.wakeup_events = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return 1;
	ring = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;       /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	p.fd = fd;
	p.events = POLLIN;
	r = poll(&p, 1, -1);
	printf("poll=%d errno=%s handled=%d\n", r, r < 0 && errno == EINTR ? "EINTR" : "other",
	       (int)handled);
	return 0;
}
