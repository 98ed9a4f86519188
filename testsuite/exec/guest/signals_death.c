/*
 * signals_death.c - guest program that ends by a signal: argv[1] names how
 * (term: kill(SIGTERM); abort; segv: NULL write without handler; usr1:
 * SIGUSR1 raised while a handler has SA_RESETHAND: the second one kills;
 * blocked-segv: SIGSEGV blocked and faulting anyway; exit: exit code 3 from
 * a second thread-free path).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An address the compiler cannot see through. */
static volatile int *bad_ptr(uintptr_t a)
{
	volatile uintptr_t v = a;

	return (volatile int *)v;
}

static void once(int sig)
{
	(void)sig;
	printf("handler once\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "term";

	printf("dying by %s\n", how);
	fflush(stdout);
	if (!strcmp(how, "term")) {
		kill(getpid(), SIGTERM);
	} else if (!strcmp(how, "abort")) {
		abort();
	} else if (!strcmp(how, "segv")) {
		*bad_ptr(8) = 1;
	} else if (!strcmp(how, "usr1")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = once;
		sa.sa_flags = SA_RESETHAND;
		sigaction(SIGUSR1, &sa, NULL);
		raise(SIGUSR1);
		raise(SIGUSR1);
	} else if (!strcmp(how, "blocked-segv")) {
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, SIGSEGV);
		sigprocmask(SIG_BLOCK, &s, NULL);
		*bad_ptr(8) = 1;
	} else if (!strcmp(how, "ignored-segv")) {
		signal(SIGSEGV, SIG_IGN);
		*bad_ptr(8) = 1;
	} else if (!strcmp(how, "exit")) {
		exit(3);
	} else if (!strcmp(how, "pending-exec")) {
		/* pending and blocked signals, SIG_IGN and the mask survive
		 * execve; handlers do not (flush_signal_handlers()) */
		sigset_t s;

		signal(SIGUSR2, once);
		signal(SIGHUP, SIG_IGN);
		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		sigaddset(&s, SIGQUIT);
		sigprocmask(SIG_BLOCK, &s, NULL);
		raise(SIGUSR1);
		execl("/proc/self/exe", "signals_death", "pending-child", (char *)NULL);
		printf("exec failed\n");
	} else if (!strcmp(how, "pending-child")) {
		sigset_t s, p;
		struct sigaction sa;

		sigprocmask(SIG_BLOCK, NULL, &s);
		sigpending(&p);
		printf("after exec: USR1 blocked %d pending %d, QUIT blocked %d\n",
		       sigismember(&s, SIGUSR1), sigismember(&p, SIGUSR1), sigismember(&s, SIGQUIT));
		sigaction(SIGUSR2, NULL, &sa);
		printf("USR2 handler reset to SIG_DFL: %d\n", sa.sa_handler == SIG_DFL);
		sigaction(SIGHUP, NULL, &sa);
		printf("HUP still ignored: %d\n", sa.sa_handler == SIG_IGN);
		fflush(stdout);
		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
	}
	printf("still alive\n");
	return 0;
}
