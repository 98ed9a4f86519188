/*
 * a64_exec.c - guest program: fork+execve, vfork+execve and posix_spawn
 * of an AArch64 program (argv[1]) and of the host's x86-64 /bin/echo,
 * with the exit statuses seen through waitpid. PMUSIM_TEST_EXEC_PREFIX, when
 * set, is a program to run AArch64 children under (the oracle's
 * qemu-aarch64, where the host kernel cannot run them itself).
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void run_a64(char *prog, char *arg)
{
	char *pre = getenv("PMUSIM_TEST_EXEC_PREFIX");
	char *with[] = { pre, prog, arg, NULL };
	char *plain[] = { prog, arg, NULL };

	if (pre && *pre)
		execve(pre, with, environ);
	else
		execve(prog, plain, environ);
	_exit(127);
}

int main(int argc, char **argv)
{
	int st;
	pid_t pid;
	char *echo[] = { "echo", "x86-64 echo from an AArch64 parent", NULL };

	if (argc < 2)
		return 2;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		run_a64(argv[1], "forked");
	waitpid(pid, &st, 0);
	printf("fork+exec aarch64: exited %d status %d\n", WIFEXITED(st), WEXITSTATUS(st));
	fflush(stdout);
	pid = vfork();
	if (pid == 0) {
		execve("/bin/echo", echo, environ);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	printf("vfork+exec x86-64: exited %d status %d\n", WIFEXITED(st), WEXITSTATUS(st));
	fflush(stdout);
	if (posix_spawn(&pid, "/bin/sh", NULL, NULL,
			(char *[]){ "sh", "-c", "echo spawned sh; exit 5", NULL }, environ) == 0) {
		waitpid(pid, &st, 0);
		printf("posix_spawn sh: status %d\n", WEXITSTATUS(st));
	}
	return 0;
}
