/*
 * signals_storm.c - guest program: a SIGALRM every 200 us (setitimer) over a
 * syscall-free loop of recursive calls, the case where Unicorn 2.0.1's
 * stock exit paths re-ran half-done blocks (docs/machine-signals-threads.md,
 * "Stopping a running guest"). Every alarm must interrupt the loop promptly
 * and leave it exact: the sum is checked against a second, signal-free pass,
 * and the handler's own recursion checks its stack.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t hits, handler_bad;

__attribute__((noinline)) static unsigned long f(unsigned long x, int d)
{
	return d == 0 ? x * 2654435761u : f(x + (unsigned long)d, d - 1) ^ (x << 3);
}

static void on_alrm(int sig)
{
	(void)sig;
	if (f(7, 5) != f(7, 5))   /* recursion inside the handler too */
		handler_bad = 1;
	hits++;
}

static unsigned long pass(unsigned long n)
{
	unsigned long sum = 0;

	for (unsigned long i = 0; i < n; i++)
		sum += f(i, (int)(i % 7));
	return sum;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval on = { { 0, 200 }, { 0, 200 } }, off;
	unsigned long with, without;
	volatile unsigned long n = 2000000;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alrm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &on, NULL);
	with = pass(n);
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	without = pass(n);
	printf("sums equal: %s\n", with == without ? "yes" : "no");
	printf("alarms taken during the loop: %s\n", hits >= 20 ? "at least 20" : "too few");
	printf("handler state: %s\n", handler_bad ? "bad" : "ok");
	return with == without && hits >= 20 && !handler_bad ? 0 : 1;
}
