/*
 * signals_sigalrm.c - guest program: SIGALRM from setitimer, taken in pause(),
 * in a compute loop without syscalls, and by a restarted read (SA_RESTART);
 * the interrupted code's FP/SSE state survives the handler.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t hits;

static void on_alrm(int sig)
{
	volatile double x = 1.0;

	(void)sig;
	for (int i = 0; i < 100; i++)
		x = x * 3.0 + 1.0;   /* clobbers xmm registers */
	hits++;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
	double acc = 0.0;
	int fds[2];
	char c;
	ssize_t n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alrm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	while (hits < 3)
		pause();
	printf("pause: at least 3 alarms: %s\n", hits >= 3 ? "yes" : "no");

	hits = 0;
	for (unsigned long i = 1; hits < 3; i++)
		acc += 1.0 / (double)i;        /* no syscall in this loop */
	printf("compute loop interrupted: %s, acc finite: %s\n",
	       hits >= 3 ? "yes" : "no", acc > 1.0 ? "yes" : "no");

	/* without SA_RESTART a blocking read fails with EINTR */
	pipe(fds);
	n = read(fds[0], &c, 1);
	printf("read without SA_RESTART: %zd %s\n", n, n < 0 ? strerror(errno) : "");

	/* with SA_RESTART it is restarted; a later writer completes it */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	hits = 0;
	if (fork() == 0) {
		usleep(60000);
		write(fds[1], "z", 1);
		_exit(0);
	}
	n = read(fds[0], &c, 1);
	printf("read with SA_RESTART: %zd '%c' after alarms: %s\n", n, c, hits > 0 ? "yes" : "no");
	it.it_value.tv_usec = 0;
	it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	alarm(0);
	return 0;
}
