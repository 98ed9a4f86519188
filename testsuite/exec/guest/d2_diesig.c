/*
 * d2_diesig.c - guest program that ends by a signal: argv[1] names how
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
	}
	printf("still alive\n");
	return 0;
}
