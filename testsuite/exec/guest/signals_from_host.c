/*
 * signals_from_host.c - guest program for signals that come from outside: a
 * SIGCHLD from an exiting child, then SIGINT from the shell (it creates
 * the file "ready" once its handlers are in place and waits in a compute
 * loop without syscalls, then in pause()); a second SIGINT after the
 * handler is reset to SIG_DFL kills it, as it would kill the native program.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t ints, chlds;

static void on_int(int sig)
{
	(void)sig;
	ints++;
}

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	if (si->si_code == CLD_EXITED && si->si_status == 9)
		chlds++;
}

int main(void)
{
	struct sigaction sa;
	sigset_t chld, old;
	unsigned long spin = 0;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_chld;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	/* SIGCHLD blocked until sigsuspend: a check of chlds followed by
	 * pause() would sleep forever if the signal came in between */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	if (fork() == 0)
		_exit(9);
	while (!chlds)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	wait(NULL);
	printf("SIGCHLD with CLD_EXITED status 9: %d\n", (int)chlds);
	fflush(stdout);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, NULL);
	fd = open("ready", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	while (!ints)
		spin++;                        /* no syscall: delivered at a block boundary */
	printf("SIGINT taken in a compute loop: %d\n", (int)ints);
	fflush(stdout);
	signal(SIGINT, SIG_DFL);
	unlink("ready");
	fd = open("ready2", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	for (;;)
		pause();
}
