/*
 * process_forkexec.c - guest program: fork+exec+wait, vfork+exec, posix_spawn,
 * exit statuses and deaths by signal seen through wait4, execve errnos.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* An address the compiler cannot see through. */
static volatile int *bad_ptr(uintptr_t a)
{
	volatile uintptr_t v = a;

	return (volatile int *)v;
}

static void report(const char *what, int st)
{
	if (WIFEXITED(st))
		printf("%s: exited %d\n", what, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("%s: killed by %d\n", what, WTERMSIG(st));
	else
		printf("%s: status %#x\n", what, st);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int st;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		printf("child argv0=%s argc=%d\n", argv[0], argc);
		return 7;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/bin/echo", "echo", "hello", "from", "exec", (char *)NULL);
		_exit(99);
	}
	waitpid(pid, &st, 0);
	report("fork+exec echo", st);

	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "renamed-self", "child", (char *)NULL);
		_exit(98);
	}
	waitpid(pid, &st, 0);
	report("fork+exec self", st);

	pid = vfork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "echo from sh; exit 3", (char *)NULL);
		_exit(97);
	}
	waitpid(pid, &st, 0);
	report("vfork+exec sh", st);

	pid = fork();
	if (pid == 0) {
		kill(getpid(), SIGTERM);
		_exit(96);
	}
	waitpid(pid, &st, 0);
	report("child kill self", st);

	pid = fork();
	if (pid == 0) {
		*bad_ptr(16) = 1;
		_exit(95);
	}
	waitpid(pid, &st, 0);
	report("child segv", st);

	{
		char *args[] = { "sh", "-c", "exit 5", NULL };

		if (posix_spawn(&pid, "/bin/sh", NULL, NULL, args, environ) == 0) {
			waitpid(pid, &st, 0);
			report("posix_spawn sh", st);
		}
	}
	/* (posix_spawn of a missing program is left out: its child reports the
	 * error through memory shared by CLONE_VM|CLONE_VFORK, which pmusim,
	 * like qemu-user, runs as a fork: docs/machine-signals-threads.md) */
	{
		char *args[] = { "x", NULL };

		execve("/nonexistent/prog", args, environ);
		printf("execve missing: %s\n", strerror(errno));
		execve("/etc/passwd", args, environ);
		printf("execve not executable: %s\n", strerror(errno));
		execve("/etc", args, environ);
		printf("execve directory: %s\n", strerror(errno));
	}
	return 0;
}
