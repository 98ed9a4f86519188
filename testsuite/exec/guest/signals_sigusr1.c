/*
 * signals_sigusr1.c - guest program: SIGUSR1 to self (raise = tgkill, kill),
 * siginfo contents, masks (blocked signals stay pending, rt_sigpending,
 * delivery on unblock), sigsuspend's mask, SA_RESETHAND, SA_NODEFER
 * nesting, sa_mask, sigtimedwait, real-time signal queueing and order.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int depth, maxdepth, count, raises;
static int last_code, last_pid_ok;
static int order[16], norder;

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	count++;
	last_code = si->si_code;
	last_pid_ok = si->si_pid == getpid();
	if (si->si_signo != sig)
		printf("bad si_signo\n");
}

static void on_nested(int sig)
{
	depth++;
	if (depth > maxdepth)
		maxdepth = depth;
	if (raises < 2) {
		raises++;
		raise(sig);
	}
	depth--;
}

static void on_rt(int sig)
{
	if (norder < 16)
		order[norder++] = sig;
}

static void on_mask_check(int sig)
{
	sigset_t cur;

	(void)sig;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("in handler: USR1 blocked %d, USR2 blocked %d, TERM blocked %d\n",
	       sigismember(&cur, SIGUSR1), sigismember(&cur, SIGUSR2),
	       sigismember(&cur, SIGTERM));
}

int main(void)
{
	struct sigaction sa, old;
	sigset_t set, pend, oldset;
	siginfo_t si;
	struct timespec ts = { 0, 1000000 };

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_info;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);

	raise(SIGUSR1);
	printf("raise: count %d si_code %d (SI_TKILL %d) pid ok %d\n", count, last_code, SI_TKILL, last_pid_ok);
	kill(getpid(), SIGUSR1);
	printf("kill: count %d si_code %d (SI_USER %d) pid ok %d\n", count, last_code, SI_USER, last_pid_ok);
	{
		union sigval v = { .sival_int = 42 };

		sigqueue(getpid(), SIGUSR1, v);
		printf("sigqueue: count %d si_code %d (SI_QUEUE %d)\n", count, last_code, SI_QUEUE);
	}

	/* blocked: pending, then delivered on unblock */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &oldset);
	kill(getpid(), SIGUSR1);
	sigpending(&pend);
	printf("blocked: count %d pending %d\n", count, sigismember(&pend, SIGUSR1));
	sigprocmask(SIG_SETMASK, &oldset, NULL);
	printf("unblocked: count %d\n", count);

	/* sigsuspend: wakes with the handler run, then the old mask is back */
	sigprocmask(SIG_BLOCK, &set, &oldset);
	kill(getpid(), SIGUSR1);
	{
		sigset_t wait;
		int r;

		sigemptyset(&wait);
		r = sigsuspend(&wait);
		sigprocmask(SIG_BLOCK, NULL, &pend);
		printf("sigsuspend: ret %d errno %s count %d USR1 blocked after %d\n",
		       r, strerror(errno), count, sigismember(&pend, SIGUSR1));
	}
	sigprocmask(SIG_SETMASK, &oldset, NULL);

	/* sigtimedwait takes a blocked pending signal without its handler */
	sigprocmask(SIG_BLOCK, &set, &oldset);
	kill(getpid(), SIGUSR1);
	{
		int r = sigtimedwait(&set, &si, &ts);

		printf("sigtimedwait: %d count %d\n", r, count);
		r = sigtimedwait(&set, &si, &ts);
		printf("sigtimedwait empty: %d %s\n", r, strerror(errno));
	}
	sigprocmask(SIG_SETMASK, &oldset, NULL);

	/* sa_mask and the signal itself are blocked in the handler */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_mask_check;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);

	/* SA_NODEFER lets the handler nest */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_nested;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);
	printf("nodefer: max depth %d\n", maxdepth);
	maxdepth = 0;
	raises = 0;
	sa.sa_flags = 0;
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);
	printf("defer: max depth %d\n", maxdepth);

	/* SA_RESETHAND: one shot, then SIG_DFL */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_info;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	sigaction(SIGUSR1, NULL, &old);
	printf("resethand: now default %d flags siginfo %d\n", old.sa_handler == SIG_DFL,
	       !!(old.sa_flags & SA_SIGINFO));

	/* real-time signals queue; delivery is lowest number first */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_rt;
	sigaction(SIGRTMIN + 2, &sa, NULL);
	sigaction(SIGRTMIN + 1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 2);
	sigaddset(&set, SIGRTMIN + 1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, &oldset);
	raise(SIGRTMIN + 2);
	raise(SIGRTMIN + 2);
	raise(SIGRTMIN + 1);
	raise(SIGUSR2);
	raise(SIGUSR2);
	sigprocmask(SIG_SETMASK, &oldset, NULL);
	printf("order:");
	for (int i = 0; i < norder; i++)
		printf(" %d", order[i] >= SIGRTMIN ? 100 + order[i] - SIGRTMIN : order[i]);
	printf("\n");

	/* errnos of the calls */
	{
		int r;

		r = sigaction(SIGKILL, &sa, NULL);
		printf("sigaction SIGKILL: %d %s\n", r, strerror(errno));
		r = sigaction(0, &sa, NULL);
		printf("sigaction 0: %d %s\n", r, strerror(errno));
		r = sigaction(65, &sa, NULL);
		printf("sigaction 65: %d %s\n", r, strerror(errno));
		r = sigprocmask(7, &set, NULL);
		printf("sigprocmask bad how: %d %s\n", r, strerror(errno));
		r = kill(getpid(), 99);
		printf("kill bad sig: %d %s\n", r, strerror(errno));
	}
	return 0;
}
